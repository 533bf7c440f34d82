"""The advisor: which dice to keep, when to stop and which box to score.

``Advisor.for_rules(rs, forced_order=False, banking=True)`` picks the strategy:

* **exact** — games without banking in play whose pad is small enough (yatzy,
  yahtzee, a user's pad of that size; any pad in forced order): the optimal
  solitaire strategy, maximising the expected final score, from a table built
  once by dynamic programming (:mod:`controller.advisor.exact`) and cached on disk.
* **lookahead** — everything else (Maxi, Special 8, banking): the exact keep/roll
  recursion of the current turn (ordinary and banked throws), ending in a
  tabulated value of what is left: a weight per open box (tuned by self-play),
  the probability of still making the upper bonus from the open upper boxes and
  the upper sum, and a value per banked throw.

``advise(dice, open_ids, upper, throws_left, bank, yatzy_value, score)`` returns
an :class:`Advice`: every legal option (each distinct keep, each legal box) with
the expected final score it leads to, best first. Score options come from
``RuleSet.options``, so the advisor never proposes an illegal box (forced order,
strict joker).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Iterable, Sequence

import numpy as np

from controller.game import rules as R
from controller.advisor.core import DiceSpace, PadModel, bank_after_stop, new_bank, stops_with_bank, turn_levels
from controller.advisor.exact import ExactTable, cache_dir, can_solve, load_or_solve, rules_key
from controller.advisor.lookahead import LookaheadValue


class AdviceError(ValueError):
    """A situation the advisor cannot be asked about. One line, exit 2 in the CLI."""

    user_error = True


@dataclass(frozen=True)
class Option:
    action: str  # "keep" or "score"
    value: float  # expected final score after taking this option
    text: str  # "keep 5 5 5, throw 3" / "score Yatzy: 50"
    keep: tuple[int, ...] = ()  # faces kept (keep)
    throw: tuple[int, ...] = ()  # faces thrown again (keep)
    box: str | None = None  # box scored (score)
    points: int | None = None  # points written in the box (score), extra bonus not included

    def as_dict(self) -> dict:
        d = {"action": self.action, "text": self.text, "expected": round(self.value, 6)}
        if self.action == "keep":
            d.update(keep=list(self.keep), throw=list(self.throw))
        else:
            d.update(box=self.box, points=self.points)
        return d


@dataclass(frozen=True)
class Advice:
    options: tuple[Option, ...]  # best first
    exact: bool  # True: values are exact expectations under optimal play
    strategy: str  # "exact" or "lookahead"

    @property
    def best(self) -> Option:
        return self.options[0]

    @property
    def stop(self) -> bool:
        return self.best.action == "score"

    @property
    def expected(self) -> float:
        return self.best.value

    @property
    def text(self) -> str:
        return self.best.text

    def runner_ups(self, k: int = 3) -> list[tuple[str, float]]:
        return [(o.text, o.value) for o in self.options[1 : 1 + k]]

    def as_dict(self) -> dict:
        return {
            "advice": self.best.text,
            "expected": round(self.expected, 6),
            "exact": self.exact,
            "strategy": self.strategy,
            "options": [o.as_dict() for o in self.options],
        }


def keep_text(kept: Sequence[int], thrown: Sequence[int]) -> str:
    if not kept:
        return "throw all"
    return f"keep {' '.join(map(str, kept))}, throw {' '.join(map(str, thrown))}"


def faces_of(counts: Sequence[int]) -> tuple[int, ...]:
    return tuple(f + 1 for f in range(6) for _ in range(int(counts[f])))


# ------------------------------------------------------------------------- the advisor


@dataclass(frozen=True, eq=False)
class Advisor:
    rs: R.RuleSet
    forced: bool
    banking: bool
    model: PadModel
    space: DiceSpace
    exact: ExactTable | None
    lookahead: LookaheadValue | None

    @classmethod
    def for_rules(
        cls,
        rs: R.RuleSet,
        forced_order: bool = False,
        banking: bool = True,
        cache: str | os.PathLike | None = None,
        progress=None,
        tune: bool = True,
    ) -> "Advisor":
        """The best advisor for this game: exact where a table is possible, else lookahead.

        ``cache``: the cache folder (default :func:`cache_dir`). ``tune=False`` skips the
        self-play tuning of the lookahead values (quicker, weaker; for tests).
        """
        banking = bool(banking and rs.banking != "none")
        model = PadModel.build(rs, forced_order)
        space = DiceSpace.build(rs.dice)
        if can_solve(rs, forced_order, banking):
            table = load_or_solve(rs, forced_order, cache, progress)
            return cls(rs=rs, forced=forced_order, banking=banking, model=model, space=space, exact=table, lookahead=None)
        from controller.advisor.sim import initial_lookahead, tuned_lookahead

        la = tuned_lookahead(rs, model, space, forced_order, banking, cache) if tune else initial_lookahead(rs, model, space)
        return cls(rs=rs, forced=forced_order, banking=banking, model=model, space=space, exact=None, lookahead=la)

    # -- the value of what is left
    @property
    def strategy(self) -> str:
        return "exact" if self.exact is not None else "lookahead"

    @property
    def future(self):
        return self.exact.future if self.exact is not None else self.lookahead

    @property
    def throw_value(self) -> float:
        return self.lookahead.throw_value if self.lookahead is not None and self.banking else 0.0

    def stops_for(self, stop: np.ndarray, h: int, bank: np.ndarray, masks: np.ndarray) -> list[np.ndarray]:
        """Stop values at h' = 0..h throws left, the value of the bank after stopping included."""
        return stops_with_bank(self.rs, stop, h, bank, self.throw_value if self.banking else 0.0, masks)

    def mask_of(self, open_ids: Iterable[str]) -> int:
        mask = 0
        for bid in open_ids:
            mask |= 1 << self.rs.box_index(bid)
        return mask

    def expected_start(self) -> float:
        """Expected final score of a solitaire game from the start (exact strategy only)."""
        if self.exact is None:
            raise AdviceError(f"{self.rs.name}: no exact table (use the simulated mean)")
        return self.exact.start_value

    def advise(
        self,
        dice: Sequence[int],
        open_ids: Iterable[str],
        upper: int = 0,
        throws_left: int | None = None,
        bank: int = 0,
        yatzy_value: int | None = None,
        score: int = 0,
        lang: str = "en",
    ) -> Advice:
        """Every legal option in this situation with the expected final score it leads to, best first.

        ``score``: points already on the pad (bonuses included), added to every value.
        """
        rs, m = self.rs, self.model
        faces = rs.check_roll(dice)
        open_ids = list(dict.fromkeys(open_ids))
        mask = self.mask_of(open_ids)
        if not open_ids:
            raise AdviceError("no open box: the game is over")
        if throws_left is None:
            throws_left = rs.throws - 1
        if not 0 <= throws_left <= rs.throws - 1:
            raise AdviceError(f"throws left must be 0..{rs.throws - 1}, got {throws_left}")
        if bank < 0:
            raise AdviceError(f"bank must not be negative, got {bank}")
        if bank and not self.banking:
            raise AdviceError("this game is played without banking: bank must be 0")
        if rs.banking == "capped" and bank > (rs.bank_cap or 0):
            raise AdviceError(f"bank is at most {rs.bank_cap} in {rs.name}")
        if upper < 0:
            raise AdviceError(f"upper sum must not be negative, got {upper}")
        armed = 0
        if m.yb >= 0 and rs.yatzy_box in open_ids:
            if yatzy_value is not None:
                raise AdviceError(f"the {rs.yatzy_box} box is open: it holds no value yet")
        elif m.yb >= 0:
            if yatzy_value is None:
                raise AdviceError(f"the {rs.yatzy_box} box is filled: say what it holds (0 or {rs.box(rs.yatzy_box).param('points')})")
            armed = 1 if (yatzy_value > 0 and m.A > 1) else 0
        else:
            yatzy_value = None
        u = m.cap(upper)
        masks, us, arm = np.array([mask], np.int64), np.array([u], np.int64), np.array([armed], np.int64)
        if self.forced and mask != self.model.all_mask & ~((1 << (m.B - len(open_ids))) - 1):
            raise AdviceError("in forced order the open boxes are the last ones of the pad")
        if self.exact is not None and np.isnan(self.exact.value(mask, u, armed)):
            raise AdviceError(f"an upper sum of {upper} cannot happen with these upper boxes filled")
        h = throws_left + (bank if self.banking else 0)
        stop = m.stop_values(masks, us, arm, self.future)
        stops = self.stops_for(stop, h, np.array([bank]), masks)
        eks: list[np.ndarray] = []
        turn_levels(self.space, stops, h, eks)
        row = rs.table.index(faces)
        opts: list[Option] = []
        legal, extra = rs.options(faces, open_ids, yatzy_value, self.forced)
        nb = bank_after_stop(rs, bank, h) if (self.banking and len(open_ids) > 1) else 0
        items = list(legal.items())
        nexts = []  # (mask, capped upper, flag) after each legal score, and its reward
        for bid, pts in items:
            b = rs.box_index(bid)
            u2, rew = u, pts + extra
            if m.face[b] and m.T:
                u2 = min(u + pts, m.T)
                rew += m.bonus if (u < m.T <= u + pts) else 0
            a2 = (1 if pts > 0 else 0) if (b == m.yb and m.A > 1) else armed
            nexts.append((mask & ~(1 << b), u2, a2, rew))
        nx = np.array(nexts, np.int64).reshape(-1, 4)
        after = self.future(nx[:, 0], nx[:, 1], nx[:, 2]) if len(nx) else np.zeros(0)
        for (bid, pts), rew, aft in zip(items, nx[:, 3].tolist(), after.tolist()):
            val = score + rew + aft + self.throw_value * nb
            label = rs.box(bid).label(lang)
            bonus_txt = f" + {extra} bonus" if extra else ""
            opts.append(Option("score", val, f"score {label}: {pts}{bonus_txt}", box=bid, points=int(pts)))
        if h > 0:
            ek = eks[h - 1]
            counts = rs.table.counts[row]
            for k in self.space.sub_keeps(counts):
                kept = faces_of(k)
                thrown = faces_of([int(c) - int(kk) for c, kk in zip(counts, k)])
                val = score + float(ek[self.space.index(k), 0])
                opts.append(Option("keep", val, keep_text(kept, thrown), keep=kept, throw=thrown))
        # best first; ties: scoring before throwing, then fewer dice thrown
        opts.sort(key=lambda o: (-round(o.value, 9), o.action != "score", len(o.throw)))
        return Advice(options=tuple(opts), exact=self.exact is not None, strategy=self.strategy)

    def turn_value(self, dice: Sequence[int], open_ids: Iterable[str], upper: int = 0, throws_left: int | None = None, bank: int = 0, yatzy_value: int | None = None) -> float:
        """The best option's value as the within-turn recursion computes it (a consistency check)."""
        rs, m = self.rs, self.model
        mask = self.mask_of(open_ids)
        throws_left = rs.throws - 1 if throws_left is None else throws_left
        armed = 1 if (m.yb >= 0 and yatzy_value and m.A > 1) else 0
        h = throws_left + (bank if self.banking else 0)
        stop = m.stop_values(np.array([mask], np.int64), np.array([m.cap(upper)]), np.array([armed]), self.future)
        levels = turn_levels(self.space, self.stops_for(stop, h, np.array([bank]), np.array([mask], np.int64)), h)
        return float(levels[h][rs.table.index(rs.check_roll(dice)), 0])


__all__ = ["Advisor", "Advice", "Option", "AdviceError", "cache_dir", "rules_key", "new_bank", "keep_text"]
