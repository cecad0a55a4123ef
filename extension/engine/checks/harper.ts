/**
 * Harper (harper.js), the WebAssembly build of the Harper grammar checker, loaded in Node from the
 * files its npm package ships: nothing is fetched. harper.js is ESM only, so it is loaded with a
 * dynamic import() (which esbuild leaves alone) from its own folder, and its binary is handed over as
 * a file:// URL, which harper.js reads with fs in Node. The "slim" binary is used: it holds the same
 * rules and dictionary as the full one without a second copy of the glue (about 30 MB less).
 *
 * Spans come back in UTF-16 code units (JavaScript string offsets), as the rest of the engine counts.
 */
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Dialect } from './dialects';
import { binaryKey, harperExports, restoreImage, saveImage } from './harperImage';
import { HARPER_ALWAYS_OFF } from './rules';

/** harper.js's Dialect enum. */
const HARPER_DIALECT: Record<Dialect, number> = { American: 0, British: 1, Australian: 2, Canadian: 3 };

/** The part of harper.js's API used here (its own types are not reachable under this project's module resolution). */
interface HarperSpan {
  start: number;
  end: number;
  free?(): void;
}
interface HarperSuggestion {
  kind(): number;
  get_replacement_text(): string;
  free?(): void;
}
interface HarperLint {
  span(): HarperSpan;
  message(): string;
  lint_kind(): string;
  suggestions(): HarperSuggestion[];
  free?(): void;
}
interface HarperLinter {
  setup(): Promise<void>;
  organizedLints(text: string, options: { language: 'plaintext' }): Promise<Record<string, HarperLint[]>>;
  getDefaultLintConfig(): Promise<Record<string, boolean | null>>;
  setLintConfig(config: Record<string, boolean | null>): Promise<void>;
  importWords(words: string[]): Promise<void>;
  setDialect(dialect: number): Promise<void>;
  clearWords(): Promise<void>;
  getLintDescriptions(): Promise<Record<string, string>>;
  dispose(): Promise<void>;
}
interface HarperBinary {
  getDefaultLintConfig(): Promise<Record<string, boolean | null>>;
  /** The wasm-bindgen glue, its instance made (its `default` is the init function, which then returns the exports). */
  getBinaryModule(): Promise<{ default?: () => Promise<unknown> }>;
}
interface HarperModule {
  LocalLinter: new (init: { binary: HarperBinary; dialect?: number }) => HarperLinter;
  createBinaryModuleFromUrl(url: string, flavor?: 'full' | 'slim'): HarperBinary;
}

export interface HarperLoadOptions {
  /**
   * A folder for Harper's memory after its set-up (harperImage.ts): read from there when it holds one
   * for this binary, else written there; a short-lived process then starts in a tenth of the time.
   */
  imageDir?: string;
}

/** One lint as plain data. */
export interface HarperFinding {
  rule: string;
  kind: string;
  start: number;
  end: number;
  message: string;
  /** Replace (0): the span becomes text; Remove (1): text is ''; InsertAfter (2): text goes after the span. */
  suggestions: { kind: 'replace' | 'remove' | 'insert-after'; text: string }[];
}

/** harper.js's folder (its package.json "exports" hide the file from require.resolve). */
export function harperDir(): string {
  const tried: string[] = [];
  for (const base of require.resolve.paths('harper.js') ?? []) {
    const dir = path.join(base, 'harper.js', 'dist');
    tried.push(dir);
    if (existsSync(path.join(dir, 'harper_wasm_slim_bg.wasm'))) return dir;
  }
  throw new Error(`harper.js is not installed (looked in ${tried.slice(0, 3).join(', ')})`);
}

// A variable, not a literal: esbuild and tsc leave an import() of a variable alone.
const importModule = (url: string): Promise<unknown> => import(url);

/** Restores Harper's set-up from the image in `imageDir`, or does the set-up and saves it there. */
async function withImage(binary: HarperBinary, wasmFile: string, imageDir: string): Promise<void> {
  const glue = await binary.getBinaryModule();
  // The glue's init function returns the instance's exports once the instance exists.
  const exports = harperExports(await glue.default?.());
  if (!exports) return; // a harper.js whose glue is not wasm-bindgen's as this one knows it: no image
  const version = (
    JSON.parse(readFileSync(path.join(path.dirname(wasmFile), '..', 'package.json'), 'utf8')) as {
      version?: string;
    }
  ).version;
  const key = binaryKey(wasmFile, version ?? 'unknown');
  if (restoreImage(imageDir, key, exports)) return;
  // The default configuration makes a lint group: that builds Harper's dictionary and the rest of its
  // global state, and leaves no Harper object held by JavaScript.
  await binary.getDefaultLintConfig();
  saveImage(imageDir, key, exports);
}

export class Harper {
  private constructor(private readonly linter: HarperLinter) {}

  /**
   * Loads the binary and makes one linter (American English): 1.5–2 s of CPU on a 2-core machine,
   * most of it Harper building its dictionary, or about 0.2 s from an image (`options.imageDir`).
   */
  static async load(options: HarperLoadOptions = {}): Promise<Harper> {
    const dir = harperDir();
    const mod = (await importModule(pathToFileURL(path.join(dir, 'index.js')).href)) as HarperModule;
    const wasmFile = path.join(dir, 'harper_wasm_slim_bg.wasm');
    const binary = mod.createBinaryModuleFromUrl(pathToFileURL(wasmFile).href, 'slim');
    if (options.imageDir !== undefined) await withImage(binary, wasmFile, options.imageDir);
    const linter = new mod.LocalLinter({ binary, dialect: 0 });
    await linter.setup();
    const harper = new Harper(linter);
    await harper.configure([]);
    return harper;
  }

  /** Turns `off` (and Harper's spell check) off, the rest to Harper's defaults. */
  async configure(off: readonly string[]): Promise<void> {
    const config = { ...(await this.defaultConfig()) };
    for (const rule of [...HARPER_ALWAYS_OFF, ...off]) if (rule in config) config[rule] = false;
    this.lintConfig = config;
    await this.linter.setLintConfig(config);
  }

  /** The rules as configure() last set them: harper.js's setDialect builds a new linter with every rule back on. */
  private lintConfig: Record<string, boolean | null> | undefined;

  /** Harper's defaults, asked once: each time, Harper builds a whole set of rules to read them from. */
  private defaults: Record<string, boolean | null> | undefined;
  private async defaultConfig(): Promise<Record<string, boolean | null>> {
    return (this.defaults ??= await this.linter.getDefaultLintConfig());
  }

  /** The names Harper knows its rules by. */
  async ruleNames(): Promise<string[]> {
    return Object.keys(await this.defaultConfig());
  }

  /** The words setWords() last gave (harper.js's setDialect forgets them with the rules). */
  private words: readonly string[] = [];

  async setDialect(dialect: Dialect): Promise<void> {
    await this.linter.setDialect(HARPER_DIALECT[dialect]);
    if (this.lintConfig) await this.linter.setLintConfig(this.lintConfig);
    if (this.words.length > 0) await this.linter.importWords([...this.words]);
  }

  async setWords(words: readonly string[]): Promise<void> {
    // Each of clearWords and importWords rebuilds Harper's rules: only what is needed.
    if (this.words.length > 0) await this.linter.clearWords();
    if (words.length > 0) await this.linter.importWords([...words]);
    this.words = [...words];
  }

  /** Lints plain text; the WebAssembly objects are copied out and freed. */
  async lint(text: string): Promise<HarperFinding[]> {
    const groups = await this.linter.organizedLints(text, { language: 'plaintext' });
    const out: HarperFinding[] = [];
    for (const [rule, lints] of Object.entries(groups)) {
      for (const lint of lints) {
        const span = lint.span();
        const suggestions = lint.suggestions().map((s) => {
          const kind = s.kind();
          const item = {
            kind: kind === 1 ? ('remove' as const) : kind === 2 ? ('insert-after' as const) : ('replace' as const),
            text: s.get_replacement_text(),
          };
          s.free?.();
          return item;
        });
        out.push({
          rule,
          kind: lint.lint_kind(),
          start: span.start,
          end: span.end,
          message: lint.message(),
          suggestions,
        });
        span.free?.();
        lint.free?.();
      }
    }
    return out.sort((a, b) => a.start - b.start || a.end - b.end);
  }

  async dispose(): Promise<void> {
    await this.linter.dispose();
  }
}
