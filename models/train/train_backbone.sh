#!/usr/bin/env bash
# The shared backbone language model (draftsmith_train/backbone.py): the corpus from ../shared/data (the
# young readers' books, simple_stories, the TinyStories sample; held out by book and by story,
# deduplicated, leakage-checked), its 8k tokenizer, then a GPT-2 (6 x 256, context 256) trained on
# both cores until MINUTES of training are spent in all, then the held-out perplexities.
#
#   bash models/train/train_backbone.sh                   # prepare once, then train (or go on training)
#   nohup nice -n 10 bash models/train/train_backbone.sh > .data/backbone/train.log 2>&1 &   # in the background
#   SMOKE=1 bash models/train/train_backbone.sh           # a tiny model for a minute, under .work/smoke/backbone
#
# Stopped at any moment, the same command goes on from the last checkpoint (written at every
# validation, VAL_EVERY steps): the weights, AdamW's state, the step (so the schedule), the tokens and
# the elapsed time; MINUTES counts the whole run. The corpus is prepared only when DATA has none.
# On a fresh machine, with no checkpoint: `bash models/train/resume_from_shipped.sh backbone` puts the
# backbone's stand-in rebuilt from the shipped story graphs in RUNS first, and this goes on from it.
#
# Variables: DATA (the prepared corpus, default .data/backbone), RUNS (checkpoints, default DATA/runs),
# NPROC (processes, default 2: one a core), MINUTES (600), STEPS, BATCH_TOKENS (per process, 4096),
# SIZE (model flags, default "--n-layer 6 --n-embd 256 --n-head 4 --window 256"), MIX (source weights),
# VAL_EVERY (25), EVAL (1: perplexities at the end; EVAL_LIMIT tokens of each array, 0 = all).
# A GPU: NPROC=auto, SIZE/BATCH_TOKENS larger.
set -euo pipefail
cd "$(dirname "$0")"
PY=${PY:-/usr/bin/python3}
SMOKE=${SMOKE:-0}
if [ "$SMOKE" = 1 ]; then
  S=../../.work/smoke/backbone
  if [ -z "${RUNS:-}" ]; then rm -rf "$S/runs"; fi   # a fresh run every time (only the smoke folder's own checkpoints)
  : "${RUNS:=$S/runs}" "${MINUTES:=1}" "${NPROC:=1}" "${VAL_EVERY:=20}" "${EVAL_LIMIT:=3000}"
  : "${SIZE:=--n-layer 2 --n-embd 64 --n-head 2 --window 64}" "${BATCH_TOKENS:=1024}"
fi
DATA=$(readlink -m "${DATA:-../../.data/backbone}")   # absolute: the run keeps writing there if the checkout moves
RUNS=$(readlink -m "${RUNS:-$DATA/runs}")
NPROC=${NPROC:-2}
MINUTES=${MINUTES:-600}
STEPS=${STEPS:-1000000000}
BATCH_TOKENS=${BATCH_TOKENS:-4096}
SIZE=${SIZE:---n-layer 6 --n-embd 256 --n-head 4 --window 256}
MIX=${MIX:-books=1,simple=3,tiny=3}
VAL_EVERY=${VAL_EVERY:-25}
EVAL=${EVAL:-1}
EVAL_LIMIT=${EVAL_LIMIT:-200000}

if [ ! -f "$DATA/prepare_report.json" ]; then
  $PY -m draftsmith_train.backbone prepare --out "$DATA"
fi
mkdir -p "$RUNS"
# shellcheck disable=SC2086
NPROC=$NPROC $PY -m draftsmith_train.launch -m draftsmith_train.backbone train --data "$DATA" \
  --out "$RUNS/backbone.pt" --resume --minutes "$MINUTES" --steps "$STEPS" --batch-tokens "$BATCH_TOKENS" \
  --mix "$MIX" --val-every "$VAL_EVERY" $SIZE
if [ "$EVAL" = 1 ]; then
  $PY -m draftsmith_train.backbone eval --data "$DATA" --ckpt "$RUNS/backbone.pt" --limit "$EVAL_LIMIT" \
    --json "$RUNS/backbone.eval.json"
fi
