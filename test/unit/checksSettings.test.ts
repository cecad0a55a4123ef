// The prose checks' settings, personal dictionaries, readability numbers, ignores and CLI: what the
// editor and `draftsmith check` read from outside, and what they print.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { CheckFinding } from '../../extension/engine/checks/checker';
import { addToDictionary, parseDictionary, readDictionary } from '../../extension/engine/checks/dictionary';
import { withoutIgnored } from '../../extension/engine/checks/ignores';
import { DEFAULT_DIALECT, DIALECTS } from '../../extension/engine/checks/dialects';
import { checkerConfigFrom } from '../../extension/engine/checks/options';
import { textStats } from '../../extension/engine/checks/readability';
import { DEFAULT_GRAMMAR_RULES_OFF, FAMILIES, FAMILY_NAMES, RULE_SETTINGS } from '../../extension/engine/checks/rules';
import { repoRoot, tempDir } from './helpers';

test('every family has a setting in package.json with the same default and every severity', () => {
  const pkg = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as {
    contributes: { configuration: { properties: Record<string, { default: unknown; enum?: string[] }> } };
  };
  const props = pkg.contributes.configuration.properties;
  for (const f of FAMILY_NAMES) {
    const p = props[`draftsmith.checks.${FAMILIES[f].setting}`];
    assert.ok(p, `draftsmith.checks.${FAMILIES[f].setting} is missing`);
    assert.equal(p.default, FAMILIES[f].default, f);
    assert.deepEqual(p.enum, [...RULE_SETTINGS]);
  }
  assert.deepEqual(props['draftsmith.checks.grammarRulesOff'].default, [...DEFAULT_GRAMMAR_RULES_OFF]);
});

test('bad setting values fall back to their defaults instead of turning the checks off', () => {
  const c = checkerConfigFrom({ spelling: 'loud', grammar: 'error', grammarRulesOff: ['AnA', 7, '', 'AnA'] }, ['x']);
  assert.equal(c.rules.spelling, FAMILIES.spelling.default);
  assert.equal(c.rules.grammar, 'error');
  assert.deepEqual(c.grammarRulesOff, ['AnA']);
  assert.deepEqual(checkerConfigFrom({ grammarRulesOff: 'AnA' }).grammarRulesOff, []);
});

test('a personal dictionary tolerates junk lines: comments, blanks, spaces, controls, BOM, CRLF', () => {
  const text =
    '\uFEFF# my words\r\nDraftsmith\r\n\r\n  frobnicate  \ntwo words\n\u0000bad\n12345\n' +
    'x'.repeat(100) +
    '\nnaïve\n';
  assert.deepEqual(parseDictionary(text), ['Draftsmith', 'frobnicate', 'naïve']);
  const dir = tempDir('dictionary');
  const file = path.join(dir, '.draftsmith', 'dictionary.txt');
  assert.deepEqual(readDictionary(file), []);
  addToDictionary(file, 'Okonkwo');
  addToDictionary(file, 'Okonkwo');
  writeFileSync(file, readFileSync(file, 'utf8') + 'nolineend');
  addToDictionary(file, 'Marguerite');
  assert.deepEqual(readDictionary(file), ['Okonkwo', 'nolineend', 'Marguerite']);
  assert.throws(() => addToDictionary(file, 'two words'), /not one word/);
});

test('readability: words, reading time and Flesch scores of the prose only, of the document or a range', () => {
  const doc = '# Title\n\nThe cat sat on the mat. The dog ran.\n\n```\nnot counted at all here\n```\n';
  const s = textStats(doc, 'markdown');
  assert.equal(s.words, 9);
  assert.equal(s.sentences, 2);
  assert.equal(s.readingMinutes, 1);
  // 9 words, 2 sentences, 9 syllables: 206.835 - 1.015 * 4.5 - 84.6 * 1 (Flesch's formula).
  assert.ok(Math.abs(s.fleschReadingEase - (206.835 - 1.015 * 4.5 - 84.6)) < 1e-9);
  assert.ok(Math.abs(s.fleschKincaidGrade - (0.39 * 4.5 + 11.8 - 15.59)) < 1e-9);
  const start = doc.indexOf('The dog');
  const part = textStats(doc, 'markdown', { start, end: start + 'The dog ran.'.length });
  assert.equal(part.words, 3);
  assert.ok(Number.isNaN(textStats('', 'plain').fleschReadingEase));
});

test('ignores: a rule in the file, or on the lines with the same text', () => {
  const text = 'one line\nsame line\nother\nsame line';
  const f = (start: number, rule: string, family = rule) =>
    ({
      start,
      end: start + 1,
      rule,
      family,
      severity: 'warning',
      message: 'm',
      fixes: [],
      safe: false,
    }) as CheckFinding;
  const fs = [f(0, 'spelling'), f(9, 'grammar/AnA', 'grammar'), f(19, 'spelling'), f(25, 'grammar/AnA', 'grammar')];
  assert.deepEqual(
    withoutIgnored(text, fs, { file: ['spelling'], lines: [] }).map((x) => x.start),
    [9, 25],
  );
  assert.deepEqual(
    withoutIgnored(text, fs, { file: [], lines: [{ rule: 'grammar', line: 'same line' }] }).map((x) => x.start),
    [0, 19],
  );
});

const cli = (args: string[], cwd = repoRoot) =>
  spawnSync(process.execPath, [path.join(repoRoot, 'dist', 'cli.js'), 'check', ...args], { encoding: 'utf8', cwd });

test('draftsmith check prints FILE:LINE:COLUMN lines, exits 1 on findings, 0 on none, 2 on a bad command line', () => {
  const dir = tempDir('check-cli');
  mkdirSync(path.join(dir, 'docs', 'node_modules'), { recursive: true });
  const bad = path.join(dir, 'docs', 'bad.md');
  writeFileSync(bad, '---\ntitle: teh\n---\n\n# Notes\n\nThis is is fine.\n\n```\nteh code\n```\n\nHe go home.\n');
  writeFileSync(path.join(dir, 'docs', 'good.txt'), 'The committee approved the proposal.\n');
  writeFileSync(path.join(dir, 'docs', 'node_modules', 'x.md'), 'teh teh\n');
  const r = cli(['docs'], dir);
  assert.equal(r.status, 1, r.stderr);
  assert.deepEqual(r.stdout.trim().split('\n'), [
    'docs/bad.md:7:6: error repeated-word: Did you mean to repeat this word?',
    'docs/bad.md:13:4: warning grammar/PronounVerbAgreement: The form of the verb must agree in grammatical number with the pronoun.',
  ]);
  const good = cli([path.join(dir, 'docs', 'good.txt')]);
  assert.equal(good.status, 0, good.stderr);
  assert.equal(good.stdout, '');
  const json = cli([bad, '--json', '--rule', 'repeated-word']);
  assert.equal(json.status, 1);
  const parsed = JSON.parse(json.stdout) as { line: number; column: number; rule: string; fixes: { text: string }[] }[];
  assert.deepEqual(
    parsed.map((p) => [p.line, p.column, p.rule, p.fixes[0].text]),
    [[7, 6, 'repeated-word', 'is']],
  );
  assert.equal(cli([path.join(dir, 'missing.md')]).status, 2);
  assert.equal(cli([bad, '--rule', 'nonsense']).status, 2);
  assert.equal(cli([bad, '--colour']).status, 2);
  assert.equal(cli([]).status, 2);
});

test('the dialect setting offers every dialect the checks know, American by default; a bad one falls back', () => {
  const pkg = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as {
    contributes: { configuration: { properties: Record<string, { default: unknown; enum?: string[] }> } };
  };
  const p = pkg.contributes.configuration.properties['draftsmith.checks.dialect'];
  assert.deepEqual(p.enum, [...DIALECTS]);
  assert.equal(p.default, DEFAULT_DIALECT);
  assert.equal(checkerConfigFrom({ dialect: 'British' }).dialect, 'British');
  assert.equal(checkerConfigFrom({ dialect: 'Klingon' }).dialect, DEFAULT_DIALECT);
});
