#!/usr/bin/env bash
# One device call of at most 10 minutes, three jobs side by side on one GPU:
#   - Round-Trip goes on from its everyday checkpoint (roundtrip train --resume), its rate halved every
#     RT_HALVE_EVERY steps from RT_HALVE_AFTER (the paper's schedule, after its constant-rate steps);
#   - Continue Story's pretrained seq2seq grown from the backbone (story seq2seq --backbone: the backbone
#     fine-tuned to read "prompt </s> <s> story" as one sequence), at two learning rates;
#   - then fusion with the better of the two as its frozen half (story fusion --pretrained), the
#     trained half 256 wide with the backbone's word embeddings (on the CPU it learns faster so).
#
#   here:    bash models/train/gpu_roundtrip_story.sh pack   # .work/gpu/rt-story.tar.xz (~40 MB; 24 MB for
#                                                              Round-Trip alone, when the backbone is missing)
#            bash models/train/gpu_chunk.sh aside
#   device:  command  bash models/train/gpu_roundtrip_story.sh run
#            carry    [".work/gpu/rt-story.tar.xz"], timeout_s 570
#   here:    bash models/train/gpu_chunk.sh back
#            bash models/train/gpu_roundtrip_story.sh unpack FILES_AT   # -> .work/rt-story/*.pt (float32)
#
# What travels either way is int8 with a scale per row (chunk.slim --int8, as the exports store weights:
# an export from the widened checkpoint is the export of the original), so Round-Trip's 23.5M parameters
# fit beside the rest. The frozen backbone goes out in float16 and the fusion comes back without it.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
PY=${PY:-/usr/bin/python3}                          # Debian's, with its torch, here
"$PY" -c 'import torch' 2>/dev/null || PY=python3 # the GPU machine's torch is in another python3
SLIM="from draftsmith_train.chunk import slim, widen"
SRC=48 TGT=208                                      # prompt and story share the backbone's 256 positions
case "${1:-}" in
  pack)
    set -e
    # Checkpoints live only on the machine that trained them (.work and .data are never committed). On a
    # fresh one Round-Trip's is rebuilt from the shipped graphs (weights_from_onnx.py: the int8 rows
    # that travel anyway, at the step model.json records), and the backbone's stand-in from the shipped
    # story graphs (resume_from_shipped.sh); without any backbone the story jobs stay here and Round-Trip
    # goes alone.
    P=.work/gpu/rt-story
    RT=.work/rt-everyday/roundtrip.best.pt
    BB=.work/gpu/story-bb/backbone.pt
    [ -e $BB ] || BB=.data/backbone/runs/backbone.best.pt
    [ -e $BB ] || BB=.data/backbone/runs/backbone.pt
    if [ ! -e $BB ]; then  # a fresh machine: the backbone's stand-in rebuilt from the shipped story graphs
      BB=.work/shipped/story/backbone.pt
      [ -e $BB ] || (cd models/train && "$PY" -m draftsmith_train.weights_from_onnx story-checkpoints ../story \
        "$ROOT/.work/shipped/story")
    fi
    data=(roundtrip.train.jsonl roundtrip.val.jsonl spm.model)
    if [ -e $BB ]; then data+=(story.train.jsonl story.val.jsonl); else
      echo "gpu_roundtrip_story.sh pack: no backbone ($BB: train_backbone.sh, or gpu_chunk.sh's backbone call):" \
        "Round-Trip alone" >&2
    fi
    for f in "${data[@]}"; do
      [ -e ".data/everyday/$f" ] && continue
      echo "gpu_roundtrip_story.sh pack: .data/everyday/$f is missing: (cd models/train &&" \
        "$PY -m draftsmith_train.roundtrip prepare --corpus everyday --data ../../.data/everyday &&" \
        "$PY -m draftsmith_train.story prepare --corpus simple --data ../../.data/everyday)" >&2
      exit 1
    done
    # Round-Trip goes on in the tokenizer it was trained in, or not at all.
    cmp -s .data/everyday/tokenizer/tokenizer.json models/roundtrip/tokenizer.json || {
      echo "gpu_roundtrip_story.sh pack: .data/everyday's tokenizer is not models/roundtrip's:" \
        "prepare it from the backbone that model grew from" >&2
      exit 1
    }
    if [ ! -e $RT ]; then
      mkdir -p "$(dirname $RT)"
      (cd models/train && "$PY" -m draftsmith_train.weights_from_onnx roundtrip-checkpoint ../roundtrip "$ROOT/$RT")
    fi
    rm -rf $P && mkdir -p $P
    cp $RT $P/roundtrip.pt
    out=(roundtrip.pt)
    [ -e $BB ] && cp $BB $P/backbone.pt && out+=(backbone.pt)
    (cd models/train && "$PY" -c "import os, sys; $SLIM; slim(sys.argv[1], int8=True); \
      os.path.exists(sys.argv[2]) and slim(sys.argv[2], half=True)" \
      "$ROOT/$P/roundtrip.pt" "$ROOT/$P/backbone.pt")
    tar -cf - -C .data/everyday "${data[@]}" -C "$ROOT/$P" "${out[@]}" | xz -6 -T0 > .work/gpu/rt-story.tar.xz
    ls -la .work/gpu/rt-story.tar.xz
    exit 0 ;;
  unpack)
    set -e
    F=${2:?unpack FILES_AT}
    mkdir -p .work/rt-story
    cat "$F"/roundtrip.best.pt.part-* > .work/rt-story/roundtrip.best.pt
    cp "$F"/s2s-*.best.pt "$F"/fusion.trained.pt "$F"/train.log .work/rt-story/ 2>/dev/null || true
    (cd models/train && "$PY" - "$ROOT/.work/rt-story" <<'PYEOF'
import glob, os, sys, torch
from draftsmith_train.chunk import widen
w = sys.argv[1]
for p in glob.glob(os.path.join(w, "*.pt")):
    widen(p)
if os.path.exists(os.path.join(w, "fusion.trained.pt")):  # its frozen half back from the seq2seq it was fused with
    ck = torch.load(os.path.join(w, "fusion.trained.pt"), map_location="cpu")
    frozen = torch.load(os.path.join(w, os.path.basename(ck["meta"]["pretrained"])), map_location="cpu")
    ck["state"].update({"pretrained." + k: v for k, v in frozen["state"].items()})
    torch.save(ck, os.path.join(w, "fusion.best.pt"))
PYEOF
    )
    ls -la .work/rt-story
    exit 0 ;;
  run) ;;
  *) echo "usage: gpu_roundtrip_story.sh pack|run|unpack FILES_AT" >&2; exit 2 ;;
esac
export PYTHONUNBUFFERED=1
T0=$(date +%s)
since() { echo "$(($(date +%s) - T0)) s"; }
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader 2>/dev/null || echo "no GPU: a dry run on the CPU"
W=${WORK_DIR:-/tmp/rt-story}
mkdir -p "$W/data" "$W/runs" "$OUT"
tar -xJf .work/gpu/rt-story.tar.xz -C "$W/data"
mv "$W/data/roundtrip.pt" "$W/runs/roundtrip.pt"
cd models/train
"$PY" -c "import sys; $SLIM; widen(sys.argv[1])" "$W/runs/roundtrip.pt"
cp "$W/runs/roundtrip.pt" "$W/runs/roundtrip.best.pt"  # its best so far: a run that does not beat it keeps it
echo "unpacked at $(since)"
RT_MIN=${RT_MINUTES:-8} S1_MIN=${S1_MINUTES:-3} S2_MIN=${S2_MINUTES:-4.2}
timeout "$(awk "BEGIN { print int($RT_MIN * 60 + 150) }")" "$PY" -m draftsmith_train.roundtrip train --data "$W/data" \
  --model hier-attn --hidden 512 --embed 256 --layers 2 --batch-tokens 16000 --lr 1e-3 --val-every 250 \
  --max-val "${RT_MAX_VAL:-300}" \
  --halve-after "${RT_HALVE_AFTER:-4600}" --halve-every "${RT_HALVE_EVERY:-350}" \
  --minutes "$RT_MIN" --device auto --out "$W/runs/roundtrip.pt" --resume > "$W/roundtrip.log" 2>&1 &
RT=$!
if [ -e "$W/data/backbone.pt" ]; then  # the story jobs; packed without the backbone, Round-Trip trains alone
  LRS=(3e-4 1e-4)
  for lr in "${LRS[@]}"; do
    timeout "$(awk "BEGIN { print int($S1_MIN * 60 + 150) }")" "$PY" -m draftsmith_train.story seq2seq \
      --data "$W/data" --backbone "$W/data/backbone.pt" --max-src $SRC --max-tgt $TGT --lr "$lr" --warmup 100 \
      --batch-tokens 16000 --val-every 150 --val-limit "${S_VAL_LIMIT:-400}" --log-every 50 --minutes "$S1_MIN" \
      --device auto --out "$W/runs/s2s-$lr.pt" > "$W/s2s-$lr.log" 2>&1 &
  done
  wait $(jobs -p | grep -v "^$RT$")
  echo "seq2seq runs done at $(since)"
  BEST=$("$PY" - "$W/runs" "${LRS[@]}" <<'PYEOF'
import sys, torch
best = {
    lr: torch.load(f"{sys.argv[1]}/s2s-{lr}.best.pt", map_location="cpu")["meta"]["best_nll"]
    for lr in sys.argv[2:]
}
print(min(best, key=best.get))
PYEOF
  )
  echo "fusion with s2s-$BEST"
  timeout "$(awk "BEGIN { print int($S2_MIN * 60 + 150) }")" "$PY" -m draftsmith_train.story fusion --data "$W/data" \
    --pretrained "$W/runs/s2s-$BEST.best.pt" --embed-dim 256 --init-embeddings "$W/data/backbone.pt" \
    --max-src $SRC --max-tgt $TGT --batch-tokens 16000 --val-every 200 --val-limit "${S_VAL_LIMIT:-400}" \
    --log-every 50 --minutes "$S2_MIN" --device auto --out "$W/runs/fusion.pt" > "$W/fusion.log" 2>&1
  echo "fusion done at $(since)"
fi
wait $RT
echo "roundtrip done at $(since)"
for f in roundtrip s2s-3e-4 s2s-1e-4 fusion; do
  [ -e "$W/$f.log" ] || continue
  echo "=== $f"; grep -E "validation|done|params|resumed" "$W/$f.log" | tail -6
  { echo "=== $f"; cat "$W/$f.log"; } >> "$OUT/train.log"
done
"$PY" - "$W/runs" <<PYEOF
import os, sys, torch
$SLIM
w = sys.argv[1]
if os.path.exists(f"{w}/fusion.best.pt"):  # its frozen half is the seq2seq that comes back too
    ck = torch.load(f"{w}/fusion.best.pt", map_location="cpu")
    ck["state"] = {k: v for k, v in ck["state"].items() if not k.startswith("pretrained.")}
    torch.save(ck, f"{w}/fusion.trained.pt")
for name in ("roundtrip.best.pt", "s2s-3e-4.best.pt", "s2s-1e-4.best.pt", "fusion.trained.pt"):
    try:
        slim(f"{w}/{name}", int8=True)
    except FileNotFoundError as e:
        print(f"not handed back: {e}")
PYEOF
split -b 16000k -d -a 3 "$W/runs/roundtrip.best.pt" "$OUT/roundtrip.best.pt.part-"
for f in s2s-3e-4.best.pt s2s-1e-4.best.pt fusion.trained.pt; do [ ! -e "$W/runs/$f" ] || cp "$W/runs/$f" "$OUT/"; done
ls -la "$OUT"
echo "done at $(since)"
