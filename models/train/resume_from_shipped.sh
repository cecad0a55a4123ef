#!/usr/bin/env bash
# Training goes on from what is committed: a checkpoint lives only on the machine that trained it, so on a
# fresh one each system starts again from its shipped graphs (weights_from_onnx.py: the int8 rows are bit
# for bit the float32 weights the graphs were traced with). No optimizer state is shipped: a resumed run
# restarts AdamW from zero moments and ramps its rate up again over 50 steps (training.REWARM_STEPS).
#
#   bash models/train/resume_from_shipped.sh SYSTEM        # SYSTEM: backbone story summarize essay roundtrip reply
#   DRY=1 bash models/train/resume_from_shipped.sh SYSTEM  # only the checkpoints, and the command it would run
#
#   backbone   the shared backbone's stand-in (premise.onnx's GPT-2: the backbone 73 steps on, on story
#              prompts) -> DATA/runs/backbone.pt unless one is there, at the backbone run's step; then
#              train_backbone.sh goes on from it (MINUTES counts the whole run: 6.7 hours are spent).
#              gpu_chunk.sh pack backbone, gpu_essay_backbone.sh and gpu_roundtrip_story.sh read it there too.
#   story      fusion.pt (at its step 360), s2s.pt, premise.pt -> RUNS/story; then fusion's trained half goes
#              on (`story fusion --resume`, the card's flags) for MINUTES more.
#   summarize  `summarize finetune --init-shipped ../summarize` on the shipped mix (the card's last stage).
#   essay      `essay train --init-shipped ../essay` (the card's flags).
#              Both with --resume: called again, they go on from their own checkpoint in RUNS (MINUTES then
#              counts the whole run), not from the shipped folder.
#   roundtrip  `roundtrip train --resume` from the shipped graphs' checkpoint (the card's GPU flags).
#   reply      ESED's checkpoint and its memory (reply-memory.npz, from memory.bin) -> RUNS/reply; then
#              `reply train --model esed --resume` (the card's flags).
#
# Variables: MINUTES (training minutes added, default 60; backbone: the run's whole budget, default 600),
# NPROC (processes, default 1), RUNS (default .work/shipped), DATA (each system's prepared folder, as its
# card says: .data/backbone, .data/everyday, .data), PY.
set -euo pipefail
cd "$(dirname "$0")"
PY=${PY:-/usr/bin/python3}
SYSTEM=${1:?usage: resume_from_shipped.sh backbone|story|summarize|essay|roundtrip|reply}
RUNS=$(readlink -m "${RUNS:-../../.work/shipped}")
NPROC=${NPROC:-1}
DRY=${DRY:-0}
run() {
  echo "+ $*"
  [ "$DRY" = 1 ] || "$@"
}
mkdir -p "$RUNS"
case "$SYSTEM" in
  backbone)
    DATA=$(readlink -m "${DATA:-../../.data/backbone}")
    [ -e "$RUNS/story/backbone.pt" ] ||
      "$PY" -m draftsmith_train.weights_from_onnx story-checkpoints ../story "$RUNS/story"
    if [ -e "$DATA/runs/backbone.pt" ]; then
      echo "$DATA/runs/backbone.pt exists: the run goes on from it (delete it to start from the shipped graphs)"
    else
      mkdir -p "$DATA/runs" && cp "$RUNS/story/backbone.pt" "$DATA/runs/backbone.pt"
    fi
    run env DATA="$DATA" NPROC="$NPROC" MINUTES="${MINUTES:-600}" bash train_backbone.sh
    ;;
  story)
    DATA=${DATA:-../../.data/everyday}
    "$PY" -m draftsmith_train.weights_from_onnx story-checkpoints ../story "$RUNS/story"
    seconds=$("$PY" -c "import json; print(json.load(open('../story/model.json'))['training']['seconds'])")
    run env NPROC="$NPROC" "$PY" -m draftsmith_train.launch -m draftsmith_train.story fusion --data "$DATA" \
      --pretrained "$RUNS/story/s2s.pt" --max-src 48 --max-tgt 208 --lr 1e-3 --warmup 100 --batch-tokens 3000 \
      --val-every 60 --val-limit 200 --embed-dim 256 --minutes "$(((seconds / 60) + ${MINUTES:-60}))" \
      --resume --out "$RUNS/story/fusion.pt"
    echo "export: $PY -m draftsmith_train.export_story $RUNS/story/fusion.pt $RUNS/story/premise.pt OUT $DATA"
    ;;
  summarize)
    DATA=${DATA:-../../.data}
    run env NPROC="$NPROC" "$PY" -m draftsmith_train.launch -m draftsmith_train.summarize finetune --data "$DATA" \
      --init-shipped ../summarize --train "summarize.train.jsonl@news*3" --train summarize-gsg.train.jsonl \
      --train "summarize.train.jsonl@dialogue,tech" --ntm-batchnorm --ntm-warmup 0 --minutes "${MINUTES:-60}" \
      --lr 3e-4 --warmup 100 --max-val 200 --max-tgt 80 --resume --out "$RUNS/summarize/taas.pt"
    ;;
  essay)
    DATA=${DATA:-../../.data/everyday}
    run env NPROC="$NPROC" "$PY" -m draftsmith_train.launch -m draftsmith_train.essay train --data "$DATA" \
      --init-shipped ../essay --minutes "${MINUTES:-60}" --batch-tokens 12000 --lr 7e-4 --warmup 300 \
      --val-every 400 --log-every 200 --resume --out "$RUNS/essay/essay.pt"
    ;;
  roundtrip)
    DATA=${DATA:-../../.data/everyday}
    mkdir -p "$RUNS/roundtrip"
    [ -e "$RUNS/roundtrip/roundtrip.pt" ] ||
      "$PY" -m draftsmith_train.weights_from_onnx roundtrip-checkpoint ../roundtrip "$RUNS/roundtrip/roundtrip.pt"
    seconds=$("$PY" -c "import json; print(json.load(open('../roundtrip/model.json'))['training']['seconds'])")
    run env NPROC="$NPROC" "$PY" -m draftsmith_train.launch -m draftsmith_train.roundtrip train --data "$DATA" \
      --model hier-attn --hidden 512 --embed 256 --layers 2 --batch-tokens 16000 --lr 1e-3 --val-every 250 \
      --max-val 300 --halve-after 4600 --halve-every 350 --minutes "$(((seconds / 60) + ${MINUTES:-60}))" \
      --resume --out "$RUNS/roundtrip/roundtrip.pt"
    ;;
  reply)
    DATA=${DATA:-../../.data/reply}
    "$PY" -m draftsmith_train.weights_from_onnx reply-checkpoints ../reply "$RUNS/reply"
    seconds=$("$PY" -c "import json; print(json.load(open('../reply/model.json'))['training']['seconds'])")
    run env NPROC="$NPROC" "$PY" -m draftsmith_train.launch -m draftsmith_train.reply train --data "$DATA" \
      --model esed --memory "$RUNS/reply/reply-memory.npz" --hidden 256 --embed 256 --lr 1e-3 --dropout 0.3 \
      --batch-tokens 2000 --val-every 250 --max-val 500 --minutes "$(((seconds / 60) + ${MINUTES:-60}))" \
      --resume --out "$RUNS/reply/reply-esed.pt"
    ;;
  *)
    echo "resume_from_shipped.sh: no system $SYSTEM (backbone story summarize essay roundtrip reply)" >&2
    exit 2
    ;;
esac
