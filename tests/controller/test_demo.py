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
    r = run("demo", "--players", "Anna", "--db", str(db), "--seed", "3", timeout=600)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.strip().splitlines()
    totals = {m.group(1): int(m.group(2)) for line in lines if (m := re.fullmatch(r"(Anna|Bo): (\d+)", line))}
    assert set(totals) == {"Anna"}
    assert any(line.startswith("winner: ") for line in lines)
    with Store(db) as store:
        (rec,) = store.games()
        assert rec.status == "finished"
        game = store.load(rec.id)
    assert dict(zip(game.players, game.totals())) == totals
    assert all(v is not None for p in game.state.players for v in p.boxes)


def test_png_screen_writes_real_pngs_of_the_game(tmp_path):
    """The demo's --screen png path: the scoreboard of each change as a numbered PNG (a few steps)."""
    from PIL import Image

    from controller import app as A
    from hardware.camera import ManualClock
    from hardware.display import PngSink

    screen = A.SinkScreen([PngSink(tmp_path)], (800, 480), "en")
    with A.simulated_rig("yatzy", 1, seed=2, db_path=str(tmp_path / "g.db"), screen=screen, clock=ManualClock(), patience=1) as r:
        r.app.refresh()
        for _ in range(3):
            r.player.act()
            while r.app.panel.pending():
                r.app.step(0)
    pngs = sorted(tmp_path.glob("screen-*.png"))
    assert len(pngs) >= 2 and screen.shown >= len(pngs)
    assert Image.open(pngs[-1]).size == (800, 480)


def test_demo_names_a_count_of_players_shortly():
    from controller.cli.app import demo_players

    assert demo_players("2") == "Anna,Bo"
    assert demo_players("1") == "Anna"
    assert demo_players("Kim,Lo") == "Kim,Lo"
    assert demo_players("9") == "9"  # left for the game to refuse in one line


def test_dice_that_keep_landing_cocked_are_entered_by_hand_after_five_rerolls():
    from controller import app as A

    said = []
    with A.simulated_rig("yatzy", 1, seed=3, cocked_rate=1.0, off_rate=0.0, size=(320, 240)) as rig:
        rig.player.say = said.append
        for _ in range(400):
            if any(e.get("manual") for e in rig.app.game.events):
                break
            rig.player.act()
            while rig.app.panel.pending():
                rig.app.step(0)
        events = rig.app.game.events
        assert events and events[0].get("manual") is True  # the first throw: by hand, not a sixth reroll
        outcomes = [r.outcome for r in rig.app.stats.results]
        assert outcomes[: A.MAX_REROLLS] == ["reroll"] * A.MAX_REROLLS and "throw" not in outcomes
        assert rig.player.by_hand == 1 and len(said) == 1 and "5 rerolls in a row" in said[0]
        assert len(events[0]["throw"]) == 5


def test_a_seed_plays_the_same_game_to_the_frame():
    """The simulated world runs on simulated time alone: the computing between frames does not move
    the dice, the mains flicker or the settle step, so a seed gives the same throws, reads and times."""
    from controller import app as A

    def play(seed):
        with A.simulated_rig("yatzy", 1, seed=seed, size=(320, 240), flicker=0.05) as rig:
            for _ in range(14):
                rig.player.act()
                while rig.app.panel.pending():
                    rig.app.step(0)
            res = [(r.outcome, r.values, r.reasons, r.frames, r.pressed_at, r.shown_at) for r in rig.app.stats.results]
            busy = [r.busy_ms for r in rig.app.stats.results if r.outcome in ("throw", "reroll")]
            return res, list(rig.app.game.events), A.demo_report(rig), busy

    (a, ev_a, rep_a, busy), (b, ev_b, _, _) = play(4), play(4)
    assert len(a) >= 5 and a == b and ev_a == ev_b
    assert len({r[5] for r in a}) == len(a)  # the clock moved between presses (frames took their time)
    # the press-to-screen latency still holds the real computing, beside the simulated frame times
    waits = [1000.0 * (r[5] - r[4]) for r in a if r[0] in ("throw", "reroll")]
    assert rep_a["latencies_ms"] == [w + b for w, b in zip(waits, busy)] and all(b > 0 for b in busy)
