"""`yatzycam demo` as a user runs it: a whole game, stdin at /dev/null, the totals at the end."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from controller.store import Store

YATZYCAM = [sys.executable, "-m", "controller.cli"]


def run(*args, cwd=None, timeout=300):
    return subprocess.run(
        [*YATZYCAM, *args], stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=timeout, cwd=cwd
    )


def test_unknown_rules_is_one_line_exit_2():
    r = run("demo", "--rules", "nosuchgame")
    assert r.returncode == 2
    assert r.stderr.startswith("yatzycam demo: ") and len(r.stderr.strip().splitlines()) == 1
    assert "Traceback" not in r.stderr


@pytest.mark.slow
def test_demo_plays_a_whole_yatzy_game_to_the_totals(tmp_path):
    db = tmp_path / "demo.db"
    r = run("demo", "--players", "Anna,Bo", "--db", str(db), "--seed", "3")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.strip().splitlines()
    totals = {m.group(1): int(m.group(2)) for line in lines if (m := re.fullmatch(r"(Anna|Bo): (\d+)", line))}
    assert set(totals) == {"Anna", "Bo"}
    assert any(line.startswith("winner: ") for line in lines)
    with Store(db) as store:
        (rec,) = store.games()
        assert rec.status == "finished"
        game = store.load(rec.id)
    assert dict(zip(game.players, game.totals())) == totals
    assert all(v is not None for p in game.state.players for v in p.boxes)


@pytest.mark.slow
def test_demo_png_screens(tmp_path):
    out = tmp_path / "shots"
    r = run("demo", "--screen", "png", "--out", str(out), "--seed", "5", "--cocked", "0.2")
    assert r.returncode == 0, r.stderr
    pngs = sorted(out.glob("*.png"))
    assert len(pngs) > 20
    from PIL import Image

    assert Image.open(pngs[-1]).size == (800, 480)
    assert re.search(r"^Player 1: \d+$", r.stdout, re.M) or re.search(r": \d+$", r.stdout, re.M)
