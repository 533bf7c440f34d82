"""The installer's venv step for real (slow: builds the project): --system-site-packages,
the project installed with --no-deps (no pip numpy/OpenCV to shadow apt's), and the
Python stack proven by `yatzycam doctor --only python` inside the new venv."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def base_python() -> str:
    return getattr(sys, "_base_executable", sys.executable)


def base_has(*mods: str) -> bool:
    code = "import " + ", ".join(mods)
    return subprocess.run([base_python(), "-c", code], capture_output=True).returncode == 0


@pytest.mark.slow
def test_venv_step_into_a_temp_root(tmp_path):
    # install from a clean copy of the tracked sources (a build writes into its source tree)
    src = tmp_path / "src"
    files = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout.split(b"\0")
    for f in filter(None, files):
        rel = f.decode()
        if not (ROOT / rel).is_file():
            continue
        (src / rel).parent.mkdir(parents=True, exist_ok=True)
        (src / rel).write_bytes((ROOT / rel).read_bytes())
    os.chmod(src / "systemd/install.sh", 0o755)
    root = tmp_path / "root"
    root.mkdir()
    env = {**os.environ, "PYTHON": base_python()}
    env.pop("VIRTUAL_ENV", None)
    r = subprocess.run(["bash", str(src / "systemd/install.sh"), "--root", str(root)], capture_output=True, text=True, env=env, timeout=600)
    venv = root / "opt/yatzycam/venv"
    assert "include-system-site-packages = true" in (venv / "pyvenv.cfg").read_text()
    assert (venv / "bin/yatzycam").exists(), r.stdout + r.stderr
    site = next((venv / "lib").glob("python3*/site-packages"))
    # the project and its own code are in the venv...
    for pkg in ("controller", "controller/cli", "hardware", "vision", "calibration", "controller/game/rulesets"):
        assert (site / pkg).is_dir(), pkg
    # onnxruntime, where pip could fetch it (else the installer says the reader falls back to OpenCV's dnn)...
    assert (site / "onnxruntime").is_dir() or "onnxruntime was not installed" in r.stdout, r.stdout
    # ...and no numpy/OpenCV of pip's was pulled in next to apt's
    assert not list(site.glob("numpy*")) and not list(site.glob("cv2*")) and not list(site.glob("opencv*"))
    # the stack check ran inside the new venv; it passes only where apt's stack is there (a Pi)
    assert "checking the Python stack" in r.stdout
    unit = root / "etc/systemd/system/yatzycam.service"
    if base_has("numpy", "cv2", "PIL", "picamera2"):
        assert r.returncode == 0 and unit.exists(), r.stdout + r.stderr
    else:
        assert r.returncode == 1 and "Python stack is broken" in r.stdout
        assert "FAIL python" in r.stdout + r.stderr
        assert not unit.exists()  # nothing else changed
