"""Bench section `advisor`: table build time and size, advice latency, simulated means.

For each built-in rule set: how the advisor's values are obtained (exact table
built from scratch in a temporary cache, or lookahead values tuned by self-play),
the time to load them from the cache, the advice latency (p50 / p95 over random
situations), and the mean final score of simulated solitaire games played by the
advisor and by the greedy "best box now" player (same dice seeds), with the
standard error. With the oracle installed (the test extra), the full run also
times its table build for comparison.
"""

from __future__ import annotations

import tempfile
import time

import numpy as np

from controller.game import rules as R

# games simulated per policy: (full, quick). The lookahead games (banking: up to 40
# throws in a turn) are ~10x slower to simulate, so they use fewer (said in the output).
GAMES = {"exact": (10_000, 1_000), "lookahead": (1_000, 200), "variant": (2_000, 200)}
LATENCY_SAMPLES = (300, 60)
ORACLE = {"yatzy": "yatzy-scandinavian", "yahtzee": "american+forced-joker"}


def _latency(adv, samples: int, seed: int) -> dict:
    rs = adv.rs
    rng = np.random.default_rng(seed)
    ids = list(rs.box_ids)
    times = []
    for _ in range(samples):
        if adv.forced:
            open_ids = ids[-int(rng.integers(1, len(ids) + 1)) :]
        else:
            open_ids = [b for b in ids if rng.random() < 0.5] or [ids[-1]]
        upper = sum(int(rs.box(b).param("face")) * int(rng.integers(0, 4)) for b in ids if rs.box(b).upper and b not in open_ids)
        yv = 0 if (rs.yatzy_box and rs.yatzy_box not in open_ids) else None
        bank = int(rng.integers(0, 7)) if adv.banking else 0
        dice = rng.integers(1, 7, size=rs.dice).tolist()
        t0 = time.perf_counter()
        adv.advise(dice, open_ids, upper=upper, throws_left=int(rng.integers(0, rs.throws)), bank=bank, yatzy_value=yv)
        times.append((time.perf_counter() - t0) * 1000)
    return {"p50_ms": round(float(np.percentile(times, 50)), 2), "p95_ms": round(float(np.percentile(times, 95)), 2), "situations": samples}


def _one(name: str, quick: bool, forced: bool = False, banking: bool = True) -> dict:
    from controller.advisor.advice import Advisor
    from controller.advisor.exact import table_path
    from controller.advisor.sim import GREEDY, Policy, simulate

    rs = R.load(name)
    out: dict = {}
    with tempfile.TemporaryDirectory(prefix="yatzycam-bench-") as tmp:
        # full: built from scratch; quick: the user's cache (built there the first time)
        cache = None if quick else tmp
        t0 = time.perf_counter()
        adv = Advisor.for_rules(rs, forced_order=forced, banking=banking, cache=cache)
        build = time.perf_counter() - t0
        out["strategy"] = adv.strategy
        out["banking"] = adv.banking
        if adv.exact is not None:
            path = table_path(rs, forced, cache)
            states = int(np.count_nonzero(~np.isnan(adv.exact.V)))
            out["table_loaded_s" if adv.exact.loaded_from else "table_build_s"] = round(build, 2)
            out["table_states"] = states
            out["table_file_mb"] = round(path.stat().st_size / 1e6, 2)
            out["expected_start"] = round(adv.expected_start(), 4)
        else:
            out["lookahead_values_s"] = round(build, 2)  # shipped (controller/advisor/tuned.py), cached or tuned now
        t0 = time.perf_counter()
        adv = Advisor.for_rules(rs, forced_order=forced, banking=banking, cache=cache)
        out["load_from_cache_s"] = round(time.perf_counter() - t0, 3)
    out["advice_latency"] = _latency(adv, LATENCY_SAMPLES[quick], seed=3)
    games = GAMES["variant" if (forced or not banking) else adv.strategy][quick]
    t0 = time.perf_counter()
    mine = simulate(rs, Policy("advisor", adv.future, adv.throw_value), games, seed=2024, forced=forced, banking=adv.banking, model=adv.model, space=adv.space)
    sim_s = time.perf_counter() - t0
    greedy = simulate(rs, GREEDY, games, seed=2024, forced=forced, banking=adv.banking, model=adv.model, space=adv.space)
    out["simulated_games"] = games
    out["advisor_mean"] = round(mine.mean, 2)
    out["advisor_stderr"] = round(mine.stderr, 2)
    out["greedy_mean"] = round(greedy.mean, 2)
    out["greedy_stderr"] = round(greedy.stderr, 2)
    out["advisor_bonus_rate"] = round(float((mine.upper_bonus > 0).mean()), 3)
    out["illegal_moves"] = mine.illegal + greedy.illegal
    out["sim_games_per_s"] = round(games / sim_s, 1)
    if adv.exact is not None:
        out["start_minus_sim_in_stderr"] = round((mine.mean - adv.expected_start()) / mine.stderr, 2)
    return out


def _oracle(name: str) -> dict:
    try:
        import yatzy_solver as ys
    except ImportError:
        return {"missing": "pip install yatzy-solver (the test extra)"}
    t0 = time.perf_counter()
    s = ys.Solver.build(ys.Variant(ORACLE[name]))
    return {"variant": ORACLE[name], "build_s": round(time.perf_counter() - t0, 2), "expected_start": round(s.state_value("upper 0 | filled -"), 4)}


def bench(quick: bool = False) -> dict:
    out: dict = {}
    names = ["yatzy", "yahtzee", "maxi", "maxi-tactic", "special8"]
    for name in names:
        out[name] = _one(name, quick)
        if not quick and name in ORACLE:
            out[name]["oracle"] = _oracle(name)
    out["yatzy forced order"] = _one("yatzy", quick, forced=True)
    out["maxi without banking"] = _one("maxi", quick, banking=False)
    out["maxi forced order without banking"] = _one("maxi", quick, forced=True, banking=False)
    out["games_note"] = (
        f"yatzy, yahtzee: {GAMES['exact'][quick]} games per policy; maxi, maxi-tactic, special8 (lookahead, banking): "
        f"{GAMES['lookahead'][quick]}; forced-order and no-banking variants: {GAMES['variant'][quick]} "
        "(cut from 10,000 to keep the full run within minutes)"
    )
    return out
