#!/usr/bin/env bash
# The formatter and linter checks that `npm test` runs first (and CI with it):
#   prettier --check (TypeScript, JavaScript, JSON, CSS), eslint (rules and boundaries: eslint.config.mjs),
#   black --check (the Python of models/train and the fixture generators), and no import cycle among
#   models/train's modules (scripts/python-cycles.py; imports inside functions count).
# `npm run format` rewrites what the checks would reject.
# Black comes from Debian (scripts/setup-train.sh installs it); without it the Python check is skipped,
# saying so, except in CI (CI=true), where it must run.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
PY_DIRS=(models/train test/fixtures/generators)
status=0
echo "[lint] prettier --check"
npx --no-install prettier --check --log-level warn . \
  || { echo "[lint] formatting differs: run 'npm run format'"; status=1; }
echo "[lint] eslint"
npx --no-install eslint --max-warnings 0 . || status=1
if command -v black >/dev/null 2>&1; then
  echo "[lint] black --check"
  black --check -q "${PY_DIRS[@]}" || { echo "[lint] Python formatting differs: run 'npm run format'"; status=1; }
elif [ "${CI:-}" = true ]; then
  echo "[lint] black is missing (apt-get install black)"; status=1
else
  echo "[lint] black is missing: the Python formatting check is skipped (apt-get install black)"
fi
echo "[lint] Python import cycles"
python3 scripts/python-cycles.py models/train/draftsmith_train || status=1
[ "$status" = 0 ] && echo "[lint] clean"
exit "$status"
