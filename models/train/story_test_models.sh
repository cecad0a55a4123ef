#!/usr/bin/env bash
# The tiny story model the unit tests run besides the shipped one: Continue Story's fusion with the
# shared backbone's shape as its frozen half (a GPT-2 that reads the prompt first) and a GPT-2 premise
# model, both grown from a random 2-layer x 16 backbone, a few steps each on one CPU thread (~2 minutes),
# exported to test/fixtures/story-models/backbone/ with its PyTorch parity fixture (parity.json) inside.
# It checks that the TypeScript step loop feeds the backbone's prompt cache and its own past as PyTorch
# does; what it writes is nonsense. Retraining the shipped model does not touch it.
#
#   DATA=/path/to/.data/everyday bash models/train/story_test_models.sh   # story prepare --corpus simple there
set -euo pipefail
cd "$(dirname "$0")"
PY=${PY:-/usr/bin/python3}
DATA=${DATA:-../../.data/everyday}
RUNS=${RUNS:-runs/story-test}
OUT=../../test/fixtures/story-models/backbone
STEPS=${STEPS:-20}
LENGTHS=(--max-src 48 --max-tgt 208)
mkdir -p "$RUNS" "$OUT"
$PY - "$DATA/spm.model" "$RUNS/backbone.pt" <<'PYEOF'
import sys, torch
from dataclasses import asdict
from draftsmith_train import tokenizer as T
from draftsmith_train.causal_lm import GPT2, GPT2Config
from draftsmith_train.training import save_checkpoint
torch.manual_seed(0)
c = GPT2Config(vocab_size=T.load(sys.argv[1]).get_piece_size(), n_positions=256, n_embd=16, n_layer=2, n_head=2)
save_checkpoint(sys.argv[2], GPT2(c), {"kind": "gpt2", "note": "random: the story test models' backbone"}, asdict(c))
PYEOF
common=(--data "$DATA" --steps "$STEPS" --minutes 5 --batch-tokens 2000 --val-limit 20 --device cpu)
$PY -m draftsmith_train.story seq2seq "${common[@]}" "${LENGTHS[@]}" --backbone "$RUNS/backbone.pt" --val-every 10 \
  --out "$RUNS/s2s.pt"
$PY -m draftsmith_train.story fusion "${common[@]}" "${LENGTHS[@]}" --pretrained "$RUNS/s2s.best.pt" --val-every 10 \
  --embed-dim 16 --hidden 16 --encoder-layers 1 --decoder-layers 2 --heads 2 --attention-dim 8 --out "$RUNS/fusion.pt"
$PY -m draftsmith_train.causal_lm train "${common[@]}" --corpus premise --init "$RUNS/backbone.pt" --val-every 10 \
  --out "$RUNS/premise.pt"
$PY -m draftsmith_train.export_story "$RUNS/fusion.best.pt" "$RUNS/premise.best.pt" "$OUT" "$DATA" \
  "$OUT/parity.json" "" int8
