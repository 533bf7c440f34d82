"""Rule sets as data: load a TOML pad, score every box of every multiset of dice.

One small engine serves every game. A rule-set file (see ``controller/game/rulesets``)
names the dice count, throws per turn, bonus, banking policy, the Yahtzee
extra-bonus/joker section and the boxes, each with a scoring *kind* and its
parameters. Nothing here branches on the game's name.

Scoring is computed once per rule set for every multiset of dice (252 for five
dice, 462 for six, 1287 for eight) into a :class:`ScoreTable` (numpy), so that
scoring a roll later is a lookup.
"""

from __future__ import annotations

import itertools
import math
import re
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

import numpy as np

from controller.tomlfile import read_toml

LANGUAGES = ("sv", "nb", "da", "en")
RULESET_DIR = Path(__file__).resolve().parent / "rulesets"
MAX_DICE = 10
MAX_BOXES = 100
FACES = np.arange(1, 7, dtype=np.int64)


class RulesError(ValueError):
    """A rule-set file, or a roll, that cannot be used. The message is one line."""

    user_error = True


# --------------------------------------------------------------------------- kinds

# kind -> (required params, optional params with defaults)
KINDS: dict[str, tuple[tuple[str, ...], dict[str, Any]]] = {
    "upper": (("face",), {}),
    "kind": (("n",), {}),
    "pairs": (("n",), {}),
    "groups": (("sizes",), {"points": None}),
    "straight": (("lo", "hi"), {"points": None}),
    "chance": ((), {}),
    "all_same": ((), {"points": 0, "add_sum": False}),
    "kind_all": (("n",), {}),
    "run": (("length", "points"), {}),
    "straight_pair": ((), {"lo": 1, "hi": 6}),
}

KIND_HELP = {
    "upper": "{face} x count of {face}",
    "kind": "{n} x the highest face showing at least {n} times",
    "pairs": "sum of {n} pair(s) of different faces",
    "groups": "groups of {sizes_text} equal dice of different faces",
    "straight": "faces {lo}-{hi} all present",
    "chance": "sum of all dice",
    "all_same": "every die equal",
    "kind_all": "at least {n} equal dice: sum of all dice",
    "run": "any {length} consecutive faces",
    "straight_pair": "faces {lo}-{hi} present and the other dice equal: sum of all dice",
}


@dataclass(frozen=True)
class Box:
    """One box of the pad."""

    id: str
    kind: str
    params: tuple[tuple[str, Any], ...]
    labels: tuple[tuple[str, str], ...]
    short: tuple[tuple[str, str], ...] = ()

    def param(self, name: str) -> Any:
        return dict(self.params)[name]

    @property
    def upper(self) -> bool:
        return self.kind == "upper"

    @property
    def fixed_points(self) -> int | None:
        """Points the box pays regardless of the faces (Full House 25, ...), if any."""
        p = dict(self.params).get("points")
        if self.kind == "all_same" and dict(self.params).get("add_sum"):
            return None
        return p

    def label(self, lang: str = "sv") -> str:
        d = dict(self.labels)
        return d.get(lang) or d.get("en") or next(iter(d.values()), self.id)

    def short_label(self, lang: str = "sv") -> str:
        d = dict(self.short)
        return d.get(lang) or d.get("en") or self.label(lang)

    def dice_needed(self) -> int:
        p = dict(self.params)
        k = self.kind
        if k in ("upper", "chance", "all_same"):
            return 1
        if k in ("kind", "kind_all"):
            return int(p["n"])
        if k == "pairs":
            return 2 * int(p["n"])
        if k == "groups":
            return int(sum(p["sizes"]))
        if k == "straight":
            return int(p["hi"]) - int(p["lo"]) + 1
        if k == "run":
            return int(p["length"])
        if k == "straight_pair":
            return int(p["hi"]) - int(p["lo"]) + 3
        raise AssertionError(k)

    def describe(self) -> str:
        p = dict(self.params)
        if "sizes" in p:
            p["sizes_text"] = "+".join(str(s) for s in p["sizes"])
        text = KIND_HELP[self.kind].format(**p)
        fixed = self.fixed_points
        if self.kind == "all_same":
            text += f": {p['points']} + sum of dice" if p.get("add_sum") else f": {p['points']}"
        elif fixed is not None:
            text += f": {fixed}"
        elif self.kind == "straight":
            text += f": {sum(range(p['lo'], p['hi'] + 1))}"
        elif self.kind == "groups":
            text += ": sum of those dice"
        return text


# ----------------------------------------------------------------- vectorised scoring


def _score_kind(box: Box, counts: np.ndarray, n_dice: int) -> np.ndarray:
    """Score of one box for every row of ``counts`` (M x 6, counts of faces 1..6)."""
    p = dict(box.params)
    k = box.kind
    total = counts @ FACES
    if k == "upper":
        f = int(p["face"])
        return counts[:, f - 1] * f
    if k == "kind":
        n = int(p["n"])
        best = np.max(np.where(counts >= n, FACES, 0), axis=1)
        return best * n
    if k == "pairs":
        n = int(p["n"])
        eligible = np.sort(np.where(counts >= 2, FACES, 0), axis=1)[:, ::-1][:, :n]
        ok = eligible[:, n - 1] > 0
        return np.where(ok, 2 * eligible.sum(axis=1), 0)
    if k == "groups":
        sizes = [int(s) for s in p["sizes"]]
        best = np.zeros(len(counts), dtype=np.int64)
        for perm in itertools.permutations(range(6), len(sizes)):
            ok = np.ones(len(counts), dtype=bool)
            s = 0
            for size, fi in zip(sizes, perm):
                ok &= counts[:, fi] >= size
                s += size * (fi + 1)
            best = np.where(ok & (s > best), s, best)
        if p.get("points") is not None:
            return np.where(best > 0, int(p["points"]), 0)
        return best
    if k == "straight":
        lo, hi = int(p["lo"]), int(p["hi"])
        ok = np.all(counts[:, lo - 1 : hi] >= 1, axis=1)
        pts = int(p["points"]) if p.get("points") is not None else sum(range(lo, hi + 1))
        return np.where(ok, pts, 0)
    if k == "chance":
        return total
    if k == "all_same":
        ok = np.any(counts == n_dice, axis=1)
        base = int(p.get("points") or 0)
        return np.where(ok, base + (total if p.get("add_sum") else 0), 0)
    if k == "kind_all":
        ok = np.any(counts >= int(p["n"]), axis=1)
        return np.where(ok, total, 0)
    if k == "run":
        length = int(p["length"])
        present = counts >= 1
        ok = np.zeros(len(counts), dtype=bool)
        for start in range(0, 7 - length):
            ok |= np.all(present[:, start : start + length], axis=1)
        return np.where(ok, int(p["points"]), 0)
    if k == "straight_pair":
        lo, hi = int(p["lo"]), int(p["hi"])
        ok = np.all(counts[:, lo - 1 : hi] >= 1, axis=1)
        rest = counts.copy()
        rest[:, lo - 1 : hi] -= 1
        rest = np.clip(rest, 0, None)
        ok &= np.count_nonzero(rest, axis=1) == 1
        return np.where(ok, total, 0)
    raise AssertionError(k)


def multisets(n_dice: int) -> np.ndarray:
    """Every multiset of ``n_dice`` faces, each row sorted ascending (M x n_dice)."""
    return np.array(list(itertools.combinations_with_replacement(range(1, 7), n_dice)), dtype=np.int8)


def counts_of(faces: np.ndarray) -> np.ndarray:
    """Rows of faces (M x n) -> counts of faces 1..6 (M x 6)."""
    faces = np.asarray(faces)
    return np.stack([(faces == f).sum(axis=-1) for f in range(1, 7)], axis=-1).astype(np.int64)


@dataclass(frozen=True, eq=False)
class ScoreTable:
    """Every box's score for every multiset of the rule set's dice."""

    faces: np.ndarray  # (M, n_dice) int8, sorted ascending
    counts: np.ndarray  # (M, 6) int64
    scores: np.ndarray  # (M, n_boxes) int32
    joker: np.ndarray  # (M, n_boxes) int32: scores under the Yahtzee joker (fixed boxes pay full)
    prob: np.ndarray  # (M,) float64: probability of the multiset when every die is thrown
    _lookup: np.ndarray  # counts key -> row index, -1 where no multiset
    _base: int

    def key(self, counts: np.ndarray) -> np.ndarray:
        return np.asarray(counts, dtype=np.int64) @ (self._base ** np.arange(6, dtype=np.int64))

    def index(self, faces: Sequence[int]) -> int:
        """Row of one roll (any order). The roll must already be validated."""
        key = 0
        for f in faces:
            key += self._base ** (int(f) - 1)
        return int(self._lookup[key])

    def indices(self, counts: np.ndarray) -> np.ndarray:
        """Rows of many rolls given as counts (K x 6)."""
        return self._lookup[self.key(counts)]

    @property
    def size(self) -> int:
        return int(self.faces.shape[0])


# ------------------------------------------------------------------------ the rule set


@dataclass(frozen=True, eq=False)
class RuleSet:
    name: str
    titles: tuple[tuple[str, str], ...]
    dice: int
    throws: int
    bonus_threshold: int
    bonus_points: int
    banking: str  # "none" | "uncapped" | "capped"
    bank_cap: int | None
    declare: bool  # Special 8 declared throws
    extra_bonus: int  # Yahtzee: each further Yahtzee while the Yahtzee box holds points
    joker: bool  # Yahtzee's (strict) joker rule
    yatzy_box: str | None  # the all-equal box the extra bonus / joker hang on
    default_players: int
    forced_order: bool  # default of the option
    boxes: tuple[Box, ...]
    source: str
    notes: str = ""
    _cache: dict = field(default_factory=dict, repr=False, compare=False)

    # -- naming
    def title(self, lang: str = "sv") -> str:
        d = dict(self.titles)
        return d.get(lang) or d.get("en") or self.name

    @property
    def box_ids(self) -> tuple[str, ...]:
        ids = self._cache.get("box_ids")
        if ids is None:  # cached: box_index() is called per box in options()
            ids = self._cache["box_ids"] = tuple(b.id for b in self.boxes)
        return ids

    def box(self, box_id: str) -> Box:
        for b in self.boxes:
            if b.id == box_id:
                return b
        raise RulesError(f"no box {box_id!r} in rule set {self.name!r}")

    def box_index(self, box_id: str) -> int:
        try:
            return self.box_ids.index(box_id)
        except ValueError:
            raise RulesError(f"no box {box_id!r} in rule set {self.name!r}") from None

    @property
    def upper_indices(self) -> tuple[int, ...]:
        return tuple(i for i, b in enumerate(self.boxes) if b.upper)

    @property
    def bonus_par(self) -> float:
        """Par per face for bonus pace: threshold / 21 (3, 4, 6; 3.57 for 75)."""
        return self.bonus_threshold / 21 if self.bonus_threshold else 0.0

    @property
    def banks(self) -> bool:
        return self.banking != "none"

    # -- scoring
    @property
    def table(self) -> ScoreTable:
        t = self._cache.get("table")
        if t is None:
            t = self._cache["table"] = build_table(self)
        return t

    def check_roll(self, faces: Sequence[int]) -> tuple[int, ...]:
        faces = tuple(int(f) for f in faces)
        if len(faces) != self.dice:
            raise RulesError(f"{self.name} needs {self.dice} dice, got {len(faces)}")
        bad = [f for f in faces if not 1 <= f <= 6]
        if bad:
            raise RulesError(f"face {bad[0]} is outside 1..6")
        return faces

    def score(self, faces: Sequence[int]) -> dict[str, int]:
        """Box id -> points for one roll, in pad order."""
        faces = self.check_roll(faces)
        t = self.table
        row = t.scores[t.index(faces)]
        return {b.id: int(v) for b, v in zip(self.boxes, row)}

    def max_total(self, extra_bonuses: bool = False) -> int:
        """Maximum total of one player's game under this pad."""
        t = self.table
        best = t.scores.max(axis=0)
        upper = int(sum(best[i] for i in self.upper_indices))
        total = int(best.sum()) + (self.bonus_points if self.bonus_threshold and upper >= self.bonus_threshold else 0)
        if not extra_bonuses or not self.extra_bonus or self.yatzy_box is None:
            return total
        # every roll all-equal: the Yahtzee box first, then every other box by joker
        same = np.flatnonzero(np.any(t.counts == self.dice, axis=1))
        jbest = t.joker[same].max(axis=0)
        upper = int(sum(jbest[i] for i in self.upper_indices))
        total_j = int(jbest.sum()) + (self.bonus_points if upper >= self.bonus_threshold else 0)
        return total_j + (len(self.boxes) - 1) * self.extra_bonus

    def options(
        self,
        faces: Sequence[int],
        open_ids: Iterable[str],
        yatzy_value: int | None = None,
        forced_order: bool = False,
    ) -> tuple[dict[str, int], int]:
        """Legal boxes for this roll with their points, and the extra bonus earned.

        ``yatzy_value`` is what the rule set's Yahtzee box holds (None: open).
        Applies forced order and the strict joker rule of RULES.md.
        """
        faces = self.check_roll(faces)
        open_set = set(open_ids)
        open_order = [b for b in self.boxes if b.id in open_set]
        if not open_order:
            return {}, 0
        t = self.table
        row = t.index(faces)
        scores = t.scores[row]
        all_same = len(set(faces)) == 1
        extra = 0
        joker_on = False
        if all_same and self.yatzy_box is not None and yatzy_value is not None:
            if self.extra_bonus and yatzy_value > 0:
                extra = self.extra_bonus
            joker_on = self.joker
        if forced_order:
            b = open_order[0]
            i = self.box_index(b.id)
            pts = t.joker[row, i] if joker_on and not b.upper else scores[i]
            return {b.id: int(pts)}, extra
        if not joker_on:
            return {b.id: int(scores[self.box_index(b.id)]) for b in open_order}, extra
        face = faces[0]
        matching = [b for b in open_order if b.upper and int(b.param("face")) == face]
        if matching:
            b = matching[0]
            return {b.id: int(scores[self.box_index(b.id)])}, extra
        lower = [b for b in open_order if not b.upper]
        if lower:
            return {b.id: int(t.joker[row, self.box_index(b.id)]) for b in lower}, extra
        return {b.id: 0 for b in open_order}, extra


def new_bank(policy: str, cap: int | None, bank: Any, unused: Any) -> Any:
    """The bank after scoring with ``unused`` ordinary throws left (RULES.md); ints or numpy arrays.

    none: unchanged; uncapped: bank + unused; capped: bank + unused, or past the cap
    2 x cap - bank - unused (Special 8: bank 6 stop after the 2nd -> 5, after the 1st -> 4)."""
    if policy == "none":
        return bank
    total = np.asarray(bank) + np.asarray(unused)
    if policy == "capped" and cap is not None:
        total = np.where(total > cap, np.maximum(2 * cap - total, 0), total)
    return total if total.ndim else int(total)


def build_table(rs: RuleSet) -> ScoreTable:
    n = rs.dice
    faces = multisets(n)
    counts = counts_of(faces)
    cols = [_score_kind(b, counts, n) for b in rs.boxes]
    scores = np.stack(cols, axis=1).astype(np.int32)
    joker = scores.copy()
    for i, b in enumerate(rs.boxes):
        if b.fixed_points is not None and not b.upper:
            joker[:, i] = np.where(np.any(counts == n, axis=1), b.fixed_points, scores[:, i])
    fact = [math.factorial(k) for k in range(n + 1)]
    ways = np.array([fact[n] // math.prod(fact[c] for c in row) for row in counts.tolist()], dtype=np.float64)
    prob = ways / 6.0**n
    base = n + 1
    keys = counts @ (base ** np.arange(6, dtype=np.int64))
    lookup = np.full(base**6, -1, dtype=np.int32)
    lookup[keys] = np.arange(len(faces), dtype=np.int32)
    for a in (faces, counts, scores, joker, prob, lookup):
        a.setflags(write=False)
    return ScoreTable(faces=faces, counts=counts, scores=scores, joker=joker, prob=prob, _lookup=lookup, _base=base)


# ---------------------------------------------------------------------------- loading


def _fail(path: str, where: str, problem: str) -> RulesError:
    return RulesError(f"{path}: {where}: {problem}")


def _typed(path: str, where: str, d: Mapping[str, Any], key: str, typ: type | tuple, default: Any = ...,
           bounds: tuple[int, int] | None = None) -> Any:
    """``d[key]`` of type ``typ`` (else ``default``, or missing); an integer within ``bounds``
    (default INT_BOUNDS)."""
    if key not in d:
        if default is ...:
            raise _fail(path, where, f"missing key {key!r}")
        return default
    v = d[key]
    types = typ if isinstance(typ, tuple) else (typ,)
    if isinstance(v, bool) and bool not in types:
        raise _fail(path, where, f"{key!r} must be {_tname(types)}, not {type(v).__name__}")
    if not isinstance(v, types):
        raise _fail(path, where, f"{key!r} must be {_tname(types)}, not {type(v).__name__}")
    if isinstance(v, int) and not isinstance(v, bool):
        _bounded(path, where, key, v, bounds or INT_BOUNDS)
    return v


INT_BOUNDS = (0, 10**6 - 1)
"""Every number of a rule set - dice, throws, points, thresholds, bonuses, caps, faces, sizes - is a
count or a score a pad can hold: 0 up to a million (the score table is int32, and a box of
3000000000 would wrap around)."""


def _bounded(path: str, where: str, key: str, v: int, bounds: tuple[int, int] = INT_BOUNDS) -> int:
    lo, hi = bounds
    if not lo <= v <= hi:
        raise _fail(path, where, f"{key!r} must be {lo}..{hi}, got {v if abs(v) < 10**12 else f'{v:.3g}'}")
    return v


def _tname(types: tuple) -> str:
    names = {int: "an integer", str: "a string", bool: "true or false", list: "a list", dict: "a table"}
    return " or ".join(names.get(t, t.__name__) for t in types)


def _labels(path: str, where: str, v: Any, key: str) -> tuple[tuple[str, str], ...]:
    if isinstance(v, str):
        return tuple((lang, v) for lang in LANGUAGES)
    if not isinstance(v, dict) or not v:
        raise _fail(path, where, f"{key!r} must be a string or a table of languages ({', '.join(LANGUAGES)})")
    out = []
    for lang, text in v.items():
        if lang not in LANGUAGES:
            raise _fail(path, where, f"{key!r}: unknown language {lang!r} (allowed: {', '.join(LANGUAGES)})")
        if not isinstance(text, str) or not text.strip():
            raise _fail(path, where, f"{key!r}.{lang} must be a non-empty string")
        out.append((lang, text))
    return tuple(out)


TOP_KEYS = {"name", "title", "dice", "throws", "bonus", "banking", "yahtzee", "options", "box", "notes"}
BOX_KEYS = {"id", "kind", "label", "short"}


def parse_ruleset(data: Mapping[str, Any], path: str) -> RuleSet:
    top = "top level"
    unknown = set(data) - TOP_KEYS
    if unknown:
        raise _fail(path, top, f"unknown key {sorted(unknown)[0]!r} (allowed: {', '.join(sorted(TOP_KEYS))})")
    name = _typed(path, top, data, "name", str)
    titles = _labels(path, top, data.get("title", name), "title")
    dice = _typed(path, top, data, "dice", int, bounds=(1, MAX_DICE))
    throws = _typed(path, top, data, "throws", int, bounds=(1, 9))
    notes = _typed(path, top, data, "notes", str, "")

    bonus = _typed(path, top, data, "bonus", dict, {})
    threshold = _typed(path, "[bonus]", bonus, "threshold", int, 0)
    bonus_points = _typed(path, "[bonus]", bonus, "points", int, 0)
    for k in set(bonus) - {"threshold", "points"}:
        raise _fail(path, "[bonus]", f"unknown key {k!r} (allowed: threshold, points)")

    banking = _typed(path, top, data, "banking", dict, {})
    policy = _typed(path, "[banking]", banking, "policy", str, "none")
    if policy not in ("none", "uncapped", "capped"):
        raise _fail(path, "[banking]", f"policy {policy!r} unknown (allowed: none, uncapped, capped)")
    cap = _typed(path, "[banking]", banking, "cap", int, None)
    if policy == "capped" and (cap is None or cap < 1):
        raise _fail(path, "[banking]", "policy 'capped' needs a positive 'cap'")
    if policy != "capped" and cap is not None:
        raise _fail(path, "[banking]", f"'cap' only goes with policy 'capped', not {policy!r}")
    declare = _typed(path, "[banking]", banking, "declare", bool, False)
    if declare and policy != "capped":
        raise _fail(path, "[banking]", "'declare' (declared throws) needs policy 'capped'")
    for k in set(banking) - {"policy", "cap", "declare"}:
        raise _fail(path, "[banking]", f"unknown key {k!r} (allowed: policy, cap, declare)")

    yz = _typed(path, top, data, "yahtzee", dict, {})
    extra_bonus = _typed(path, "[yahtzee]", yz, "extra_bonus", int, 0)
    joker = _typed(path, "[yahtzee]", yz, "joker", bool, False)
    yatzy_box = _typed(path, "[yahtzee]", yz, "box", str, None)
    for k in set(yz) - {"extra_bonus", "joker", "box"}:
        raise _fail(path, "[yahtzee]", f"unknown key {k!r} (allowed: extra_bonus, joker, box)")
    if (extra_bonus or joker) and yatzy_box is None:
        raise _fail(path, "[yahtzee]", "'extra_bonus' and 'joker' need 'box' (the all-equal box)")

    opts = _typed(path, top, data, "options", dict, {})
    players = _typed(path, "[options]", opts, "players", int, 2, bounds=(1, 6))
    forced = _typed(path, "[options]", opts, "forced_order", bool, False)
    for k in set(opts) - {"players", "forced_order"}:
        raise _fail(path, "[options]", f"unknown key {k!r} (allowed: players, forced_order)")

    raw_boxes = _typed(path, top, data, "box", list)
    if not raw_boxes or len(raw_boxes) > MAX_BOXES:
        raise _fail(path, top, f"a pad has 1 to {MAX_BOXES} [[box]] entries, not {len(raw_boxes)}")
    boxes: list[Box] = []
    seen: set[str] = set()
    for i, rb in enumerate(raw_boxes, 1):
        where = f"box #{i}"
        if not isinstance(rb, dict):
            raise _fail(path, where, "must be a table ([[box]])")
        bid = _typed(path, where, rb, "id", str)
        where = f"box {bid!r}"
        if not bid.replace("_", "").isalnum():
            raise _fail(path, where, "id must be letters, digits and underscores")
        if bid in seen:
            raise _fail(path, where, "duplicate box id")
        seen.add(bid)
        kind = _typed(path, where, rb, "kind", str)
        if kind not in KINDS:
            raise _fail(path, where, f"unknown kind {kind!r} (allowed: {', '.join(KINDS)})")
        required, optional = KINDS[kind]
        allowed = BOX_KEYS | set(required) | set(optional)
        for k in rb:
            if k not in allowed:
                raise _fail(path, where, f"unknown key {k!r} for kind {kind!r} (allowed: {', '.join(sorted(allowed))})")
        params: dict[str, Any] = {}
        for k in required:
            if k == "sizes":
                params[k] = _typed(path, where, rb, k, list)
            else:
                params[k] = _typed(path, where, rb, k, int)
        for k, default in optional.items():
            if k == "add_sum":
                params[k] = _typed(path, where, rb, k, bool, default)
            else:
                params[k] = _typed(path, where, rb, k, int, default) if k in rb else default
        _check_params(path, where, kind, params, dice)
        if "sizes" in params:
            params["sizes"] = tuple(params["sizes"])
        labels = _labels(path, where, rb.get("label", bid), "label")
        short = _labels(path, where, rb["short"], "short") if "short" in rb else ()
        box = Box(id=bid, kind=kind, params=tuple(sorted(params.items())), labels=labels, short=short)
        if box.dice_needed() > dice:
            raise _fail(path, where, f"kind {kind!r} needs {box.dice_needed()} dice, the game has {dice}")
        boxes.append(box)
    if yatzy_box is not None:
        if yatzy_box not in seen:
            raise _fail(path, "[yahtzee]", f"box {yatzy_box!r} is not on the pad")
        if next(b for b in boxes if b.id == yatzy_box).kind != "all_same":
            raise _fail(path, "[yahtzee]", f"box {yatzy_box!r} must be of kind 'all_same'")
    uppers = [b for b in boxes if b.upper]
    if threshold and not uppers:
        raise _fail(path, "[bonus]", "a bonus threshold needs upper boxes")
    return RuleSet(
        name=name,
        titles=titles,
        dice=dice,
        throws=throws,
        bonus_threshold=threshold,
        bonus_points=bonus_points,
        banking=policy,
        bank_cap=cap,
        declare=declare,
        extra_bonus=extra_bonus,
        joker=joker,
        yatzy_box=yatzy_box,
        default_players=players,
        forced_order=forced,
        boxes=tuple(boxes),
        source=path,
        notes=notes,
    )


def _check_params(path: str, where: str, kind: str, p: dict[str, Any], dice: int) -> None:
    def face(name: str) -> None:
        if not 1 <= p[name] <= 6:
            raise _fail(path, where, f"{name!r} must be a face 1..6, got {p[name]}")

    if kind == "upper":
        face("face")
    if kind in ("kind", "kind_all", "pairs") and p["n"] < 1:
        raise _fail(path, where, f"'n' must be at least 1, got {p['n']}")
    if kind == "pairs" and p["n"] > 6:
        raise _fail(path, where, "at most 6 pairs of different faces")
    if kind == "groups":
        sizes = p["sizes"]
        if not sizes or len(sizes) > 6 or not all(isinstance(s, int) and not isinstance(s, bool) and 1 <= s <= dice for s in sizes):
            raise _fail(path, where, f"'sizes' must be a list of 1 to 6 integers 1..{dice}")
    if kind in ("straight", "straight_pair"):
        face("lo")
        face("hi")
        if p["lo"] > p["hi"]:
            raise _fail(path, where, f"'lo' ({p['lo']}) is above 'hi' ({p['hi']})")
    if kind == "run" and not 1 <= p["length"] <= 6:
        raise _fail(path, where, f"'length' must be 1..6, got {p['length']}")
    for k in ("points",):
        if p.get(k) is not None and p[k] < 0:
            raise _fail(path, where, f"{k!r} must not be negative")


def builtin_names() -> list[str]:
    return sorted(p.stem for p in RULESET_DIR.glob("*.toml"))


def load_file(path: str | Path) -> RuleSet:
    return parse_ruleset(read_toml(path, RulesError, "rule-set file"), str(path))


def load(name_or_path: str) -> RuleSet:
    """A built-in rule set by name (``yatzy``), or a user's file by path."""
    if name_or_path in builtin_names():
        return load_file(RULESET_DIR / f"{name_or_path}.toml")
    p = Path(name_or_path)
    if p.suffix == ".toml" or _is_there(p) or "/" in name_or_path:
        return load_file(p)
    shown = name_or_path if len(name_or_path) <= 60 else name_or_path[:60] + "..."
    raise RulesError(f"unknown rule set {shown!r} (built in: {', '.join(builtin_names())}; or a path to a .toml file)")


def _is_there(p: Path) -> bool:
    """Whether a path names something; False for a name the system cannot even look up (too long)."""
    try:
        return p.exists()
    except OSError:
        return False


def parse_roll(text: str) -> list[int]:
    """'3 3 5 4 5', '3,3,5,4,5' or '33545' -> faces. Raises RulesError.

    Only ASCII digits are faces (``str.isdigit`` also takes '²' and Arabic-Indic digits)."""
    s = text.strip()
    if not s:
        raise RulesError("empty roll")
    if len(s) > MAX_ROLL_TEXT:
        raise RulesError(f"a roll of {len(s)} characters: a roll is at most {MAX_DICE} faces")
    if _ASCII_DIGITS.fullmatch(s) and len(s) > 1:
        parts = list(s)
    else:
        parts = [x for x in s.replace(",", " ").split() if x]
    faces = []
    for x in parts:
        if not _FACE.fullmatch(x):
            shown = x if len(x) <= 12 else x[:12] + "..."
            raise RulesError(f"{shown!r} is not a die face (1 to 6)")
        faces.append(int(x))
    return faces


_ASCII_DIGITS = re.compile(r"[0-9]+")
_FACE = re.compile(r"-?[0-9]{1,3}")  # (a face out of 1..6 is refused by check_roll, with the face)
MAX_ROLL_TEXT = 200
