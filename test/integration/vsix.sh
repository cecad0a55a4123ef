#!/usr/bin/env bash
# The VSIX a user installs: packs it (scripts/package.mjs, or takes the one given), installs it into
# a fresh code-server with `--install-extension`, runs Summarize Document from the installed copy
# (test/integration/vsix/installed.tests.js, carried in by an empty probe extension), then
# uninstalls it with `--uninstall-extension` and checks it is gone.
# Ends with "N passed, M failed"; writes test/integration/.out/vsix/vsix.json.
#
# usage: bash test/integration/vsix.sh [FILE.vsix]
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"
# shellcheck source=../../scripts/e2e-lib.sh
source "$ROOT/scripts/e2e-lib.sh"
say() { printf '[vsix] %s\n' "$*"; }
T_START=$(e2e_ms)
secs() { awk -v a="$1" -v b="$(e2e_ms)" 'BEGIN { printf "%.1f", (b - a) / 1000 }'; }

OUT=$ROOT/test/integration/.out/vsix
bash "$ROOT/scripts/setup-e2e.sh"
[ -f "$ROOT/dist/host.js" ] || npm run --silent build
rm -rf "$OUT"
mkdir -p "$OUT"
STATE=$(mktemp -d "${TMPDIR:-/tmp}/draftsmith-vsix.XXXXXX")
E2E_CS_PID=
DRIVER_PID=
cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  [ -n "$DRIVER_PID" ] && e2e_kill_tree "$DRIVER_PID" 3
  [ -n "$E2E_CS_PID" ] && e2e_kill_tree "$E2E_CS_PID" 5
  [ -f "$STATE/code-server.log" ] && cp "$STATE/code-server.log" "$OUT/" 2>/dev/null
  rm -rf "$STATE"
  exit "$rc"
}
trap cleanup EXIT
trap 'say "interrupted"; exit 130' INT
trap 'say "terminated"; exit 143' TERM HUP

PASSED=0
FAILED=0
ok() { PASSED=$((PASSED + 1)); echo "✔ $*"; }
bad() { FAILED=$((FAILED + 1)); echo "✖ $*"; }

# code-server's CLI, isolated from $HOME as e2e_start_code_server runs it.
cs() {
  PATH="$E2E_N24/bin:$PATH" \
  XDG_CONFIG_HOME="$STATE/xdg-config" XDG_DATA_HOME="$STATE/xdg-data" XDG_CACHE_HOME="$STATE/xdg-cache" \
  "$E2E_CS_BIN" --user-data-dir "$STATE/user-data" --extensions-dir "$STATE/extensions" "$@"
}
mkdir -p "$STATE/xdg-config" "$STATE/xdg-data" "$STATE/xdg-cache" "$STATE/extensions" "$STATE/ws"
cp "$ROOT/samples/sample.md" "$STATE/ws/sample.md"

VSIX=${1:-}
if [ -z "$VSIX" ]; then
  t=$(e2e_ms)
  VSIX=$STATE/draftsmith.vsix
  node scripts/package.mjs --out "$VSIX" >"$OUT/package.log" 2>&1 || { tail -n 30 "$OUT/package.log"; bad "npm run package makes a VSIX"; }
  [ -f "$VSIX" ] && { ok "npm run package makes a VSIX"; say "$(tail -n 1 "$OUT/package.log") ($(secs "$t")s with the staging)"; }
fi

t=$(e2e_ms)
if [ -f "$VSIX" ] && cs --install-extension "$VSIX" >"$OUT/install.log" 2>&1 \
   && cs --list-extensions | grep -qx 'draftsmith.draftsmith'; then
  ok "code-server --install-extension installs the VSIX ($(secs "$t")s)"
else
  cat "$OUT/install.log" 2>/dev/null | tail -n 20
  bad "code-server --install-extension installs the VSIX"
fi

if [ "$FAILED" = 0 ]; then
  PORT=$(e2e_free_port 8190)
  e2e_start_code_server "$STATE" "$PORT" "$STATE/ws" --vscode-option enable-smoke-test-driver
  if e2e_wait_healthz "$PORT" 120 "$E2E_CS_PID"; then
    node "$ROOT/test/integration/harness/in-host.js" "http://127.0.0.1:$PORT" "$STATE/ws" \
      "$ROOT/test/integration/vsix/probe" "$ROOT/test/integration/vsix/installed.tests.js" "$OUT" &
    DRIVER_PID=$!
    rc=0; wait "$DRIVER_PID" || rc=$?; DRIVER_PID=
    read -r p f < <(node -e 'const r = require(process.argv[1]); console.log(r.passed, r.failed)' "$OUT/in-host.json" 2>/dev/null || echo "0 1")
    PASSED=$((PASSED + p)); FAILED=$((FAILED + f))
    [ "$rc" = 0 ] || [ "$f" != 0 ] || FAILED=$((FAILED + 1))
  else
    bad "code-server starts with the installed VSIX"
  fi
  e2e_kill_tree "$E2E_CS_PID" 5
  E2E_CS_PID=
  if cs --uninstall-extension draftsmith.draftsmith >"$OUT/uninstall.log" 2>&1 \
     && ! cs --list-extensions | grep -qx 'draftsmith.draftsmith'; then
    ok "code-server --uninstall-extension removes it"
  else
    tail -n 20 "$OUT/uninstall.log"
    bad "code-server --uninstall-extension removes it"
  fi
fi

node -e 'require("fs").writeFileSync(process.argv[1], JSON.stringify({ passed: +process.argv[2], failed: +process.argv[3] }))' \
  "$OUT/vsix.json" "$PASSED" "$FAILED"
say "total $(secs "$T_START")s; logs in ${OUT#"$ROOT"/}/"
echo "$PASSED passed, $FAILED failed"
[ "$FAILED" = 0 ]
