import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { Tokenizer } from '../../extension/engine/text/tokenizer';
import { fixture, modelsDir } from './helpers';

const cases: { text: string; ids: number[] }[] = JSON.parse(readFileSync(fixture('tokenizer-ids.json'), 'utf8'));
const load = () => Tokenizer.load(path.join(modelsDir, 'summarize'), 1);

test('the tokenizer gives the same ids as sentencepiece did in training', async () => {
  const tok = await load();
  for (const c of cases) assert.deepEqual(tok.encode(c.text), c.ids, c.text);
});

test('every token span points at the text it came from, whatever the spacing or script', async () => {
  const tok = await load();
  for (const c of cases) {
    const spans = tok.encodeWithSpans(c.text);
    assert.equal(spans.length, c.ids.length);
    let last = 0;
    for (const s of spans) {
      assert.equal(c.text.slice(s.start, s.end), s.text, `${JSON.stringify(c.text)} at ${s.start}`);
      assert.ok(s.start >= last, 'spans go left to right');
      last = s.end;
    }
    // Everything that is not whitespace is covered by some token.
    const covered = spans.map((s) => s.text).join('');
    assert.equal(covered, c.text.replace(/\s+/g, ''), JSON.stringify(c.text));
  }
});

test('decoding drops the sentencepiece word markers', async () => {
  const tok = await load();
  assert.equal(tok.decode(tok.encode('The city council voted.')), 'The city council voted.');
});
