"""The advisor's engine: the within-turn keep/roll recursion and the stop values.

Everything here is vectorised over a batch of N game states (the last axis), so
that one piece of code serves the exact dynamic programme (N = thousands of
states of one level at a time), the advice for one situation (N = 1) and the
simulated games of the bench (N = games played in lockstep).

Notation: R rolls (multisets of all the dice, in the rules engine's table
order), K keeps (multisets of 0..n dice, smallest first; the n-dice segment is
the R rolls in table order). ``stop`` [R, N] is what stopping now and scoring
the best legal box is worth (points + bonuses + the value of the state after).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from controller.game import rules as R

NEG = -np.inf
WIDE = 16  # up to this many states, the keep recursions use one gather per level

# future(masks, uppers, armed) -> value of the state after a score, for each state
Future = Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]


@dataclass(frozen=True, eq=False)
class DiceSpace:
    """Every keep (multiset of 0..n dice) and how keeps grow and shrink by one die."""

    n: int
    keeps: np.ndarray  # (K, 6) counts of faces 1..6
    seg: tuple[tuple[int, int], ...]  # [start, end) of the keeps of each size 0..n
    child: np.ndarray  # (K, 6): keep + one die of face f (K where the keep is full)
    parent: np.ndarray  # (K, 6): keep - one die of face f (K, the sentinel, where absent)
    _lookup: dict
    _groups: tuple  # per size j: ((rows within the segment, (rows, d) parents), ...) by distinct faces d

    @classmethod
    def build(cls, n: int) -> "DiceSpace":
        rows, seg, start = [], [], 0
        for j in range(n + 1):
            c = np.zeros((1, 6), np.int64) if j == 0 else R.counts_of(R.multisets(j))
            rows.append(c)
            seg.append((start, start + len(c)))
            start += len(c)
        keeps = np.concatenate(rows)
        K = len(keeps)
        lookup = {tuple(r): i for i, r in enumerate(keeps.tolist())}
        child = np.full((K, 6), K, np.int64)
        parent = np.full((K, 6), K, np.int64)
        for i, r in enumerate(keeps.tolist()):
            for f in range(6):
                if sum(r) < n:
                    c = list(r)
                    c[f] += 1
                    child[i, f] = lookup[tuple(c)]
                if r[f] > 0:
                    c = list(r)
                    c[f] -= 1
                    parent[i, f] = lookup[tuple(c)]
        for a in (keeps, child, parent):
            a.setflags(write=False)
        groups = []
        for j in range(n + 1):
            a, b = seg[j]
            distinct = (keeps[a:b] > 0).sum(axis=1)
            gj = []
            for d in range(1, 7):
                rows = np.flatnonzero(distinct == d)
                if len(rows):
                    par = parent[a:b][rows]
                    pars = np.stack([p[p < K] for p in par])
                    gj.append((rows, pars))
            groups.append(tuple(gj))
        return cls(n=n, keeps=keeps, seg=tuple(seg), child=child, parent=parent, _lookup=lookup, _groups=tuple(groups))

    @property
    def size(self) -> int:
        return len(self.keeps)

    def index(self, counts) -> int:
        return self._lookup[tuple(int(c) for c in counts)]

    def keep_values(self, best: np.ndarray) -> np.ndarray:
        """[R, N] values of the rolls -> [K, N] expected value of each keep when the rest is rolled."""
        K = self.size
        ek = np.empty((K, best.shape[1]))
        a, b = self.seg[self.n]
        ek[a:b] = best
        few = best.shape[1] <= WIDE
        for j in range(self.n - 1, -1, -1):
            a, b = self.seg[j]
            ch = self.child[a:b]
            if few:  # one gather per level: fewer numpy calls for one or a few states
                ek[a:b] = ek[ch].sum(axis=1) * (1.0 / 6.0)
                continue
            acc = ek[ch[:, 0]]
            for f in range(1, 6):
                acc += ek[ch[:, f]]
            acc *= 1.0 / 6.0
            ek[a:b] = acc
        return ek

    def best_proper_keep(self, ek: np.ndarray) -> np.ndarray:
        """[K, N] keep values -> [R, N] best value over the keeps that throw at least one die."""
        K = self.size
        if ek.shape[1] <= WIDE:
            return self._best_proper_keep_few(ek)
        best = np.empty((K, ek.shape[1]))
        best[0] = ek[0]
        for j in range(1, self.n + 1):
            a, b = self.seg[j]
            m = ek[a:b] if j < self.n else None
            out = best[a:b]
            for rows, pars in self._groups[j]:
                # keeps with d distinct faces: d parents each (one die fewer)
                g = best[pars[:, 0]]
                for i in range(1, pars.shape[1]):
                    np.maximum(g, best[pars[:, i]], out=g)
                if m is not None:
                    np.maximum(g, m[rows], out=g)
                out[rows] = g
        a, b = self.seg[self.n]
        return best[a:b]

    def _best_proper_keep_few(self, ek: np.ndarray) -> np.ndarray:
        """As best_proper_keep, one gather per level (parents padded with a -inf row)."""
        K = self.size
        best = np.empty((K + 1, ek.shape[1]))
        best[K] = NEG
        best[0] = ek[0]
        for j in range(1, self.n + 1):
            a, b = self.seg[j]
            g = best[self.parent[a:b]].max(axis=1)
            best[a:b] = np.maximum(g, ek[a:b]) if j < self.n else g
        a, b = self.seg[self.n]
        return best[a:b]

    def sub_keeps(self, counts) -> list[tuple[int, ...]]:
        """Every distinct proper sub-multiset of a roll, as counts (fewest dice kept first)."""
        import itertools

        out = [c for c in itertools.product(*(range(int(k) + 1) for k in counts)) if sum(c) < self.n]
        out.sort(key=lambda c: (sum(c), c))
        return out


def turn_levels(space: DiceSpace, stop: np.ndarray | list[np.ndarray], rerolls: int, keeps: list | None = None) -> list[np.ndarray]:
    """Best value of each roll with h = 0..rerolls throws left: [Best_0, Best_1, ...].

    ``stop`` is one [R, N] array (the same stop values at every level), or a list
    of rerolls + 1 arrays (stop values that depend on the throws left: banking).
    With a list ``keeps``, the [K, N] keep values of each level h >= 1 (keeping,
    then throwing with h throws left) are appended to it (keeps[h - 1]).
    """
    stops = stop if isinstance(stop, list) else [stop] * (rerolls + 1)
    levels = [stops[0]]
    for h in range(1, rerolls + 1):
        ek = space.keep_values(levels[-1])
        if keeps is not None:
            keeps.append(ek)
        levels.append(np.maximum(stops[h], space.best_proper_keep(ek)))
    return levels


# ------------------------------------------------------------------------ the pad model


@dataclass(frozen=True, eq=False)
class PadModel:
    """The rule set reduced to arrays: what scoring each box does to the state."""

    rs: R.RuleSet
    forced: bool
    n: int
    B: int
    S: np.ndarray  # (R, B) scores
    J: np.ndarray  # (R, B) scores under the joker
    C: np.ndarray  # (R, 6) counts
    prob: np.ndarray  # (R,)
    face: tuple[int, ...]  # face of each upper box, 0 for a lower box
    T: int  # bonus threshold (0: no bonus)
    U: int  # number of capped upper sums: T + 1, or 1 without a bonus
    bonus: int
    yb: int  # index of the Yahtzee box, -1 if none
    extra: int  # extra Yahtzee bonus
    joker: bool
    A: int  # 2 when the "Yahtzee box holds points" flag matters, else 1
    allsame: tuple[tuple[int, int], ...]  # (row, face) of the n-equal rolls

    @classmethod
    def build(cls, rs: R.RuleSet, forced: bool = False) -> "PadModel":
        t = rs.table
        face = tuple(int(b.param("face")) if b.upper else 0 for b in rs.boxes)
        T = rs.bonus_threshold if rs.bonus_points else 0
        yb = rs.box_index(rs.yatzy_box) if rs.yatzy_box else -1
        A = 2 if (yb >= 0 and rs.extra_bonus) else 1
        allsame = tuple((int(t.index([f] * rs.dice)), f) for f in range(1, 7))
        return cls(
            rs=rs, forced=forced, n=rs.dice, B=len(rs.boxes), S=t.scores.astype(np.float64), J=t.joker.astype(np.float64),
            C=t.counts, prob=t.prob, face=face, T=T, U=T + 1 if T else 1, bonus=rs.bonus_points if T else 0,
            yb=yb, extra=rs.extra_bonus if yb >= 0 else 0, joker=bool(rs.joker and yb >= 0), A=A, allsame=allsame,
        )

    @property
    def all_mask(self) -> int:
        return (1 << self.B) - 1

    def cap(self, upper: int) -> int:
        return min(int(upper), self.T) if self.T else 0

    def first_open(self, masks: np.ndarray) -> np.ndarray:
        """Index of the lowest open box of each mask (B where none)."""
        low = masks & -masks
        out = np.full(masks.shape, self.B, np.int64)
        nz = low != 0
        out[nz] = np.round(np.log2(low[nz].astype(np.float64))).astype(np.int64)
        return out

    def stop_values(self, masks: np.ndarray, us: np.ndarray, armed: np.ndarray, future: Future, with_box: bool = False):
        """[R, N]: the best legal score of each roll in each state, plus the value after it.

        With ``with_box`` also [R, N] the box that gives it (for the simulator).
        """
        Rn, N, n, T = self.S.shape[0], len(masks), self.n, self.T
        E = np.full((Rn, N), NEG)
        arg = np.full((Rn, N), -1, np.int64) if with_box else None
        first = self.first_open(masks) if self.forced else None
        upper_vals: dict[int, np.ndarray] = {}
        lower_w: dict[int, np.ndarray] = {}
        opened: dict[int, np.ndarray] = {}
        # the value after scoring each plain lower box, all in one call of future
        plain = [b for b in range(self.B) if not self.face[b] and b != self.yb]
        if plain:
            nms = np.concatenate([masks & ~np.int64(1 << b) for b in plain])
            after_plain = dict(zip(plain, future(nms, np.tile(us, len(plain)), np.tile(armed, len(plain))).reshape(len(plain), N)))
        for b in range(self.B):
            bit = np.int64(1 << b)
            op = (masks & bit) != 0
            allowed = op if first is None else (first == b)
            opened[b] = op
            if not op.any():
                continue
            nm = masks & ~bit
            f = self.face[b]
            if f:
                s = f * np.arange(n + 1)[:, None]  # points for c = 0..n dice of f
                if T:
                    u2 = np.minimum(us[None, :] + s, T)
                    rew = s + self.bonus * ((us[None, :] < T) & (us[None, :] + s >= T))
                else:
                    u2, rew = np.broadcast_to(us, (n + 1, N)), s
                after = future(np.tile(nm, n + 1), u2.reshape(-1), np.tile(armed, n + 1))
                vals = rew + after.reshape(n + 1, N)
                upper_vals[b] = vals
                v = vals.copy()
                v[:, ~allowed] = NEG
                cand = v[self.C[:, f - 1]]
            elif b == self.yb:
                v0 = future(nm, us, np.zeros_like(armed))
                v1 = future(nm, us, np.ones_like(armed)) if self.A > 1 else v0
                s = self.S[:, b, None]
                cand = np.where(s > 0, s + v1[None, :], v0[None, :])
                cand[:, ~allowed] = NEG
            else:
                w = after_plain[b]
                lower_w[b] = w
                w = np.where(allowed, w, NEG)
                cand = self.S[:, b, None] + w[None, :]
            if with_box:
                arg[cand > E] = b
            np.maximum(E, cand, out=E)
        if self.yb >= 0 and (self.joker or self.extra):
            yfilled = (masks & np.int64(1 << self.yb)) == 0
            bonus = self.extra * (armed == 1) if self.extra else 0.0
            for r, f in self.allsame:
                if self.joker:
                    jv, jb = self._joker_row(r, f, masks, first, opened, upper_vals, lower_w)
                    if with_box:
                        arg[r] = np.where(yfilled, jb, arg[r])
                else:
                    jv = E[r]
                E[r] = np.where(yfilled, jv + bonus, E[r])
        return (E, arg) if with_box else E

    def _joker_row(self, r, f, masks, first, opened, upper_vals, lower_w) -> np.ndarray:
        """Stop value of the n-equal roll of face f under the strict joker (Yahtzee box filled)."""
        N = len(masks)
        match = [b for b in range(self.B) if self.face[b] == f]
        has_match = opened[match[0]] if match else np.zeros(N, bool)
        lower = [b for b in range(self.B) if not self.face[b] and b != self.yb]
        any_lower = np.zeros(N, bool)
        for b in lower:
            any_lower |= opened[b]
        jv = np.full(N, NEG)
        jb = np.full(N, -1, np.int64)
        for b in range(self.B):
            if b == self.yb or b not in upper_vals and b not in lower_w:
                continue
            if self.face[b]:
                val = upper_vals[b][self.n if self.face[b] == f else 0]
                ok = opened[b] if self.face[b] == f else opened[b] & ~has_match & ~any_lower
            else:
                val = self.J[r, b] + lower_w[b]
                ok = opened[b] & ~has_match
            if first is not None:
                ok = first == b
            better = ok & (val > jv)
            jb[better] = b
            jv = np.where(better, val, jv)
        return jv, jb


def new_bank(rs: R.RuleSet, bank, unused):
    """The bank after scoring with ``unused`` ordinary throws left: the rules engine's one rule."""
    return R.new_bank(rs.banking, rs.bank_cap, bank, unused)


def bank_after_stop(rs: R.RuleSet, bank, h):
    """The bank after stopping with h throws left in all, the rerolls having started with ``bank``
    banked throws: unused ordinary throws are banked; once they are spent, h banked ones remain."""
    bank, h = np.asarray(bank), np.asarray(h)
    out = np.where(h >= bank, new_bank(rs, bank, np.maximum(h - bank, 0)), h)
    return out if out.ndim else int(out)


def stops_with_bank(rs: R.RuleSet, stop: np.ndarray, h: int, bank: np.ndarray, throw_value: float, masks: np.ndarray) -> list[np.ndarray]:
    """Stop values at h' = 0..h throws left: ``stop`` plus the value of the bank kept after stopping
    (none on the last box: a bank left at the end is worth nothing)."""
    if not throw_value:
        return [stop] * (h + 1)
    more = np.array([bin(int(m)).count("1") > 1 for m in masks])
    return [stop + throw_value * (bank_after_stop(rs, bank, hh) * more)[None, :] for hh in range(h + 1)]
