#!/usr/bin/env bash
# The two tiny Round-Trip models the unit tests run besides the shipped one (which is hier-attn by
# default): standard and hier, hidden size 8, 300 steps on one CPU thread (~4 minutes each), exported
# to test/fixtures/roundtrip-models/<model>/ with their PyTorch parity fixture (parity.json) inside.
# They check that the TypeScript greedy loop matches PyTorch's for every architecture; what they write
# is nonsense. Retraining the shipped model does not touch them.
#
#   DATA=/path/to/.data bash models/train/roundtrip_test_models.sh
set -euo pipefail
cd "$(dirname "$0")"
PY=${PY:-/usr/bin/python3}
DATA=${DATA:-../../.data}
RUNS=${RUNS:-runs}
STEPS=${STEPS:-300}
for m in standard hier; do
  $PY -m draftsmith_train.roundtrip train --data "$DATA" --model "$m" --steps "$STEPS" --minutes 20 \
    --hidden 8 --embed 8 --layers 2 --batch-tokens 2000 --val-every 100 --max-val 40 --log-every 50 \
    --out "$RUNS/roundtrip-test-$m.pt"
  $PY -m draftsmith_train.roundtrip export --data "$DATA" --ckpt "$RUNS/roundtrip-test-$m.pt" \
    --out "../../test/fixtures/roundtrip-models/$m"
done
