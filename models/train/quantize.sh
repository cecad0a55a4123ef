#!/usr/bin/env bash
# The int8 variants of the shipped models (dynamic quantization: draftsmith_train/quantize.py) into
# the ignored .work/variants/<system>-int8/, where npm run bench finds and measures them. Point
# draftsmith.modelsPath (or --models) at a folder holding such a summarize/, essay/, roundtrip/ or reply/ to use one.
#
#   bash models/train/quantize.sh
#   npm run eval:summarize -- --variant float=models/summarize --variant int8=.work/variants/summarize-int8
set -euo pipefail
cd "$(dirname "$0")"
PY=${PY:-/usr/bin/python3}
OUT=${OUT:-../../.work/variants}
# (Continue Story's metrics are perplexities the PyTorch recipe measures, so its int8 variant could not be
# checked against its card: not made.)
for system in summarize essay roundtrip reply; do
  $PY -m draftsmith_train.quantize "../$system" "$OUT/$system-int8"
done
