#!/usr/bin/env bash
# A GPU run in resumable chunks of at most 10 minutes (issue 19, item 6), for every system: roundtrip and
# reply here, summarize, essay and story (stages, each a command with --resume) in
# draftsmith_train/chunk.py, which this hands them to. Each chunk starts from the previous chunk's checkpoint, trains
# MINUTES, and ends with an export; everything it hands back is split into files of at most 16 MiB.
# What a chunk needs beside the code (the data and the checkpoint) travels as one xz bundle of at most
# 64 MiB; the shipped weights (models/*) are not needed and not touched.
#
#   here:     bash models/train/gpu_chunk.sh pack SYSTEM            # -> .work/gpu/SYSTEM.tar.xz (data + last checkpoint)
#   device:   bash models/train/gpu_chunk.sh run SYSTEM [OUTDIR]     # (carry .work/gpu/SYSTEM.tar.xz; OUTDIR default $OUT)
#   here:     bash models/train/gpu_chunk.sh unpack SYSTEM FILES_DIR # the parts joined: checkpoint -> .work/gpu/SYSTEM/runs,
#                                                                    # export -> .work/gpu/SYSTEM/export
#   then pack again for the next chunk; when done, check the export (node check_*_onnx.cjs) and copy it
#   over models/SYSTEM with the card's numbers re-measured.
#
# SYSTEM: summarize, essay or story: see draftsmith_train/chunk.py (their stages, settings and state.json;
# they hand back chunk.tar.xz.part-NNN). Below: roundtrip and reply.
# SYSTEM: roundtrip (DATA default .data/simple when it exists, else .data; MODEL default hier-attn) or reply
# (DATA default .data/reply when it exists, else .data). Sizes: HIDDEN, EMBED, LAYERS, BATCH_TOKENS, LR,
# VAL_EVERY (pack writes them into the bundle, so every chunk trains the same shape). MINUTES (default 7)
# leaves the rest of the 10 minutes for start-up, validation and the export. The run uses every GPU of the
# machine (launch.py: torchrun on torch 2.x, one process per GPU, nccl). STEPS bounds the whole run.
# The bundle's checkpoint: weights and Adam's state when they fit in 64 MiB with the data; otherwise the
# weights alone in float16 (Adam starts again from zero moments: slower for a few hundred steps, no lost
# weights), which pack says.
set -euo pipefail
if [ $# -ge 3 ]; then set -- "$1" "$2" "$(realpath -m "$3")"; fi   # OUTDIR / FILES_DIR: from where it was called
cd "$(dirname "$0")"
PY=${PY:-/usr/bin/python3}
[ -x "$PY" ] || PY=python3          # the GPU machine's python3 (torch 2.x) may live elsewhere
ACTION=${1:?usage: gpu_chunk.sh pack|run|unpack SYSTEM [DIR]}
SYSTEM=${2:?usage: gpu_chunk.sh pack|run|unpack SYSTEM [DIR]}
case "$SYSTEM" in essay|story|summarize) exec "$PY" -m draftsmith_train.chunk "$@" ;; esac
WORK=${GPU_WORK:-../../.work/gpu}
BUNDLE=$WORK/$SYSTEM.tar.xz
LIMIT=${BUNDLE_LIMIT:-$((64 * 1024 * 1024))}   # bytes (BUNDLE_LIMIT: to try the float16 path)
PART=16M
case "$SYSTEM" in
  roundtrip) DATA_FILES="roundtrip.train.jsonl roundtrip.val.jsonl roundtrip.test.jsonl spm.model tokenizer"
             DEFAULT_DATA=$([ -f ../../.data/simple/roundtrip.train.jsonl ] && echo ../../.data/simple || echo ../../.data) ;;
  reply)     DATA_FILES="reply.train.jsonl reply.val.jsonl reply.test.jsonl reply.keys.json spm.model tokenizer"
             DEFAULT_DATA=$([ -f ../../.data/reply/reply.train.jsonl ] && echo ../../.data/reply || echo ../../.data) ;;
  *) echo "gpu_chunk.sh: SYSTEM is roundtrip, reply, summarize, essay or story" >&2; exit 2 ;;
esac

if [ "$ACTION" = pack ]; then
  DATA=${DATA:-$DEFAULT_DATA}
  STAGE=$WORK/$SYSTEM.stage
  rm -rf "$STAGE" && mkdir -p "$STAGE/data" "$STAGE/runs"
  for f in $DATA_FILES; do cp -rL "$DATA/$f" "$STAGE/data/"; done
  if [ "$SYSTEM" = roundtrip ]; then
    : "${MODEL:=hier-attn}" "${HIDDEN:=512}" "${EMBED:=$HIDDEN}" "${LAYERS:=2}" "${BATCH_TOKENS:=12000}" "${LR:=1e-3}" "${VAL_EVERY:=500}"
  else
    : "${MODEL:=esed}" "${HIDDEN:=512}" "${EMBED:=512}" "${LAYERS:=1}" "${BATCH_TOKENS:=8000}" "${LR:=1e-3}" "${VAL_EVERY:=500}"
    [ "$MODEL" = esed ] && { [ -f "$WORK/$SYSTEM/runs/memory.npz" ] || { echo "reply esed needs $WORK/$SYSTEM/runs/memory.npz (reply memory from an NRM run)" >&2; exit 1; }; }
  fi
  cat > "$STAGE/chunk.env" <<ENV
MODEL=$MODEL
HIDDEN=$HIDDEN
EMBED=$EMBED
LAYERS=$LAYERS
BATCH_TOKENS=$BATCH_TOKENS
LR=$LR
VAL_EVERY=$VAL_EVERY
STEPS=${STEPS:-1000000}
ENV
  [ -f "$WORK/$SYSTEM/runs/memory.npz" ] && cp "$WORK/$SYSTEM/runs/memory.npz" "$STAGE/runs/"
  CK=$WORK/$SYSTEM/runs/chunk-$MODEL.pt
  if [ -f "$CK" ]; then
    cp "$CK" "$STAGE/runs/"
    if [ -f "${CK%.pt}.best.pt" ]; then cp "${CK%.pt}.best.pt" "$STAGE/runs/"; fi
  fi
  tar -C "$STAGE" -cJf "$BUNDLE" .
  if [ "$(stat -c %s "$BUNDLE")" -gt "$LIMIT" ] && [ -f "$STAGE/runs/chunk-$MODEL.pt" ]; then
    echo "gpu_chunk.sh: the bundle passes 64 MiB with Adam's state: carrying the weights alone, in float16"
    rm -f "$STAGE/runs/chunk-$MODEL.best.pt"
    "$PY" -m draftsmith_train.chunk slim --half "$STAGE/runs/chunk-$MODEL.pt"
    tar -C "$STAGE" -cJf "$BUNDLE" .
  fi
  size=$(stat -c %s "$BUNDLE")
  rm -rf "$STAGE"
  [ "$size" -le "$LIMIT" ] || { echo "gpu_chunk.sh: $BUNDLE is $size bytes, over the limit ($LIMIT)" >&2; exit 1; }
  echo "gpu_chunk.sh: $BUNDLE ($((size / 1024 / 1024)) MiB); carry it (.work/gpu/$SYSTEM.tar.xz) and run: bash models/train/gpu_chunk.sh run $SYSTEM"
  exit 0
fi

if [ "$ACTION" = run ]; then
  T0=$(date +%s)
  OUTDIR=${3:-${OUT:?gpu_chunk.sh run: an OUTDIR argument or OUT}}
  RUN=$WORK/$SYSTEM.run
  rm -rf "$RUN" && mkdir -p "$RUN" "$OUTDIR"
  tar -C "$RUN" -xJf "$BUNDLE"
  # shellcheck disable=SC1091
  . "$RUN/chunk.env"
  MINUTES=${MINUTES:-7}
  NPROC=${NPROC:-auto}
  # --minutes counts the whole run (training.train_loop): this chunk's MINUTES on top of what the checkpoint did.
  TOTAL=$("$PY" -c "import os, sys, torch
p = sys.argv[1]
s = torch.load(p, map_location='cpu')['meta'].get('seconds', 0) if os.path.exists(p) else 0
print(s / 60 + float(sys.argv[2]))" "$RUN/runs/chunk-$MODEL.pt" "$MINUTES")
  common=(--data "$RUN/data" --device auto --steps "$STEPS" --minutes "$TOTAL" --hidden "$HIDDEN" --embed "$EMBED"
          --lr "$LR" --batch-tokens "$BATCH_TOKENS" --val-every "$VAL_EVERY" --resume --out "$RUN/runs/chunk-$MODEL.pt")
  if [ "$SYSTEM" = roundtrip ]; then
    "$PY" -m draftsmith_train.launch --nproc "$NPROC" -m draftsmith_train.roundtrip train "${common[@]}" --model "$MODEL" \
      --layers "$LAYERS" 2>&1 | tee "$OUTDIR/train.log"
    "$PY" -m draftsmith_train.roundtrip export --data "$RUN/data" --ckpt "$RUN/runs/chunk-$MODEL.pt" --out "$RUN/export"
  else
    mem=()
    [ "$MODEL" = esed ] && mem=(--memory "$RUN/runs/memory.npz")
    "$PY" -m draftsmith_train.launch --nproc "$NPROC" -m draftsmith_train.reply train "${common[@]}" --model "$MODEL" "${mem[@]}" \
      2>&1 | tee "$OUTDIR/train.log"
    CKX=$RUN/runs/chunk-$MODEL.best.pt
    [ -f "$CKX" ] || CKX=$RUN/runs/chunk-$MODEL.pt
    if [ "$MODEL" = nrm ]; then
      "$PY" -m draftsmith_train.reply memory --data "$RUN/data" --ckpt "$CKX" --out "$RUN/runs/memory.npz"
      cp "$RUN/runs/memory.npz" "$OUTDIR/"
    fi
    "$PY" -m draftsmith_train.reply export --data "$RUN/data" --ckpt "$CKX" --memory "$RUN/runs/memory.npz" --out "$RUN/export"
  fi
  # Everything back in parts of at most 16 MiB: the checkpoints (next chunk's start) and the export.
  # shellcheck disable=SC2046
  tar -C "$RUN" -cf - $(cd "$RUN" && ls runs/chunk-*.pt) export \
    | split -b "$PART" -d -a 3 - "$OUTDIR/chunk.tar.part-"
  ls -l "$OUTDIR"
  echo "gpu_chunk.sh: chunk done in $(( $(date +%s) - T0 )) s"
  exit 0
fi

if [ "$ACTION" = unpack ]; then
  FROM=${3:?gpu_chunk.sh unpack SYSTEM FILES_DIR (the OUTDIR of the run, as it came back)}
  DEST=$WORK/$SYSTEM
  mkdir -p "$DEST"
  rm -rf "$DEST/export"
  cat "$FROM"/chunk.tar.part-* | tar -C "$DEST" -xf -
  [ -f "$FROM/memory.npz" ] && cp "$FROM/memory.npz" "$DEST/runs/"
  for ck in "$DEST"/runs/chunk-*.pt; do
    "$PY" -c "import torch, sys; m = torch.load(sys.argv[1], map_location='cpu')['meta']; print(sys.argv[1], 'at step', m.get('steps'), m.get('val'))" "$ck"
  done
  echo "gpu_chunk.sh: checkpoints in $DEST/runs (pack again for the next chunk), export in $DEST/export"
  exit 0
fi
echo "gpu_chunk.sh: ACTION is pack, run or unpack" >&2
exit 2
