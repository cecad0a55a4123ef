/** A tiny sequential test runner for the in-host suite: `✔ name` / `✖ name` lines, then `N passed, M failed`. */

export interface TestCase {
  name: string;
  run(): Promise<void>;
  /** Default 120 s: a model may load on first use, and a hang must not stall the harness forever. */
  timeoutMs?: number;
}

export async function runTests(
  tests: readonly TestCase[],
  log: (line: string) => void = (l) => console.log(l),
): Promise<void> {
  let passed = 0;
  let failed = 0;
  // INHOST_TESTS=REGEX runs only the tests whose names match, while working on them; a test that
  // reads what an earlier one left (a document, a download) fails on its own.
  const only = process.env.INHOST_TESTS ? new RegExp(process.env.INHOST_TESTS) : null;
  if (only) log(`INHOST_TESTS=${only.source}: only the tests whose names match`);
  for (const test of tests) {
    if (only && !only.test(test.name)) continue;
    try {
      await withTimeout(test.run(), test.timeoutMs ?? 120_000, test.name);
      passed++;
      log(`✔ ${test.name}`);
    } catch (err) {
      failed++;
      log(`✖ ${test.name}`);
      const detail = err instanceof Error ? (err.stack ?? err.message) : String(err);
      for (const line of detail.split('\n')) log(`    ${line}`);
    }
  }
  log(`${passed} passed, ${failed} failed`);
  if (failed > 0) throw new Error(`${failed} of ${tests.length} integration tests failed`);
}

function withTimeout<T>(work: Promise<T>, ms: number, name: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${name}`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}
