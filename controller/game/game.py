"""The game: pure, event-sourced state of one game of Yatzy, Maxi, Special 8 or Yahtzee.

A :class:`Game` is its :class:`Setup` (rule set, named players, options) plus a
list of events, as `yatzycam replay` reads them (one JSON object a line)::

    {"throw": [faces of ALL dice]}        optionally "manual": true (typed in by hand)
    {"score": "box_id"}
    {"declare": "box_id"}                 Special 8 declared throws
    {"undo": true}                        takes back the last throw, score or declare

``Game.apply`` validates an event against the rules and raises :class:`GameError`
(one line, ``user_error``) leaving the state unchanged. State is a stack of frozen
:class:`State` values, one per event in force; undo pops it, so a declared throw
that the engine scored goes back together with its score.

Banking follows the rule set's data (policy ``none`` / ``uncapped`` / ``capped``,
``cap``, ``declare``); nothing here branches on the game's name.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from controller.game import rules as R
from controller.game.rules import RuleSet, new_bank
from controller.game.view import GameView, PlayerView

MAX_PLAYERS = 6
EVENT_KINDS = ("throw", "score", "declare", "undo")


class GameError(ValueError):
    """An event the rules forbid, or a malformed one. The message is one line (English, for logs
    and command lines). A refusal a player can meet at the table also carries ``key`` and ``fill``:
    what the appliance says instead in the pad's language (controller.language.SAYINGS; box ids in
    ``fill`` are the app's to turn into the pad's labels)."""

    user_error = True

    def __init__(self, message: str, key: str | None = None, **fill: object) -> None:
        super().__init__(message)
        self.key, self.fill = key, fill


# ------------------------------------------------------------------------------ setup


@dataclass(frozen=True)
class Setup:
    """Everything fixed at the start of a game."""

    rules: RuleSet
    players: tuple[str, ...]
    forced_order: bool = False
    banking: bool = True  # False: a Maxi game without saved throws
    rules_text: str | None = field(default=None, compare=False, repr=False)  # the rule-set file as loaded

    def __post_init__(self) -> None:
        names = tuple(str(p).strip() for p in self.players)
        if not 1 <= len(names) <= MAX_PLAYERS:
            raise GameError(f"a game needs 1 to {MAX_PLAYERS} players, got {len(names)}")
        if any(not n for n in names):
            raise GameError("a player's name is empty")
        dup = sorted({n for n in names if names.count(n) > 1})
        if dup:
            raise GameError(f"two players are named {dup[0]!r}")
        object.__setattr__(self, "players", names)

    @classmethod
    def create(
        cls,
        rules: RuleSet | str,
        players: int | str | Sequence[str] | None = None,
        forced_order: bool | None = None,
        banking: bool = True,
        lang: str = "en",
    ) -> Setup:
        """Setup from loose input: ``players`` a count (2, "2") or names ("Anna,Bo", [..]); a count
        names them "Player 1"... in ``lang`` (the names are stored with the game)."""
        rs = R.load(rules) if isinstance(rules, str) else rules
        return cls(
            rules=rs,
            players=parse_players(rs.default_players if players is None else players, lang),
            forced_order=rs.forced_order if forced_order is None else bool(forced_order),
            banking=banking,
        )

    @cached_property
    def upper_faces(self) -> tuple[tuple[int, int], ...]:
        """(box index, face) of each upper box, computed once."""
        rs = self.rules
        return tuple((i, int(rs.boxes[i].param("face"))) for i in rs.upper_indices)

    @property
    def policy(self) -> str:
        """The banking policy in force: the rule set's, or "none" with banking off."""
        return self.rules.banking if self.banking else "none"

    def to_dict(self) -> dict[str, Any]:
        """Plain data for the store; keeps the rule-set text so a replay survives the file changing."""
        text = self.rules_text
        if text is None:
            try:
                text = Path(self.rules.source).read_text(encoding="utf-8")
            except OSError as e:
                raise GameError(f"{self.rules.source}: cannot read the rule set: {e.strerror or e}") from None
        return {
            "rules": self.rules.name,
            "rules_path": self.rules.source,
            "rules_text": text,
            "players": list(self.players),
            "forced_order": self.forced_order,
            "banking": self.banking,
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any], cache: dict[tuple[str, str], RuleSet] | None = None) -> Setup:
        """The setup ``to_dict`` wrote. ``cache`` (path, text) -> RuleSet spares re-parsing and table builds."""
        try:
            text = d["rules_text"]
            path = str(d.get("rules_path") or d["rules"])
            rs = cache.get((path, text)) if cache is not None else None
            if rs is None:
                rs = R.parse_ruleset(tomllib.loads(text), path)
                if cache is not None:
                    cache[(path, text)] = rs
            return cls(
                rules=rs,
                players=tuple(d["players"]),
                forced_order=bool(d.get("forced_order", False)),
                banking=bool(d.get("banking", True)),
                rules_text=text,
            )
        except (KeyError, TypeError, tomllib.TOMLDecodeError) as e:
            raise GameError(f"a stored game setup is unreadable: {type(e).__name__}: {e}") from None


#: the name of a player a count makes, by language: "Spelare 1", ...
PLAYER = {"en": "Player", "sv": "Spelare", "nb": "Spiller", "da": "Spiller"}


def parse_players(players: int | str | Sequence[str], lang: str = "en") -> tuple[str, ...]:
    """2 or "2" -> ("Player 1", "Player 2") (in ``lang``: ("Spelare 1", ...)); "Anna,Bo" -> ("Anna", "Bo")."""
    if isinstance(players, bool):
        raise GameError("players: a count or names")
    text = players.strip() if isinstance(players, str) else ""
    if text.isascii() and text.isdigit():  # a count (ASCII digits only: '²' and '٣' are names)
        if len(text) > 3:  # (int() of thousands of digits is refused, or slow)
            raise GameError(f"a game needs 1 to {MAX_PLAYERS} players, got {text if len(text) <= 12 else text[:12] + '...'}")
        players = int(text)
    if isinstance(players, int):
        n = players
        if not 1 <= n <= MAX_PLAYERS:
            raise GameError(f"a game needs 1 to {MAX_PLAYERS} players, got {n}")
        return tuple(f"{PLAYER.get(lang, PLAYER['en'])} {i}" for i in range(1, n + 1))
    if isinstance(players, str):
        return tuple(p.strip() for p in players.split(","))
    return tuple(str(p) for p in players)


# ------------------------------------------------------------------------------ state


@dataclass(frozen=True)
class PlayerState:
    boxes: tuple[int | None, ...]  # pad order; None = open
    bank: int = 0
    extra: int = 0  # Yahtzee extra-Yahtzee bonus points
    yatzys: int = 0  # scored throws with every die equal


@dataclass(frozen=True)
class Turn:
    player: int = 0
    ordinary: int = 0  # ordinary throws made
    banked: int = 0  # banked throws spent
    dice: tuple[int, ...] | None = None  # the dice as last read
    manual: bool = False
    declared: str | None = None  # Special 8: target box
    standing: tuple[int, ...] | None = None  # the dice as they lay at the declare


@dataclass(frozen=True)
class State:
    players: tuple[PlayerState, ...]
    turn: Turn
    finished: bool = False


def normalize_event(event: Any, n_dice: int) -> tuple[str, dict[str, Any]]:
    """Check an event's shape; return its kind and a clean copy."""
    if not isinstance(event, Mapping):
        kind = {type(None): "null", bool: "true or false", int: "a number", float: "a number", str: "a string",
                list: "a list"}.get(type(event), type(event).__name__)
        raise GameError(f"an event is a JSON object like {{\"throw\": [...]}}, not {kind}")
    kinds = [k for k in EVENT_KINDS if k in event]
    if len(kinds) != 1:
        raise GameError("an event needs exactly one of " + ", ".join(repr(k) for k in EVENT_KINDS))
    kind = kinds[0]
    allowed = {kind, "manual"} if kind == "throw" else {kind}
    extra = sorted(str(k) for k in event if k not in allowed)
    if extra:
        raise GameError(f"unknown key {extra[0]!r} in a {kind} event")
    v = event[kind]
    if kind == "throw":
        if not isinstance(v, (list, tuple)) or any(isinstance(f, bool) or not isinstance(f, int) for f in v):
            raise GameError("throw: a list of die faces (integers 1..6)")
        if len(v) != n_dice:
            raise GameError(f"throw: this game has {n_dice} dice, got {len(v)} faces")
        bad = [f for f in v if not 1 <= f <= 6]
        if bad:
            raise GameError(f"throw: face {bad[0]} is outside 1..6")
        manual = event.get("manual", False)
        if not isinstance(manual, bool):
            raise GameError("throw: 'manual' must be true or false")
        out: dict[str, Any] = {"throw": [int(f) for f in v]}
        if manual:
            out["manual"] = True
        return kind, out
    if kind in ("score", "declare"):
        if not isinstance(v, str) or not v:
            raise GameError(f"{kind}: a box id (a string)")
        return kind, {kind: v}
    if v is not True:
        raise GameError("undo: must be true")
    return kind, {"undo": True}


# ------------------------------------------------------------------------------- game


class Game:
    """One game: its setup, its event log, and the state those events build."""

    def __init__(self, setup: Setup, events: Iterable[Mapping[str, Any]] = (), keep_log: bool = True) -> None:
        """``keep_log=False``: the events are applied but not kept (``events`` stays empty), so that a
        replay of any length holds only the states an undo may return to."""
        self.setup = setup
        self._keep_log = keep_log
        rs = setup.rules
        start = State(
            players=tuple(PlayerState(boxes=(None,) * len(rs.boxes)) for _ in setup.players),
            turn=Turn(),
        )
        self._states: list[State] = [start]
        self._log: list[dict[str, Any]] = []
        for i, e in enumerate(events, 1):
            try:
                self.apply(e)
            except GameError as err:
                raise GameError(f"event {i}: {err}") from None

    @classmethod
    def replay(cls, setup: Setup, events: Iterable[Mapping[str, Any]]) -> Game:
        return cls(setup, events)

    def copy(self) -> Game:
        g = Game.__new__(Game)
        g.setup = self.setup
        g._states = list(self._states)
        g._log = list(self._log)
        g._keep_log = self._keep_log
        return g

    # ---------------------------------------------------------------- events
    @property
    def events(self) -> tuple[dict[str, Any], ...]:
        """Every event applied, undos included (what the store keeps)."""
        return tuple(dict(e) for e in self._log)

    @property
    def state(self) -> State:
        return self._states[-1]

    def apply(self, event: Mapping[str, Any]) -> None:
        """Apply one event; GameError (state unchanged) if it is malformed or illegal."""
        kind, ev = normalize_event(event, self.setup.rules.dice)
        if kind == "undo":
            if len(self._states) == 1:
                raise GameError("nothing to undo: this is the start of the game", "nothing_to_undo")
            self._states.pop()
        else:
            step = {"throw": _throw, "score": _score, "declare": _declare}[kind]
            self._states.append(step(self.setup, self.state, ev))
        if self._keep_log:
            self._log.append(ev)

    def check(self, event: Mapping[str, Any]) -> None:
        """Raise GameError if ``event`` would be refused; changes nothing."""
        self.copy().apply(event)

    # --------------------------------------------------------------- queries
    @property
    def rules(self) -> RuleSet:
        return self.setup.rules

    @property
    def players(self) -> tuple[str, ...]:
        return self.setup.players

    @property
    def current_player(self) -> int:
        return self.state.turn.player

    @property
    def finished(self) -> bool:
        return self.state.finished

    @property
    def dice(self) -> tuple[int, ...] | None:
        return self.state.turn.dice

    @property
    def declared(self) -> str | None:
        return self.state.turn.declared

    @property
    def standing(self) -> tuple[int, ...] | None:
        return self.state.turn.standing

    @property
    def throws_left(self) -> int:
        """Ordinary throws left this turn."""
        return 0 if self.finished else self.rules.throws - self.state.turn.ordinary

    @property
    def turn_throws(self) -> int:
        t = self.state.turn
        return t.ordinary + t.banked

    @property
    def bank(self) -> int:
        """The current player's banked throws."""
        return self.state.players[self.current_player].bank

    @property
    def can_throw(self) -> bool:
        if self.finished:
            return False
        if self.throws_left > 0:
            return True
        return self.state.turn.declared is None and self.setup.policy != "none" and self.bank > 0

    @property
    def can_score(self) -> bool:
        return not self.finished and self.state.turn.dice is not None

    @property
    def can_undo(self) -> bool:
        return len(self._states) > 1

    def open_boxes(self, player: int | None = None) -> tuple[str, ...]:
        p = self.state.players[self.current_player if player is None else player]
        return tuple(b.id for b, v in zip(self.rules.boxes, p.boxes) if v is None)

    def upper_sum(self, player: int | None = None) -> int:
        p = self.state.players[self.current_player if player is None else player]
        return _sums(self.setup, p).upper

    def yatzy_value(self, player: int | None = None) -> int | None:
        """What the rule set's Yahtzee box holds (None: open, or no such box)."""
        p = self.state.players[self.current_player if player is None else player]
        return _yatzy_value(self.rules, p)

    def totals(self) -> tuple[int, ...]:
        return tuple(_sums(self.setup, p).total for p in self.state.players)

    def bonus(self, player: int) -> int:
        return _sums(self.setup, self.state.players[player]).bonus

    @property
    def winners(self) -> tuple[str, ...]:
        """Names of the players sharing the highest total, once the game is over."""
        if not self.finished:
            return ()
        return tuple(self.players[i] for i in self.leaders())

    def leaders(self) -> tuple[int, ...]:
        totals = self.totals()
        best = max(totals)
        return tuple(i for i, t in enumerate(totals) if t == best)

    def scoring_dice(self) -> tuple[int, ...] | None:
        """The dice a score would use now: the standing result after a declare, else the last throw."""
        t = self.state.turn
        return t.standing if t.declared else t.dice

    def options(self) -> tuple[dict[str, int], int]:
        """Legal boxes now with their points, and the extra bonus scoring would earn."""
        faces = self.scoring_dice()
        if faces is None or self.finished:
            return {}, 0
        return _options(self.setup, self.state, faces)

    def stop_cost(self) -> int:
        """Banked throws lost to the cap by scoring now rather than throwing on (Special 8)."""
        t = self.state.turn
        if self.finished or t.dice is None or self.setup.policy != "capped":
            return 0
        over = self.bank + self.throws_left - (self.rules.bank_cap or 0)
        return max(0, over)

    def declare_targets(self) -> tuple[str, ...]:
        """Boxes a declare may name now (empty when a declare is not allowed)."""
        try:
            _declare_allowed(self.setup, self.state)
        except GameError:
            return ()
        opts, _ = _options(self.setup, self.state, self.state.turn.dice)  # type: ignore[arg-type]
        return tuple(opts)

    def view(self) -> GameView:
        rs = self.rules
        st = self.state
        t = st.turn
        players = tuple(
            PlayerView(
                name=name,
                boxes=p.boxes,
                upper=sums.upper,
                bonus=sums.bonus,
                bonus_pace=sums.pace,
                total=sums.total,
                bank=p.bank,
                extra_bonus=p.extra,
            )
            for name, p, sums in zip(self.players, st.players, (_sums(self.setup, p) for p in st.players))
        )
        totals = [pv.total for pv in players]
        leaders = tuple(i for i, t in enumerate(totals) if t == max(totals))
        opts, extra = self.options()
        targets = self.declare_targets()
        filled = sum(v is not None for v in st.players[t.player].boxes)
        return GameView(
            rules=rs,
            players=players,
            current=t.player,
            turn_throws=t.ordinary + t.banked,
            throws_left=self.throws_left,
            bank=st.players[t.player].bank,
            dice=t.dice,
            options=tuple(opts.items()),
            extra_bonus_now=extra,
            stop_cost=self.stop_cost(),
            can_declare=bool(targets),
            declared=t.declared,
            standing=t.standing,
            leaders=leaders,
            finished=st.finished,
            winners=tuple(self.players[i] for i in leaders) if st.finished else (),
            round=min(filled + 1, len(rs.boxes)),
            forced_order=self.setup.forced_order,
            banking=self.setup.policy != "none",
            manual=t.manual,
            can_throw=self.can_throw,
            can_score=self.can_score,
            declare_targets=targets,
            banked_throws=t.banked,
            can_undo=self.can_undo,
        )

    def to_json(self) -> dict[str, Any]:
        """The final-state JSON of ``yatzycam replay`` (shape fixed by the issue)."""
        rs = self.rules
        return {
            "players": [
                {
                    "name": name,
                    "boxes": {b.id: v for b, v in zip(rs.boxes, p.boxes)},
                    "upper": sums.upper,
                    "bonus": sums.bonus,
                    "total": sums.total,
                    "bank": p.bank,
                }
                for name, p, sums in zip(self.players, self.state.players, (_sums(self.setup, p) for p in self.state.players))
            ],
            "current_player": self.current_player,
            "finished": self.finished,
            "winners": list(self.winners),
        }

    def summary(self) -> list[dict[str, Any]]:
        """Per-player figures for the history: total, bonus, extra bonus, yatzys, boxes."""
        rs = self.rules
        lead = set(self.leaders())
        return [
            {
                "name": name,
                "total": sums.total,
                "upper": sums.upper,
                "bonus": sums.bonus,
                "extra_bonus": p.extra,
                "yatzys": p.yatzys,
                "bank": p.bank,
                "winner": self.finished and i in lead,
                "boxes": {b.id: v for b, v in zip(rs.boxes, p.boxes)},
            }
            for i, (name, p) in enumerate(zip(self.players, self.state.players))
            for sums in (_sums(self.setup, p),)
        ]


# ------------------------------------------------------------------- pure helpers


@dataclass(frozen=True)
class Sums:
    upper: int  # sum of the filled upper boxes
    bonus: int  # upper bonus paid
    pace: float  # bonus pace: sum over filled upper boxes of (score - par x face)
    total: int  # boxes + bonus + extra bonuses


def _sums(setup: Setup, p: PlayerState) -> Sums:
    rs = setup.rules
    par = rs.bonus_par
    upper = 0
    pace = 0.0
    for i, face in setup.upper_faces:
        v = p.boxes[i]
        if v is not None:
            upper += v
            pace += v - par * face
    bonus = rs.bonus_points if rs.bonus_threshold and upper >= rs.bonus_threshold else 0
    return Sums(upper=upper, bonus=bonus, pace=round(pace, 2), total=sum(v or 0 for v in p.boxes) + bonus + p.extra)


def _yatzy_value(rs: RuleSet, p: PlayerState) -> int | None:
    if rs.yatzy_box is None:
        return None
    return p.boxes[rs.box_index(rs.yatzy_box)]


def _open_ids(rs: RuleSet, p: PlayerState) -> list[str]:
    return [b.id for b, v in zip(rs.boxes, p.boxes) if v is None]


def _options(setup: Setup, st: State, faces: Sequence[int]) -> tuple[dict[str, int], int]:
    rs = setup.rules
    p = st.players[st.turn.player]
    return rs.options(faces, _open_ids(rs, p), _yatzy_value(rs, p), setup.forced_order)


def _check_box(rs: RuleSet, p: PlayerState, box: str, what: str) -> int:
    if box not in rs.box_ids:
        raise GameError(f"{what}: no box {box!r} in {rs.name} (boxes: {', '.join(rs.box_ids)})")
    i = rs.box_index(box)
    if p.boxes[i] is not None:
        raise GameError(f"{what}: {box} is already filled ({p.boxes[i]} points)", "box_filled", box=box, points=p.boxes[i])
    return i


def _refusal(what: str, setup: Setup, st: State, faces: Sequence[int], box: str, opts: Mapping[str, int]) -> GameError:
    """Why ``box`` cannot take ``faces`` (``what``: the event's kind)."""
    rs = setup.rules
    p = st.players[st.turn.player]
    if setup.forced_order:
        nxt = next(iter(opts))
        return GameError(f"{what}: forced order: the next box is {nxt}, not {box}", "forced_order", box=nxt)
    if rs.joker and _yatzy_value(rs, p) is not None and len(set(faces)) == 1:
        return GameError(f"{what}: joker rule: this roll must go in {', '.join(opts)}", "joker", boxes=tuple(opts))
    return GameError(f"{what}: {box} cannot take this roll", "cannot_take", box=box)


def _fill(setup: Setup, st: State, box: str, faces: Sequence[int], points: int, extra: int) -> State:
    """Write ``points`` in ``box`` for the current player, bank the unused throws, pass the turn."""
    rs = setup.rules
    t = st.turn
    p = st.players[t.player]
    boxes = list(p.boxes)
    boxes[rs.box_index(box)] = points
    unused = rs.throws - t.ordinary
    p2 = PlayerState(
        boxes=tuple(boxes),
        bank=new_bank(setup.policy, rs.bank_cap, p.bank, unused),
        extra=p.extra + extra,
        yatzys=p.yatzys + (1 if len(set(faces)) == 1 else 0),
    )
    players = st.players[: t.player] + (p2,) + st.players[t.player + 1 :]
    finished = all(v is not None for q in players for v in q.boxes)
    nxt = t.player if finished else (t.player + 1) % len(players)
    return State(players=players, turn=Turn(player=nxt), finished=finished)


def _throw(setup: Setup, st: State, ev: dict[str, Any]) -> State:
    rs = setup.rules
    if st.finished:
        raise GameError("throw: the game is over", "game_over")
    faces = tuple(ev["throw"])
    manual = bool(ev.get("manual", False))
    t = st.turn
    p = st.players[t.player]
    if t.ordinary < rs.throws:
        t2 = replace(t, ordinary=t.ordinary + 1, dice=faces, manual=manual)
        players = st.players
    elif t.declared is not None:
        raise GameError(f"throw: no ordinary throws left after the declare on {t.declared}: score the standing result",
                        "declared_no_throws", box=t.declared)
    elif setup.policy != "none" and p.bank > 0:
        t2 = replace(t, banked=t.banked + 1, dice=faces, manual=manual)
        players = st.players[: t.player] + (replace(p, bank=p.bank - 1),) + st.players[t.player + 1 :]
    else:
        why = "and the bank is empty" if setup.policy != "none" else f"({rs.throws} a turn)"
        raise GameError(f"throw: no throws left {why}: score a box", "no_throws_left")
    st2 = State(players=players, turn=t2)
    if t.declared is not None:
        target = t.declared
        new, extra = _options(setup, st2, faces)
        old, _ = _options(setup, st2, t.standing or faces)
        if target in new and new[target] > old.get(target, 0):
            return _fill(setup, st2, target, faces, new[target], extra)
    return st2


def _score(setup: Setup, st: State, ev: dict[str, Any]) -> State:
    rs = setup.rules
    box = ev["score"]
    if st.finished:
        raise GameError("score: the game is over", "game_over")
    t = st.turn
    if t.dice is None:
        raise GameError("score: throw first (a turn needs at least one throw)", "throw_first")
    _check_box(rs, st.players[t.player], box, "score")
    faces = t.standing if t.declared else t.dice
    assert faces is not None
    opts, extra = _options(setup, st, faces)
    if box not in opts:
        raise _refusal("score", setup, st, faces, box, opts)
    return _fill(setup, st, box, faces, opts[box], extra)


def _declare_allowed(setup: Setup, st: State) -> None:
    rs = setup.rules
    if not rs.declare:
        raise GameError(f"declare: declared throws are not a rule of {rs.name}")
    if setup.policy != "capped":
        raise GameError("declare: banking is off, so no throw can be lost to the cap")
    if st.finished:
        raise GameError("declare: the game is over", "game_over")
    t = st.turn
    if t.dice is None:
        raise GameError("declare: throw first (a declare comes after the 1st or 2nd throw)", "throw_first")
    if t.declared is not None:
        raise GameError(f"declare: already declared {t.declared} this turn")
    if t.banked or t.ordinary >= rs.throws:
        raise GameError("declare: only before the last ordinary throw")
    bank = st.players[t.player].bank
    unused = rs.throws - t.ordinary
    if bank + unused <= (rs.bank_cap or 0):
        raise GameError(f"declare: stopping now loses no banked throw (bank {bank} + {unused} unused <= {rs.bank_cap})")


def _declare(setup: Setup, st: State, ev: dict[str, Any]) -> State:
    rs = setup.rules
    box = ev["declare"]
    _declare_allowed(setup, st)
    t = st.turn
    assert t.dice is not None
    _check_box(rs, st.players[t.player], box, "declare")
    opts, _ = _options(setup, st, t.dice)
    if box not in opts:
        raise _refusal("declare", setup, st, t.dice, box, opts)
    return replace(st, turn=replace(t, declared=box, standing=t.dice))
