"""`yatzycam bench --only app`: whole simulated games through the real reader, game, store and screen.

Figures: wall time of a whole game, press-to-screen latency per throw (p50, p95;
a throw's latency is the real computing time plus the simulated camera frames
waited for, at 30 frames a second), and how many throws, rerolls, misreads the
player corrected by hand and throws taken back there were.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path
from typing import Any


def play_demo_game(rules: str = "yatzy", seed: int = 1, players: Any = 1, screen: Any = None) -> dict[str, Any]:
    from controller import app as A

    with tempfile.TemporaryDirectory(prefix="yatzycam-bench-") as tmp:
        t0 = time.perf_counter()
        with A.simulated_rig(rules, players, seed=seed, db_path=str(Path(tmp) / "bench.db"), screen=screen) as rig:
            A.play_out(rig)
            rep = A.demo_report(rig)
            rep["wall_s"] = time.perf_counter() - t0
            rep["finished"] = rig.app.game.finished
            rep["totals"] = list(rig.app.game.totals())
    return rep


def bench(quick: bool) -> dict:
    from controller import app as A

    seeds = [1] if quick else [1, 2, 3]
    games = []
    for seed in seeds:
        screen = A.SinkScreen([], (800, 480), "en")  # the scoreboard is drawn for every screen change
        games.append(play_demo_game("yatzy", seed, screen=screen))
    walls = [g["wall_s"] for g in games]
    out = {
        "rules": "yatzy",
        "players": 1,
        "games": len(games),
        "game_wall_s_mean": sum(walls) / len(walls),
        "game_wall_s_max": max(walls),
        "throws": sum(g["throws"] for g in games),
        "rerolls": sum(g["rerolls"] for g in games),
        "rerolls_real": sum(g["rerolls_real"] for g in games),
        "rerolls_false": sum(g["rerolls_false"] for g in games),
        "misread_throws": sum(g["misreads"] for g in games),
        "entered_by_hand": sum(g["manual"] for g in games),
        "corrected_by_hand": sum(g["corrected"] for g in games),
        "taken_back": sum(g["undone"] for g in games),
        "latency_n": sum(g["latency_n"] for g in games),
        "latency_p50_ms": A.percentile([x for g in games for x in g["latencies_ms"]], 50),
        "latency_p95_ms": A.percentile([x for g in games for x in g["latencies_ms"]], 95),
        "all_finished": all(g["finished"] for g in games),
    }
    return out
