#!/usr/bin/env bash
# The whole TAAS recipe, from raw data to the shipped model folder, on a CUDA GPU when present,
# otherwise on one CPU thread each. Pretraining is budgeted in minutes; fine-tuning in steps (the
# shipped model and its ablations: 1,664 steps each, ~80-105 min per run on this CPU), capped in minutes.
#
#   bash models/train/train_summarize.sh                 # what the shipped model ran
#   PRETRAIN_MIN=60 FINETUNE_STEPS=20000 FINETUNE_MIN=600 bash models/train/train_summarize.sh   # a GPU
#
# Needs Debian's python3-torch python3-onnx python3-numpy python3-sentencepiece libopenblas0-openmp.
set -euo pipefail
cd "$(dirname "$0")"
PY=${PY:-/usr/bin/python3}
DATA=${DATA:-../../.data}
RUNS=${RUNS:-runs}
PRETRAIN_MIN=${PRETRAIN_MIN:-22}
FINETUNE_STEPS=${FINETUNE_STEPS:-1664}
FINETUNE_MIN=${FINETUNE_MIN:-240}
mkdir -p "$RUNS"
[ -f "$DATA/spm.model" ] || $PY -m draftsmith_train.summarize prepare --data "$DATA"
[ -f "$RUNS/pretrain.pt" ] || $PY -m draftsmith_train.summarize pretrain --data "$DATA" --minutes "$PRETRAIN_MIN" \
  --warmup 60 --lr 1e-3 --batch 16 --out "$RUNS/pretrain.pt"
# TAAS with the copy mechanism (shipped), and the ablations reported in the model card.
$PY -m draftsmith_train.summarize finetune --data "$DATA" --init "$RUNS/pretrain.pt" --steps "$FINETUNE_STEPS" --minutes "$FINETUNE_MIN" --ntm-batchnorm --ntm-warmup 1500 --out "$RUNS/taas.pt"
$PY -m draftsmith_train.summarize finetune --data "$DATA" --init "$RUNS/pretrain.pt" --steps "$FINETUNE_STEPS" --minutes "$FINETUNE_MIN" --ntm-batchnorm --ntm-warmup 1500 --no-topic-attention --out "$RUNS/taas-no-topic.pt"
$PY -m draftsmith_train.summarize finetune --data "$DATA" --init "$RUNS/pretrain.pt" --steps "$FINETUNE_STEPS" --minutes "$FINETUNE_MIN" --ntm-batchnorm --ntm-warmup 1500 --no-copy --out "$RUNS/taas-no-copy.pt"
$PY -m draftsmith_train.summarize export --ckpt "$RUNS/taas.pt" --data "$DATA" --out ../summarize
for v in taas-no-topic taas-no-copy; do
  $PY -c "from draftsmith_train.export_summarize import export; export('$RUNS/$v.pt', '../../.work/$v', '$DATA', '/dev/null')"
done
echo "exported; now: npm run eval:summarize -- --variant TAAS=models/summarize --variant 'TAAS w/o topic attention=.work/taas-no-topic' --variant 'TAAS w/o copy=.work/taas-no-copy'"
