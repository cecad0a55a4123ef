// score --report FILE.md is Markdown GitHub shows whole: its charts are SVG files beside it (GitHub
// shows no data: images), linked by name, and a "|" in a draft keeps its table's columns.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { repoRoot, tempDir } from './helpers';

const CLI = path.join(repoRoot, 'dist', 'cli.js');
const dir = tempDir('report-md');

test('the Markdown report links its charts as SVG files beside it, with no data: image', () => {
  const file = (name: string, text: string) => {
    writeFileSync(path.join(dir, name), text);
    return path.join(dir, name);
  };
  const ref = file('ref.txt', 'the cat sat on the mat\na dog ran fast\n');
  const base = file('base.txt', 'the cat sat on the mat\na dog ran | fast\n');
  const other = file('other.txt', 'the cat sat on a mat\na dog ran\n');
  const out = path.join(dir, 'report.md');
  const args = ['score', '--ref', ref, '--hyp', base, '--hyp', other, '-m', 'bleu', 'chrf', '--paired-bs'];
  const r = spawnSync(process.execPath, [CLI, ...args, '--paired-bs-n', '20', '--report', out, '--quiet'], {
    encoding: 'utf8',
  });
  assert.equal(r.status, 0, r.stderr);
  const md = readFileSync(out, 'utf8');
  assert.doesNotMatch(md, /data:/);
  for (const [k, metric] of ['BLEU', 'chrF2'].entries()) {
    assert.match(md, new RegExp(`^!\\[${metric}\\]\\(report\\.chart-${k + 1}\\.svg\\)$`, 'm'));
    const svg = readFileSync(path.join(dir, `report.chart-${k + 1}.svg`), 'utf8');
    assert.match(svg, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
  }
  assert.ok(!existsSync(path.join(dir, 'report.chart-3.svg')));
  // Every table row has as many cells as its header: "|" in a text is escaped.
  for (const table of md.split(/\n\n/).filter((b) => b.startsWith('| '))) {
    const cells = (line: string) => line.replace(/\\\|/g, '').split('|').length;
    const [head, ...rows] = table.split('\n');
    for (const row of rows) assert.equal(cells(row), cells(head), row);
  }
});
