#!/usr/bin/env bash
# `make test-pi`: the committed model and the reader under the Pi's packages (Raspberry Pi OS bookworm:
# Debian's python3-opencv 4.6 and python3-numpy 1.24, run by /usr/bin/python3 with no venv) must give
# what the main environment gives, with the nets run by OpenCV's dnn (apt's alone) and by onnxruntime (a
# --system-site-packages venv with onnxruntime's wheel, as systemd/install.sh makes it). Usage:
# tests/pi/run.sh MAIN_PYTHON
set -euo pipefail
cd "$(dirname "$0")/../.."
main_py=${1:?usage: tests/pi/run.sh MAIN_PYTHON}
pi_py=/usr/bin/python3
if ! "$pi_py" -s -c 'import cv2, numpy, ensurepip' >/dev/null 2>&1; then
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "test-pi: $pi_py lacks cv2/numpy/venv and there is no apt-get (a Debian bookworm machine is needed)" >&2
    exit 2
  fi
  sudo=""
  if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null 2>&1 || { echo "test-pi: installing python3-opencv python3-numpy python3-venv needs root (or sudo)" >&2; exit 2; }
    sudo=sudo
  fi
  echo "test-pi: installing Debian's python3-opencv python3-numpy python3-venv"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends python3-opencv python3-numpy python3-venv >/dev/null
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$main_py" tests/pi/frames.py "$tmp"
# 1. apt's packages alone: the nets run by OpenCV 4.6's dnn
PYTHONPATH="$PWD" PYTHONNOUSERSITE=1 YATZYCAM_DNN=opencv "$pi_py" -s tests/pi/check.py "$tmp"
# 2. as the Pi installer leaves it: a venv made with --system-site-packages (apt's numpy and OpenCV)
# and onnxruntime's wheel installed into it with --no-deps; the nets run by onnxruntime
"$pi_py" -m venv --system-site-packages "$tmp/venv"
"$tmp/venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps onnxruntime
"$tmp/venv/bin/python" -s -c 'import numpy, sys; sys.exit(0 if numpy.__file__.startswith("/usr/lib/python3/") else "test-pi: the venv imports numpy from " + numpy.__file__ + ", not apt'"'"'s")'
PYTHONPATH="$PWD" PYTHONNOUSERSITE=1 YATZYCAM_DNN=onnxruntime "$tmp/venv/bin/python" -s tests/pi/check.py "$tmp"
