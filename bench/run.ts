/**
 * `npm run bench`: every bench (dist/bench/*.bench.js) in a Node process of its own (cold loads, a
 * clean peak RSS), one after another, then one report: bench/results/latest.md and latest.json,
 * and the summary table in docs/benchmarks.md between its bench markers. Numbers are printed, never asserted.
 *
 * A bench named after a model folder (models/<name>: summarize, essay, and a story model's own
 * story.bench.ts) is run once per thread count, and once more for each variant folder
 * .work/variants/<name>-<variant>/ (e.g. the int8 one, models/train/quantize.sh).
 * env: THREADS_LIST (default "1,<cores>"), ONLY (bench names, comma-separated), and what the benches read
 * (RUNS, GREEDY_TOKENS, PAIRS, DATA).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { BenchOutput, ModelSummary, Section } from './report';

const root = path.resolve(__dirname, '..', '..');
const here = __dirname;
const cores = os.availableParallelism?.() ?? os.cpus().length;
const threadsList = (process.env.THREADS_LIST ?? [...new Set([1, cores])].join(',')).split(',').map(Number);
const only = process.env.ONLY?.split(',').map((s) => s.trim());

interface Run {
  bench: string;
  label: string;
  env: Record<string, string>;
}
interface Done extends Run {
  output?: BenchOutput;
  printed: string;
  exitCode: number | null;
  seconds: number;
}

function plan(): Run[] {
  const names = readdirSync(here)
    .filter((f) => f.endsWith('.bench.js'))
    .map((f) => f.replace(/\.bench\.js$/, ''))
    .filter((n) => !only || only.includes(n));
  // Activation first (nothing else loaded yet on the machine's caches), metrics last.
  const rank = (n: string) => (n === 'activation' ? 0 : n === 'metrics' ? 2 : 1);
  names.sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
  const runs: Run[] = [];
  const variantsDir = path.join(root, '.work', 'variants');
  for (const name of names) {
    if (!existsSync(path.join(root, 'models', name))) {
      runs.push({ bench: name, label: name, env: {} });
      continue;
    }
    for (const t of threadsList)
      runs.push({ bench: name, label: `${name}, threads ${t}`, env: { THREADS: String(t) } });
    const variants = existsSync(variantsDir) ? readdirSync(variantsDir).filter((v) => v.startsWith(`${name}-`)) : [];
    for (const v of variants) {
      if (!existsSync(path.join(variantsDir, v, 'model.json'))) continue;
      const variant = v.slice(name.length + 1);
      runs.push({
        bench: name,
        label: `${name} ${variant}, threads 1`,
        env: { THREADS: '1', MODEL_DIR: path.join(variantsDir, v), VARIANT: variant },
      });
    }
  }
  return runs;
}

function runOne(run: Run, outFile: string): Promise<Done> {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(here, `${run.bench}.bench.js`)], {
      env: { ...process.env, ...run.env, BENCH_OUT: outFile },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let printed = '';
    child.stdout.on('data', (d: Buffer) => {
      printed += d;
      process.stdout.write(d);
    });
    child.stderr.on('data', (d: Buffer) => {
      printed += d;
      process.stderr.write(d);
    });
    child.on('close', (code) => {
      let output: BenchOutput | undefined;
      if (existsSync(outFile)) output = JSON.parse(readFileSync(outFile, 'utf8')) as BenchOutput;
      resolve({ ...run, output, printed, exitCode: code, seconds: (performance.now() - started) / 1000 });
    });
  });
}

const cell = (x: number | undefined, digits = 0, suffix = '') =>
  x === undefined || !Number.isFinite(x) ? '—' : `${x.toFixed(digits)}${suffix}`;

function summaryTable(summaries: ModelSummary[]): string {
  const head =
    '| model | variant | threads | load | first token | greedy tokens/s (batch 1) | beam tokens/s | loop / ' +
    'session.run floor: greedy, beam | ms/token (bandwidth floor) | transformers.js time / ours | peak RSS | ' +
    'ONNX size |';
  const rule = '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|';
  const rows = summaries.map(
    (s) =>
      `| ${s.model} | ${s.variant} | ${s.threads} | ${cell(s.loadMs, 0, ' ms')} | ` +
      `${cell(s.firstTokenMs, 0, ' ms')} | ${cell(s.greedyTokensPerSecond, 0)} | ` +
      `${cell(s.beamTokensPerSecond, 0)} (beam ${s.beam ?? '—'}) | ${cell(s.loopOverFloor, 3, '×')}, ` +
      `${cell(s.beamLoopOverFloor, 3, '×')} | ${cell(s.msPerToken, 2)} ` +
      `(${cell(s.bandwidthFloorMsPerToken, 2)}) | ${cell(s.peerOverOurs, 2, '×')} | ` +
      `${cell(s.peakRssMB, 0, ' MB')} | ${cell(s.sizeMB, 1, ' MB')} |`,
  );
  return [head, rule, ...rows].join('\n');
}

function sectionTable(s: Section): string {
  const rows = s.rows.map((r) => {
    const unit = r.unit ? ' ' + r.unit : '';
    return `| ${r.metric} | ${r.value ?? '—'}${unit} | ${r.note ?? ''} |`;
  });
  return [`### ${s.title}`, '', '| | | |', '|---|---:|---|', ...rows].join('\n');
}

(async () => {
  const runs = plan();
  const tmp = path.join(os.tmpdir(), `draftsmith-bench-${process.pid}`);
  mkdirSync(tmp, { recursive: true });
  const loadStart = os.loadavg();
  const startedAt = new Date();
  const done: Done[] = [];
  for (const [i, run] of runs.entries()) {
    console.log(`\n# [${i + 1}/${runs.length}] ${run.label}`);
    done.push(await runOne(run, path.join(tmp, `${i}.json`)));
  }
  rmSync(tmp, { recursive: true, force: true });
  const loadEnd = os.loadavg();
  const ortVersion = (
    JSON.parse(readFileSync(require.resolve('onnxruntime-node/package.json'), 'utf8')) as { version: string }
  ).version;
  const machine =
    `${os.cpus()[0]?.model ?? 'CPU'}, ${cores} cores, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB; Node ` +
    `${process.version}, onnxruntime-node ${ortVersion}`;
  const load = `load average ${loadStart[0].toFixed(2)} at the start, ${loadEnd[0].toFixed(2)} at the end (1 min)`;
  const summaries = done.flatMap((d) => d.output?.summaries ?? []);
  const summary = summaryTable(summaries);
  const md = [
    '# Benchmarks (`npm run bench`)',
    '',
    `${startedAt.toISOString()} on ${machine}; ${load}. Every bench ran in a Node process of its own.`,
    '',
    "Columns: load = both ONNX sessions and the tokenizer; first token = from the command's request to its " +
      'first decoded token, model loaded, default beam;',
    "greedy = a fixed number of tokens at batch 1, decoding only; loop / floor = our decoding loop's time over " +
      "the time inside onnxruntime's session.run;",
    'bandwidth floor = the bytes a step must read (decoder weights + the cross-attention memory) over this ' +
      "machine's copy bandwidth;",
    'transformers.js time / ours = its generate() over our encode + greedy loop, same model, input, tokens and ' +
      'threads (above 1: ours is faster).',
    '',
    summary,
    '',
    ...done
      .flatMap((d) =>
        d.output ? d.output.sections.map(sectionTable) : [`### ${d.label}`, '', '```', d.printed.trim(), '```'],
      )
      .flatMap((t) => [t, '']),
    done.some((d) => d.exitCode !== 0)
      ? `Failed: ${done
          .filter((d) => d.exitCode !== 0)
          .map((d) => `${d.label} (exit ${d.exitCode})`)
          .join(', ')}`
      : '',
  ].join('\n');
  const outDir = path.join(root, 'bench', 'results');
  mkdirSync(outDir, { recursive: true });
  writeFileSync(path.join(outDir, 'latest.md'), md);
  writeFileSync(
    path.join(outDir, 'latest.json'),
    JSON.stringify(
      {
        date: startedAt.toISOString(),
        machine,
        loadAverage: { start: loadStart, end: loadEnd },
        runs: done.map((d) => ({
          label: d.label,
          env: d.env,
          exitCode: d.exitCode,
          seconds: d.seconds,
          ...(d.output ?? { printed: d.printed }),
        })),
      },
      null,
      1,
    ),
  );
  // docs/benchmarks.md shows the summary table of the latest run.
  const page = path.join(root, 'docs', 'benchmarks.md');
  const text = existsSync(page) ? readFileSync(page, 'utf8') : '';
  const begin = '<!-- bench:begin -->';
  const end = '<!-- bench:end -->';
  const marked = text.includes(begin) && text.includes(end);
  if (marked) {
    const table =
      `${begin}\n${startedAt.toISOString().slice(0, 10)}, ${machine}; ${load}. Details: ` +
      `[bench/results/latest.md](../bench/results/latest.md).\n\n${summary}\n${end}`;
    writeFileSync(page, text.slice(0, text.indexOf(begin)) + table + text.slice(text.indexOf(end) + end.length));
  }
  console.log(
    `\nwrote bench/results/latest.md and latest.json${marked ? ', and the table in docs/benchmarks.md' : ''}`,
  );
  process.exitCode = done.some((d) => d.exitCode !== 0) ? 1 : 0;
})();
