#!/usr/bin/env bash
# Integration tests in a real VS Code (code-server), offline:
#   (a) the in-host test module dist/test/integration/suite.js, run inside code-server's extension
#       host with this repository as the extension under development (no .vsix needed);
#   (b) the UI test test/integration/ui/workbench.ui.js, which drives the workbench in headless
#       Chromium with Draftsmith installed, as a person would.
# Ends with the line "N passed, M failed" (both parts together); exits non-zero on any failure.
#
# env: E2E_ONLY=in-host|ui|vsix  run one part only (vsix: test/integration/vsix.sh, the packed
#                             extension installed with --install-extension; last in a full run)
#      INHOST_TESTS=REGEX     only the in-host tests whose names match (UI_TESTS: the UI tests')
#      KEEP_E2E_STATE=1       keep the temporary code-server state folder (printed at the end)
#      DRAFTSMITH_EXT_PATH    extension folder to test (default: this repository)
#      INHOST_TIMEOUT_S, UI_COMMAND_TIMEOUT_S, E2E_PORT
# Screenshots and logs: test/integration/.out/ (replaced on each run).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"
# shellcheck source=../../scripts/e2e-lib.sh
source "$ROOT/scripts/e2e-lib.sh"

say() { printf '[e2e] %s\n' "$*"; }
T_START=$(e2e_ms)
secs() { awk -v a="$1" -v b="$(e2e_ms)" 'BEGIN { printf "%.1f", (b - a) / 1000 }'; }

EXT=${DRAFTSMITH_EXT_PATH:-$ROOT}
EXT=$(cd "$EXT" && pwd)
TESTS_MODULE=$EXT/dist/test/integration/suite.js
ONLY=${E2E_ONLY:-}
OUT=$ROOT/test/integration/.out

# ------------------------------------------------------------------ set-up
[ "$ONLY" = vsix ] && exec bash "$ROOT/test/integration/vsix.sh"
bash "$ROOT/scripts/setup-e2e.sh"

if [ ! -f "$EXT/dist/host.js" ] || { [ "$ONLY" != ui ] && [ ! -f "$TESTS_MODULE" ]; }; then
  if [ "$EXT" = "$ROOT" ]; then
    say "dist/ is incomplete: building"
    npm run --silent build
  fi
fi
[ -f "$EXT/dist/host.js" ] || { say "ERROR: $EXT/dist/host.js missing"; exit 1; }
if [ ! -d "$ROOT/node_modules/playwright-core" ]; then
  say "ERROR: node_modules/playwright-core missing: run 'npm ci' first"
  exit 1
fi

rm -rf "$OUT"
mkdir -p "$OUT"
STATE=$(mktemp -d "${TMPDIR:-/tmp}/draftsmith-e2e.XXXXXX")
E2E_CS_PID=
DRIVER_PID=
cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  [ -n "$DRIVER_PID" ] && e2e_kill_tree "$DRIVER_PID" 3
  [ -n "$E2E_CS_PID" ] && e2e_kill_tree "$E2E_CS_PID" 5
  [ -f "$STATE/code-server.log" ] && cp "$STATE/code-server.log" "$OUT/" 2>/dev/null
  if [ "${KEEP_E2E_STATE:-}" = 1 ]; then say "state kept in $STATE"; else rm -rf "$STATE"; fi
  exit "$rc"
}
trap cleanup EXIT
trap 'say "interrupted"; exit 130' INT
trap 'say "terminated"; exit 143' TERM HUP

# Two workspace folders, so the in-host suite's edits never reach the UI test.
for ws in ws-in-host ws-ui; do
  mkdir -p "$STATE/$ws"
  cp "$ROOT/samples/sample.md" "$STATE/$ws/sample.md"
done
# Draftsmith installed (linked) for the UI test; the in-host run loads it as the extension under
# development instead, which takes precedence over the installed copy.
e2e_link_extension "$STATE/extensions" "$EXT"

# ------------------------------------------------------------------ code-server
t=$(e2e_ms)
for try in 1 2 3; do
  PORT=${E2E_PORT:-$(e2e_free_port $((8090 + 10 * (try - 1))))}
  BASE=http://127.0.0.1:$PORT
  e2e_start_code_server "$STATE" "$PORT" "$STATE/ws-ui" --vscode-option enable-smoke-test-driver
  hz=0
  e2e_wait_healthz "$PORT" 120 "$E2E_CS_PID" || hz=$?
  [ "$hz" = 0 ] && break
  e2e_kill_tree "$E2E_CS_PID" 5
  E2E_CS_PID=
  # Another run may have taken the port between the check and the bind: try another one.
  if [ "$try" -lt 3 ] && [ -z "${E2E_PORT:-}" ] && grep -q EADDRINUSE "$STATE/code-server.log"; then
    say "port $PORT was taken meanwhile; trying another"
    continue
  fi
  say "ERROR: code-server did not become healthy on $BASE; the end of its log:"
  tail -n 40 "$STATE/code-server.log" | sed 's/^/    /'
  exit 1
done
say "code-server $(cat "$E2E_DIR/code-server/.stamp" | cut -d' ' -f1) up on $BASE in $(secs "$t")s (state: $STATE)"

# Runs a driver in the background and waits, so a signal reaches the trap at once.
drive() {
  node "$@" &
  DRIVER_PID=$!
  local rc=0
  wait "$DRIVER_PID" || rc=$?
  DRIVER_PID=
  return "$rc"
}

RC=0
if [ "$ONLY" != ui ]; then
  t=$(e2e_ms)
  say "in-host suite: ${TESTS_MODULE#"$ROOT"/} (extension under development: $EXT)"
  drive "$ROOT/test/integration/harness/in-host.js" "$BASE" "$STATE/ws-in-host" "$EXT" "$TESTS_MODULE" "$OUT" || RC=1
  say "in-host suite finished in $(secs "$t")s"
fi
if [ "$ONLY" != in-host ]; then
  t=$(e2e_ms)
  say "UI test: test/integration/ui/workbench.ui.js"
  drive "$ROOT/test/integration/ui/workbench.ui.js" "$BASE/?folder=$STATE/ws-ui" "$OUT" || RC=1
  say "UI test finished in $(secs "$t")s"
fi
if [ -z "$ONLY" ]; then
  # Its own code-server with the VSIX installed: this one goes first, so two never run at once.
  e2e_kill_tree "$E2E_CS_PID" 5
  E2E_CS_PID=
  say "VSIX test: test/integration/vsix.sh"
  bash "$ROOT/test/integration/vsix.sh" || RC=1
fi

# ------------------------------------------------------------------ summary
read -r P F < <(node -e '
  const fs = require("fs"), path = require("path");
  let p = 0, f = 0;
  for (const [name, want] of [["in-host.json", process.argv[2] !== "ui"], ["ui.json", process.argv[2] !== "in-host"], ["vsix/vsix.json", !process.argv[2]]]) {
    if (!want) continue;
    try {
      const r = JSON.parse(fs.readFileSync(path.join(process.argv[1], name), "utf8"));
      p += r.passed; f += r.failed;
      // CI shows only the end of the output: name every failure here, next to the count.
      const failures = r.failures || (r.tests || []).filter((t) => !t.ok);
      for (const t of failures) console.error(`[e2e] failed (${name}): ${t.name}${t.error ? ` — ${String(t.error).split("\n")[0]}` : ""}`);
    }
    catch { f += 1; console.error(`[e2e] ${name}: no result`); }
  }
  console.log(p, f);
' "$OUT" "$ONLY")
if [ "$RC" != 0 ] && [ "$F" = 0 ]; then F=1; fi
say "screenshots and logs: ${OUT#"$ROOT"/}/ ; total $(secs "$T_START")s"
echo "$P passed, $F failed"
[ "$F" = 0 ] && [ "$RC" = 0 ]
