/**
 * The cache of the last prompt read, kept so that the next prompt that starts the same way reads
 * only what is new. A writer continues the same story again and again, and an inline suggestion
 * is asked for at each pause in typing: the text before the cursor is mostly the text read last
 * time. Reading a 500-word prompt costs seconds on a laptop CPU at 135M parameters and more above;
 * the tokens after the common beginning cost a fraction of that.
 *
 * The cached state is never changed in place (the step model returns new tensors, and a cut is a
 * copy; llama.cpp's states are token lists over its own cache), so a state handed out stays valid
 * while the next request replaces the cache. Reading the
 * same prompt again gives the very same state, so a seed writes the same text; a prompt that shares
 * only a beginning is read in other chunks than a fresh read, which changes the last bits of the
 * logits, not the text's distribution.
 */
import type { CausalSteps } from './causalLm';

export class PrefixCache<S = unknown> {
  private ids: readonly number[] = [];
  private state: S | undefined;

  constructor(private readonly step: CausalSteps<S>) {}

  /** How many tokens of `ids` the last read shares from its start. */
  private shared(ids: readonly number[]): number {
    const n = Math.min(ids.length, this.ids.length);
    let i = 0;
    while (i < n && ids[i] === this.ids[i]) i++;
    return i;
  }

  /**
   * The cache after `ids`: what the last read shares with them, then the rest through the model.
   * `reused` is how many tokens were not read again.
   */
  async read(ids: readonly number[]): Promise<{ state: S; reused: number }> {
    const reused = this.state ? this.shared(ids) : 0;
    let state = reused > 0 ? this.step.truncate(this.state!, reused) : this.step.initial();
    if (ids.length > reused) state = (await this.step.run(ids.slice(reused), state)).state;
    this.ids = [...ids];
    this.state = state;
    return { state, reused };
  }

  /** Forgets the last read (its memory goes with it). */
  clear(): void {
    this.ids = [];
    this.state = undefined;
  }
}
