#!/usr/bin/env bash
# `make test-pi`: the committed model and the reader under the Pi's packages (Raspberry Pi OS bookworm:
# Debian's python3-opencv 4.6 and python3-numpy 1.24, run by /usr/bin/python3 with no venv) must give
# what the main environment gives. Usage: tests/pi/run.sh MAIN_PYTHON
set -euo pipefail
cd "$(dirname "$0")/../.."
main_py=${1:?usage: tests/pi/run.sh MAIN_PYTHON}
pi_py=/usr/bin/python3
if ! "$pi_py" -s -c 'import cv2, numpy' >/dev/null 2>&1; then
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "test-pi: $pi_py lacks cv2/numpy and there is no apt-get (a Debian bookworm machine is needed)" >&2
    exit 2
  fi
  sudo=""
  if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null 2>&1 || { echo "test-pi: installing python3-opencv python3-numpy needs root (or sudo)" >&2; exit 2; }
    sudo=sudo
  fi
  echo "test-pi: installing Debian's python3-opencv python3-numpy"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends python3-opencv python3-numpy >/dev/null
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$main_py" tests/pi/frames.py "$tmp"
PYTHONPATH="$PWD" PYTHONNOUSERSITE=1 "$pi_py" -s tests/pi/check.py "$tmp"
