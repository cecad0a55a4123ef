#!/usr/bin/env bash
# One device call of at most 10 minutes that trains two models side by side on one GPU: the backbone's
# chunk (gpu_chunk.sh run backbone) and Round-Trip on the everyday corpus (roundtrip prepare --corpus
# everyday), its word embeddings from the bundle's backbone checkpoint. The first lent GPU ran it so.
#
#   here:    bash models/train/gpu_backbone_roundtrip.sh pack     # .work/gpu/backbone.tar.xz
# (gpu_chunk.sh pack backbone)
#                                                                 # + .work/gpu/rt-data.tar.xz (.data/everyday, 2.4 MiB)
#            bash models/train/gpu_chunk.sh aside
#   device:  command  bash models/train/gpu_backbone_roundtrip.sh run
#            carry    [".work/gpu/backbone.tar.xz", ".work/gpu/rt-data.tar.xz"], timeout_s 600
#   here:    bash models/train/gpu_chunk.sh back
#            bash models/train/gpu_chunk.sh unpack backbone FILES_AT/bb
#            cat FILES_AT/rt/roundtrip.best.pt.part-* > .work/rt-everyday/roundtrip.best.pt   # float16, no optimizer
#
# BB_MINUTES (6.5) and RT_MINUTES (6) share the 10 minutes with the start-up, the backbone's held-out
# scoring and the hand-back; the files back: bb/train.log (Round-Trip's log appended), the chunk's
# parts (4) and Round-Trip's best weights in 3 parts of 16,000 KiB: 8, the device's limit.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
if [ "${1:-}" = pack ]; then
  set -e
  DATA=$ROOT/.data/backbone bash models/train/gpu_chunk.sh pack backbone
  tar -C .data/everyday -cf - roundtrip.train.jsonl roundtrip.val.jsonl spm.model | xz -9 -T0 > .work/gpu/rt-data.tar.xz
  ls -la .work/gpu/backbone.tar.xz .work/gpu/rt-data.tar.xz
  exit 0
fi
[ "${1:-}" = run ] || { echo "usage: gpu_backbone_roundtrip.sh pack|run" >&2; exit 2; }
export PY=python3 PYTHONUNBUFFERED=1
T0=$(date +%s)
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader
RT=/tmp/rt
mkdir -p "$RT/data" "$RT/bb" "$RT/runs" "$OUT/bb" "$OUT/rt"
tar -xJf .work/gpu/rt-data.tar.xz -C "$RT/data"
tar -xJif .work/gpu/backbone.tar.xz -C "$RT/bb" --wildcards '*runs/backbone.pt'
BBPT=$(find "$RT/bb" -name backbone.pt | head -1)
echo "backbone checkpoint for the embeddings: $BBPT ($(($(date +%s) - T0)) s)"
MINUTES=${BB_MINUTES:-6.5} bash models/train/gpu_chunk.sh run backbone "$OUT/bb" > "$RT/bb.log" 2>&1 &
BB=$!
(cd models/train && timeout 460 python3 -m draftsmith_train.roundtrip train --data "$RT/data" --model hier-attn \
  --hidden 512 --embed 256 --layers 2 --batch-tokens 16000 --lr 1e-3 --val-every 250 --max-val 300 \
  --minutes "${RT_MINUTES:-6}" --device auto --out "$RT/runs/roundtrip.pt" \
  --init-embeddings "$BBPT") > "$RT/rt.log" 2>&1
echo "roundtrip exit $? at $(($(date +%s) - T0)) s"
tail -25 "$RT/rt.log"
(cd models/train && python3 -c "import sys; from draftsmith_train.chunk import slim; slim(sys.argv[1], half=True)" \
  "$RT/runs/roundtrip.best.pt") \
  && split -b 16000k -d -a 3 "$RT/runs/roundtrip.best.pt" "$OUT/rt/roundtrip.best.pt.part-"
wait $BB
echo "backbone exit $? at $(($(date +%s) - T0)) s"
tail -60 "$RT/bb.log"
{ echo "=== roundtrip (everyday, 512 units, backbone embeddings) ==="; cat "$RT/rt.log"; } >> "$OUT/bb/train.log"
ls -la "$OUT/bb" "$OUT/rt"
