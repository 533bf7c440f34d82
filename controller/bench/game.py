"""Bench section `game`: events applied per second, the replay time of a finished
Special 8 game for 6 players, views per second, and the store's append rate
(SQLite, WAL, synchronous=FULL: one fsync per event) on this machine's disk."""

from __future__ import annotations

import random
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from controller.game.game import Game, Setup


def random_event(game: Game, rng: random.Random, undo_rate: float = 0.0) -> dict[str, Any]:
    """One legal event a random player might make now (throws, banked throws, declares, undos)."""
    v = game.view()
    if undo_rate and game.can_undo and rng.random() < undo_rate:
        return {"undo": True}
    if v.can_declare and rng.random() < 0.3:
        return {"declare": rng.choice(v.declare_targets)}
    if game.can_throw and (not game.can_score or rng.random() < 0.6):
        return {"throw": [rng.randint(1, 6) for _ in range(game.rules.dice)]}
    return {"score": rng.choice([b for b, _ in v.options])}


def random_game_events(setup: Setup, seed: int) -> list[dict[str, Any]]:
    """A whole game played by a seeded random legal player, no undos."""
    rng = random.Random(seed)
    g = Game(setup)
    while not g.finished:
        g.apply(random_event(g, rng))
    return list(g.events)


def _timed(fn, repeats: int) -> list[float]:
    out = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return out


def bench(quick: bool = False) -> dict:
    setup = Setup.create("special8", 6)
    setup.rules.table  # built once, as the app does at start
    events = random_game_events(setup, seed=1)
    repeats = 3 if quick else 10
    replay_s = _timed(lambda: Game.replay(setup, events), repeats)
    game = Game.replay(setup, events)
    assert game.finished

    # views: what the screen asks for after every event, along a whole game
    partial = Game(setup)
    n_views = 0
    t0 = time.perf_counter()
    for e in events[: 300 if quick else len(events)]:
        partial.apply(e)
        partial.view()
        n_views += 1
    view_s = time.perf_counter() - t0

    n_appends = 60 if quick else 300
    from controller.store import Store

    with tempfile.TemporaryDirectory(prefix="yatzycam-bench-", dir=None) as d:
        path = Path(d) / "bench.sqlite"
        with Store(path) as store:
            gid = store.new_game(setup)
            lat = []
            for e in events[:n_appends]:
                t0 = time.perf_counter()
                store.append(gid, e)
                lat.append(time.perf_counter() - t0)
            load_s = _timed(lambda: store.load(gid), 3)
    lat_sorted = sorted(lat)
    best_replay = min(replay_s)
    return {
        "special8_6p_game_events": len(events),
        "replay_special8_6p_ms": round(statistics.median(replay_s) * 1000, 1),
        "replay_runs": repeats,
        "events_applied_per_s": int(len(events) / best_replay),
        "apply_plus_view_per_s": int(n_views / view_s),
        "views_sampled": n_views,
        "store_append_per_s": int(len(lat) / sum(lat)),
        "store_append_ms_median": round(statistics.median(lat) * 1000, 2),
        "store_append_ms_p95": round(lat_sorted[int(0.95 * (len(lat) - 1))] * 1000, 2),
        "store_appends_sampled": len(lat),
        "store_load_ms": round(min(load_s) * 1000, 1),
        "store_load_events": n_appends,
        "store_dir": tempfile.gettempdir(),
    }
