// npm run package: a VSIX for this platform with only what runs (dist/ without tests and benches,
// the models, this platform's onnxruntime-node binary, the production dependencies), and its size.
// usage: [LLAMA_GPU=cuda,vulkan] node scripts/package.mjs [--ls] [--out FILE]
//   --ls   print the files the VSIX would hold (the same rules) instead of packing
//   LLAMA_GPU  llama.cpp's GPU builds to ship besides its CPU build (Metal is the Apple-silicon build
//          itself): cuda (linux/win32-x64: its -cuda and -cuda-ext packages, ~540 MB unpacked),
//          vulkan (~80 MB). Unset: the CPU build only, and llama.cpp runs GGUF models on the CPU.
// .vscodeignore holds the rules for every platform; the other platforms' native folders are added
// here, for the platform this runs on, as Continue's packaging does. vsce runs in a staging folder
// of hard links holding the production packages of package-lock.json as real folders, so npm's
// dependency listing (which vsce uses) works whether node_modules is a folder or a link to one.
import { execFileSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

const args = process.argv.slice(2);
const listOnly = args.includes('--ls');
const outAt = args.indexOf('--out');
const root = process.cwd();
const pkg = JSON.parse(readFileSync('package.json', 'utf8'));
const lock = JSON.parse(readFileSync('package-lock.json', 'utf8'));

// vsce's target names (onnxruntime-node ships no musl build, so no alpine target).
const target = `${process.platform}-${process.arch}`;
const TARGETS = ['win32-x64', 'win32-arm64', 'linux-x64', 'linux-arm64', 'darwin-x64', 'darwin-arm64'];
if (!TARGETS.includes(target)) {
  console.error(`package: no VSIX target for ${target} (onnxruntime-node ships ${TARGETS.join(', ')})`);
  process.exit(1);
}

/** .vscodeignore lines for the onnxruntime-node folders of every other platform. */
function otherPlatforms() {
  const bin = 'node_modules/onnxruntime-node/bin/napi-v6';
  const lines = [];
  for (const os of readdirSync(bin)) {
    for (const arch of readdirSync(join(bin, os))) {
      if (`${os}-${arch}` !== target) lines.push(`${bin}/${os}/${arch}/**`);
    }
  }
  return lines;
}

/** node-llama-cpp's prebuilt package for each VSIX target (the CPU build; Apple silicon's is Metal). */
const LLAMA_PACKAGES = {
  'win32-x64': 'win-x64',
  'win32-arm64': 'win-arm64',
  'linux-x64': 'linux-x64',
  'linux-arm64': 'linux-arm64',
  'darwin-x64': 'mac-x64',
  'darwin-arm64': 'mac-arm64-metal',
};

/** .vscodeignore lines for llama.cpp's packages other than this target's CPU build and the GPU builds asked for. */
function otherLlamaBuilds() {
  const dir = 'node_modules/@node-llama-cpp';
  if (!existsSync(dir)) return [];
  const base = LLAMA_PACKAGES[target];
  const gpu = (process.env.LLAMA_GPU ?? '').split(',').filter(Boolean);
  const keep = new Set([
    base,
    ...gpu.flatMap((g) => (g === 'cuda' ? [`${base}-cuda`, `${base}-cuda-ext`] : [`${base}-${g}`])),
  ]);
  return readdirSync(dir)
    .filter((name) => !keep.has(name))
    .map((name) => `${dir}/${name}/**`);
}

/** Copies `from` to `to` as hard links (a plain copy across file systems), following links. */
function linkTree(from, to) {
  const st = statSync(from);
  if (st.isDirectory()) {
    mkdirSync(to, { recursive: true });
    for (const name of readdirSync(from)) linkTree(join(from, name), join(to, name));
  } else if (!existsSync(to)) {
    // a nested package may come twice (its parent holds it too)
    try {
      linkSync(from, to);
    } catch {
      cpSync(from, to);
    }
  }
}

const stage = mkdtempSync(join(tmpdir(), 'draftsmith-package-'));
try {
  for (const entry of ['package.json', 'package-lock.json', 'README.md', 'bin', 'dist', 'docs', 'models']) {
    if (existsSync(entry)) linkTree(entry, join(stage, entry));
  }
  // Training code and runs never ship; the recipe's README does (the README links to it).
  rmSync(join(stage, 'models', 'train'), { recursive: true, force: true });
  if (existsSync('models/train/README.md')) linkTree('models/train/README.md', join(stage, 'models/train/README.md'));
  // The production packages (not dev, and present: optional ones for other platforms are not).
  for (const [path, info] of Object.entries(lock.packages)) {
    if (path && !info.dev && existsSync(path)) linkTree(path, join(stage, path));
  }
  const ignoreFile = join(stage, '.vscodeignore');
  writeFileSync(
    ignoreFile,
    `${readFileSync('.vscodeignore', 'utf8')}\n# ${target} ` +
      `only\n${[...otherPlatforms(), ...otherLlamaBuilds()].join('\n')}\n`,
  );
  const vsce = join(root, 'node_modules', '.bin', 'vsce');
  if (listOnly) {
    process.stdout.write(execFileSync(vsce, ['ls', '--ignoreFile', ignoreFile], { cwd: stage, encoding: 'utf8' }));
  } else {
    const out = resolve(outAt >= 0 ? args[outAt + 1] : `${pkg.name}-${pkg.version}-${target}.vsix`);
    mkdirSync(dirname(out), { recursive: true });
    const started = Date.now();
    // The README's relative links name files inside the package (the model cards, docs/, the
    // training README): they stay relative, so the installed extension's page opens its own
    // copies; there is no public repository to rewrite them against (package.json's is a placeholder).
    execFileSync(
      vsce,
      [
        'package',
        '--target',
        target,
        '--ignoreFile',
        ignoreFile,
        '--no-rewrite-relative-links',
        '--allow-missing-repository',
        '--skip-license',
        '--out',
        out,
      ],
      { cwd: stage, stdio: ['ignore', 'inherit', 'inherit'] },
    );
    const mib = (statSync(out).size / 1048576).toFixed(1);
    console.log(`${out}: ${mib} MiB for ${target}, packed in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }
} finally {
  rmSync(stage, { recursive: true, force: true });
}
