#!/usr/bin/env bash
# The whole TAAS recipe, from raw data to the shipped model folder, on a CUDA GPU when present,
# otherwise on one CPU thread each. Pretraining is budgeted in minutes; fine-tuning in steps (the
# shipped model and its ablations: 1,664 steps each, ~80-105 min per run on this CPU), capped in minutes.
#
#   SMOKE=1 bash models/train/train_summarize.sh         # every stage for a few steps, all under .work/smoke/summarize
#   bash models/train/train_summarize.sh                 # what the shipped model ran, exported to models/summarize
#   PRETRAIN_MIN=60 FINETUNE_STEPS=20000 FINETUNE_MIN=600 bash models/train/train_summarize.sh   # a GPU
#
# OUT (default models/summarize) gets the TAAS export, VARIANTS (default .work) the ablations'. Training
# runs through the DDP launcher (launch.py): NPROC processes (default 1 here, as the card's run;
# auto: one per CPU core or GPU); each process takes its own batches, so N processes train N x as
# many tokens per step.
#
# Needs Debian's python3-torch python3-onnx python3-numpy python3-sentencepiece libopenblas0-openmp.
set -euo pipefail
cd "$(dirname "$0")"
PY=${PY:-/usr/bin/python3}
SMOKE=${SMOKE:-0}
if [ "$SMOKE" = 1 ]; then
  # A few steps of each stage (the model's size is fixed); nothing outside .work/smoke/summarize unless
  # OUT/RUNS/VARIANTS say so.
  S=../../.work/smoke/summarize
  : "${RUNS:=$S/runs}" "${OUT:=$S/model}" "${VARIANTS:=$S}" "${PRETRAIN_MIN:=1}" "${PRETRAIN_STEPS:=6}"
  : "${FINETUNE_STEPS:=4}" "${FINETUNE_MIN:=1}" "${VAL_EVERY:=1000000}" "${MAX_TRAIN:=2000}" "${NTM_WARMUP:=20}"
  : "${MAX_VAL:=16}" "${BATCH_TOKENS:=1500}"
  if [ -z "${RUNS:-}" ]; then rm -rf "$S/runs"; fi   # a fresh run every time (only the smoke folder's own checkpoints)
fi
DATA=${DATA:-../../.data}
RUNS=${RUNS:-runs}
OUT=${OUT:-../summarize}
VARIANTS=${VARIANTS:-../../.work}
PRETRAIN_MIN=${PRETRAIN_MIN:-22}
PRETRAIN_STEPS=${PRETRAIN_STEPS:-1000000000}
FINETUNE_STEPS=${FINETUNE_STEPS:-1664}
FINETUNE_MIN=${FINETUNE_MIN:-240}
VAL_EVERY=${VAL_EVERY:-250}
MAX_TRAIN=${MAX_TRAIN:-0}       # 0: all the pairs (and pretraining lines)
MAX_VAL=${MAX_VAL:-300}         # fine-tuning's validation pairs
BATCH_TOKENS=${BATCH_TOKENS:-6000}
NTM_WARMUP=${NTM_WARMUP:-1500}  # the topic model's steps alone before fine-tuning
NPROC=${NPROC:-1}
mkdir -p "$RUNS"
T0=$(date +%s)
TRAIN=("$PY" -m draftsmith_train.launch --nproc "$NPROC" -m draftsmith_train.summarize)
[ -f "$DATA/spm.model" ] || $PY -m draftsmith_train.summarize prepare --data "$DATA"
[ -f "$RUNS/pretrain.pt" ] || "${TRAIN[@]}" pretrain --data "$DATA" --minutes "$PRETRAIN_MIN" \
  --steps "$PRETRAIN_STEPS" --max-train "$MAX_TRAIN" --val-every "$VAL_EVERY" --warmup 60 --lr 1e-3 --batch 16 \
  --out "$RUNS/pretrain.pt"
# TAAS with the copy mechanism (shipped), and the ablations reported in the model card.
finetune() {
  "${TRAIN[@]}" finetune --data "$DATA" --init "$RUNS/pretrain.pt" --steps "$FINETUNE_STEPS" --minutes "$FINETUNE_MIN" \
    --max-train "$MAX_TRAIN" --max-val "$MAX_VAL" --batch-tokens "$BATCH_TOKENS" --val-every "$VAL_EVERY" \
    --ntm-batchnorm --ntm-warmup "$NTM_WARMUP" "$@"
}
finetune --out "$RUNS/taas.pt"
finetune --no-topic-attention --out "$RUNS/taas-no-topic.pt"
finetune --no-copy --out "$RUNS/taas-no-copy.pt"
# The shipped folder's parity fixture lives with the tests; any other folder keeps its own.
if [ "$(mkdir -p "$OUT" && cd "$OUT" && pwd)" = "$(cd ../summarize && pwd)" ]; then
  FIXTURE=../../test/fixtures/summarize-parity.json
else
  FIXTURE=$OUT/parity.json
fi
$PY -c "from draftsmith_train.export_summarize import export; export('$RUNS/taas.pt', '$OUT', '$DATA', '$FIXTURE')"
for v in taas-no-topic taas-no-copy; do
  $PY -c "from draftsmith_train.export_summarize import export; \
    export('$RUNS/$v.pt', '$VARIANTS/$v', '$DATA', '/dev/null')"
done
echo "train_summarize.sh: done in $(( $(date +%s) - T0 )) s"
echo "exported; now: npm run eval:summarize -- --variant TAAS=${OUT#../../}" \
  "--variant 'TAAS w/o topic attention=${VARIANTS#../../}/taas-no-topic'" \
  "--variant 'TAAS w/o copy=${VARIANTS#../../}/taas-no-copy'"
