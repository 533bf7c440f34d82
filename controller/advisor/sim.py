"""Simulated solitaire games (many in lockstep), and the tuning of the lookahead values.

A *policy* is a value of what is left after a score (``future``, as for
:meth:`PadModel.stop_values`) plus a value per banked throw. The exact advisor,
the lookahead advisor and the greedy "best box now" player (future = 0, banked
throws worth nothing) are all policies; each turn is played by the same exact
within-turn recursion. Every score is checked against ``RuleSet.options``.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass

import numpy as np

from controller.game import rules as R
from controller.advisor.core import DiceSpace, PadModel, bank_after_stop, stops_with_bank, turn_levels
from controller.advisor.lookahead import LookaheadValue, binomial_counts, bonus_table, save_json

CHUNK_GAMES = 400
TUNE_VERSION = 3


@dataclass(frozen=True)
class Policy:
    name: str
    future: object  # Future: (masks, uppers, armed) -> values
    throw_value: float = 0.0


def zero_future(masks: np.ndarray, us: np.ndarray, armed: np.ndarray) -> np.ndarray:
    return np.zeros(len(masks))


GREEDY = Policy("greedy", zero_future, 0.0)


def _sub_keep_matrix(space: DiceSpace, table: R.ScoreTable) -> np.ndarray:
    """(R, S) keep indices of every proper sub-keep of each roll, padded with -1."""
    subs = [[space.index(k) for k in space.sub_keeps(c)] for c in table.counts.tolist()]
    width = max(len(s) for s in subs)
    out = np.full((len(subs), width), -1, np.int64)
    for i, s in enumerate(subs):
        out[i, : len(s)] = s
    return out


@dataclass
class SimResult:
    scores: np.ndarray  # (G,) final totals
    box_points: np.ndarray  # (G, B) points written in each box
    upper_bonus: np.ndarray  # (G,) bonus paid
    illegal: int  # scores that RuleSet.options refused (must be 0)

    @property
    def mean(self) -> float:
        return float(self.scores.mean())

    @property
    def stderr(self) -> float:
        return float(self.scores.std(ddof=1) / math.sqrt(len(self.scores))) if len(self.scores) > 1 else 0.0


def simulate(
    rs: R.RuleSet,
    policy: Policy,
    games: int,
    seed: int = 0,
    forced: bool = False,
    banking: bool = True,
    model: PadModel | None = None,
    space: DiceSpace | None = None,
    chunk: int = CHUNK_GAMES,
) -> SimResult:
    """Play ``games`` solitaire games with ``policy``; every throw rolls real random dice."""
    model = model or PadModel.build(rs, forced)
    space = space or DiceSpace.build(rs.dice)
    banking = bool(banking and rs.banking != "none")
    rng = np.random.default_rng(seed)
    subk = _sub_keep_matrix(space, rs.table)
    parts = [_simulate_chunk(rs, model, space, subk, policy, min(chunk, games - a), rng, forced, banking) for a in range(0, games, chunk)]
    return SimResult(
        scores=np.concatenate([p.scores for p in parts]),
        box_points=np.concatenate([p.box_points for p in parts]),
        upper_bonus=np.concatenate([p.upper_bonus for p in parts]),
        illegal=sum(p.illegal for p in parts),
    )


def _simulate_chunk(rs, model: PadModel, space: DiceSpace, subk, policy: Policy, G: int, rng, forced: bool, banking: bool) -> SimResult:
    t, n, B = rs.table, rs.dice, model.B
    masks = np.full(G, model.all_mask, np.int64)
    us = np.zeros(G, np.int64)
    upper_raw = np.zeros(G, np.int64)
    armed = np.zeros(G, np.int64)
    bank = np.zeros(G, np.int64)
    total = np.zeros(G, np.int64)
    paid = np.zeros(G, np.int64)
    box_points = np.zeros((G, B), np.int64)
    yvalue: list[int | None] = [None] * G
    illegal = 0
    ids = rs.box_ids
    probs = np.full(6, 1 / 6)
    tv = policy.throw_value if banking else 0.0
    for _turn in range(B):
        stop, arg = model.stop_values(masks, us, armed, policy.future, with_box=True)
        H = (rs.throws - 1) + (bank if banking else np.zeros(G, np.int64))
        Hmax = int(H.max())
        stops = stops_with_bank(rs, stop, Hmax, bank, tv, masks)
        eks: list[np.ndarray] = []
        turn_levels(space, stops, Hmax, eks)
        counts = rng.multinomial(n, probs, size=G)
        h = H.copy()
        active = np.ones(G, bool)
        while active.any():
            r = t.indices(counts)
            stop_now = np.zeros(G, bool)
            keep_idx = np.full(G, -1, np.int64)
            for hv in np.unique(h[active]):
                sel = np.flatnonzero(active & (h == hv))
                if hv == 0:
                    stop_now[sel] = True
                    continue
                ek = eks[hv - 1][:, sel]  # (K, |sel|)
                cand = subk[r[sel]]  # (|sel|, S)
                vals = np.where(cand >= 0, ek[np.maximum(cand, 0), np.arange(len(sel))[:, None]], -np.inf)
                j = np.argmax(vals, axis=1)
                kv = vals[np.arange(len(sel)), j]
                sv = stops[hv][r[sel], sel]
                st = sv >= kv
                stop_now[sel[st]] = True
                keep_idx[sel[~st]] = cand[~st, j[~st]]
            # score
            for g in np.flatnonzero(stop_now):
                b = int(arg[r[g], g])
                faces = t.faces[r[g]].tolist()
                open_ids = [ids[i] for i in range(B) if masks[g] >> i & 1]
                legal, extra = rs.options(faces, open_ids, yvalue[g], forced)
                if ids[b] not in legal:
                    illegal += 1
                    b = rs.box_index(max(legal, key=legal.get))
                pts = legal[ids[b]]
                total[g] += pts + extra
                box_points[g, b] = pts
                if model.face[b]:
                    upper_raw[g] += pts
                    if model.T and us[g] < model.T <= us[g] + pts:
                        total[g] += model.bonus
                        paid[g] = model.bonus
                    us[g] = model.cap(upper_raw[g])
                if b == model.yb:
                    yvalue[g] = pts
                    armed[g] = 1 if (pts > 0 and model.A > 1) else 0
                masks[g] &= ~(1 << b)
                if banking:
                    bank[g] = bank_after_stop(rs, int(bank[g]), int(h[g]))
            active &= ~stop_now
            # throw again
            go = np.flatnonzero(active)
            if len(go):
                kept = space.keeps[keep_idx[go]]
                rolled = rng.multinomial(n - kept.sum(axis=1), probs)
                counts[go] = kept + rolled
                h[go] -= 1
    return SimResult(scores=total, box_points=box_points, upper_bonus=paid, illegal=illegal)


# ------------------------------------------------------------------ tuning the lookahead


def target_values(rs: R.RuleSet, model: PadModel, space: DiceSpace) -> np.ndarray:
    """(B,) expected points of each box when a whole turn is spent on it alone."""
    stop = model.S.copy()  # (R, B): one "state" per box
    best = turn_levels(space, stop, rs.throws - 1)[-1]
    return model.prob @ best


def initial_lookahead(rs, model, space, throw_value: float = 0.0):
    """Untuned lookahead values: 0.8 x each box's one-turn target value; each open upper
    face expected to bring Binomial(n, 1 - (5/6)^throws) dice toward the bonus."""
    pmf = binomial_counts(rs.dice, 1 - (5 / 6) ** rs.throws)
    return LookaheadValue(model=model, weights=target_values(rs, model, space) * 0.8, bonus_value=bonus_table(model, pmf), throw_value=throw_value)


def observed_counts(model: PadModel, res: SimResult, prior: np.ndarray) -> np.ndarray:
    """(7, n + 1): how many dice each upper box got in the simulated games (half prior)."""
    pmf = prior.copy()
    for b, f in enumerate(model.face):
        if f:
            hist = np.bincount(res.box_points[:, b] // f, minlength=model.n + 1)[: model.n + 1]
            pmf[f] = 0.5 * prior[f] + 0.5 * hist / hist.sum()
    return pmf


def tuned_lookahead(rs, model, space, forced: bool, banking: bool, cache=None, games: int | None = None, rounds: int = 3):
    """Lookahead values for a pad without an exact table, tuned by self-play: each box's
    weight := the mean points it got, each upper face's count distribution := the one
    observed (for the bonus chance), and the best value per banked throw among a few,
    by simulated mean. Cached on disk beside the exact tables."""
    from controller.advisor.exact import cache_dir, rules_key

    key = f"{rules_key(rs, forced, banking)}-{TUNE_VERSION}"
    path = cache_dir(cache) / f"advisor-lookahead-{rs.name}{'-forced' if forced else ''}{'-bank' if banking else ''}-{key}.json"
    found = None
    if path.exists():
        try:
            found = json.loads(path.read_text())
        except (OSError, ValueError):
            found = None
    if found is None:
        from controller.advisor.tuned import TUNED  # shipped values of the built-in pads

        found = TUNED.get(key)
    if found is not None:
        try:
            pmf = np.array(found["counts_pmf"], float)
            return LookaheadValue(model=model, weights=np.array(found["weights"], float), bonus_value=bonus_table(model, pmf), throw_value=float(found["throw_value"]))
        except (ValueError, KeyError, IndexError):
            pass
    if games is None:
        games = max(200, 200_000 // (len(rs.table.faces) * model.B // 10))
    pmf = binomial_counts(rs.dice, 1 - (5 / 6) ** rs.throws)
    la = initial_lookahead(rs, model, space)
    for _ in range(rounds):
        res = simulate(rs, Policy("lookahead", la, la.throw_value), games, seed=12345, forced=forced, banking=banking, model=model, space=space)
        w = 0.5 * la.weights + 0.5 * res.box_points.mean(axis=0)
        pmf = observed_counts(model, res, pmf)
        la = LookaheadValue(model=model, weights=w, bonus_value=bonus_table(model, pmf), throw_value=la.throw_value)
        if banking and la.throw_value == 0.0:
            la = LookaheadValue(model=model, weights=w, bonus_value=la.bonus_value, throw_value=_best_throw_value(rs, la, games, forced, model, space))
    if banking:
        la = LookaheadValue(model=model, weights=la.weights, bonus_value=la.bonus_value, throw_value=_best_throw_value(rs, la, games, forced, model, space))
    save_json(path, {"weights": la.weights.tolist(), "throw_value": la.throw_value, "counts_pmf": pmf.tolist(), "games": games, "rounds": rounds})
    return la


def _best_throw_value(rs, la, games, forced, model, space) -> float:
    best = None
    for tv in (0.0, 2.0, 4.0, 6.0, 9.0):
        cand = LookaheadValue(model=model, weights=la.weights, bonus_value=la.bonus_value, throw_value=tv)
        m = simulate(rs, Policy("lookahead", cand, tv), games, seed=777, forced=forced, banking=True, model=model, space=space).mean
        if best is None or m > best[0]:
            best = (m, tv)
    return best[1]


def write_tuned(path: str) -> None:
    """Tune the built-in pads that have no exact table and write them as a Python module
    (``python -m controller.advisor.sim controller/advisor/tuned.py``)."""
    import tempfile

    from controller.advisor.exact import can_solve, rules_key

    tuned = {}
    for name in R.builtin_names():
        rs = R.load(name)
        for forced in (False, True):
            for banking in (True, False):
                banking = banking and rs.banking != "none"
                if can_solve(rs, forced, banking) or f"{rules_key(rs, forced, banking)}-{TUNE_VERSION}" in tuned:
                    continue
                model, space = PadModel.build(rs, forced), DiceSpace.build(rs.dice)
                with tempfile.TemporaryDirectory() as tmp:
                    tuned_lookahead(rs, model, space, forced, banking, tmp)
                    (f,) = list(__import__("pathlib").Path(tmp).glob("advisor-lookahead-*.json"))
                    d = json.loads(f.read_text())
                d["rules"], d["forced"], d["banking"] = name, forced, banking
                tuned[f"{rules_key(rs, forced, banking)}-{TUNE_VERSION}"] = d
                print(name, forced, banking, d["throw_value"], flush=True)
    import pprint

    body = pprint.pformat(tuned, width=120, compact=True)
    with open(path, "w") as fh:
        fh.write('"""Lookahead values of the built-in pads, tuned by self-play (generated by\n'
                 '``python -m controller.advisor.sim controller/advisor/tuned.py``; keyed by the\n'
                 'rule-set hash and tuning version, so a changed pad is tuned anew)."""\n\n'
                 f"TUNED: dict = {body}\n")


if __name__ == "__main__":
    import sys

    write_tuned(sys.argv[1])
