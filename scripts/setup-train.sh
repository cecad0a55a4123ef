#!/usr/bin/env bash
# What the training tests need (test/unit/trainDdp.test.ts: models/train/tests/test_ddp.py and the
# smallest recipe's smoke run): Debian's PyTorch stack for /usr/bin/python3 (docs: models/train/README.md).
#   python3-torch python3-onnx python3-numpy python3-sentencepiece, black (scripts/lint.sh checks the
#   Python formatting with it), and libopenblas0-openmp (without
#   it torch falls back to the reference BLAS, ~12x slower).
# Skipped when /usr/bin/python3 already imports them. Outside CI a failure is not fatal: without the
# packages the tests skip themselves (and say so), so a machine without apt (or root) still runs npm
# test. In CI (CI=true) a failed install fails the set-up, so that the training tests do run there.
set -uo pipefail
PACKAGES=(python3-torch python3-onnx python3-numpy python3-sentencepiece libopenblas0-openmp black)
say() { printf '[setup-train] %s\n' "$*"; }
T0=$(date +%s)
if /usr/bin/python3 -c 'import torch, onnx, numpy, sentencepiece' 2>/dev/null \
  && dpkg -s libopenblas0-openmp >/dev/null 2>&1 && command -v black >/dev/null; then
  say "already installed: torch $(/usr/bin/python3 -c 'import torch; print(torch.__version__)')"
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  say "no apt-get: the training tests will be skipped"
  [ "${CI:-}" = true ] && exit 1
  exit 0
fi
SUDO=
if [ "$(id -u)" != 0 ]; then
  if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then SUDO="sudo -n"; else
    say "not root and no sudo: the training tests will be skipped"; [ "${CI:-}" = true ] && exit 1; exit 0; fi
fi
export DEBIAN_FRONTEND=noninteractive
say "apt-get update"
$SUDO apt-get update -o DPkg::Lock::Timeout=300 -qq || say "apt-get update failed (going on with the lists there are)"
say "apt-get install ${PACKAGES[*]}"
if $SUDO apt-get install -y -qq --no-install-recommends -o DPkg::Lock::Timeout=300 "${PACKAGES[@]}" >/dev/null; then
  say "installed in $(( $(date +%s) - T0 )) s:" \
    "torch $(/usr/bin/python3 -c 'import torch; print(torch.__version__)' 2>/dev/null)"
else
  say "install failed after $(( $(date +%s) - T0 )) s: the training tests will be skipped"
  [ "${CI:-}" = true ] && exit 1
fi
/usr/bin/python3 -c 'import torch, onnx, numpy, sentencepiece' || {
  say "installed, but /usr/bin/python3 does not import them"
  [ "${CI:-}" = true ] && exit 1
}
exit 0
