#!/usr/bin/env bash
# A GPU run in resumable chunks of at most 10 minutes, for every system: summarize,
# essay, story, roundtrip, reply, backbone (draftsmith_train/chunk.py: their stages, settings and state.json). Each
# chunk starts from the previous chunk's checkpoint, trains MINUTES (default 7: the rest of the 10 minutes
# is start-up, validation and the export), and ends with an export; what it hands back is split into files
# of at most 16 MiB. What a chunk needs beside the code (the data and the checkpoint) travels as one xz
# bundle of at most 60 MiB (the device carries 64 MiB with the working tree); the shipped weights
# (models/*) are not needed and not touched.
#
#   here:     bash models/train/gpu_chunk.sh pack SYSTEM            # -> .work/gpu/SYSTEM.tar.xz (data + checkpoints)
#   device:   bash models/train/gpu_chunk.sh run SYSTEM [OUTDIR]     # (carry .work/gpu/SYSTEM.tar.xz;
# OUTDIR default $OUT)
#   here:     bash models/train/gpu_chunk.sh unpack SYSTEM FILES_DIR # -> .work/gpu/SYSTEM/{state.json,runs,export}
#   then pack again for the next chunk; when done, check the export and copy it over models/SYSTEM with
#   the card's numbers re-measured.
#
#   the backbone (train_backbone.sh's model, trained on this CPU meanwhile): pack takes the checkpoint that
#   has seen more tokens, the CPU run's (DATA/runs, only read) or the last chunk's; unpack leaves it in
#   .work/gpu/backbone/runs and prints the commands that go on from it (models/train/README.md).
#
#   around each device call: the tracked tree is ~90 MiB, and a chunk reads models/train alone (under
#   1 MiB); a call carries at most 64 MiB with the bundle, so everything else tracked is set aside:
#             bash models/train/gpu_chunk.sh aside               # -> .work/gpu/aside.tar, removed from the checkout
#             bash models/train/gpu_chunk.sh back                # restored (git status clean again)
#
#   a GPU machine with the data (.data as `prepare` wrote it): one command, every system in turn, in place:
#             bash models/train/gpu_chunk.sh local all             # or: local SYSTEM...; -> .work/gpu/SYSTEM/export
#
# The run uses every GPU of the machine (launch.py: torchrun on torch 2.x, one process per GPU, nccl);
# NPROC overrides. The sizes and budgets are chunk.py's SETTINGS (the environment over them), fixed at
# the first pack in .work/gpu/SYSTEM/chunk.json. The bundle's checkpoints: with Adam's state when they fit
# in 60 MiB with the data; otherwise without it, then in float16 (which pack says).
set -euo pipefail
# OUTDIR / FILES_DIR: from where it was called
if [ $# -ge 3 ] && [ "$1" != local ]; then set -- "$1" "$2" "$(realpath -m "$3")"; fi
cd "$(dirname "$0")"
if [ "${1:-}" = aside ] || [ "${1:-}" = back ]; then
  cd ../..
  ASIDE=.work/gpu/aside.tar
  if [ "$1" = aside ]; then
    mkdir -p .work/gpu
    [ -f "$ASIDE" ] && { echo "gpu_chunk.sh: $ASIDE exists: run 'back' first" >&2; exit 1; }
    # every tracked file but models/train and the top-level dotfiles (.gitignore keeps .work out of the tree)
    git ls-files -z -- . ':(exclude)models/train' ':(exclude).*' | tar --null -T - -cf "$ASIDE"
    tar -tf "$ASIDE" | tr '\n' '\0' | xargs -0 rm -f
    echo "set aside $(tar -tf "$ASIDE" | wc -l) files ($(du -h "$ASIDE" | cut -f1)); tracked files left: $(
      git ls-files -z | xargs -0 du -cb 2>/dev/null | tail -1 | awk '{printf "%.1f MiB", $1/1048576}')"
  else
    [ -f "$ASIDE" ] || { echo "gpu_chunk.sh: nothing set aside ($ASIDE)" >&2; exit 1; }
    tar -xf "$ASIDE" && rm "$ASIDE" && echo "restored; git status: $(git status --short | wc -l) changes"
  fi
  exit 0
fi
if [ -z "${PY:-}" ]; then
  PY=/usr/bin/python3                                       # Debian's, with its torch, here
  "$PY" -c 'import torch' 2>/dev/null || PY=python3         # the GPU machine's torch 2.x is in another python3
fi
exec "$PY" -m draftsmith_train.chunk "$@"
