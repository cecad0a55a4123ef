#!/usr/bin/env bash
# The peer models for bench/ (issue 8): each shipped model's weights, exported in the layout
# @huggingface/transformers runs an encoder-decoder in (draftsmith_train/export_peer.py), into the
# ignored .work/peer/<system>/. The benches time transformers.js's generate() on them against our loop.
#
#   bash models/train/export_peer.sh                      # checkpoints in models/train/runs/
#   RUNS=/path/to/runs bash models/train/export_peer.sh
#
# Needs Debian's python3-torch python3-onnx (as the training recipes do).
set -euo pipefail
cd "$(dirname "$0")"
PY=${PY:-/usr/bin/python3}
export PYTHONWARNINGS=${PYTHONWARNINGS:-ignore}  # torch.onnx's tracer warnings
RUNS=${RUNS:-runs}
OUT=${OUT:-../../.work/peer}
$PY -m draftsmith_train.export_peer summarize "$RUNS/taas.pt" ../summarize "$OUT/summarize"
$PY -m draftsmith_train.export_peer essay "$RUNS/essay-copy.pt" ../essay "$OUT/essay"
