#!/usr/bin/env bash
# The formatter and linter checks that `npm test` runs first (and CI with it):
#   prettier --check (TypeScript, JavaScript, JSON, CSS), eslint (rules and boundaries: eslint.config.mjs),
#   black --check (the Python of models/train and the fixture generators), and no import cycle among
#   models/train's modules (scripts/python-cycles.py; imports inside functions count), and at most a
#   few code lines over 120 characters.
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
# Long lines: code lines over 120 characters, tests aside, are split where they are prose; the few
# left are data (long regexes, the fixture generators' Jinja chat templates and tokenizer patterns).
# The limit keeps the count from growing back: lower it when lines go, never raise it to let one in.
# LC_ALL=C: every awk counts bytes, as mawk does.
LONG_LINES_LIMIT=15
echo "[lint] lines over 120 characters (at most $LONG_LINES_LIMIT)"
long_lines=$(git ls-files | grep -E '\.(ts|mjs|cjs|js|py|sh)$' | grep -v -E '^test/|/tests/' \
  | LC_ALL=C xargs awk 'length > 120 {print FILENAME ":" FNR}')
long_count=$(printf '%s' "$long_lines" | grep -c .)
if [ "$long_count" -gt "$LONG_LINES_LIMIT" ]; then
  echo "[lint] $long_count lines over 120 characters, more than $LONG_LINES_LIMIT: split them where they are prose"
  printf '%s\n' "$long_lines" | sed 's/^/    /'
  status=1
fi
[ "$status" = 0 ] && echo "[lint] clean"
exit "$status"
