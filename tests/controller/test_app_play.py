"""`yatzycam play`: the appliance loop from a config file (simulated camera, keyboard panel, PNG screen)."""

from __future__ import annotations

import subprocess
import sys

from controller.store import Store


def config(tmp_path, rules="maxi"):
    cfg = tmp_path / "config.toml"
    cfg.write_text(
        f"""
[camera]
source = "sim"
size = [640, 480]
lores = [160, 120]
[display]
sink = "png"
file = "{tmp_path / 'screens' / 'screen.png'}"
size = [480, 320]
language = "en"
[game]
rules = "{rules}"
players = ["Anna", "Bo"]
[paths]
db = "{tmp_path / 'games.sqlite'}"
calibration = "{tmp_path / 'none.json'}"
""",
        encoding="utf-8",
    )
    return cfg


def play(cfg, stdin_text="", *extra):
    return subprocess.run(
        [sys.executable, "-m", "controller.cli", "play", "--config", str(cfg), "--keyboard", *extra],
        input=stdin_text, capture_output=True, text=True, timeout=300,
    )


def test_play_starts_a_game_takes_keys_and_resumes_after_a_restart(tmp_path):
    cfg = config(tmp_path)
    # a hand-entered throw from the keyboard ("e" then six faces), then quit by end of input
    r = play(cfg, "e123456")
    assert r.returncode == 0, r.stderr
    with Store(tmp_path / "games.sqlite") as store:
        gid = store.latest_unfinished()
        assert gid is not None
        events = [e["event"] for e in store.events(gid)]
    assert events == [{"throw": [1, 2, 3, 4, 5, 6], "manual": True}]
    pngs = sorted((tmp_path / "screens").glob("screen-*.png"))
    assert pngs, "the screen was drawn"
    from PIL import Image

    assert Image.open(pngs[-1]).size == (480, 320)
    # restart: the same game resumes with its throw
    r = play(cfg, "u")  # and an undo from the keyboard
    assert r.returncode == 0, r.stderr
    assert f"resuming game {gid}" in r.stderr
    with Store(tmp_path / "games.sqlite") as store:
        assert store.latest_unfinished() == gid
        events = [e["event"] for e in store.events(gid)]
    assert events[-1] == {"undo": True}


def test_play_bad_config_is_one_line(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("[camera]\nsource = 'tv'\n", encoding="utf-8")
    r = play(bad)
    assert r.returncode == 78
    assert r.stderr.startswith("yatzycam play: ") and "Traceback" not in r.stderr
