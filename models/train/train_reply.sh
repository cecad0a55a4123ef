#!/usr/bin/env bash
# The whole Suggest Replies recipe (ESED): post -> reply pairs with their keys, the NRM baseline (which
# also embeds the reply sentences for the memory), the memory (truncated SVD + k-means per key), ESED
# on the same pairs, and the exports. On a CUDA GPU when present (--device auto), else one CPU thread.
# Needs the shared tokenizer first (train_summarize.sh writes .data/spm.model and .data/tokenizer/;
# DATA=.data/reply links them).
#
#   SMOKE=1 bash models/train/train_reply.sh                           # every stage at a tiny size, all
# under .work/smoke/reply
#   bash models/train/train_reply.sh                                   # the card's run (32 min each,
# 256 units), exported to models/reply
#   STEPS=30000 MINUTES=120 HIDDEN=256 EMBED=256 bash models/train/train_reply.sh   # a GPU
#
# Training runs through the DDP launcher (launch.py): NPROC processes (default auto: one per CPU core
# here, one per GPU there); NPROC=1 is the single process the card's numbers came from. --batch-tokens is
# per process, so N processes train N x BATCH_TOKENS per step.
#
# STEPS and MINUTES bound each model's run (whichever comes first; a run goes on from the weights and
# optimizer its checkpoint kept at the last validation, so STEPS and MINUTES count the whole run). The pairs
# are few (31k): a 256-unit model overfits them within an hour, so the memory and the exports read each
# run's lowest-validation-NLL weights (runs/reply-*.best.pt, kept beside the checkpoint).
# ESED is exported to models/reply (OUT) with its parity fixture in test/fixtures/reply-parity.json;
# NRM to $VARIANTS/nrm (default .work/reply-nrm, ignored by git) with its own parity.json, for
#   npx draftsmith eval reply --variant nrm=.work/reply-nrm
set -euo pipefail
cd "$(dirname "$0")"
PY=${PY:-/usr/bin/python3}
SMOKE=${SMOKE:-0}
if [ "$SMOKE" = 1 ]; then
  # A few steps of each stage at a tiny size; nothing outside .work/smoke/reply unless OUT/RUNS/NRM_OUT say so.
  S=../../.work/smoke/reply
  : "${RUNS:=$S/runs}" "${OUT:=$S/model}" "${NRM_OUT:=$S/nrm}" "${STEPS:=20}" "${HIDDEN:=32}" "${EMBED:=32}"
  : "${VAL_EVERY:=10}" "${MAX_VAL:=64}" "${NPROC:=1}"
  if [ -z "${RUNS:-}" ]; then rm -rf "$S/runs"; fi   # a fresh run every time (only the smoke folder's own checkpoints)
fi
DATA=${DATA:-../../.data/reply}
RUNS=${RUNS:-runs}
STEPS=${STEPS:-30000}
MINUTES=${MINUTES:-32}
HIDDEN=${HIDDEN:-256}
EMBED=${EMBED:-256}
MAX_VAL=${MAX_VAL:-500}
NPROC=${NPROC:-auto}
SLOTS=${SLOTS:-8}
LR=${LR:-1e-3}
DROPOUT=${DROPOUT:-0.3}
BATCH_TOKENS=${BATCH_TOKENS:-2000}
VAL_EVERY=${VAL_EVERY:-250}
OUT=${OUT:-../reply}
NRM_OUT=${NRM_OUT:-../../.work/reply-nrm}
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
mkdir -p "$RUNS" "$DATA"
T0=$(date +%s)
# The shared tokenizer lives one level up (.data/spm.model, .data/tokenizer/): link it in.
[ -e "$DATA/spm.model" ] || ln -s ../spm.model "$DATA/spm.model"
[ -e "$DATA/tokenizer" ] || ln -s ../tokenizer "$DATA/tokenizer"
[ -f "$DATA/reply.train.jsonl" ] || $PY -m draftsmith_train.reply prepare --data "$DATA"
common=(--data "$DATA" --steps "$STEPS" --minutes "$MINUTES" --hidden "$HIDDEN" --embed "$EMBED" --lr "$LR"
        --dropout "$DROPOUT" --batch-tokens "$BATCH_TOKENS" --val-every "$VAL_EVERY" --max-val "$MAX_VAL" --resume)
TRAIN=("$PY" -m draftsmith_train.launch --nproc "$NPROC" -m draftsmith_train.reply train)
"${TRAIN[@]}" "${common[@]}" --model nrm --out "$RUNS/reply-nrm.pt" 2>&1 | tee -a "$RUNS/reply-nrm.log"
$PY -m draftsmith_train.reply memory --data "$DATA" --ckpt "$RUNS/reply-nrm.best.pt" --slots "$SLOTS" \
  --out "$RUNS/reply-memory.npz" 2>&1 | tee -a "$RUNS/reply-memory.log"
"${TRAIN[@]}" "${common[@]}" --model esed --memory "$RUNS/reply-memory.npz" --out "$RUNS/reply-esed.pt" \
  2>&1 | tee -a "$RUNS/reply-esed.log"
$PY -m draftsmith_train.reply export --data "$DATA" --ckpt "$RUNS/reply-esed.best.pt" \
  --memory "$RUNS/reply-memory.npz" --out "$OUT"
$PY -m draftsmith_train.reply export --data "$DATA" --ckpt "$RUNS/reply-nrm.best.pt" \
  --memory "$RUNS/reply-memory.npz" --out "$NRM_OUT"
if [ "$(cd "$OUT" && pwd)" = "$(cd ../reply 2>/dev/null && pwd)" ]; then
  FIXTURE=../../test/fixtures/reply-parity.json
else
  FIXTURE=$OUT/parity.json
fi
if [ -d ../../node_modules/onnxruntime-node ]; then
  node check_reply_onnx.cjs "$OUT" "$FIXTURE"
  node check_reply_onnx.cjs "$NRM_OUT" "$NRM_OUT/parity.json"
fi
echo "train_reply.sh: done in $(( $(date +%s) - T0 )) s (exported to $OUT and $NRM_OUT)"
