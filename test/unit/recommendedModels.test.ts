/**
 * The recommended models of Choose Model (extension/host/recommendedModels.ts): each pinned to a
 * revision whose listing is mirrored in test/fixtures/hub-mirrors, its size the one fileChoice computes
 * from that listing, and the one the engine reports before downloading it from the mirror.
 *
 * The mirrors serve the real file names and sizes of each pinned revision, not the multi-GB weights
 * (the loopback Hub makes each file's bytes on the fly): the engine is stopped once it has reported
 * the size and started the download. That the bytes sent equal the size reported is shown on this
 * project's own fixture repositories, whose bytes are real (hubRepository.test.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CancelledError } from '../../extension/engine/errors';
import { chooseFiles, megabytes, type HubModelKind } from '../../extension/engine/hub/fileChoice';
import { openHubModel } from '../../extension/engine/hub/hubModel';
import { listingFromApi } from '../../extension/engine/hub/repoListing';
import { downloadSize, MODEL_COMMANDS, type RecommendedModel } from '../../extension/host/recommendedModels';
import { HUB_MIRRORS, startLoopbackHub } from './loopbackHub';

const KIND: Record<string, HubModelKind> = {
  'summarize.model': 'seq2seq',
  'essay.model': 'causal-lm',
  'story.model': 'causal-lm',
  'rewrite.model': 'causal-lm',
};

/** Every recommended model once, with the kind of model its command needs. */
const RECOMMENDED: (readonly [RecommendedModel, HubModelKind])[] = [
  ...new Map(MODEL_COMMANDS.flatMap((c) => c.recommended.map((m) => [m.id, [m, KIND[c.key]]] as const))).values(),
];

const mirrorOf = (m: RecommendedModel) =>
  JSON.parse(readFileSync(path.join(HUB_MIRRORS, `${m.id}.json`), 'utf8')) as {
    revision: string;
    sha?: string;
    siblings: { rfilename: string; size: number }[];
  };

test('each command recommends 2 to 4 models, each pinned to a commit and with its licence', () => {
  for (const command of MODEL_COMMANDS) {
    assert.ok(command.recommended.length >= 2 && command.recommended.length <= 4, command.label);
    for (const m of command.recommended) {
      assert.ok(m.licence.length > 0, m.id);
      assert.match(m.revision, /^[0-9a-f]{7,40}$/, m.id);
    }
  }
  assert.equal(
    RECOMMENDED.find(([m]) => m.id === 'onnx-community/Llama-3.2-1B-Instruct')?.[0].licence,
    'Llama 3.2 Community License',
  );
});

for (const [model, kind] of RECOMMENDED) {
  test(`${model.id}: its size and graphs are what fileChoice picks from the listing of its pinned revision`, () => {
    const mirror = mirrorOf(model);
    assert.equal(mirror.revision, model.revision);
    const listing = listingFromApi(mirror, model.id, model.revision, model.id);
    const choice = chooseFiles(listing.files, kind, model.id);
    assert.deepEqual(
      choice.graphs.map((g) => g.file),
      model.graphs,
    );
    assert.equal(choice.totalBytes, model.bytes);
  });
}

for (const [model, kind] of RECOMMENDED) {
  test(`${model.id}: Choose Model's size is the size the engine reports before downloading it from its mirror`, async (t) => {
    const hub = await startLoopbackHub();
    const cacheDir = mkdtempSync(path.join(os.tmpdir(), 'draftsmith-mirror-'));
    t.after(async () => {
      await hub.close();
      rmSync(cacheDir, { recursive: true, force: true });
    });
    const log: string[] = [];
    const progress: string[] = [];
    let cancelled = false;
    await assert.rejects(
      openHubModel(
        { kind: 'hub', id: model.id, revision: model.revision },
        kind,
        'the test',
        { endpoint: hub.endpoint, cacheDir, offline: false, stallSeconds: 30 },
        { device: 'cpu', threads: 1, log: (_level, m) => log.push(m) },
        {
          progress: (m) => {
            progress.push(m);
            if (m.startsWith('Downloading')) cancelled = true;
          },
          isCancelled: () => cancelled,
        },
      ),
      (e: unknown) => e instanceof CancelledError,
    );
    const line = log.find((m) => m.startsWith(`downloading ${model.id}@${model.revision} `)) ?? '';
    assert.equal(Number(/, (\d+) of them now/.exec(line)?.[1]), model.bytes, line);
    const shown = downloadSize(model.bytes);
    assert.equal(`${megabytes(model.bytes)} MB`, shown);
    const first = progress.find((m) => m.startsWith('Downloading')) ?? '';
    assert.ok(first.endsWith(` of ${shown} (0 %)`), `${first} / ${shown}`);
    // What the mirror sent before the stop: config.json whole (the kind was checked), a first part of a graph.
    const config = mirrorOf(model).siblings.find((s) => s.rfilename === 'config.json')!.size;
    assert.ok((hub.sent.get(model.id) ?? 0) >= config);
    assert.ok((hub.sent.get(model.id) ?? 0) < model.bytes);
  });
}
