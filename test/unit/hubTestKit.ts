/** What the Hub tests share: a download cache per test, an engine configuration around it, its files, and a loopback Hub closed after the test. */
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { EngineConfig, HubConfig } from '../../extension/protocol';
import { modelsDir } from './helpers';
import { startLoopbackHub, type LoopbackHub } from './loopbackHub';

/** A fresh cache folder, removed after the test. */
export function tempCache(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'draftsmith-hub-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** The built-in models on the CPU, and the Hub settings given (a dead endpoint unless one is). */
export function config(hub: Partial<HubConfig> & { cacheDir: string }): EngineConfig {
  return {
    modelsDir,
    device: 'cpu',
    threads: 1,
    hub: { endpoint: 'http://127.0.0.1:9/', offline: false, stallSeconds: 30, ...hub },
  };
}

/** Every file under `dir`, relative, sorted. */
export function files(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile())
    .map((d) => path.relative(dir, path.join(d.parentPath, d.name)))
    .sort();
}

/** A loopback Hub over the fixtures, closed after the test. */
export async function withHub(t: { after(fn: () => Promise<void>): void }): Promise<LoopbackHub> {
  const hub = await startLoopbackHub();
  t.after(() => hub.close());
  return hub;
}
