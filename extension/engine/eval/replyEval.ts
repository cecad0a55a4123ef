/**
 * `draftsmith eval reply`: NRM against ESED on held-out posts, in the shape of the ESED paper's
 * Tables I and IV (Diversity and Substantiality of the top-1 and the top-5 replies, BLEU of the
 * top-1 against the reference reply), plus Table VI's shape: one post under each key mapper.
 *   top-1  the best-ranked candidate (ESED: over the post's keys; NRM: the beam's best)
 *   top-5  the first five candidates (ESED: five keys; NRM: the beam's five best hypotheses)
 * ESED reads the post's keys by identity (a key the memory lacks by its neighbour); a post with no
 * key the memory holds falls back to the key whose block holds the row nearest the post (its count
 * is printed). Posts are the test split's first N with the sources taking turns. Scored with the
 * TypeScript metrics: diversity (unique / all tokens), substantiality (entity words per sentence),
 * corpus BLEU (sacreBLEU 13a). The split is written by python3 -m draftsmith_train.reply prepare.
 */
import { z } from 'zod';
import type { ReplyCandidate, ReplyMapper } from '../../protocol';
import { corpusBleu } from '../metrics/bleu';
import { diversity } from '../metrics/diversity';
import { substantiality } from '../metrics/substantiality';
import { silentRun } from '../systems/context';
import { maxLengthHit } from '../systems/lengthLimit';
import type { ReplySystem } from '../systems/reply';
import { loadSystem } from '../systems/registry';
import { singleFolder } from '../runtime/modelSource';
import { semanticKeys } from '../text/keys';
import { analyse } from '../text/nlp';
import { readSplit, takeTurns, type EvalOptions } from './testSplit';

export const ReplyRow = z.object({ source: z.string(), dialogue: z.string(), post: z.string(), reply: z.string() });
export type ReplyRow = z.infer<typeof ReplyRow>;

export interface ReplyEvalOptions extends EvalOptions {
  /** Posts shown under every mapper (Table VI's shape). */
  examples: number;
}

interface Line {
  model: string;
  n: number;
  fallback: number;
  div1: number;
  div5: number;
  sub1: number;
  sub5: number;
  bleu: number;
  ms: number;
}

/** The first five candidates of one post (ESED falls back to the nearest block when no key maps). */
async function candidatesFor(
  system: ReplySystem,
  post: string,
  guards: boolean | undefined,
): Promise<{ candidates: ReplyCandidate[]; fellBack: boolean }> {
  const r = await system.run({ op: 'reply', text: post, maxCandidates: 5, guards }, silentRun);
  if (r.candidates.length > 0 || system.variant === 'nrm') return { candidates: r.candidates, fellBack: false };
  const ids = system.tokenize(post);
  const encoded = await system.encode(ids);
  const key = system.nearestBlocks(encoded, 1)[0];
  const best = (
    await system.decode(encoded, system.read(encoded, key).read, undefined, {}, system.guardFor(post, guards))
  )[0];
  return {
    candidates: best
      ? [
          {
            text: system.detokenize(best.tokens),
            key,
            from: '',
            mapper: 'none',
            label: `${key} — nearest block`,
            score: best.score,
            tokens: best.tokens.length,
            hitMaxLength: maxLengthHit(best, system.lengthLimitFor(undefined)),
            readWeights: null,
            example: null,
          },
        ]
      : [],
    fellBack: true,
  };
}

export async function runReplyEval(opts: ReplyEvalOptions, log: (m: string) => void): Promise<string> {
  const rows = takeTurns(await readSplit('reply', opts.dataDir, ReplyRow), opts.limit);
  const lines: Line[] = [];
  const systems: { name: string; system: ReplySystem }[] = [];
  for (const v of opts.variants) {
    const system = await loadSystem('reply', singleFolder(v.dir), opts.runtime);
    systems.push({ name: v.name, system });
    const top1: string[] = [];
    const top5: string[] = [];
    let fallback = 0;
    const t0 = performance.now();
    for (const [i, row] of rows.entries()) {
      const { candidates, fellBack } = await candidatesFor(system, row.post, opts.guards);
      if (fellBack) fallback++;
      top1.push(candidates[0]?.text ?? '');
      opts.dump?.({
        system: 'reply',
        variant: v.name,
        id: `${row.source}:${row.dialogue}#${i}`,
        domain: row.source,
        source: row.post,
        output: top1[i],
        references: [row.reply],
      });
      top5.push(...candidates.slice(0, 5).map((c) => c.text));
      if ((i + 1) % 50 === 0) log(`${v.name}: ${i + 1}/${rows.length}`);
    }
    const sub = (texts: string[]) => substantiality(texts.filter(Boolean).map((t) => analyse(t))).perSentence;
    lines.push({
      model: `${v.name} (${system.variant}, ${system.name}${opts.guards === false ? ', no guards' : ''})`,
      n: rows.length,
      fallback,
      div1: diversity(top1).diversity,
      div5: diversity(top5).diversity,
      sub1: sub(top1),
      sub5: sub(top5),
      bleu: corpusBleu(top1, [rows.map((r) => r.reply)]).score,
      ms: (performance.now() - t0) / Math.max(1, rows.length),
    });
  }
  const out = [
    '| Model | Diversity top-1 | Diversity top-5 | Substantiality top-1 | Substantiality top-5 | BLEU | posts ' +
      '(fallback) | ms/post |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
    ...lines.map(
      (l) =>
        `| ${l.model} | ${l.div1.toFixed(3)} | ${l.div5.toFixed(3)} | ${l.sub1.toFixed(3)} | ` +
        `${l.sub5.toFixed(3)} | ${l.bleu.toFixed(2)} | ${l.n} (${l.fallback}) | ${l.ms.toFixed(0)} |`,
    ),
    '',
    `Test split, ${rows.length} posts, the sources taking turns ` +
      `(${[...new Set(rows.map((r) => r.source))].join(', ')}). Diversity: unique / all tokens ` +
      ('over the outputs together; Substantiality: entity words per sentence (wink-nlp entities, proper nouns, ' +
        'WordNet compounds); ') +
      ('BLEU: corpus BLEU of the top-1 against the reference reply (sacreBLEU 13a). Top-5: the first five ' +
        'candidates (ESED: five keys; NRM: ') +
      ("the beam's five best). Fallback: ESED posts without a key the memory holds, answered with the nearest " +
        "block's key."),
    '',
  ];
  const esed = systems.find((s) => s.system.variant === 'esed');
  if (esed && opts.examples > 0) out.push(...(await mapperExamples(esed.system, rows, opts.examples, opts.guards)));
  return out.join('\n');
}

/** Table VI's shape: posts whose key maps under every mapper (the first found), the reply under each. */
async function mapperExamples(
  system: ReplySystem,
  rows: readonly ReplyRow[],
  n: number,
  guards: boolean | undefined,
): Promise<string[]> {
  const mappers: ReplyMapper[] = ['identity', 'synonym', 'antonym', 'neighbour'];
  const out = ['| Post | Mapper | Key | Reply |', '|---|---|---|---|'];
  const cell = (t: string) => t.replace(/\|/g, '\\|');
  let shown = 0;
  for (const row of rows) {
    if (shown >= n) break;
    const key = semanticKeys(row.post).find((k) => mappers.every((m) => system.mapper.map(k, m) !== null));
    if (!key) continue;
    shown++;
    const encoded = await system.encode(system.tokenize(row.post));
    for (const mapper of mappers) {
      const m = system.mapper.map(key, mapper);
      if (!m) {
        out.push(`| ${cell(row.post)} | ${mapper} | ${key.lemma} → (none in the memory) | |`);
        continue;
      }
      const best = (
        await system.decode(encoded, system.read(encoded, m.key).read, undefined, {}, system.guardFor(row.post, guards))
      )[0];
      out.push(`| ${cell(row.post)} | ${mapper} | ${m.label} | ${cell(best ? system.detokenize(best.tokens) : '')} |`);
    }
  }
  return [...out, ''];
}
