#!/usr/bin/env bash
# The peer models for bench/: each shipped model (models/summarize, models/essay), exported
# in the layout @huggingface/transformers runs an encoder-decoder in (draftsmith_train/export_peer.py),
# into the ignored .work/peer/<system>/. The benches time transformers.js's generate() on them against our loop.
# The weights come from the shipped folder itself: the PyTorch model is rebuilt from its encoder.onnx
# and decoder.onnx (draftsmith_train/weights_from_onnx.py), so no training checkpoint is needed, and
# checked against those graphs in onnxruntime-node (check_peer_onnx.cjs: needs npm install's node_modules).
#
#   bash models/train/export_peer.sh                      # from the shipped folders
#   RUNS=/path/to/runs bash models/train/export_peer.sh   # from checkpoints: RUNS/taas.pt, RUNS/essay-copy.pt
#
# Needs Debian's python3-torch python3-onnx (as the training recipes do).
#
# Not run here: the Hub layout, a summarizer whose graphs take plain tokenizer output (the
# topic slot prepended inside the graphs), for transformers.js's generate(); the loopback Hub's fixture
# test/fixtures/hub/draftsmith/summarize-taas is one (its README.md has the exact commands):
#   cd models/train && /usr/bin/python3 -m draftsmith_train.export_peer summarize CKPT ../summarize \
#       ../../.work/hub/summarize-taas --hub-layout --int8 1024 [--fixture DIR]
# (it runs check_hub_seq2seq.cjs itself; README.md, "A summarizer for the Hub", says more).
set -euo pipefail
cd "$(dirname "$0")"
PY=${PY:-/usr/bin/python3}
export PYTHONWARNINGS=${PYTHONWARNINGS:-ignore}  # torch.onnx's tracer warnings
OUT=${OUT:-../../.work/peer}
if [ -n "${RUNS:-}" ]; then
  SUMMARIZE_CKPT=$RUNS/taas.pt ESSAY_CKPT=$RUNS/essay-copy.pt
else
  SUMMARIZE_CKPT=- ESSAY_CKPT=-  # "-": the weights from the shipped ONNX files
fi
$PY -m draftsmith_train.export_peer summarize "$SUMMARIZE_CKPT" ../summarize "$OUT/summarize"
$PY -m draftsmith_train.export_peer essay "$ESSAY_CKPT" ../essay "$OUT/essay"
