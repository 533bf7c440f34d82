"""`yatzycam --version`: the installed distribution's version, or the source tree's."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from importlib import metadata
from pathlib import Path

import pytest

from controller.cli import main as cli_main

ROOT = Path(__file__).resolve().parents[3]


def test_version_is_the_installed_distributions(capsys):
    assert cli_main.main(["--version"]) == 0
    assert capsys.readouterr().out == f"yatzycam {metadata.version('yatzycam')}\n"


def test_version_from_the_command_line():
    r = subprocess.run([sys.executable, "-m", "controller.cli", "--version"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and r.stderr == ""
    assert r.stdout == f"yatzycam {metadata.version('yatzycam')}\n"


def test_version_without_an_install_is_the_source_trees(monkeypatch):
    def not_installed(name):
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(cli_main.metadata, "version", not_installed)
    assert cli_main.version() == tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]


def test_version_with_neither_is_unknown(monkeypatch, tmp_path):
    def not_installed(name):
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(cli_main.metadata, "version", not_installed)
    # a copy of the module where no pyproject.toml is two folders up
    (tmp_path / "a" / "b").mkdir(parents=True)
    monkeypatch.setattr(cli_main, "__file__", str(tmp_path / "a" / "b" / "main.py"))
    assert cli_main.version() == "unknown"
