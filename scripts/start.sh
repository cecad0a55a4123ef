#!/usr/bin/env bash
# Starts a real VS Code (code-server, in the browser) with Draftsmith installed from this
# repository and a workspace holding samples/sample.md. Does all set-up on a fresh machine first:
# npm install, build, scripts/setup-e2e.sh (Chromium, Node 24, code-server into .e2e/).
#
#   npm start                     # or: bash scripts/start.sh [--port N]
#       then open the printed URL; Ctrl+C stops it.
#   bash scripts/start.sh --check
#       starts it on a free port with a throwaway profile, loads the page in headless Chromium,
#       checks the workbench shows sample.md and the palette lists the Draftsmith commands, stops,
#       and exits 0 when all is well.
#
# How the extension is loaded: the repository folder is symlinked into a fresh --extensions-dir
# as draftsmith.draftsmith-<version>. The extension needs its node_modules (onnxruntime-node's
# native binary, @huggingface/transformers) and models/ at run time, and the repository has
# exactly those, so no packaging step is needed and a rebuild plus "Developer: Reload Window"
# picks up changes. (VS Code only scans the folder while it has no extensions.json, which
# `--install-extension` would write, hence a fresh extensions dir on every start.)
#
# env: PORT (default 8080), DRAFTSMITH_EXT_PATH (extension folder, default: this repository)
# Writes only under .e2e/ (code-server's config, profile and logs: .e2e/start/), not to $HOME.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
# shellcheck source=./e2e-lib.sh
source "$ROOT/scripts/e2e-lib.sh"
say() { printf '[start] %s\n' "$*"; }

CHECK=0
PORT=${PORT:-8080}
while (($#)); do
  case "$1" in
    --check) CHECK=1 ;;
    --port) PORT=$2; shift ;;
    --port=*) PORT=${1#--port=} ;;
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) say "unknown argument: $1 (try --help)"; exit 2 ;;
  esac
  shift
done

# ------------------------------------------------------------------ set-up
T0=$(e2e_ms)
if [ ! -d node_modules ]; then
  say "installing npm dependencies"
  if [ -f package-lock.json ]; then npm ci; else npm install; fi
fi
EXT=${DRAFTSMITH_EXT_PATH:-$ROOT}
EXT=$(cd "$EXT" && pwd)
if [ ! -f "$EXT/dist/host.js" ] && [ "$EXT" = "$ROOT" ]; then
  say "building dist/"
  npm run --silent build
fi
[ -f "$EXT/dist/host.js" ] || { say "ERROR: $EXT/dist/host.js missing"; exit 1; }
bash "$ROOT/scripts/setup-e2e.sh"

# ------------------------------------------------------------------ state
if [ "$CHECK" = 1 ]; then
  STATE=$(mktemp -d "${TMPDIR:-/tmp}/draftsmith-start-check.XXXXXX")
  PORT=$(e2e_free_port "$PORT")
else
  STATE=$E2E_DIR/start
  if e2e_port_in_use "$PORT"; then
    say "ERROR: 127.0.0.1:$PORT is in use; stop what runs there or pick another: PORT=8081 npm start"
    exit 1
  fi
fi
WS=$STATE/workspace
mkdir -p "$WS"
# The person's copy of the sample: kept across starts, so their edits stay theirs.
[ -f "$WS/sample.md" ] || cp "$ROOT/samples/sample.md" "$WS/sample.md"
rm -rf "$STATE/extensions"
e2e_link_extension "$STATE/extensions" "$EXT"
: >"$STATE/code-server.log"

E2E_CS_PID=
CHECK_PID=
cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  [ -n "$CHECK_PID" ] && e2e_kill_tree "$CHECK_PID" 3
  if [ -n "$E2E_CS_PID" ]; then
    say "stopping code-server"
    e2e_kill_tree "$E2E_CS_PID" 5
  fi
  # The link points back at the repository (which holds .e2e/): drop it so that nothing walking
  # the repository (vsce, search tools) meets a loop.
  rm -rf "$STATE/extensions"
  if [ "$CHECK" = 1 ]; then rm -rf "$STATE"; fi
  exit "$rc"
}
trap cleanup EXIT
trap 'echo; exit 0' INT
trap 'exit 143' TERM HUP

# ------------------------------------------------------------------ code-server
t=$(e2e_ms)
e2e_start_code_server "$STATE" "$PORT" "$WS"
if ! e2e_wait_healthz "$PORT" 120 "$E2E_CS_PID"; then
  say "ERROR: code-server did not come up on 127.0.0.1:$PORT; the end of its log:"
  tail -n 40 "$STATE/code-server.log" | sed 's/^/    /'
  exit 1
fi
# The sample opened in an editor as well (VS Code web's `payload` query: openFile, a vscode-remote URI).
OPEN_SAMPLE=$(node -e 'const [port, file] = process.argv.slice(1);
  const uri = `vscode-remote://127.0.0.1:${port}${file}`;
  process.stdout.write(encodeURIComponent(JSON.stringify([["openFile", uri]])))' \
  "$PORT" "$WS/sample.md")
URL="http://127.0.0.1:$PORT/?folder=$WS&payload=$OPEN_SAMPLE"
say "code-server is up in $(( $(e2e_ms) - t )) ms (set-up and start: $(( ($(e2e_ms) - T0) / 1000 )) s)"

if [ "$CHECK" = 1 ]; then
  OUT=$ROOT/test/integration/.out
  mkdir -p "$OUT"
  node "$ROOT/test/integration/harness/check-start.js" "$URL" "$OUT/start-check.png" &
  CHECK_PID=$!
  rc=0
  wait "$CHECK_PID" || rc=$?
  CHECK_PID=
  if [ "$rc" = 0 ]; then say "check passed (screenshot: ${OUT#"$ROOT"/}/start-check.png)"; else say "check FAILED"; fi
  exit "$rc"
fi

cat <<EOF

  Draftsmith is running in VS Code (code-server $(cut -d' ' -f1 "$E2E_DIR/code-server/.stamp" | cut -d@ -f2)).
  Open in a browser:

      $URL

  sample.md opens in an editor: run "Draftsmith: Summarize Document" (Ctrl+Shift+P / F1, or right-click
  in the editor), or "Draftsmith: Show Insights". Listening on 127.0.0.1 only; no password.
  Logs: ${STATE#"$ROOT"/}/code-server.log    Stop: Ctrl+C

EOF
rc=0
wait "$E2E_CS_PID" || rc=$?
E2E_CS_PID=
say "code-server exited ($rc)"
exit "$rc"
