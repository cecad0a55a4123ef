// The commands have one source: the table of extension/host/commands.ts, which registers them. What
// package.json contributes (the commands with their titles, the menus, the keybindings) must say the
// same; these tests name each command that one side has and the other lacks, or places differently.
import './vscodeStub';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { CATEGORY, COMMANDS, type CommandSpec } from '../../extension/host/commands';
import { repoRoot } from './helpers';

type Row = Record<string, unknown>;
/** One contribution point's entries, by command id (a list: a command listed twice is a fault too). */
type Entries = Map<string, Row[]>;

interface Contributes {
  commands: Row[];
  menus: Record<string, Row[]>;
  keybindings: Row[];
}

function manifest(): Contributes {
  const pkg = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { contributes: Contributes };
  return pkg.contributes;
}

function byCommand(rows: readonly Row[]): Entries {
  const out: Entries = new Map();
  for (const { command, ...rest } of rows) {
    const id = String(command);
    out.set(id, [...(out.get(id) ?? []), rest]);
  }
  return out;
}

/** What package.json should contribute for the table, point by point ('commands', 'keybindings', 'menus.X'). */
function fromTable(table: Readonly<Record<string, CommandSpec>>): Map<string, Entries> {
  const points = new Map<string, Entries>([
    ['commands', new Map()],
    ['keybindings', new Map()],
  ]);
  const add = (point: string, id: string, row: Row) => {
    if (!points.has(point)) points.set(point, new Map());
    points.get(point)?.set(id, [row]);
  };
  for (const [id, spec] of Object.entries(table)) {
    if (spec.title === undefined) continue; // internal: run by VS Code for us, never contributed
    add('commands', id, { title: spec.title, category: CATEGORY, ...(spec.icon ? { icon: spec.icon } : {}) });
    if (spec.palette !== undefined) add('menus.commandPalette', id, { when: spec.palette });
    for (const [menu, place] of Object.entries(spec.menus ?? {})) add(`menus.${menu}`, id, { ...place });
    if (spec.keybinding) add('keybindings', id, { ...spec.keybinding });
  }
  return points;
}

function fromManifest(c: Contributes): Map<string, Entries> {
  const points = new Map<string, Entries>([
    ['commands', byCommand(c.commands)],
    ['keybindings', byCommand(c.keybindings ?? [])],
  ]);
  for (const [menu, rows] of Object.entries(c.menus ?? {})) points.set(`menus.${menu}`, byCommand(rows));
  return points;
}

/** Every difference between the table and package.json, one line each, naming the command. */
function differences(table: Map<string, Entries>, pkg: Map<string, Entries>): string[] {
  const out: string[] = [];
  for (const point of new Set([...table.keys(), ...pkg.keys()])) {
    const want = table.get(point) ?? new Map<string, Row[]>();
    const have = pkg.get(point) ?? new Map<string, Row[]>();
    for (const id of new Set([...want.keys(), ...have.keys()])) {
      const w = want.get(id);
      const h = have.get(id);
      if (!h) out.push(`${id}: in the command table, missing from package.json's contributes.${point}`);
      else if (!w) out.push(`${id}: in package.json's contributes.${point}, missing from the command table`);
      else if (h.length > 1) out.push(`${id}: listed ${h.length} times in package.json's contributes.${point}`);
      else if (JSON.stringify(sorted(w[0])) !== JSON.stringify(sorted(h[0])))
        out.push(`${id}: contributes.${point} differs: table ${show(w[0])}, package.json ${show(h[0])}`);
    }
  }
  return out;
}

const sorted = (row: Row): Row => Object.fromEntries(Object.entries(row).sort(([a], [b]) => a.localeCompare(b)));
const show = (row: Row) => JSON.stringify(sorted(row));

test('every command in the table is contributed by package.json with its title, menus and key binding, and nothing else is', () => {
  const problems = differences(fromTable(COMMANDS), fromManifest(manifest()));
  assert.deepEqual(problems, [], `the command table and package.json disagree:\n  ${problems.join('\n  ')}`);
});

test('a command missing from package.json, or one package.json adds, is named', () => {
  const c = manifest();
  const dropped = { ...c, commands: c.commands.filter((r) => r.command !== 'draftsmith.scoreDraft') };
  assert.ok(
    differences(fromTable(COMMANDS), fromManifest(dropped)).includes(
      "draftsmith.scoreDraft: in the command table, missing from package.json's contributes.commands",
    ),
  );
  const extra = {
    ...c,
    keybindings: [...c.keybindings, { command: 'draftsmith.showLog', key: 'ctrl+alt+l', when: 'true' }],
  };
  assert.deepEqual(differences(fromTable(COMMANDS), fromManifest(extra)), [
    "draftsmith.showLog: in package.json's contributes.keybindings, missing from the command table",
  ]);
});

test('internal commands (run by VS Code for an accepted inline suggestion) are registered but never contributed', () => {
  const internal = Object.entries(COMMANDS)
    .filter(([, spec]) => spec.title === undefined)
    .map(([id]) => id);
  assert.deepEqual(internal, ['draftsmith.inlineAccepted']);
  assert.ok(!manifest().commands.some((r) => r.command === 'draftsmith.inlineAccepted'));
});
