#!/usr/bin/env bash
# One device call of at most 10 minutes that trains Continue Story's fusion model with the shared backbone
# as its frozen pretrained model (story fusion --pretrained-backbone), two sizes side by side on one GPU:
# the shipped model's shape (embeddings 128, hidden 192) and a wider one (256, 384).
#
#   here:    (cd models/train && python3 -m draftsmith_train.story prepare --corpus simple --data ../../.data/everyday)
#                                                     # the simple stories' pairs in the backbone's tokenizer
#            bash models/train/gpu_story_backbone.sh pack     # .work/gpu/story-bb.tar.xz (~17 MiB)
#            bash models/train/gpu_chunk.sh aside
#   device:  command  MINUTES=4 bash models/train/gpu_story_backbone.sh run
#            carry    [".work/gpu/story-bb.tar.xz"], timeout_s MINUTES*60 + 90
#   here:    bash models/train/gpu_chunk.sh back
#            bash models/train/gpu_story_backbone.sh unpack FILES_AT     # -> .work/story-bb/{small,wide}.best.pt
#
# The frozen backbone does not travel back: each run's best weights come back float16 without it (2 parts
# of 16,000 KiB at most each) and `unpack` puts the packed backbone's weights back in.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
PY=${PY:-/usr/bin/python3}                                  # Debian's, with its torch, here
"$PY" -c 'import torch' 2>/dev/null || PY=python3         # the GPU machine's torch is in another python3
RUNS=(small wide)
case "${1:-}" in
  pack)
    set -e
    mkdir -p .work/gpu/story-bb
    (cd models/train && "$PY" -c "import sys, shutil; from draftsmith_train.chunk import slim; \
      shutil.copy(sys.argv[1], sys.argv[2]); slim(sys.argv[2], half=True)" \
      ../../.data/backbone/runs/backbone.best.pt ../../.work/gpu/story-bb/backbone.pt)
    tar -cf - -C .data/everyday story.train.jsonl story.val.jsonl spm.model \
      -C ../../.work/gpu/story-bb backbone.pt \
      | xz -9 -T0 > .work/gpu/story-bb.tar.xz
    ls -la .work/gpu/story-bb.tar.xz
    exit 0 ;;
  unpack)
    set -e
    mkdir -p .work/story-bb
    for run in "${RUNS[@]}"; do
      cat "${2:?unpack FILES_AT}"/$run.best.pt.part-* > .work/story-bb/$run.trained.pt
      (cd models/train && "$PY" - "$ROOT/.work/story-bb/$run.trained.pt" "$ROOT/.work/gpu/story-bb/backbone.pt" \
        "$ROOT/.work/story-bb/$run.best.pt" <<'PYEOF'
import sys, torch
ck, bb = torch.load(sys.argv[1], map_location="cpu"), torch.load(sys.argv[2], map_location="cpu")
ck["state"].update({"pretrained.lm." + k: v for k, v in bb["state"].items()})
torch.save(ck, sys.argv[3])
PYEOF
      )
    done
    ls -la .work/story-bb
    exit 0 ;;
  run) ;;
  *) echo "usage: gpu_story_backbone.sh pack|run|unpack FILES_AT" >&2; exit 2 ;;
esac
export PYTHONUNBUFFERED=1
T0=$(date +%s)
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader 2>/dev/null || echo "no GPU: a dry run on the CPU"
W=/tmp/story-bb
mkdir -p "$W/data" "$W/runs"
tar -xJf .work/gpu/story-bb.tar.xz -C "$W/data"
cd models/train
for run in "${RUNS[@]}"; do
  case $run in
    small) size=(--embed-dim 128 --hidden 192) ;;
    wide) size=(--embed-dim 256 --hidden 384) ;;
  esac
  timeout "$(awk "BEGIN { print int(${MINUTES:-4} * 60 + 60) }")" "$PY" -m draftsmith_train.story fusion \
    --data "$W/data" --pretrained-backbone "$W/data/backbone.pt" \
    "${size[@]}" --device auto --minutes "${MINUTES:-4}" --batch-tokens 16000 --val-every 300 --log-every 100 \
    --out "$W/runs/$run.pt" > "$W/$run.log" 2>&1 &
done
wait
echo "trained at $(($(date +%s) - T0)) s"
for run in "${RUNS[@]}"; do
  echo "=== $run"; grep -E "validation|done|params" "$W/$run.log" | tail -8
  { echo "=== $run"; cat "$W/$run.log"; } >> "$OUT/train.log"
  # the best weights without the frozen backbone (it is in the bundle), float16
  [ -f "$W/runs/$run.best.pt" ] && "$PY" - "$W/runs/$run.best.pt" <<'PYEOF' &&
import sys, torch
from draftsmith_train.chunk import slim
ck = torch.load(sys.argv[1], map_location="cpu")
ck["state"] = {k: v for k, v in ck["state"].items() if not k.startswith("pretrained.lm.")}
torch.save(ck, sys.argv[1])
slim(sys.argv[1], half=True)
PYEOF
    split -b 16000k -d -a 3 "$W/runs/$run.best.pt" "$OUT/$run.best.pt.part-"
done
ls -la "$OUT"
echo "done at $(($(date +%s) - T0)) s"
