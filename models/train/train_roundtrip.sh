#!/usr/bin/env bash
# The whole Round-Trip recipe (Li, Luong & Jurafsky 2015): paragraphs split into sentences, the three
# autoencoders (standard, hier, hier-attn), the eval table on held-out paragraphs, and the export of
# the shipped one. On a CUDA GPU when present (--device auto), otherwise on one CPU thread each.
# Needs the shared tokenizer first (train_summarize.sh: $DATA/spm.model, $DATA/tokenizer/).
#
#   SMOKE=1 bash models/train/train_roundtrip.sh                   # every stage at a tiny size, all
# under .work/smoke/roundtrip
#   bash models/train/train_roundtrip.sh                           # the card's run (126 min each),
# exported to models/roundtrip
#   STEPS=20000 MINUTES=120 EVAL_LIMIT=500 bash models/train/train_roundtrip.sh   # a GPU
#   CORPUS=simple DATA=../../.data/simple MODELS=hier-attn MINUTES=125 bash models/train/train_roundtrip.sh
#                                     # the shipped model: simple stories (ROCStories, TinyStories), its own tokenizer
#
# Training runs through the DDP launcher (launch.py): NPROC processes (default auto: one per CPU core
# here, one per GPU there); NPROC=1 is the single process the card's numbers came from. --batch-tokens is
# per process, so N processes train N x BATCH_TOKENS per step.
#
# STEPS and MINUTES bound each model's run (whichever comes first); SHIP names the model exported
# to models/roundtrip (OUT), with its parity fixture in test/fixtures/roundtrip-parity.json; all three
# are also exported to $VARIANTS/<model> (default .work/roundtrip, ignored by git), each with its own
# parity.json, for `npx draftsmith eval roundtrip --variant standard=.work/roundtrip/standard ...`.
# HIDDEN, LAYERS and BATCH_TOKENS set the size (the paper: 4 x 1000). A run goes on from the weights and
# optimizer its checkpoint kept at the last validation (a CPU run spans sessions); STEPS and MINUTES
# count the whole run.
set -euo pipefail
cd "$(dirname "$0")"
PY=${PY:-/usr/bin/python3}
SMOKE=${SMOKE:-0}
if [ "$SMOKE" = 1 ]; then
  # A few steps of each stage at a tiny size; nothing outside .work/smoke/roundtrip unless OUT/RUNS/VARIANTS say so.
  S=../../.work/smoke/roundtrip
  : "${RUNS:=$S/runs}" "${OUT:=$S/model}" "${VARIANTS:=$S/variants}" "${STEPS:=20}" "${HIDDEN:=32}" "${LAYERS:=1}"
  : "${BATCH_TOKENS:=800}" "${VAL_EVERY:=10}" "${EVAL_LIMIT:=10}" "${MAX_VAL:=40}" "${NPROC:=1}"
  if [ -z "${RUNS:-}" ]; then rm -rf "$S/runs"; fi   # a fresh run every time (only the smoke folder's own checkpoints)
fi
DATA=${DATA:-../../.data}
RUNS=${RUNS:-runs}
STEPS=${STEPS:-100000}
MINUTES=${MINUTES:-126}
MAX_VAL=${MAX_VAL:-300}
NPROC=${NPROC:-auto}
HIDDEN=${HIDDEN:-256}
LAYERS=${LAYERS:-2}
BATCH_TOKENS=${BATCH_TOKENS:-3000}
VAL_EVERY=${VAL_EVERY:-250}
EVAL_LIMIT=${EVAL_LIMIT:-200}
SHIP=${SHIP:-hier-attn}
CORPUS=${CORPUS:-mixed}                  # mixed: news, tech, wiki, fairy tales; simple: ROCStories + TinyStories
MODELS=${MODELS:-standard hier hier-attn}
OUT=${OUT:-../roundtrip}
VARIANTS=${VARIANTS:-../../.work/roundtrip}
mkdir -p "$RUNS"
T0=$(date +%s)
[ -f "$DATA/roundtrip.train.jsonl" ] || $PY -m draftsmith_train.roundtrip prepare --corpus "$CORPUS" --data "$DATA"
for m in $MODELS; do
  $PY -m draftsmith_train.launch --nproc "$NPROC" -m draftsmith_train.roundtrip train --data "$DATA" --model "$m" \
    --steps "$STEPS" --minutes "$MINUTES" --hidden "$HIDDEN" --embed "$HIDDEN" --layers "$LAYERS" \
    --batch-tokens "$BATCH_TOKENS" --val-every "$VAL_EVERY" --max-val "$MAX_VAL" --resume \
    --out "$RUNS/roundtrip-$m.pt" 2>&1 | tee -a "$RUNS/roundtrip-$m.log"
done
$PY -m draftsmith_train.roundtrip eval --data "$DATA" --split test --limit "$EVAL_LIMIT" \
  --ckpt $(for m in $MODELS; do echo "$RUNS/roundtrip-$m.pt"; done) | tee "$RUNS/roundtrip-eval.md"
for m in $MODELS; do
  $PY -m draftsmith_train.roundtrip export --data "$DATA" --ckpt "$RUNS/roundtrip-$m.pt" --out "$VARIANTS/$m"
done
$PY -m draftsmith_train.roundtrip export --data "$DATA" --ckpt "$RUNS/roundtrip-$SHIP.pt" --out "$OUT"
# The vocabulary guard's known words (decode/guards.ts): the words the training paragraphs hold twice or more.
$PY -m draftsmith_train.wordlist --data "$DATA/roundtrip.train.jsonl" --out "$OUT/words.txt" \
  --manifest "$OUT/model.json"
# export_roundtrip.default_fixture: the shipped folder's fixture lives with the tests, any other folder keeps its own.
if [ "$(cd "$OUT" && pwd)" = "$(cd ../roundtrip 2>/dev/null && pwd)" ]; then
  FIXTURE=../../test/fixtures/roundtrip-parity.json
else
  FIXTURE=$OUT/parity.json
fi
if [ -d ../../node_modules/onnxruntime-node ]; then
  node check_roundtrip_onnx.cjs "$OUT" "$FIXTURE"
  for m in $MODELS; do node check_roundtrip_onnx.cjs "$VARIANTS/$m" "$VARIANTS/$m/parity.json"; done
fi
echo "train_roundtrip.sh: done in $(( $(date +%s) - T0 )) s (exported to $OUT)"
