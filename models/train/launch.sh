#!/usr/bin/env bash
# A training command in N processes under DistributedDataParallel (draftsmith_train/launch.py, dist.py):
# gloo on the CPU (one process of one thread per core), nccl on a GPU machine (one process per GPU,
# through torchrun where it works: torch 2.x). NPROC (or --nproc) picks N; auto by default.
#
#   bash models/train/launch.sh -m draftsmith_train.roundtrip train --data .data --model hier-attn --out .work/rt.pt
#   NPROC=1 bash models/train/launch.sh -m ...        # one process, as without the launcher
#
# Relative paths are read from models/train (as in the recipes).
set -euo pipefail
cd "$(dirname "$0")"
PY=${PY:-/usr/bin/python3}
exec "$PY" -m draftsmith_train.launch "$@"
