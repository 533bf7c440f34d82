"""Every message is one line, whatever the user typed: a line break in a path or an argument is
shown escaped."""

from __future__ import annotations

import io

import pytest

from controller.cli.args import printable
from controller.cli.main import main


def test_printable_escapes_what_would_break_the_line():
    assert printable("a\nb\tc\x00d é ²") == "a\\nb\\tc\\x00d é ²"


@pytest.mark.parametrize("argv", [["read", "a\nb.png"], ["score", "--rules", "a\nb.toml", "12345"],
                                  ["replay", "--rules", "yatzy", "a\nb.jsonl"], ["score", "--rules", "yatzy", "--x\ny"],
                                  ["export", "1", "--db", "a\nb.db"], ["rules", "a\rb"]])
def test_a_line_break_in_an_argument_stays_on_one_line(argv, capsys, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "\r" not in err and ("a\\nb" in err or "a\\rb" in err or "--x\\ny" in err), err
