"""Every package of the source tree ships in a non-editable install (what install.sh does on the Pi)."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_every_package_is_listed_in_pyproject():
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    found = {
        ".".join(p.parent.relative_to(ROOT).parts)
        for top in ("controller", "hardware", "vision", "calibration")
        for p in (ROOT / top).rglob("__init__.py")
        if "__pycache__" not in p.parts
    }
    assert found <= listed, f"missing from [tool.setuptools] packages: {sorted(found - listed)}"


def test_unit_and_installer_agree_on_paths():
    unit = (ROOT / "systemd/yatzycam.service").read_text()
    install = (ROOT / "systemd/install.sh").read_text()
    assert "ExecStart=/opt/yatzycam/venv/bin/yatzycam play --config /etc/yatzycam/config.toml" in unit
    assert 'PREFIX=/opt/yatzycam\nVENV="$PREFIX/venv"' in install and "ETC=/etc/yatzycam" in install
    from controller.config import DEFAULT_PATH

    assert str(DEFAULT_PATH) == "/etc/yatzycam/config.toml"
