#!/usr/bin/env bash
# yatzycam installer for Raspberry Pi OS (bookworm, 64-bit) on a Pi 4 or 5.
#
#   sudo systemd/install.sh              install, or update (re-running is the update path)
#   sudo systemd/install.sh --uninstall  remove what it added; keeps /var/lib/yatzycam (the games)
#   systemd/install.sh --dry-run         print what it would do, change nothing
#   systemd/install.sh --root DIR        write the files under DIR, skip the live system
#                                        (apt, users, systemctl): for tests
#   --no-venv                            skip the virtualenv step (tests)
#
# What it does: apt packages (picamera2, numpy, OpenCV, Pillow, gpiozero, lgpio from
# Raspberry Pi OS); a venv in /opt/yatzycam/venv made with --system-site-packages
# and the project installed into it with --no-deps, so apt's numpy/OpenCV are the
# ones imported (a pip numpy of another ABI would break picamera2); a system user
# `yatzycam` in the video and gpio groups; /etc/yatzycam/config.toml if absent
# (never overwritten); a polkit rule so the panel can power off the Pi; the unit,
# enabled and (re)started. Every file is written only when its content differs,
# so a second run changes nothing.
set -euo pipefail

SRC="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PREFIX=/opt/yatzycam
VENV="$PREFIX/venv"
ETC=/etc/yatzycam
UNIT=/etc/systemd/system/yatzycam.service
POLKIT=/etc/polkit-1/rules.d/50-yatzycam.rules
LINK=/usr/local/bin/yatzycam
USER_NAME=yatzycam
PYTHON="${PYTHON:-/usr/bin/python3}"
APT_PACKAGES=(python3-venv python3-pip python3-picamera2 python3-numpy python3-opencv python3-pil
  python3-gpiozero python3-lgpio fonts-dejavu-core polkitd)

ROOT="" DRY=0 UNINSTALL=0 NO_VENV=0 CHANGES=0
while [ $# -gt 0 ]; do
  case "$1" in
    --dry-run) DRY=1 ;;
    --root) ROOT="${2:?--root needs a directory}"; shift ;;
    --root=*) ROOT="${1#--root=}" ;;
    --uninstall) UNINSTALL=1 ;;
    --no-venv) NO_VENV=1 ;;
    -h | --help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "install.sh: unknown option $1 (try --help)" >&2; exit 2 ;;
  esac
  shift
done
if [ -n "$ROOT" ]; then
  [ -d "$ROOT" ] || { echo "install.sh: --root $ROOT: no such directory" >&2; exit 2; }
  ROOT="$(cd "$ROOT" && pwd)"
elif [ "$DRY" = 0 ] && [ "$(id -u)" != 0 ]; then
  echo "install.sh: run it with sudo (or --dry-run to see what it would do)" >&2
  exit 2
fi

say() { echo "yatzycam-install: $*"; }
# run CMD...: a command that changes this machine's files
run() {
  if [ "$DRY" = 1 ]; then say "would run: $*"; else say "run: $*"; "$@"; fi
  CHANGES=$((CHANGES + 1))
}
# live CMD...: a command on the live system (packages, users, systemd): not under --root
live() {
  if [ -n "$ROOT" ]; then say "skipped under --root: $*"; else run "$@"; fi
}
# put SRC DEST MODE [keep]: install a file when its content differs ("keep": never overwrite)
put() {
  local src="$1" dest="$ROOT$2" mode="$3" keep="${4:-}"
  if [ -e "$dest" ] && [ "$keep" = keep ]; then
    say "kept $2 (exists; never overwritten)"
  elif [ -e "$dest" ] && cmp -s "$src" "$dest"; then
    say "unchanged $2"
  elif [ "$DRY" = 1 ]; then
    say "would write $2"; CHANGES=$((CHANGES + 1))
  else
    install -D -m "$mode" "$src" "$dest"; say "wrote $2"; CHANGES=$((CHANGES + 1))
  fi
}
# remove PATH: delete a file or directory we added
remove() {
  local p="$ROOT$1"
  if [ -e "$p" ] || [ -L "$p" ]; then run rm -rf -- "$p"; else say "absent $1"; fi
}

ensure_packages() {
  local missing=()
  for p in "${APT_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if [ ${#missing[@]} = 0 ]; then say "apt packages present"; return; fi
  live apt-get update -qq
  live env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

ensure_user() {
  local g
  for g in video gpio; do
    getent group "$g" >/dev/null || live groupadd --system "$g"
  done
  if ! getent passwd "$USER_NAME" >/dev/null; then
    live useradd --system --user-group --home-dir /var/lib/yatzycam --no-create-home \
      --shell /usr/sbin/nologin --groups video,gpio --comment "yatzycam service" "$USER_NAME"
  else
    for g in video gpio; do
      id -nG "$USER_NAME" | tr ' ' '\n' | grep -qx "$g" || live usermod -aG "$g" "$USER_NAME"
    done
    say "user $USER_NAME present"
  fi
}

ensure_venv() {
  local venv="$ROOT$VENV"
  if [ "$NO_VENV" = 1 ]; then say "skipped the venv (--no-venv)"; return; fi
  [ -x "$venv/bin/python" ] || run "$PYTHON" -m venv --system-site-packages "$venv"
  # The same sources as last time: nothing to reinstall (a second run changes nothing).
  local id
  id="$(source_id)"
  if [ -x "$venv/bin/yatzycam" ] && [ "$(cat "$venv/.source-id" 2>/dev/null)" = "$id" ]; then
    say "unchanged $VENV (sources $id)"
    return
  fi
  # The project only: numpy, OpenCV, Pillow, picamera2, lgpio come from apt.
  run "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps --upgrade "$SRC"
  # gpiozero is pure Python: take it from PyPI only if apt did not provide it.
  if [ "$DRY" = 0 ] && ! "$venv/bin/python" -c "import gpiozero" 2>/dev/null; then
    run "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "gpiozero>=2.0" colorzero
  fi
  # onnxruntime runs the reader's nets in about half the time OpenCV's dnn takes: its aarch64 wheel,
  # with --no-deps so that apt's numpy stays the one imported. Without it (no network, no wheel) the
  # reader runs them on OpenCV's dnn.
  if [ "$DRY" = 1 ] || ! "$venv/bin/python" -c "import onnxruntime" 2>/dev/null; then
    run "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps onnxruntime ||
      say "onnxruntime was not installed: the reader runs its nets on OpenCV's dnn (about half as fast)"
  fi
  # Prove picamera2, numpy and cv2 import in the venv and that no pip numpy shadows apt's.
  if [ "$DRY" = 0 ]; then
    say "checking the Python stack in $VENV"
    "$venv/bin/yatzycam" doctor --only python || {
      say "the venv's Python stack is broken (see above); nothing else was changed"
      exit 1
    }
    echo "$id" >"$venv/.source-id"
  fi
}

# source_id: a hash of the files that make up the installed program
source_id() {
  (cd "$SRC" && find pyproject.toml controller hardware vision calibration -type f \
    ! -name '*.pyc' ! -path '*/__pycache__/*' -print0 | sort -z | xargs -0 sha256sum) | sha256sum | cut -c1-16
}

# ensure_link TARGET LINK VERB: LINK (a path on the target system) points at TARGET; VERB names it in the log
ensure_link() {
  local target=$1 link="$ROOT$2" verb=$3
  if [ "$(readlink "$link" 2>/dev/null)" = "$target" ]; then
    say "unchanged ($verb) $2"
  elif [ "$DRY" = 1 ]; then
    say "would $verb $2 -> $target"; CHANGES=$((CHANGES + 1))
  else
    mkdir -p "$(dirname "$link")"; ln -sfn "$target" "$link"; say "$verb $2 -> $target"; CHANGES=$((CHANGES + 1))
  fi
}

install_all() {
  ensure_packages
  ensure_user
  ensure_venv
  ensure_link "$VENV/bin/yatzycam" "$LINK" link
  put "$SRC/systemd/config.example.toml" "$ETC/config.example.toml" 0644
  put "$SRC/systemd/config.example.toml" "$ETC/config.toml" 0644 keep
  [ -f "$SRC/README.md" ] && put "$SRC/README.md" "$PREFIX/README.md" 0644
  put "$SRC/systemd/50-yatzycam.rules" "$POLKIT" 0644
  local before=$CHANGES
  put "$SRC/systemd/yatzycam.service" "$UNIT" 0644
  [ "$CHANGES" != "$before" ] && live systemctl daemon-reload
  if [ -n "$ROOT" ]; then
    ensure_link "$UNIT" /etc/systemd/system/multi-user.target.wants/yatzycam.service enable
  else
    systemctl is-enabled --quiet yatzycam.service 2>/dev/null || live systemctl enable yatzycam.service
    # (re)start only when something changed or it is not running: a second run leaves a game alone
    if [ "$NO_VENV" = 0 ] && { [ "$CHANGES" -gt 0 ] || ! systemctl is-active --quiet yatzycam.service; }; then
      live systemctl restart yatzycam.service
    fi
  fi
  if [ "$CHANGES" = 0 ]; then say "done: nothing to change"; else say "done"; fi
  say "next: yatzycam doctor; then calibrate (see the README); logs: journalctl -u yatzycam"
}

uninstall_all() {
  if [ -z "$ROOT" ] && systemctl list-unit-files yatzycam.service >/dev/null 2>&1; then
    live systemctl disable --now yatzycam.service || true
  fi
  remove /etc/systemd/system/multi-user.target.wants/yatzycam.service
  remove "$UNIT"
  live systemctl daemon-reload
  remove "$POLKIT"
  remove "$LINK"
  remove "$PREFIX"
  if [ -e "$ROOT$ETC/config.toml" ] && ! cmp -s "$SRC/systemd/config.example.toml" "$ROOT$ETC/config.toml"; then
    say "kept $ETC/config.toml (you changed it); remove it yourself if you want"
    remove "$ETC/config.example.toml"
  else
    remove "$ETC"
  fi
  if getent passwd "$USER_NAME" >/dev/null; then live userdel "$USER_NAME"; fi
  say "kept /var/lib/yatzycam (the game database, calibration and throw images)"
  say "kept the apt packages (other programs may use them)"
}

if [ "$UNINSTALL" = 1 ]; then uninstall_all; else install_all; fi
