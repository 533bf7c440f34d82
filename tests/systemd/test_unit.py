"""systemd/yatzycam.service: `systemd-analyze verify` passes, and what the service needs is there."""

from __future__ import annotations

import configparser
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
UNIT = ROOT / "systemd" / "yatzycam.service"
EXEC = "/opt/yatzycam/venv/bin/yatzycam"


def unit_settings() -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for line in UNIT.read_text().splitlines():
        if "=" in line and not line.startswith(("#", "[")):
            k, v = line.split("=", 1)
            out.setdefault(k.strip(), []).append(v.strip())
    return out


def analyze() -> str:
    exe = shutil.which("systemd-analyze")
    if exe is None:
        # .ci/run installs the systemd package; a developer machine without it must too.
        pytest.fail("systemd-analyze is missing: apt-get install systemd (the CI script does)")
    return exe


def verify(tmp_path: Path, text: str) -> subprocess.CompletedProcess[str]:
    # verify checks that ExecStart's program exists: point it at a stand-in in tmp_path.
    exe = tmp_path / "yatzycam"
    exe.write_text("#!/bin/sh\nexit 0\n")
    exe.chmod(0o755)
    unit = tmp_path / "yatzycam.service"
    unit.write_text(text.replace(f"ExecStart={EXEC} ", f"ExecStart={exe} "))
    return subprocess.run([analyze(), "verify", str(unit)], capture_output=True, text=True, timeout=120)


def test_systemd_analyze_verify_passes(tmp_path):
    text = UNIT.read_text()
    assert f"ExecStart={EXEC} play --config /etc/yatzycam/config.toml" in text
    r = verify(tmp_path, text)
    assert r.returncode == 0 and r.stderr.strip() == "", r.stderr


def test_verify_would_catch_a_mistake(tmp_path):
    # the check above is not vacuous: a misspelt key or a bad value is reported
    r = verify(tmp_path, UNIT.read_text().replace("Restart=on-failure", "Restart=sometimes\nProtectSistem=strict"))
    assert "sometimes" in r.stderr and "ProtectSistem" in r.stderr


def test_the_settings_the_appliance_relies_on():
    s = unit_settings()
    assert s["Type"] == ["notify"] and s["NotifyAccess"] == ["main"]
    assert s["WatchdogSec"] and int(s["WatchdogSec"][0]) >= 10
    assert s["Restart"] == ["on-failure"] and s["RestartPreventExitStatus"] == ["78"]
    from controller.config import ConfigError

    assert ConfigError.exit_code == 78
    assert s["StateDirectory"] == ["yatzycam"] and s["Environment"][0] == "LG_WD=%S/yatzycam"
    assert s["WorkingDirectory"] == ["%S/yatzycam"]
    assert set(s["SupplementaryGroups"][0].split()) == {"video", "gpio"}
    assert s["User"] == ["yatzycam"]
    # hardening, without hiding the camera, GPIO and framebuffer devices
    for key in ("NoNewPrivileges", "ProtectHome", "PrivateTmp", "ProtectKernelTunables", "ProtectControlGroups"):
        assert s[key] == ["yes"], key
    assert s["ProtectSystem"] == ["strict"]
    for breaks_devices in ("PrivateDevices", "DevicePolicy", "PrivateUsers", "DynamicUser"):
        assert breaks_devices not in s, breaks_devices
    assert "AF_UNIX" in s["RestrictAddressFamilies"][0]
    configparser.ConfigParser(strict=False, interpolation=None).read_string(UNIT.read_text())


def test_security_exposure_is_low(tmp_path):
    exe = tmp_path / "yatzycam"
    exe.write_text("#!/bin/sh\n")
    exe.chmod(0o755)
    unit = tmp_path / "yatzycam.service"
    unit.write_text(UNIT.read_text().replace(f"ExecStart={EXEC} ", f"ExecStart={exe} "))
    r = subprocess.run([analyze(), "security", "--offline=true", "--no-pager", str(unit)], capture_output=True, text=True, timeout=120)
    line = [x for x in r.stdout.splitlines() if "Overall exposure level" in x]
    assert line, r.stdout + r.stderr
    level = float(line[0].split(":")[1].split()[0])
    assert level <= 2.0, line[0]
