"""Exact optimal solitaire strategy: V(open boxes, capped upper sum, Yahtzee flag).

Dynamic programming from the last box back to the first: the states with k open
boxes need only those with k - 1. Within a level every state is independent, so
the whole level is one batch for :mod:`controller.advisor.core` (in chunks).
Only upper sums that can occur with the filled upper boxes are computed; the
others hold NaN (and are refused as input).

The table is cached on disk as a ``.npy`` file whose name carries a hash of
everything in the rule set that matters to the values, and the algorithm
version, so a changed rule file can never load stale values.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from controller.game import rules as R
from controller.advisor.core import DiceSpace, PadModel, turn_levels

ALGO_VERSION = 2
CHUNK = 1024
MAX_EXACT_STATES = 6_000_000  # masks x upper sums x flag; yatzy is 2.1 M, yahtzee 1.0 M
MAX_EXACT_DICE = 6


def cache_dir(override: str | os.PathLike | None = None) -> Path:
    """$CACHE_DIRECTORY (systemd), else $XDG_CACHE_HOME/yatzycam, else ~/.cache/yatzycam."""
    if override:
        return Path(override)
    if os.environ.get("CACHE_DIRECTORY"):
        return Path(os.environ["CACHE_DIRECTORY"].split(":")[0])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "yatzycam"


def rules_key(rs: R.RuleSet, forced: bool, banking: bool = False) -> str:
    """A hash of everything in the rule set that the advisor's values depend on."""
    doc = {
        "algo": ALGO_VERSION,
        "dice": rs.dice,
        "throws": rs.throws,
        "bonus": [rs.bonus_threshold, rs.bonus_points],
        "banking": [rs.banking, rs.bank_cap, bool(banking)],
        "yahtzee": [rs.yatzy_box, rs.extra_bonus, rs.joker],
        "boxes": [[b.id, b.kind, [list(v) if isinstance(v, tuple) else v for _, v in b.params]] for b in rs.boxes],
        "forced": bool(forced),
    }
    return hashlib.sha256(json.dumps(doc, sort_keys=True).encode()).hexdigest()[:16]


def exact_states(rs: R.RuleSet, forced: bool) -> int:
    """How many states an exact table of this pad has (masks x capped upper sums x Yahtzee flag)."""
    T = rs.bonus_threshold if rs.bonus_points else 0
    A = 2 if (rs.yatzy_box and rs.extra_bonus) else 1
    masks = len(rs.boxes) + 1 if forced else 2 ** len(rs.boxes)
    return masks * (T + 1) * A


def can_solve(rs: R.RuleSet, forced: bool, banking: bool) -> bool:
    """An exact table is possible: no banking in play, few enough states and dice."""
    if banking and rs.banking != "none":
        return False
    if rs.dice > (8 if forced else MAX_EXACT_DICE):
        return False
    return exact_states(rs, forced) <= MAX_EXACT_STATES


def reachable_uppers(model: PadModel) -> np.ndarray:
    """(64, U) bool: which capped upper sums can occur with each set of filled upper faces."""
    U, T, n = model.U, model.T, model.n
    faces = sorted({f for f in model.face if f})
    out = np.zeros((64, U), bool)
    for sub in range(64):
        reach = np.zeros(U, bool)
        reach[0] = True
        for f in range(1, 7):
            if not sub >> (f - 1) & 1 or f not in faces:
                continue
            nxt = np.zeros(U, bool)
            for u in np.flatnonzero(reach):
                for c in range(n + 1):
                    nxt[min(u + f * c, T) if T else 0] = True
            reach = nxt
        out[sub] = reach
    return out


def filled_faces(model: PadModel, masks: np.ndarray) -> np.ndarray:
    """6-bit set of the upper faces whose box is filled (not in the open mask)."""
    out = np.zeros(masks.shape, np.int64)
    for b, f in enumerate(model.face):
        if f:
            out |= (((masks >> b) & 1) == 0).astype(np.int64) << (f - 1)
    return out


@dataclass(frozen=True, eq=False)
class ExactTable:
    model: PadModel
    space: DiceSpace
    V: np.ndarray  # (rows, U, A) expected remaining score from the start of a turn; NaN where unreachable
    build_s: float = 0.0
    loaded_from: str | None = None

    def rows(self, masks: np.ndarray) -> np.ndarray:
        """Row of V of each open-box mask: the mask itself, or in forced order (where the
        open boxes are always the last k of the pad) the number k of open boxes."""
        return popcount(masks) if self.model.forced else masks

    def future(self, masks: np.ndarray, us: np.ndarray, armed: np.ndarray) -> np.ndarray:
        m = self.model
        return self.V.reshape(-1)[(self.rows(masks) * m.U + us) * m.A + armed]

    def value(self, mask: int, upper: int, armed: int = 0) -> float:
        m = self.model
        row = int(self.rows(np.array([mask], np.int64))[0])
        return float(self.V[row, m.cap(upper), armed if m.A > 1 else 0])

    @property
    def start_value(self) -> float:
        return self.value(self.model.all_mask, 0, 0)


def popcount(masks: np.ndarray) -> np.ndarray:
    masks = np.asarray(masks, np.int64)
    out = np.zeros(masks.shape, np.int64)
    table = np.array([bin(i).count("1") for i in range(256)], np.int64)
    for k in range(8):
        out += table[(masks >> (8 * k)) & 255]
    return out


def table_shape(model: PadModel) -> tuple[int, int, int]:
    return (model.B + 1 if model.forced else 1 << model.B, model.U, model.A)


def _levels(model: PadModel) -> list[np.ndarray]:
    """Masks grouped by the number of open boxes, 1..B (forced order: the suffixes only)."""
    B = model.B
    if model.forced:
        return [np.array([((1 << B) - 1) & ~((1 << (B - k)) - 1)], np.int64) for k in range(1, B + 1)]
    allm = np.arange(1 << B, dtype=np.int64)
    pop = np.zeros(1 << B, np.int64)
    for b in range(B):
        pop += (allm >> b) & 1
    return [allm[pop == k] for k in range(1, B + 1)]


def solve(rs: R.RuleSet, forced: bool = False, progress=None, threads: int = 1) -> ExactTable:
    """Compute the exact table (no cache). With ``threads`` > 1 the chunks of a level run in
    that many threads (numpy releases the GIL); on the shared 2-core build machine this was
    no faster, so the default is one."""
    if threads > 1:
        with ThreadPoolExecutor(threads) as pool:
            return _solve(rs, forced, progress, pool)
    return _solve(rs, forced, progress, None)


def _solve(rs: R.RuleSet, forced: bool, progress, pool) -> ExactTable:
    t0 = time.perf_counter()
    model = PadModel.build(rs, forced)
    space = DiceSpace.build(rs.dice)
    B, U, A = model.B, model.U, model.A
    V = np.full(table_shape(model), np.nan)
    V[0] = 0.0
    reach = reachable_uppers(model)
    table = ExactTable(model=model, space=space, V=V)
    rows = table.rows
    yb_bit = (1 << model.yb) if model.yb >= 0 else 0
    for k, ms in enumerate(_levels(model), 1):
        ff = filled_faces(model, ms)
        ok = reach[ff]  # (len(ms), U)
        mi, ui = np.nonzero(ok)
        masks, us = ms[mi], ui.astype(np.int64)
        if A > 1:
            # the flag means "the Yahtzee box holds points": only with the box filled
            filled = (masks & yb_bit) == 0
            masks = np.concatenate([masks, masks[filled]])
            us = np.concatenate([us, us[filled]])
            armed = np.concatenate([np.zeros(len(mi), np.int64), np.ones(int(filled.sum()), np.int64)])
        else:
            armed = np.zeros(len(masks), np.int64)

        def chunk(a: int, masks=masks, us=us, armed=armed) -> None:
            sl = slice(a, a + CHUNK)
            stop = model.stop_values(masks[sl], us[sl], armed[sl], table.future)
            best = turn_levels(space, stop, rs.throws - 1)[-1]
            V[rows(masks[sl]), us[sl], armed[sl]] = model.prob @ best

        starts = range(0, len(masks), CHUNK)
        if pool is not None and len(starts) > 1:
            list(pool.map(chunk, starts))  # numpy releases the GIL in the heavy loops
        else:
            for a in starts:
                chunk(a)
        if A > 1:  # with the Yahtzee box open, the flag is irrelevant: copy
            V[:, :, 1] = np.where(np.isnan(V[:, :, 1]), V[:, :, 0], V[:, :, 1])
        if progress:
            progress(k, B, time.perf_counter() - t0)
    V.setflags(write=False)
    return ExactTable(model=model, space=space, V=V, build_s=time.perf_counter() - t0)


def table_path(rs: R.RuleSet, forced: bool, directory: str | os.PathLike | None = None) -> Path:
    safe = "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in rs.name)
    return cache_dir(directory) / f"advisor-{safe}{'-forced' if forced else ''}-{rules_key(rs, forced)}.npy"


def load_or_solve(rs: R.RuleSet, forced: bool = False, directory: str | os.PathLike | None = None, progress=None) -> ExactTable:
    """The exact table from the disk cache, or computed and saved there."""
    path = table_path(rs, forced, directory)
    model = PadModel.build(rs, forced)
    shape = table_shape(model)
    if path.exists():
        t0 = time.perf_counter()
        try:
            V = np.load(path, allow_pickle=False)
        except (OSError, ValueError):
            V = None
        if V is not None and V.shape == shape and V.dtype == np.float64:
            V.setflags(write=False)
            return ExactTable(model=model, space=DiceSpace.build(rs.dice), V=V, build_s=time.perf_counter() - t0, loaded_from=str(path))
    table = solve(rs, forced, progress)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
        with os.fdopen(fd, "wb") as fh:
            np.save(fh, table.V)
        os.replace(tmp, path)
    except OSError:
        pass  # a read-only cache only costs time
    return table
