"""systemd/install.sh into a temporary root: files where they belong, idempotent, uninstall."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
INSTALL = ROOT / "systemd" / "install.sh"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", str(INSTALL), *args], capture_output=True, text=True, timeout=60)


def snapshot(root: Path) -> dict[str, tuple]:
    out = {}
    for p in sorted(root.rglob("*")):
        st = p.lstat()
        key = str(p.relative_to(root))
        if p.is_symlink():
            out[key] = ("link", os.readlink(p))
        elif p.is_file():
            out[key] = ("file", p.read_bytes(), st.st_mtime_ns, oct(st.st_mode & 0o777))
    return out


def test_dry_run_writes_nothing(tmp_path):
    r = run("--root", str(tmp_path), "--dry-run", "--no-venv")
    assert r.returncode == 0, r.stderr
    assert list(tmp_path.iterdir()) == []
    for dest in ("/etc/yatzycam/config.toml", "/etc/systemd/system/yatzycam.service", "/etc/polkit-1/rules.d/50-yatzycam.rules"):
        assert f"would write {dest}" in r.stdout
    assert "would link /usr/local/bin/yatzycam" in r.stdout
    # a new unit means a daemon-reload, also when other files changed before it
    assert "skipped under --root: systemctl daemon-reload" in r.stdout
    # the live system is never touched under --root
    assert "skipped under --root: " in r.stdout and "run: apt-get" not in r.stdout


def test_dry_run_plans_the_venv_without_shadowing_numpy(tmp_path):
    r = run("--root", str(tmp_path), "--dry-run")
    assert r.returncode == 0, r.stderr
    assert "-m venv --system-site-packages" in r.stdout
    assert "pip install --quiet --disable-pip-version-check --no-deps --upgrade" in r.stdout
    # onnxruntime (the reader's faster engine) goes in without its dependencies too: apt's numpy stays
    assert "pip install --quiet --disable-pip-version-check --no-deps onnxruntime" in r.stdout
    assert list(tmp_path.iterdir()) == []


def test_install_twice_then_uninstall(tmp_path):
    r1 = run("--root", str(tmp_path), "--no-venv")
    assert r1.returncode == 0, r1.stderr
    unit = tmp_path / "etc/systemd/system/yatzycam.service"
    assert unit.read_bytes() == (ROOT / "systemd/yatzycam.service").read_bytes()
    cfg = tmp_path / "etc/yatzycam/config.toml"
    assert cfg.read_bytes() == (ROOT / "systemd/config.example.toml").read_bytes()
    assert oct(cfg.stat().st_mode & 0o777) == "0o644"
    assert (tmp_path / "etc/polkit-1/rules.d/50-yatzycam.rules").exists()
    wants = tmp_path / "etc/systemd/system/multi-user.target.wants/yatzycam.service"
    assert os.readlink(wants) == "/etc/systemd/system/yatzycam.service"
    assert os.readlink(tmp_path / "usr/local/bin/yatzycam") == "/opt/yatzycam/venv/bin/yatzycam"
    assert "done" in r1.stdout and "nothing to change" not in r1.stdout

    # the user edits the config; a second run (the update path) changes nothing
    cfg.write_text(cfg.read_text().replace('rules = "yatzy"', 'rules = "maxi"'))
    before = snapshot(tmp_path)
    r2 = run("--root", str(tmp_path), "--no-venv")
    assert r2.returncode == 0, r2.stderr
    assert snapshot(tmp_path) == before
    assert "done: nothing to change" in r2.stdout
    assert "wrote" not in r2.stdout and "kept /etc/yatzycam/config.toml" in r2.stdout

    # an updated unit is rewritten (and the daemon reloaded) on the next run
    unit.write_text(unit.read_text() + "\n# stale\n")
    r3 = run("--root", str(tmp_path), "--no-venv")
    assert "wrote /etc/systemd/system/yatzycam.service" in r3.stdout
    assert "skipped under --root: systemctl daemon-reload" in r3.stdout
    assert unit.read_bytes() == (ROOT / "systemd/yatzycam.service").read_bytes()

    # uninstall keeps the state directory (the games) and the edited config
    state = tmp_path / "var/lib/yatzycam"
    state.mkdir(parents=True)
    (state / "yatzycam.db").write_bytes(b"games")
    r4 = run("--root", str(tmp_path), "--uninstall")
    assert r4.returncode == 0, r4.stderr
    assert not unit.exists() and not wants.exists() and not (tmp_path / "opt/yatzycam").exists()
    assert not (tmp_path / "usr/local/bin/yatzycam").is_symlink()
    assert not (tmp_path / "etc/polkit-1/rules.d/50-yatzycam.rules").exists()
    assert (state / "yatzycam.db").read_bytes() == b"games"
    assert "maxi" in cfg.read_text() and "kept /etc/yatzycam/config.toml (you changed it)" in r4.stdout


def test_uninstall_removes_an_unchanged_config(tmp_path):
    assert run("--root", str(tmp_path), "--no-venv").returncode == 0
    assert run("--root", str(tmp_path), "--uninstall").returncode == 0
    assert not (tmp_path / "etc/yatzycam").exists()


@pytest.mark.parametrize("args,why", [(["--bogus"], "unknown option --bogus"), (["--root", "/nonexistent/x"], "no such directory")])
def test_bad_options(args, why):
    r = run(*args)
    assert r.returncode == 2 and why in r.stderr


def test_shell_syntax():
    assert subprocess.run(["bash", "-n", str(INSTALL)]).returncode == 0
