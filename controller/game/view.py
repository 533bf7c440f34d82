"""What the screen and the LEDs show: plain, frozen data derived from a Game.

``controller.game.game`` builds a :class:`GameView` from its state; ``controller.screen.scoreboard``
draws it; ``hardware.panel`` lights LEDs from ``throws_left`` and ``bank``. The app
adds what only it knows (the reroll notice, advice) with ``dataclasses.replace``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from controller.game.rules import RuleSet


@dataclass(frozen=True)
class PlayerView:
    name: str
    boxes: tuple[int | None, ...]  # points per box in pad order; None = open
    upper: int  # sum of the filled upper boxes
    bonus: int  # upper bonus paid (0 until reached)
    bonus_pace: float  # sum over filled upper boxes of (score - par x face)
    total: int  # boxes + bonus + extra bonuses
    bank: int  # banked throws
    extra_bonus: int = 0  # Yahtzee's extra-Yahtzee bonuses, included in total


@dataclass(frozen=True)
class GameView:
    rules: RuleSet
    players: tuple[PlayerView, ...]
    current: int  # index of the player whose turn it is (last player when finished)
    turn_throws: int  # throws made this turn (ordinary + banked)
    throws_left: int  # ordinary throws left this turn
    bank: int  # the current player's bank (banked throws usable after the ordinary ones)
    dice: tuple[int, ...] | None  # the dice as last read this turn; None before the first throw
    options: tuple[tuple[str, int], ...] = ()  # box id -> points it would score now (legal boxes only)
    extra_bonus_now: int = 0  # Yahtzee extra bonus that scoring now would earn
    stop_cost: int = 0  # banked throws lost to the cap if the player stops now (Special 8)
    can_declare: bool = False
    declared: str | None = None  # Special 8: the declared target box
    standing: tuple[int, ...] | None = None  # Special 8: the dice as they lay at the declare
    leaders: tuple[int, ...] = ()  # indices of the players in the lead
    finished: bool = False
    winners: tuple[str, ...] = ()
    round: int = 1  # 1-based round (box) number of the current turn
    forced_order: bool = False
    banking: bool = True
    manual: bool = False  # the last dice were entered by hand
    notice: str | None = None  # e.g. "die off the tray - throw again" (set by the app)
    seen: tuple[int | None, ...] | None = None  # the dice row instead of `dice` (set by the app): a reroll's dice as the camera saw them, left to right, or the dice being entered by hand; None for a die not read / not set
    advice: str | None = None  # e.g. "keep 5 5 5, throw 3" (set by the app when the advisor is on)
    extras: tuple[tuple[str, str], ...] = field(default=())  # anything else the app wants logged
    # added by controller.game.game (issue 3); defaults keep older constructors working
    can_throw: bool = True  # a throw is allowed now (ordinary, or banked after the ordinary ones)
    can_score: bool = False  # a score is allowed now (at least one throw this turn)
    declare_targets: tuple[str, ...] = ()  # boxes a declare may name now (Special 8)
    banked_throws: int = 0  # banked throws spent this turn
    can_undo: bool = False  # there is an event to take back

    @property
    def option_map(self) -> dict[str, int]:
        return dict(self.options)

    @property
    def player(self) -> PlayerView:
        return self.players[self.current]


def face_text(d: int | None) -> str:
    """A die's face as text: "?" for one not read (or not set yet)."""
    return "?" if d is None else str(d)


def dice_text(dice: Iterable[int | None]) -> str:
    """Dice as text, in their order: "6 6 ? 1 6"."""
    return " ".join(map(face_text, dice))
