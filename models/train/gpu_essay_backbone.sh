#!/usr/bin/env bash
# One device call of at most 10 minutes that fine-tunes PC-SAN from the shared backbone (essay train
# --backbone) on the everyday essay pairs, side by side on one GPU with two comparisons: the same
# model with fresh weights (--backbone-fresh: what the pretraining gives) and a 4-layer decoder.
#
#   here:    (cd models/train && python3 -m draftsmith_train.roundtrip prepare --corpus everyday \
#               --data ../../.data/everyday --backbone-data ../../.data/backbone              # if not there yet
#             && python3 -m draftsmith_train.essay prepare --corpus everyday --data ../../.data/everyday \
#             && python3 -m draftsmith_train.essay words --data ../../.data/everyday)
#            bash models/train/gpu_essay_backbone.sh pack      # .work/gpu/essay-bb.tar.xz (~10 MiB)
#            bash models/train/gpu_chunk.sh aside
#   device:  command  bash models/train/gpu_essay_backbone.sh run
#            carry    [".work/gpu/essay-bb.tar.xz"], timeout_s 560
#   here:    bash models/train/gpu_chunk.sh back
#            cat FILES_AT/NAME.best.pt.part-* > .work/essay-bb/NAME.best.pt          # float16, no optimizer
#
# MINUTES (6.5) of training each; the files back: train.log (the three logs) and the two candidates' best
# weights (not the fresh run's), float16, in 2 parts of 16,000 KiB each: 5 files, ~49 MB.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
if [ "${1:-}" = pack ]; then
  set -e
  PY=${PY:-/usr/bin/python3}
  mkdir -p .work/gpu/essay-bb
  # the backbone run's best weights, or on a fresh machine its stand-in rebuilt from the shipped story graphs
  BB=../../.data/backbone/runs/backbone.best.pt
  if [ ! -e "models/train/$BB" ]; then
    BB=../../.work/shipped/story/backbone.pt
    [ -e "models/train/$BB" ] ||
      (cd models/train &&
        "$PY" -m draftsmith_train.weights_from_onnx story-checkpoints ../story ../../.work/shipped/story)
  fi
  (cd models/train && "$PY" -c "import sys, shutil; from draftsmith_train.chunk import slim; \
    shutil.copy(sys.argv[1], sys.argv[2]); slim(sys.argv[2], half=True)" \
    "$BB" ../../.work/gpu/essay-bb/backbone.pt)
  tar -cf - -C .data/everyday essay.train.jsonl essay.val.jsonl spm.model wordvec.vec \
    -C ../../.work/gpu/essay-bb backbone.pt \
    | xz -9 -T0 > .work/gpu/essay-bb.tar.xz
  ls -la .work/gpu/essay-bb.tar.xz
  exit 0
fi
[ "${1:-}" = run ] || { echo "usage: gpu_essay_backbone.sh pack|run" >&2; exit 2; }
export PYTHONUNBUFFERED=1
PY=${PY:-/usr/bin/python3}                                  # Debian's, with its torch, here
"$PY" -c 'import torch' 2>/dev/null || PY=python3         # the GPU machine's torch is in another python3
T0=$(date +%s)
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader 2>/dev/null || echo "no GPU: a dry run on the CPU"
W=/tmp/essay-bb
mkdir -p "$W/data" "$W/runs"
tar -xJf .work/gpu/essay-bb.tar.xz -C "$W/data"
COMMON=(--data "$W/data" --backbone "$W/data/backbone.pt" --device auto --minutes "${MINUTES:-6.5}"
  --batch-tokens 12000 --lr 7e-4 --warmup 300 --val-every 400 --log-every 200)
cd models/train
for run in backbone fresh dec4; do
  case $run in
    backbone) extra=() ;;
    fresh) extra=(--backbone-fresh) ;;
    dec4) extra=(--decoder-layers 4) ;;
  esac
  timeout 540 "$PY" -m draftsmith_train.essay train "${COMMON[@]}" "${extra[@]}" --out "$W/runs/$run.pt" \
    > "$W/$run.log" 2>&1 &
done
wait
echo "trained at $(($(date +%s) - T0)) s"
for run in backbone fresh dec4; do
  echo "=== $run"; grep -E "validation|best|done|params|initialised|fresh" "$W/$run.log" | tail -12
  { echo "=== $run"; cat "$W/$run.log"; } >> "$OUT/train.log"
  # the fresh run is a measurement (its log); the device hands back ~64 MB at most
  [ "$run" != fresh ] && [ -f "$W/runs/$run.best.pt" ] \
    && "$PY" -c "import sys; from draftsmith_train.chunk import slim; slim(sys.argv[1], half=True)" \
      "$W/runs/$run.best.pt" \
    && split -b 16000k -d -a 3 "$W/runs/$run.best.pt" "$OUT/$run.best.pt.part-"
done
ls -la "$OUT"
echo "done at $(($(date +%s) - T0)) s"
