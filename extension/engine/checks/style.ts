/**
 * Passive voice and wordy phrases, which Harper has no rules for: retext-passive and
 * retext-simplify over the text as retext-english parses it. Their transforms are called directly
 * with a stand-in for the file they report to, so no unified pipeline or vfile is built per
 * paragraph (the parse is the only cost: about a millisecond per paragraph).
 */
import { unified, type Processor } from 'unified';
import retextEnglish from 'retext-english';
import retextPassive from 'retext-passive';
import retextSimplify from 'retext-simplify';

export interface StyleFinding {
  family: 'passive-voice' | 'wordy-phrase';
  start: number;
  end: number;
  message: string;
  /** The phrase the rule matched ("in order to", "thrown"). */
  phrase: string;
  /** retext-simplify's replacements; [] for the passive voice. */
  replacements: string[];
}

interface Point {
  offset?: number;
}
interface Reported {
  reason: string;
  place?: { start: Point; end: Point };
  source?: string;
  ruleId?: string;
  actual?: string;
  expected?: string[];
}
type Transform = (tree: unknown, file: unknown) => void;

const BE = /\b(?:am|are|were|being|is|been|was|be)\s+$/i;

export class StyleChecker {
  private readonly parser: Processor;
  private readonly passive: Transform;
  private readonly simplify: Transform;

  constructor() {
    this.parser = unified().use(retextEnglish) as unknown as Processor;
    this.passive = retextPassive() as unknown as Transform;
    this.simplify = retextSimplify() as unknown as Transform;
  }

  /**
   * The findings of several paragraphs, parsed as one text (blank lines between them): the plugins
   * build their phrase index on every run, so one run per batch instead of one per paragraph takes
   * a third of the time.
   */
  checkMany(texts: readonly string[]): StyleFinding[][] {
    const joined = texts.join('\n\n');
    const out: StyleFinding[][] = texts.map(() => []);
    const starts: number[] = [];
    let at = 0;
    for (const t of texts) {
      starts.push(at);
      at += t.length + 2;
    }
    let k = 0;
    for (const f of this.check(joined)) {
      while (k + 1 < starts.length && starts[k + 1] <= f.start) k++;
      const end = starts[k] + texts[k].length;
      if (f.end > end) continue; // across paragraphs: cannot happen with a blank line between them
      out[k].push({ ...f, start: f.start - starts[k], end: f.end - starts[k] });
    }
    return out;
  }

  check(text: string): StyleFinding[] {
    const reported: Reported[] = [];
    const file = {
      message(reason: string, options: Omit<Reported, 'reason'>) {
        const m: Reported = { reason, ...options };
        reported.push(m);
        return m;
      },
    };
    const tree = this.parser.parse(text);
    this.passive(tree, file);
    this.simplify(tree, file);
    const out: StyleFinding[] = [];
    for (const m of reported) {
      let start = m.place?.start.offset;
      const end = m.place?.end.offset;
      if (start === undefined || end === undefined || end <= start) continue;
      if (m.source === 'retext-passive') {
        // The finding covers "was thrown", not only "thrown": the form of "to be" is half of it.
        const be = BE.exec(text.slice(Math.max(0, start - 12), start));
        if (be) start -= be[0].length;
        const phrase = text.slice(start, end);
        out.push({
          family: 'passive-voice',
          start,
          end,
          phrase,
          message: `Passive voice: “${phrase}” hides who acts; consider the active voice.`,
          replacements: [],
        });
      } else {
        const phrase = m.actual ?? text.slice(start, end);
        const replacements = (m.expected ?? []).filter((r) => r.length > 0);
        out.push({
          family: 'wordy-phrase',
          start,
          end,
          phrase,
          message:
            replacements.length > 0
              ? `Wordy: “${phrase}” could be ${replacements.map((r) => `“${r}”`).join(' or ')}.`
              : `Wordy: “${phrase}” can often be left out.`,
          replacements,
        });
      }
    }
    return out.sort((a, b) => a.start - b.start);
  }
}
