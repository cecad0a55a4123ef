// The metric list (extension/engine/eval/metricList.ts): every field of CorpusScores has one complete
// entry, and every entry reaches every place a metric shows (the CLI's table, the folder's columns,
// CSV and JSON, the signatures); the one aggregation gives a folder's totals equal to scoring all the
// pairs together; a BLEU smoothing value applies to floor and add-k only, as in sacreBLEU.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CorpusScores, type FolderScores } from '../../extension/protocol';
import {
  formatValue,
  METRIC_KEYS,
  METRICS,
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
/** Every option that adds a metric. */
const ALL: MetricOptions = {
  chrf: 'chrF++',
  ter: {},
  nonwords: true,
  perplexity: true,
  bertscore: { model: { kind: 'hub', id: 'Xenova/all-MiniLM-L6-v2' } },
};
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
  assert.deepEqual(Object.keys(scoreSignatures(ALL)).sort(), ['BLEU', 'ROUGE', 'TER', 'chrF']);
  assert.deepEqual(Object.keys(scoreSignatures({})).sort(), ['BLEU', 'ROUGE']);
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
