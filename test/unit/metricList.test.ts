// The metric list (extension/engine/eval/metricList.ts): every field of CorpusScores has one complete
// entry, and every entry reaches every place a metric shows (the CLI's table, the folder's columns,
// CSV and JSON, the signatures); the one aggregation gives a folder's totals equal to scoring all the
// pairs together; a BLEU smoothing value applies to floor and add-k only, as in sacreBLEU. Every
// metric `draftsmith score` offers says its -m names, its help and its flags, and each flag's stated
// default and signature field are what the metric does.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CorpusScores, type FolderScores } from '../../extension/protocol';
import {
  formatValue,
  METRIC_CLIS,
  METRIC_FLAGS,
  METRIC_KEYS,
  METRICS,
  namedMetric,
  poolScores,
  scoreSignatures,
  shownMetrics,
  signaturesOf,
  type MetricKey,
} from '../../extension/engine/eval/metricList';
import { bleuOptionsOf, type MetricOptions } from '../../extension/engine/eval/scoreOptions';
import { columnsOf, folderCsv, folderJson } from '../../extension/engine/eval/folderTable';
import { scoreCorpus } from '../../extension/engine/eval/scoreDraft';
import { pooledPerplexity } from '../../extension/engine/metrics/perplexity';
import { bertScoreSignature } from '../../extension/engine/metrics/signature';
import { scoreRows } from '../../extension/cli/scoreCommand';
import { COMMANDS } from '../../extension/cli/commands';
import type { FlagSpec, MetricCli } from '../../extension/engine/eval/metricFlags';

const PAIRS = [
  {
    hypothesis: 'The council opened the new bridge in Riverton on Saturday. Residents cheered teh mayor.',
    reference: 'On Saturday the council of Riverton opened a new bridge. The mayor was cheered by residents.',
  },
  { hypothesis: 'Rain closed the harbour road.', reference: 'Heavy rain closed the harbour road on Friday.' },
  {
    hypothesis: 'Volunteers will run a reading hour. The library opens on Sundays.',
    reference: 'The library will open on Sundays. Volunteers will run a reading hour for children.',
  },
];
/**
 * Score Draft's options that turn a metric on from the command line: -m naming it, or one of its
 * switches (--nonwords); undefined when neither does.
 */
function turnedOn(key: MetricKey): MetricOptions | undefined {
  const { option, cli } = METRICS[key];
  if (!cli) return undefined;
  const switches = [undefined, ...cli.flags.filter((f) => f.kind === 'flag').map((f) => f.name)];
  for (const name of switches) {
    try {
      const o = cli.read((n) => (n === name ? 'true' : undefined)).options(true);
      if (option?.(o) ?? true) return o;
    } catch {
      // a switch this metric refuses with -m (a folder's chrF takes no other option): try the next
    }
  }
  return undefined;
}
/** Every option that adds a metric: the list's own, and the two a model computes (outside the list). */
const ALL: MetricOptions = Object.assign(
  {},
  ...METRIC_KEYS.filter((k) => METRICS[k].option && !('external' in METRICS[k].scoring)).map((k) => turnedOn(k) ?? {}),
  { perplexity: true, bertscore: { model: { kind: 'hub', id: 'Xenova/all-MiniLM-L6-v2' } } },
);
/** What the story model gives a draft (perplexity is computed by a model, outside the list). */
const perplexityOf = (i: number) => pooledPerplexity([{ nll: 20 + i, tokens: 10 + i, words: 8 + i }], 'story');
/** What an encoder gives a draft (BERTScore is computed by a model, outside the list). */
const bertscoreOf = (i: number) => ({
  precision: 0.9 - i / 100,
  recall: 0.8 + i / 100,
  f1: 0.85,
  model: 'Xenova/all-MiniLM-L6-v2',
  layer: 6,
  idf: false,
  dtype: 'fp32',
  signature: bertScoreSignature({ model: 'Xenova/all-MiniLM-L6-v2', layer: 6, idf: false, dtype: 'fp32' }),
});

/** Each pair scored alone, as Score Drafts in Folder's rows, with every metric. */
const rows = PAIRS.map((p, i) => ({
  ...scoreCorpus([p], ALL),
  perplexity: perplexityOf(i),
  bertscore: bertscoreOf(i),
}));
const totals = poolScores(PAIRS, rows, ALL);
const folder: FolderScores = {
  source: 'drafts',
  referenceSource: 'references',
  rows: rows.map((scores, i) => ({ name: `draft ${i + 1}`, scores })),
  totals,
  unpaired: [],
  cancelled: false,
  paired: rows.length,
  signatures: scoreSignatures(ALL),
  elapsedMs: 0,
};

test('every field of CorpusScores but pairs has an entry in the metric list, and every entry a field', () => {
  const fields = Object.keys(CorpusScores.shape).filter((k) => k !== 'pairs');
  for (const f of fields) assert.ok(f in METRICS, `CorpusScores.${f} has no entry in eval/metricList.ts METRICS`);
  for (const k of METRIC_KEYS)
    assert.ok(fields.includes(k), `METRICS.${k} is no field of CorpusScores in extension/protocol/systems/scoring.ts`);
});

test('every entry is complete: a label, how it is scored and pooled, when it is on, and values every table can show', () => {
  const seen = new Map<string, MetricKey>();
  for (const key of METRIC_KEYS) {
    const d = METRICS[key];
    const where = `METRICS.${key}`;
    assert.ok(d.label.trim().length > 0, `${where}: no label (the panel table's caption)`);
    const s = d.scoring;
    assert.ok(
      'corpus' in s || ('pair' in s && 'pool' in s) || ('external' in s && 'pool' in s),
      `${where}: no scoring (corpus, or pair and pool, or external and pool)`,
    );
    // A metric an option turns on, or a model computes, is absent from some scores: its field is optional.
    // (An always-scored metric's field may be optional too: a result saved before it was added still parses.)
    if (d.option && !('external' in s))
      assert.ok(turnedOn(key), `${where}: scored only when asked for, but neither -m nor a switch of its asks for it`);
    const optional = CorpusScores.shape[key].safeParse(undefined).success;
    if (d.option || 'external' in s)
      assert.ok(optional, `${where}: CorpusScores.${key} must be optional: it is scored only when asked for`);
    const summary = totals[key];
    assert.notEqual(summary, undefined, `${where}: the folder totals with every option on lack it`);
    const values = shownMetrics(totals).find((m) => m.key === key)?.values ?? [];
    assert.ok(values.length > 0, `${where}: no values to show`);
    assert.ok(
      values.some((v) => v.column),
      `${where}: no value is a folder column (column: true), so the folder's table and exports leave it out`,
    );
    for (const v of values) {
      const at = `${where} value ${JSON.stringify(v.key)}`;
      assert.match(v.key, /^[a-zA-Z][\w-]*$/, `${at}: no stable key`);
      assert.ok(!seen.has(v.key), `${at}: the key is METRICS.${seen.get(v.key)}'s too`);
      seen.set(v.key, key);
      assert.ok(v.label.trim().length > 0, `${at}: no label`);
      assert.ok(Number.isInteger(v.digits) && v.digits >= 0 && v.digits <= 6, `${at}: digits ${v.digits}`);
      assert.ok(['higher', 'lower', null].includes(v.better), `${at}: no direction (better: higher, lower or null)`);
      assert.ok(v.value === null || Number.isFinite(v.value), `${at}: value ${v.value}`);
    }
  }
});

test('what the list scores is valid against the protocol, off unless its option is on', () => {
  assert.ok(CorpusScores.safeParse(totals).success, 'the folder totals');
  for (const r of rows) assert.ok(CorpusScores.safeParse(r).success, 'a row');
  const plain = scoreCorpus(PAIRS);
  assert.ok(CorpusScores.safeParse(plain).success);
  for (const key of METRIC_KEYS)
    assert.equal(
      key in plain,
      METRICS[key].option === undefined,
      `METRICS.${key}: ${key in plain ? 'scored with no option asking for it' : 'not scored'}`,
    );
});

test('every value reaches the CLI table, every column the folder table, its CSV and its JSON', () => {
  const cli = new Map(scoreRows(totals));
  const csvHeader = folderCsv(folder).split('\n')[0].split(',');
  const json = JSON.parse(folderJson(folder)) as { corpus: Record<string, number | null> };
  const columns = columnsOf(folder).map((c) => c.key);
  for (const m of shownMetrics(totals)) {
    for (const v of m.values) {
      assert.equal(cli.get(v.label), formatValue(v), `METRICS.${m.key} value ${v.key}: not in the CLI's table`);
      if (!v.column) continue;
      assert.ok(columns.includes(v.key), `METRICS.${m.key} value ${v.key}: no folder column`);
      assert.ok(csvHeader.includes(v.key), `METRICS.${m.key} value ${v.key}: no CSV column`);
      assert.ok(v.key in json.corpus, `METRICS.${m.key} value ${v.key}: not in the JSON export`);
    }
  }
  const signed = (keys: readonly MetricKey[]) => keys.flatMap((k) => METRICS[k].signature?.name ?? []).sort();
  assert.deepEqual(Object.keys(scoreSignatures(ALL)).sort(), signed(METRIC_KEYS));
  assert.deepEqual(Object.keys(scoreSignatures({})).sort(), signed(METRIC_KEYS.filter((k) => !METRICS[k].option)));
});

test("the one aggregation: a folder's totals equal scoring all the pairs together, metric by metric", () => {
  const together = scoreCorpus(PAIRS, ALL);
  for (const key of METRIC_KEYS) {
    if ('external' in METRICS[key].scoring) continue;
    assert.deepEqual(totals[key], together[key], `METRICS.${key}: pooled rows differ from all pairs scored together`);
  }
  assert.deepEqual(
    totals.perplexity,
    pooledPerplexity(
      rows.map((r) => r.perplexity),
      'story',
    ),
  );
  // BERTScore over drafts: the mean of each one's P, R and F (bert_score's corpus score).
  assert.ok(Math.abs((totals.bertscore?.precision ?? 0) - (0.9 - 0.01)) < 1e-12);
  assert.equal(signaturesOf(totals, ALL).BERTScore, rows[0].bertscore.signature);
  // A metric some rows lack (asked for after they were scored) is left out of the totals.
  const partial = poolScores(PAIRS, [rows[0], { ...rows[1], nonwords: undefined }, rows[2]], ALL);
  assert.equal(partial.nonwords, undefined);
});

test('a BLEU smoothing value is kept for floor and add-k and dropped for exp and none, as sacreBLEU ignores it', () => {
  for (const smoothMethod of ['floor', 'add-k'] as const)
    assert.equal(bleuOptionsOf({ smoothMethod, smoothValue: 0.5 }).smoothValue, 0.5, smoothMethod);
  for (const smoothMethod of ['exp', 'none', undefined] as const)
    assert.equal(bleuOptionsOf({ smoothMethod, smoothValue: 0.5 }).smoothValue, undefined, String(smoothMethod));
  assert.deepEqual(bleuOptionsOf({ tokenize: 'intl', maxNgramOrder: 3, lowercase: true, effectiveOrder: true }), {
    tokenize: 'intl',
    maxOrder: 3,
    lowercase: true,
    effectiveOrder: true,
  });
});

/** Every part a metric's -m names score, each once, in order. */
const partsOf = (cli: MetricCli) => [...new Set(Object.values(cli.names ?? {}).flat())];
/** The signatures of a metric's statistics with these flags given (two references: ROUGE's multi shows). */
function signaturesWith(cli: MetricCli, given: Record<string, string>): string[] {
  const run = cli.read((name) => given[name]);
  return run.stat(partsOf(cli), { varyingReferences: false }).map((m) => m.signature(2));
}
/** A value of the flag other than its default. */
function otherValue(f: FlagSpec): string {
  if (f.kind === 'flag') return 'true';
  if (f.choices) return f.choices.find((c) => c !== f.default) ?? '';
  return String(Number(f.default ?? f.min ?? 0) + 1);
}
/** `key:value` fields of a signature. */
const fieldsOf = (signature: string) => new Map(signature.split('|').map((kv) => kv.split(':', 2) as [string, string]));

test('every metric score offers says how: its name, its -m names with their help and statistics, its flags complete', () => {
  const score = COMMANDS.find((c) => c.name === 'score');
  const ownOptions = (score?.options ?? []).map((o) => o.name).filter((n) => !METRIC_FLAGS.some((f) => f.name === n));
  const names = new Map<string, MetricKey>();
  const flags = new Map<string, MetricKey>();
  for (const { key, cli } of METRIC_CLIS) {
    const where = `METRICS.${key}.cli`;
    assert.ok(cli.name.trim().length > 0, `${where}: no name (how messages name the metric)`);
    for (const [name, parts] of Object.entries(cli.names ?? {})) {
      assert.match(name, /^[a-z][a-zA-Z0-9]*$/, `${where}: -m name ${JSON.stringify(name)} is not one word`);
      const lower = name.toLowerCase();
      assert.ok(!names.has(lower), `${where}: -m ${name} is METRICS.${names.get(lower)}'s too`);
      names.set(lower, key);
      assert.ok(parts.length > 0, `${where}: -m ${name} scores no part`);
      assert.deepEqual(namedMetric(name.toUpperCase()), { key, parts }, `${where}: -m ${name} is not read`);
    }
    if (cli.names !== undefined) {
      assert.ok(cli.help?.includes(Object.keys(cli.names)[0]), `${where}: -m names but no help naming them`);
      assert.ok(
        cli.scoresNamed || 'external' in METRICS[key].scoring,
        `${where}: -m names but no statistics (stat) to score them with, and no model that scores it`,
      );
    }
    if (cli.scoresNamed) {
      const parts = partsOf(cli);
      const stats = cli.read(() => undefined).stat(parts, { varyingReferences: false });
      assert.equal(
        stats.length,
        parts.length,
        `${where}: stat gives ${stats.length} statistics for ${parts.length} parts`,
      );
      for (const m of stats) {
        assert.ok(m.name.trim().length > 0, `${where}: a statistic without a name`);
        assert.ok(m.signature(1).length > 0, `${where}: ${m.name} has no signature`);
        const segment = m.segmentStats(PAIRS[0].hypothesis, [PAIRS[0].reference]);
        assert.ok(Number.isFinite(m.score(segment)), `${where}: ${m.name} gives no finite score`);
      }
    }
    for (const f of cli.flags) {
      const at = `${where} flag ${JSON.stringify(f.name)}`;
      assert.match(f.name, /^[a-z][a-z0-9-]*$/, `${at}: not a flag name (lower case, dashes)`);
      assert.ok(!flags.has(f.name), `${at}: METRICS.${flags.get(f.name)} has the same flag`);
      assert.ok(!ownOptions.includes(f.name), `${at}: score has an option of that name already`);
      flags.set(f.name, key);
      assert.ok(f.description.trim().length > 0, `${at}: no description (score --help)`);
      assert.equal(
        f.kind !== 'flag',
        f.value !== undefined,
        `${at}: a ${f.kind} flag ${f.value ? 'with' : 'without'} a value to show`,
      );
      if (f.choices)
        assert.deepEqual([...f.choices].sort(), f.value?.split('|').sort(), `${at}: its value shows other choices`);
      assert.ok(
        score?.options.some((o) => o.name === f.name),
        `${at}: not among score's options in the command table`,
      );
      if (f.default !== undefined) {
        assert.doesNotThrow(
          () => cli.read((n) => (n === f.name ? f.default : undefined)),
          `${at}: its default is refused`,
        );
        if (cli.scoresNamed)
          assert.deepEqual(
            signaturesWith(cli, { [f.name]: f.default }),
            signaturesWith(cli, {}),
            `${at}: given its default ${f.default}, the metric is not what it is without it`,
          );
      }
    }
  }
});

test('each flag with a signature field shows there when given another value than its default', () => {
  for (const { key, cli } of METRIC_CLIS)
    for (const f of cli.flags) {
      if (f.signature === undefined) continue;
      const at = `METRICS.${key}.cli flag --${f.name}`;
      assert.ok(cli.scoresNamed, `${at}: a signature field, but the metric has no statistics to sign`);
      const before = signaturesWith(cli, {}).map(fieldsOf);
      const after = signaturesWith(cli, { [f.name]: otherValue(f) }).map(fieldsOf);
      after.forEach((fields, k) => {
        assert.ok(fields.has(f.signature ?? ''), `${at}: the signature has no field ${f.signature}`);
        assert.notEqual(
          fields.get(f.signature ?? ''),
          before[k].get(f.signature ?? ''),
          `${at}: ${otherValue(f)} leaves the signature's ${f.signature} as it is`,
        );
      });
    }
});

test('a flag refuses a value it does not take, in plain words', () => {
  const bleu = METRICS.bleu.cli;
  assert.ok(bleu);
  assert.throws(
    () => bleu.read((n) => (n === 'tokenize' ? 'spm' : undefined)),
    /--tokenize must be one of .*not "spm"/,
  );
  assert.throws(() => bleu.read((n) => (n === 'max-ngram-order' ? '0' : undefined)), /whole number ≥ 1, not 0/);
  assert.throws(() => bleu.read((n) => (n === 'smooth-value' ? '-1' : undefined)), /--smooth-value must be 0 or more/);
});
