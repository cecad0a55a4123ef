#!/usr/bin/env bash
# Fluency of one system's outputs on its held-out test split, beside the human references of the same
# items: grammatical-sentence rate (link-grammar), non-word rate (hunspell en_US), word-level
# repetition (seq-rep-4, repeated words) and leakage of other domains' training text. Builds the CLI,
# runs its eval with --dump, then scores the dump with draftsmith_train/fluency.py.
#
#   bash models/train/fluency.sh SYSTEM [MODEL_DIR] [LIMIT]
#     SYSTEM     summarize | essay | story | roundtrip | reply
#     MODEL_DIR  the model folder (default: the shipped one, models/SYSTEM)
#     LIMIT      test items (default 200; summarize takes LIMIT/2 documents of each domain: news, tech, ...)
#   DATA=DIR     the test split's folder (default: the shipped model's own: .data/simple for essay, story and
#                roundtrip, the models of simple stories; .data for summarize; reply: .data/reply when its
#                split lies there; e.g. DATA=.data for the mixed-domain splits)
#   TRAIN_DATA   the folder whose *.train.jsonl define the domains for leakage (default .data)
#   THREADS      onnxruntime threads (default 1), NICE (default 10)
#   EVAL_ARGS    more options for the eval, e.g. EVAL_ARGS=--no-guards (the paper's plain decoding) or
#                EVAL_ARGS='--mode abstractive' (summarize)
#   CARD=1       also write the tables into models/SYSTEM/MODEL_CARD.md (between its <!-- fluency:begin/end -->
#                markers, with the date and this command); CARD=FILE writes another card
#   FLUENCY_OUT  where the outputs go (default .work/fluency): two runs side by side each need their own
#   CLI_ROOT     another checkout whose CLI runs the eval (e.g. `git worktree add /tmp/before HEAD~1` for
#                before/after numbers; it needs --dump); default this one
# Needs the recipes' `prepare` first (python3 -m draftsmith_train.SYSTEM prepare --data .data, from
# models/train) and Debian's link-grammar, python3-link-grammar, hunspell, hunspell-en-us (/usr/bin/python3).
# Writes FLUENCY_OUT/SYSTEM.jsonl (the outputs), SYSTEM.eval.md (the eval's own table) and SYSTEM.json (the numbers).
set -euo pipefail
SYSTEM=${1:?usage: fluency.sh SYSTEM [MODEL_DIR] [LIMIT]}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
case "$SYSTEM" in
  summarize|essay|story|roundtrip|reply) ;;
  *) echo "fluency.sh: SYSTEM must be summarize, essay, story, roundtrip or reply, not $SYSTEM" >&2; exit 2 ;;
esac
MODEL_DIR=$(cd "${2:-$ROOT/models/$SYSTEM}" && pwd)
LIMIT=${3:-200}
PY=${PY:-/usr/bin/python3}
NICE=${NICE:-10}
THREADS=${THREADS:-1}
TRAIN_DATA=${TRAIN_DATA:-$ROOT/.data}
DATA_GIVEN=${DATA:-}
if [ -z "${DATA:-}" ]; then
  # The shipped model's own test split: the models of simple stories read .data/simple (as the CLI's evals do).
  case "$SYSTEM" in essay|story|roundtrip) DATA=$ROOT/.data/simple ;; *) DATA=$ROOT/.data ;; esac
  if [ "$SYSTEM" = reply ] && [ ! -f "$DATA/reply.test.jsonl" ] && [ -f "$DATA/reply/reply.test.jsonl" ]; then
    DATA=$ROOT/.data/reply
  fi
fi
DATA=$(cd "$DATA" && pwd)
EVAL_LIMIT=$LIMIT
[ "$SYSTEM" = summarize ] && EVAL_LIMIT=$(( (LIMIT + 1) / 2 ))   # per domain
OUT=${FLUENCY_OUT:-$ROOT/.work/fluency}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)   # the scorer runs from models/train
CLI_ROOT=$(cd "${CLI_ROOT:-$ROOT}" && pwd)
cd "$CLI_ROOT"
npm run --silent build >&2
extra=()
[ "$SYSTEM" = reply ] && extra=(--examples 0)
# shellcheck disable=SC2206 # EVAL_ARGS is split into words on purpose
extra+=(${EVAL_ARGS:-})
echo "== draftsmith eval $SYSTEM --variant shipped=$MODEL_DIR --limit $EVAL_LIMIT (data $DATA)" >&2
nice -n "$NICE" node dist/cli.js eval "$SYSTEM" --data "$DATA" --variant "shipped=$MODEL_DIR" --limit "$EVAL_LIMIT" \
  --threads "$THREADS" --dump "$OUT/$SYSTEM.jsonl" "${extra[@]}" > "$OUT/$SYSTEM.eval.md"
cat "$OUT/$SYSTEM.eval.md" >&2
echo "== fluency of $OUT/$SYSTEM.jsonl" >&2
cd "$ROOT/models/train"
card=()
if [ -n "${CARD:-}" ]; then
  [ "$CARD" = 1 ] && CARD=$ROOT/models/$SYSTEM/MODEL_CARD.md
  how="${DATA_GIVEN:+DATA=$DATA_GIVEN }${EVAL_ARGS:+EVAL_ARGS='$EVAL_ARGS' }"
  how+="bash models/train/fluency.sh $SYSTEM${2:+ $2}${3:+ $3}"
  card=(--card "$CARD" --command "$how" --eval-table "$OUT/$SYSTEM.eval.md")
fi
nice -n "$NICE" "$PY" -m draftsmith_train.fluency "$OUT/$SYSTEM.jsonl" --data "$TRAIN_DATA" \
  --json "$OUT/$SYSTEM.json" "${card[@]}"
