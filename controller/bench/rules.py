"""Bench section `rules`: table build time per rule set and scored rolls per second."""

from __future__ import annotations

import time

import numpy as np

from controller.game import rules as R


def bench(quick: bool = False) -> dict:
    out: dict = {}
    rng = np.random.default_rng(1)
    n_rolls = 20_000 if quick else 100_000
    for name in R.builtin_names():
        rs = R.load(name)
        t0 = time.perf_counter()
        t = R.build_table(rs)
        build_ms = (time.perf_counter() - t0) * 1000
        rolls = rng.integers(1, 7, size=(n_rolls, rs.dice))
        t0 = time.perf_counter()
        for faces in rolls[: n_rolls // 10].tolist():
            rs.score(faces)
        single = (n_rolls // 10) / (time.perf_counter() - t0)
        t0 = time.perf_counter()
        rows = t.indices(R.counts_of(rolls))
        _ = t.scores[rows]
        batch = n_rolls / (time.perf_counter() - t0)
        out[name] = {
            "multisets": t.size,
            "boxes": len(rs.boxes),
            "table_build_ms": round(build_ms, 1),
            "score_one_roll_per_s": int(single),
            "score_batch_rolls_per_s": int(batch),
            "rolls_sampled": n_rolls,
        }
    return out
