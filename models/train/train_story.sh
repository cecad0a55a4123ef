#!/usr/bin/env bash
# The whole story recipe (Fan, Lewis & Dauphin 2018): data, the GCNN language model pretrained on all
# the English text, the premise model, the LM baseline, the Conv seq2seq with and without the gated
# multi-scale self-attention (and its ablations), model fusion on top of the frozen seq2seq, the
# Tables 2-3 evaluation, and the export to the model folder. On a CUDA GPU when present, otherwise
# on one CPU thread each. Needs the shared tokenizer first (train_summarize.sh: .data/spm.model).
#
#   bash models/train/train_story.sh                                  # CPU defaults
#   CORPUS=simple bash models/train/train_story.sh                    # the simple-stories pairs
# (ROCStories + TinyStories,
#                                                                     # their own 4,000-piece tokenizer)
# in ../../.data/simple
#   SMOKE=1 bash models/train/train_story.sh                          # the shipped model's stages for a
# few steps, a small
#                                                                     # model, all under
# .work/smoke/story (TINY=1: the same)
#   LM_STEPS=40000 SEQ2SEQ_STEPS=30000 FUSION_STEPS=30000 PREMISE_STEPS=5000 \
#     SIZE="--embed-dim 256 --hidden 512 --decoder-layers 6 --attention-dim 256" BATCH_TOKENS=16000 \
#     bash models/train/train_story.sh                                # a GPU
#
# The export stores the weight matrices as int8 with a float32 scale per row (4x smaller, the same
# float32 graph once onnxruntime folds them; the manifest's "weights" says what the rounding cost);
# WEIGHTS=float32 keeps them as they are.
#
# Every seq2seq row trains SEQ2SEQ_STEPS from the same pretrained GCNN + self-attention decoder (the
# plain Conv seq2seq takes the tensors it shares with it: embeddings, convolutions); fusion trains
# FUSION_STEPS more on top of the frozen "+ self-attention" model (as in the paper, the fused model
# has seen the pretrained model's training too). GCNN_LM=0 skips the plain GCNN LM row and its
# pretraining; ABLATIONS=0 the Table 3 variants.
set -euo pipefail
cd "$(dirname "$0")"
PY=${PY:-/usr/bin/python3}
# mixed: WritingPrompts, ROCStories, fairy tales (+ all the English text for pretraining)
CORPUS=${CORPUS:-mixed}
if [ "$CORPUS" = simple ]; then DATA=${DATA:-../../.data/simple}; else DATA=${DATA:-../../.data}; fi
DEVICE=${DEVICE:-auto}
SMOKE=${SMOKE:-${TINY:-0}}
if [ "$SMOKE" = 1 ]; then
  # The stages the shipped model needs (pretraining, premise, seq2seq, fusion), the evaluation and the
  # export, a few steps each at a small size; nothing outside .work/smoke/story unless RUNS/OUT/BENCH/FIXTURE say so.
  S=../../.work/smoke/story
  if [ -z "${RUNS:-}" ]; then rm -rf "$S/runs"; fi   # a fresh run every time (only the smoke folder's own checkpoints)
  : "${RUNS:=$S/runs}" "${OUT:=$S/model}" "${BENCH:=$S/bench}" "${FIXTURE:=$S/story-parity.json}"
  : "${LM_STEPS:=10}" "${PREMISE_STEPS:=10}" "${SEQ2SEQ_STEPS:=10}" "${FUSION_STEPS:=10}" "${LM_LINES:=2000}" \
    "${WARMUP:=5}"
  : "${GCNN_LM:=0}" "${ABLATIONS:=0}" "${TABLE2:=0}" "${VAL_EVERY:=1000000}" "${BATCH_TOKENS:=1500}"
  : "${SIZE:=--embed-dim 32 --hidden 48 --encoder-layers 1 --decoder-layers 2 --attention-dim 32 --heads 2}"
  : "${EVAL:=--limit 20 --rank-limit 5 --generate 2 --gen-tokens 20}"
fi
RUNS=${RUNS:-runs}
OUT=${OUT:-../story}                  # the shipped folder
TABLE2=${TABLE2:-1}                   # 0: only the shipped model's stages (no LM row, no plain Conv seq2seq)
BENCH=${BENCH:-../../.work/story-bench}   # the recompute-every-step graph and PyTorch references (not shipped)
LM_STEPS=${LM_STEPS:-3000}            # GCNN + self-attention LM on the English text (pretraining)
GCNN_PRETRAIN_STEPS=${GCNN_PRETRAIN_STEPS:-$LM_STEPS}   # the plain GCNN LM's pretraining
LM_LINES=${LM_LINES:-0}               # 0: all of story_lm.train.txt
PREMISE_STEPS=${PREMISE_STEPS:-600}
SEQ2SEQ_STEPS=${SEQ2SEQ_STEPS:-2000}
LM_ROW_STEPS=${LM_ROW_STEPS:-$SEQ2SEQ_STEPS}           # Table 2's language models on the stories
FUSION_STEPS=${FUSION_STEPS:-2000}
ABLATIONS=${ABLATIONS:-1}             # the self-attention ablations of Table 3 (gating, multi-scale, zero slot)
GCNN_LM=${GCNN_LM:-1}                 # Table 2's plain GCNN LM row (its own pretraining on all the text)
MINUTES=${MINUTES:-600}               # a cap per run; the steps decide
SIZE=${SIZE:-}                        # model size flags, the same for every model
BATCH_TOKENS=${BATCH_TOKENS:-4000}
WARMUP=${WARMUP:-200}
VAL_EVERY=${VAL_EVERY:-500}           # validation, and the weights kept, every so many steps
EVAL=${EVAL:-}
mkdir -p "$RUNS"
NPROC=${NPROC:-1}                     # training processes (DDP, launch.py); auto: one per CPU core or GPU
T0=$(date +%s)
story() { $PY -m draftsmith_train.story "$@" --data "$DATA" --device "$DEVICE"; }
# shellcheck disable=SC2086  # SIZE holds several flags
train() {
  "$PY" -m draftsmith_train.launch --nproc "$NPROC" -m draftsmith_train.story "$@" --data "$DATA" --device "$DEVICE" \
    --minutes "$MINUTES" --batch-tokens "$BATCH_TOKENS" --warmup "$WARMUP" --val-every "$VAL_EVERY" $SIZE
}

if [ "$CORPUS" = simple ]; then
  [ -f "$DATA/spm.model" ] || $PY -m draftsmith_train.roundtrip prepare --corpus simple --data "$DATA"
  [ -f "$DATA/story.train.jsonl" ] || story prepare --corpus simple
else
  [ -f "$DATA/story.train.jsonl" ] || story prepare
fi
# The GCNN + self-attention language model on all the English text: the premise model's and every
# story decoder's starting point (the plain Conv seq2seq takes its embeddings and convolutions).
[ -f "$RUNS/story-lm-pretrain.pt" ] || train premise --corpus lm --lm-lines "$LM_LINES" --steps "$LM_STEPS" \
  --out "$RUNS/story-lm-pretrain.pt" 2>&1 | tee "$RUNS/story-lm-pretrain.log"
PRE=$RUNS/story-lm-pretrain.pt
train premise --corpus premise --init "$PRE" --steps "$PREMISE_STEPS" --lr 5e-4 \
  --out "$RUNS/story-premise.pt" 2>&1 | tee "$RUNS/story-premise.log"
# Table 2: the language model (stories without their prompts), the seq2seq models, fusion.
ROWS=()
if [ "$GCNN_LM" = 1 ]; then
  # The plain GCNN LM row, from a plain GCNN pretrained on the same text.
  [ -f "$RUNS/story-gcnn-pretrain.pt" ] || train premise --corpus lm --lm-lines "$LM_LINES" \
    --steps "$GCNN_PRETRAIN_STEPS" --no-self-attention --out "$RUNS/story-gcnn-pretrain.pt" 2>&1 \
    | tee "$RUNS/story-gcnn-pretrain.log"
  train premise --corpus stories --init "$RUNS/story-gcnn-pretrain.pt" --steps "$LM_ROW_STEPS" \
    --out "$RUNS/story-gcnn-lm.pt" 2>&1 | tee "$RUNS/story-gcnn-lm.log"
  ROWS+=(--model "GCNN LM=$RUNS/story-gcnn-lm.pt")
fi
if [ "$TABLE2" = 1 ]; then
  train premise --corpus stories --init "$PRE" --steps "$LM_ROW_STEPS" \
    --out "$RUNS/story-lm.pt" 2>&1 | tee "$RUNS/story-lm.log"
  train seq2seq --init-decoder "$PRE" --steps "$SEQ2SEQ_STEPS" --no-self-attention \
    --out "$RUNS/story-seq2seq-plain.pt" 2>&1 | tee "$RUNS/story-seq2seq-plain.log"
  ROWS+=(--model "GCNN + self-attention LM=$RUNS/story-lm.pt" --model "Conv seq2seq=$RUNS/story-seq2seq-plain.pt")
fi
train seq2seq --init-decoder "$PRE" --steps "$SEQ2SEQ_STEPS" \
  --out "$RUNS/story-seq2seq.pt" 2>&1 | tee "$RUNS/story-seq2seq.log"
ROWS+=(--model "Conv seq2seq + self-attention=$RUNS/story-seq2seq.pt")
if [ "$ABLATIONS" = 1 ]; then
  # Table 3: the self-attention's parts, each model from the same pretrained decoder (without gating
  # the query/key/value maps have another shape and start fresh).
  for v in "no-gating:--no-gating" "no-multiscale:--no-multiscale" "no-zero:--no-zero-attention"; do
    name=${v%%:*}
    # shellcheck disable=SC2086
    train seq2seq --init-decoder "$PRE" --steps "$SEQ2SEQ_STEPS" ${v#*:} \
      --out "$RUNS/story-seq2seq-$name.pt" 2>&1 | tee "$RUNS/story-seq2seq-$name.log"
    ROWS+=(--model "Conv seq2seq + self-attention, ${v#*:}=$RUNS/story-seq2seq-$name.pt")
  done
fi
train fusion --pretrained "$RUNS/story-seq2seq.pt" --init-decoder "$PRE" --steps "$FUSION_STEPS" \
  --out "$RUNS/story-fusion.pt" 2>&1 | tee "$RUNS/story-fusion.log"
ROWS+=(--model "Fusion: Conv seq2seq + self-attention=$RUNS/story-fusion.pt")
# shellcheck disable=SC2086
story eval "${ROWS[@]}" $EVAL --report "$RUNS/story-eval.json" 2>&1 | tee "$RUNS/story-eval.log"
FIXTURE=${FIXTURE:-../../test/fixtures/story-parity.json}
$PY -m draftsmith_train.export_story "$RUNS/story-fusion.pt" "$RUNS/story-premise.pt" "$OUT" "$DATA" "$FIXTURE" \
  "$BENCH" "${WEIGHTS:-int8}"
if node -e "require('onnxruntime-node')" 2>/dev/null; then
  node check_story_onnx.cjs "$OUT" "$FIXTURE" "$BENCH" | tee "$RUNS/story-onnx-check.json"
else
  echo "onnxruntime-node not found: 'npm install' at the repository root (or NODE_PATH=...), then:"
  echo "  node models/train/check_story_onnx.cjs ${OUT#../../} ${FIXTURE#../../} ${BENCH#../../}"
fi
echo "train_story.sh: done in $(( $(date +%s) - T0 )) s (exported to $OUT)"
