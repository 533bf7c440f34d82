"""The scoreboard: a :class:`~controller.game.view.GameView` drawn for the small screen, and as text.

``render(view, size=(w, h), lang="sv", page=0)`` returns a numpy RGB uint8 array of
shape (h, w, 3); ``render_image`` the same as a PIL image; ``render_text(view, lang)``
the same content as plain text for a terminal and for logs.

How a screen is laid out (``layout``): a *status* area (whose turn, the round, the
dice drawn as dice, ordinary throws left and the bank, the reroll notice, advice,
the winner) and the *pad* (boxes x players with upper sum, bonus or bonus pace,
total). In landscape the status area is a panel on the right or a band on top, in
portrait a band on top. The pad is tried, best first, as

1. every player's column ("full"), in 1, 2 or 3 columns of boxes;
2. the current player's column only ("focus"), the others' totals as extra rows;
3. the same over several pages (``page`` picks one; ``page_count`` tells how many),
   with the totals repeated on every page;

and the first candidate whose text is at least ``min_text_px(size)`` pixels
(the font's em size: 18 px below 480 px of height or width, else 24 px) wins; among
equals the larger font wins. Labels fall back from the rule set's full label to
its short label, then are cut with an ellipsis.

The layout is plain data (:class:`Layout`: every rectangle, text with the cell it
must stay inside, and die), so tests check real geometry, and ``draw`` paints it
with a bundled TrueType font (DejaVu Sans Condensed, ``controller/screen/fonts``).
"""

from __future__ import annotations

import functools
import math
import random
from dataclasses import dataclass, replace
from pathlib import Path
from types import MappingProxyType
from typing import Iterable, Sequence

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from controller.game.view import GameView, PlayerView, dice_text

FONTS = Path(__file__).resolve().parent / "fonts"
FONT_REGULAR = FONTS / "DejaVuSansCondensed.ttf"
FONT_BOLD = FONTS / "DejaVuSansCondensed-Bold.ttf"

SIZES: tuple[tuple[int, int], ...] = ((480, 320), (800, 480), (1024, 600), (1280, 720))
"""The panel sizes the layouts are made for (landscape; portrait is (h, w))."""

RGB = tuple[int, int, int]
Rect = tuple[int, int, int, int]  # x0, y0, x1, y1 (exclusive)

BG: RGB = (16, 20, 28)
PANEL: RGB = (26, 32, 44)
STRIPE: RGB = (24, 29, 40)
GRID: RGB = (58, 66, 82)
TEXT: RGB = (236, 238, 242)
MUTED: RGB = (150, 158, 172)
CURRENT_COL: RGB = (28, 52, 96)
CURRENT_HEAD: RGB = (59, 130, 246)
OPTION: RGB = (250, 204, 21)
OPTION_ZERO: RGB = (150, 128, 60)
GOOD: RGB = (74, 222, 128)
BAD: RGB = (248, 113, 113)
LEADER: RGB = (146, 96, 10)
NOTICE_BG: RGB = (185, 28, 28)  # "throw again" and errors: a solid red bar, bold
MENU_BG: RGB = (30, 41, 59)  # a menu or the dice editor: a dark panel in a light frame, regular weight
MENU_EDGE: RGB = (148, 163, 184)
MENU_MARK = "\u25b8"
ADVICE: RGB = (103, 232, 249)
WINNER_BG: RGB = (22, 101, 52)
DIE: RGB = (248, 246, 238)
DIE_EDGE: RGB = (120, 120, 120)
PIP: RGB = (20, 20, 20)
DIE_EMPTY: RGB = (70, 78, 94)

STAR = "\u2605"
ELLIPSIS = "\u2026"
REF_PX = 100  # text widths are measured once at this size and scaled
HINTING = 1.04  # room for a label being a little wider at another size than the scaled width says (hinting)

WORDS = MappingProxyType(
    {
        "sv": MappingProxyType(
            {"sum": "Summa", "bonus": "Bonus", "total": "Totalt", "round": "Runda", "throws": "Slag kvar",
             "bank": "Sparade", "winner": "Vinnare", "winners": "Vinnare", "over": "Spelet är slut",
             "throw": "Kasta!", "declared": "Deklarerat", "stop": "Stopp nu", "manual": "för hand",
             "extra": "Yatzybonus", "turn": "Tur", "leads": "leder", "page": "sida", "dice": "Tärningar",
             "advice": "Råd", "options": "val", "seen": "Sett"}
        ),
        "nb": MappingProxyType(
            {"sum": "Sum", "bonus": "Bonus", "total": "Total", "round": "Runde", "throws": "Kast igjen",
             "bank": "Spart", "winner": "Vinner", "winners": "Vinnere", "over": "Spillet er over",
             "throw": "Kast!", "declared": "Erklært", "stop": "Stopp nå", "manual": "for hånd",
             "extra": "Yatzybonus", "turn": "Tur", "leads": "leder", "page": "side", "dice": "Terninger",
             "advice": "Råd", "options": "valg", "seen": "Sett"}
        ),
        "da": MappingProxyType(
            {"sum": "Sum", "bonus": "Bonus", "total": "Total", "round": "Runde", "throws": "Slag tilbage",
             "bank": "Gemte", "winner": "Vinder", "winners": "Vindere", "over": "Spillet er slut",
             "throw": "Slå!", "declared": "Meldt", "stop": "Stop nu", "manual": "i hånden",
             "extra": "Yatzybonus", "turn": "Tur", "leads": "fører", "page": "side", "dice": "Terninger",
             "advice": "Råd", "options": "valg", "seen": "Set"}
        ),
        "en": MappingProxyType(
            {"sum": "Sum", "bonus": "Bonus", "total": "Total", "round": "Round", "throws": "Throws left",
             "bank": "Banked", "winner": "Winner", "winners": "Winners", "over": "Game over",
             "throw": "Throw!", "declared": "Declared", "stop": "Stop now", "manual": "by hand",
             "extra": "Yahtzee bonus", "turn": "Turn", "leads": "leads", "page": "page", "dice": "Dice",
             "advice": "Advice", "options": "options", "seen": "Seen"}
        ),
    }
)


class ScoreboardError(ValueError):
    """A screen size the scoreboard cannot be laid out on (one line for the user)."""

    user_error = True


def words(lang: str) -> MappingProxyType:
    return WORDS.get(lang, WORDS["en"])


def min_text_px(size: tuple[int, int]) -> int:
    """The smallest font size (em, px) a layout may use: 18 on 480x320-class panels, 24 from 800x480 up."""
    return 18 if min(size) < 480 else 24


@functools.lru_cache(maxsize=128)
def font(px: int, bold: bool = False) -> ImageFont.FreeTypeFont:
    """The bundled DejaVu Sans Condensed at ``px`` pixels (a cache of immutable font objects)."""
    return ImageFont.truetype(str(FONT_BOLD if bold else FONT_REGULAR), px)


@functools.lru_cache(maxsize=16384)
def text_width(text: str, px: int, bold: bool = False) -> float:
    """Advance width of ``text`` in pixels (memoised: the same labels are measured every frame)."""
    return font(px, bold).getlength(text)


@functools.lru_cache(maxsize=8192)
def text_mask(text: str, px: int, bold: bool, anchor: str) -> tuple[Image.Image, int, int]:
    """``text`` rendered once as an 8-bit coverage mask, with its offset from the anchor point
    (memoised: labels and small numbers repeat every frame; pasting a mask is cheaper than FreeType)."""
    f = font(px, bold)
    x0, y0, x1, y1 = f.getbbox(text, anchor=anchor)
    m = Image.new("L", (max(1, x1 - x0), max(1, y1 - y0)), 0)
    ImageDraw.Draw(m).text((-x0, -y0), text, fill=255, font=f, anchor=anchor)
    return m, x0, y0


def fit_text(text: str, width: float, px: int, bold: bool = False) -> str:
    """``text`` cut with an ellipsis to fit ``width`` pixels ("" when not even one letter fits)."""
    if text_width(text, px, bold) <= width:
        return text
    lo, hi = 0, len(text)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if text_width(text[:mid].rstrip() + ELLIPSIS, px, bold) <= width:
            lo = mid
        else:
            hi = mid - 1
    return text[:lo].rstrip() + ELLIPSIS if lo else ""


def wrap_text(text: str, width: float, px: int, max_lines: int, bold: bool = False) -> list[str]:
    """Greedy word wrap to ``width``, at most ``max_lines`` lines; what does not fit ends in an ellipsis."""
    lines: list[str] = []
    cur = ""
    for w in text.split():
        cand = f"{cur} {w}" if cur else w
        if not cur or text_width(cand, px, bold) <= width:
            cur = cand
        else:
            lines.append(cur)
            cur = w
    if cur:
        lines.append(cur)
    if len(lines) > max_lines:
        lines = lines[:max_lines] if max_lines <= 0 else lines[: max_lines - 1] + [" ".join(lines[max_lines - 1 :])]
    return [fit_text(line, width, px, bold) for line in lines]


# ----------------------------------------------------------------------- layout data


@dataclass(frozen=True)
class TextItem:
    text: str
    xy: tuple[int, int]
    anchor: str  # PIL anchor: "lm" left-middle, "rm" right-middle, "mm" centred
    px: int
    bold: bool
    color: RGB
    cell: Rect  # the rectangle the text must stay inside
    role: str  # label, value, option, header, sum, bonus, total, other, status, notice, advice, winner


@dataclass(frozen=True)
class RectItem:
    rect: Rect
    fill: RGB
    role: str
    radius: int = 0
    outline: int = 0  # > 0: only a frame this many pixels wide, in ``fill``


@dataclass(frozen=True)
class DieItem:
    rect: Rect  # a square
    value: int | None  # None: an empty place (before the first throw), or a die the camera did not read
    doubt: bool = False  # a die the camera saw but did not read, or not set yet by hand: drawn red with "?"


@dataclass(frozen=True)
class Layout:
    size: tuple[int, int]
    min_px: int
    pad_px: int  # the pad's font size
    status_px: int  # the status area's font size
    mode: str  # "full" (every player's column) or "focus" (the current player's column + others' totals)
    columns: int  # columns of boxes
    status: str  # "side" or "band"
    page: int
    pages: int
    rects: tuple[RectItem, ...]
    texts: tuple[TextItem, ...]
    dice: tuple[DieItem, ...]
    highlights: tuple[Rect, ...]  # the current player's header cells (one per column of boxes; none at the end)
    box_ids: tuple[str, ...]  # the boxes shown on this page

    @property
    def smallest_px(self) -> int:
        return min(t.px for t in self.texts)


# ----------------------------------------------------------------------- pad model


@dataclass(frozen=True)
class _Cell:
    text: str
    color: RGB = TEXT
    bold: bool = False
    bg: RGB | None = None
    role: str = "value"


@dataclass(frozen=True)
class _Row:
    kind: str  # box, sum, bonus, extra, total, other
    label: str
    short: str
    cells: tuple[_Cell, ...]  # one per shown player column
    box_id: str | None = None
    label_color: RGB = TEXT
    label_bold: bool = False
    rule_above: bool = False  # a separator line above the row


def _focus(view: GameView) -> int:
    """The player whose column a one-column pad shows: the player to move, or at the end the winner."""
    return view.leaders[0] if view.finished and view.leaders else view.current


def _pace_text(p: PlayerView, upper_done: bool, bonus_points: int) -> _Cell:
    if p.bonus:
        return _Cell(str(p.bonus), TEXT, role="bonus")
    if upper_done:
        return _Cell("0", MUTED, role="bonus")
    pace = int(math.floor(p.bonus_pace + 0.5)) if p.bonus_pace >= 0 else -int(math.floor(-p.bonus_pace + 0.5))
    if pace == 0:
        return _Cell("\u00b10", MUTED, role="pace")
    return _Cell(f"{pace:+d}".replace("-", "\u2212"), GOOD if pace > 0 else BAD, bold=True, role="pace")


def _pad_rows(view: GameView, lang: str, mode: str) -> tuple[list[_Row], list[_Row]]:
    """(rows in pad order, rows pinned to every page: total and, in focus mode, the others)."""
    rs = view.rules
    W = words(lang)
    shown = list(range(len(view.players))) if mode == "full" else [_focus(view)]
    opts = view.option_map if not view.finished and view.dice is not None else {}
    upper_idx = set(rs.upper_indices)
    last_upper = max(upper_idx) if upper_idx else -1
    rows: list[_Row] = []
    for i, box in enumerate(rs.boxes):
        cells = []
        for p in shown:
            v = view.players[p].boxes[i]
            if v is not None:
                cells.append(_Cell(str(v)))
            elif p == view.current and box.id in opts:
                pts = opts[box.id]
                cells.append(_Cell(str(pts), OPTION if pts else OPTION_ZERO, bold=bool(pts), role="option"))
            else:
                cells.append(_Cell(""))
        declared = view.declared == box.id
        rows.append(
            _Row("box", box.label(lang), box.short_label(lang), tuple(cells), box.id,
                 label_color=OPTION if declared else TEXT, label_bold=declared,
                 rule_above=(i == last_upper + 1 and i > 0))
        )
        if i == last_upper:
            upper_done = [all(view.players[p].boxes[j] is not None for j in upper_idx) for p in shown]
            rows.append(_Row("sum", W["sum"], W["sum"], tuple(_Cell(str(view.players[p].upper), role="sum") for p in shown),
                             label_color=MUTED, rule_above=True))
            lab = f"{W['bonus']} ({rs.bonus_threshold})"
            rows.append(_Row("bonus", lab, W["bonus"],
                             tuple(_pace_text(view.players[p], d, rs.bonus_points) for p, d in zip(shown, upper_done)),
                             label_color=MUTED))
    if rs.extra_bonus:
        rows.append(_Row("extra", W["extra"], W["extra"],
                         tuple(_Cell(str(view.players[p].extra_bonus) if view.players[p].extra_bonus else "") for p in shown),
                         label_color=MUTED, rule_above=True))
    leaders = set(view.leaders)
    pinned = [
        _Row("total", W["total"], W["total"],
             tuple(_Cell(str(view.players[p].total), TEXT, True, LEADER if p in leaders else None, "total") for p in shown),
             label_bold=True, rule_above=True)
    ]
    if mode == "focus":
        for p, pl in enumerate(view.players):
            if p == shown[0]:
                continue
            name = (STAR + " " if p in leaders else "") + pl.name
            pinned.append(_Row("other", name, name, (_Cell(str(pl.total), TEXT, True, LEADER if p in leaders else None, "other"),),
                               label_color=MUTED, rule_above=not any(r.kind == "other" for r in pinned)))
    return rows, pinned


# ----------------------------------------------------------------------- fitting


@dataclass(frozen=True)
class _Candidate:
    status: float  # side panel width / W; 0 = a band on top
    mode: str
    columns: int
    px: int
    pages: int
    use_short: bool
    label_ref: float  # width of the label column at REF_PX
    status_rect: Rect
    pad_rect: Rect
    status_px: int
    min_px: int


def _row_h(px: int) -> int:
    return int(round(px * 1.3))


def _pad_x(px: int) -> int:
    return max(3, px // 5)


def _label_bold(r: _Row) -> bool:
    return r.label_bold or r.kind == "total"


def _widths(rows: Sequence[_Row], short: bool) -> float:
    """Widest label at REF_PX (the others' names in focus mode are cut to fit instead)."""
    return max(text_width(r.short if short else r.label, REF_PX, _label_bold(r)) for r in rows if r.kind != "other")


def _value_ref(rules=None) -> float:
    """Width of the widest value at REF_PX: three digits or a signed pace (bold), and a four-digit
    total only for a rule set whose total can reach 1000 (Yahtzee's extra bonuses)."""
    widest = max(text_width("888", REF_PX, True), text_width("\u221288", REF_PX, True))
    if rules is None or rules.max_total(True) >= 1000:
        widest = max(widest, text_width("8888", REF_PX))
    return widest


def _status_lines(view: GameView, lang: str) -> dict[str, object]:
    W = words(lang)
    rs = view.rules
    out: dict[str, object] = {}
    if view.finished:
        names = ", ".join(view.winners) if view.winners else ""
        out["title"] = W["over"]
        out["winner"] = f"{W['winners'] if len(view.winners) > 1 else W['winner']}: {names}"
    else:
        out["title"] = view.player.name
        out["round"] = f"{W['round']} {view.round}/{len(rs.boxes)}"
        parts = [f"{W['throws']} {view.throws_left}"]
        if view.banking and rs.banking != "none":
            parts.append(f"{W['bank']} {view.bank}")
        out["throws"] = parts
        extra = []
        if view.declared:
            extra.append(f"{W['declared']}: {rs.box(view.declared).short_label(lang)}")
        if view.stop_cost:
            extra.append(f"{W['stop']}: \u2212{view.stop_cost} {W['bank'].lower()}")
        if view.manual:
            extra.append(f"({W['manual']})")
        out["extra"] = extra
    return out


def _status_height(view: GameView, lang: str, width: int, px: int, die: int, max_lines: int,
                   hints: bool = True) -> int:
    """Height the status area needs at font ``px`` with dice of side ``die`` (``hints``: with them)."""
    items, used = _status_items(view, lang, (0, 0, width, 10_000), px, die, max_lines, hints)
    return used


def _dice_grid(n: int, width: int, die: int) -> tuple[int, int]:
    """(per row, rows) for n dice of side ``die`` in ``width``."""
    gap = max(2, die // 6)
    per_row = max(1, min(n, (width + gap) // (die + gap)))
    return per_row, math.ceil(n / per_row)


def _choose_status(view: GameView, lang: str, W: int, H: int, side: float, px: int) -> tuple[Rect, int, int]:
    """The status rectangle (a right-hand panel ``side`` x W wide, or with side=0 a band on top),
    its die size and its max wrapped lines of advice."""
    n = max(view.rules.dice, len(view.seen or ()))  # a reroll may show a die more than the game has
    if side:
        sw = int(round(W * side))
        inner = sw - 2 * _pad_x(px)
        # the biggest die that lets every line fit (a notice that does not fit with the hints
        # takes their room: _status_items)
        for hints in (True, False) if view.notice else (True,):
            for max_lines in (3, 2, 1, 0):
                base = _status_height(view, lang, sw, px, 0, max_lines, hints)  # with zero-size dice in one row
                for die in range(min(inner, int(px * 2.2)), int(px * 1.2) - 1, -2):
                    per_row, rows = _dice_grid(n, inner, die)
                    if view.finished or base + rows * (die + max(2, die // 6)) <= H:
                        return (W - sw, 0, W, H), die, max_lines
        return (W - sw, 0, W, H), int(px * 1.2), 1
    inner = W - 2 * _pad_x(px)
    gap_factor = 1.2
    die = int(min(px * 2.4, inner / (n * gap_factor)))
    die = max(die, int(px * 1.2))
    max_lines = 2
    h = _status_height(view, lang, W, px, die, max_lines)
    while h > H * 0.45 and max_lines:
        max_lines -= 1
        h = _status_height(view, lang, W, px, die, max_lines)
    return (0, 0, W, min(h, H)), die, max_lines


def _fits(rows: int, pinned: int, cols: int, n_vals: int, label_ref: float, val_ref: float, rect: Rect, px: int,
          name_px: float = 0.0) -> int:
    """Pages needed (0: does not fit at all) for ``rows`` + ``pinned`` in ``cols`` columns at ``px``;
    ``name_px``: the widest player name's width at the smallest font (a column is never narrower)."""
    x0, y0, x1, y1 = rect
    w, h = x1 - x0, y1 - y0
    gap = px // 2
    col_w = (w - (cols - 1) * gap) / cols
    pad = 2 * _pad_x(px)
    need_w = HINTING * label_ref * px / REF_PX + pad + n_vals * (max(val_ref * px / REF_PX, name_px) + pad)
    if need_w > col_w:
        return 0
    per_col = h // _row_h(px) - 1  # one header row per column
    if per_col < 1:
        return 0
    if math.ceil((rows + pinned) / cols) <= per_col:
        return 1
    cap = per_col * cols - pinned
    if cap < 1:
        return 0
    return math.ceil(rows / cap)


SIDE_WIDTHS = (0.24, 0.26, 0.32)  # a side panel's widths tried, as shares of the screen's width
SIDE_MAX = 0.4  # a side panel never takes more of the width than this (else the status goes on top)


def status_strings(view: GameView, lang: str) -> list[tuple[str, bool]]:
    """The status lines that are drawn on one line each (text, bold), at their widest for this game's
    phase (the most rounds, throws and a two-digit bank), so that the panel does not change width as
    the game goes on. Player names and the app's messages are not among them (those wrap or are cut)."""
    Wd = words(lang)
    rs = view.rules
    if view.finished:
        return [(Wd["over"], True)]
    n = len(rs.boxes)
    out = [(f"{Wd['round']} {n}/{n}", False), (f"{Wd['throws']} {rs.throws}", False), (Wd["throw"], True)]
    if rs.banking != "none":
        out.append((f"{Wd['bank']} 88", False))
    return out


def status_need(view: GameView, lang: str, px: int) -> int:
    """Width in pixels a status panel needs at font ``px`` so that every one-line status text fits."""
    widest = max(text_width(t, px, bold) for t, bold in status_strings(view, lang))
    return int(math.ceil(HINTING * widest)) + 2 * _pad_x(px)


def _side_widths(view: GameView, lang: str, W: int, px: int) -> tuple[float, ...]:
    """The side panel's widths (shares of W) wide enough for the status texts: the usual ones that are,
    or the measured need itself when it is narrower than SIDE_MAX, or none."""
    need = status_need(view, lang, px) / W
    ok = tuple(s for s in SIDE_WIDTHS if s >= need)
    if not ok and need <= SIDE_MAX:
        ok = (math.ceil(need * 1000) / 1000,)
    return ok


def _candidates(view: GameView, lang: str, size: tuple[int, int], pad_rows: dict[str, tuple[list[_Row], list[_Row]]]
                ) -> list[_Candidate]:
    W, H = size
    min_px = min_text_px(size)
    status_px = max(min_px, int(round(min(W, H) / 20)))
    max_px = int(round(min_px * 1.75))
    val_ref = _value_ref(view.rules)
    out: list[_Candidate] = []
    statuses = _side_widths(view, lang, W, status_px) + (0.0,) if W > H else (0.0,)
    modes = tuple(pad_rows)
    pads = {}
    for mode, (rows, pinned) in pad_rows.items():
        pads[mode] = (len(rows), len(pinned), _widths(rows + pinned, False), _widths(rows + pinned, True))
    # a lone column's head may reach over the label column's (empty) head: only several players' names need the room
    names = {"full": max(text_width(p.name, min_px, True) for p in view.players) if len(view.players) > 1 else 0.0, "focus": 0.0}
    for names_fit in (True, False):  # player names never cut, unless nothing else fits
        out = _candidates_for(view, lang, size, pads, statuses, modes, val_ref, min_px, max_px, status_px,
                              names if names_fit else {"full": 0.0, "focus": 0.0})
        if out:
            break
    return out


def _candidates_for(view, lang, size, pads, statuses, modes, val_ref, min_px, max_px, status_px, names) -> list[_Candidate]:
    W, H = size
    out: list[_Candidate] = []
    for status in statuses:
        srect, _, _ = _choose_status(view, lang, W, H, status, status_px)
        if status:
            prect = (0, 0, srect[0], H)
        else:
            prect = (0, srect[3], W, H)
        if prect[2] - prect[0] < 50 or prect[3] - prect[1] < 50:
            continue
        for mode in modes:
            n_rows, n_pinned, label_full, label_short = pads[mode]
            n_vals = len(view.players) if mode == "full" else 1
            for cols in (1, 2, 3):
                # last resort (a narrow screen): labels cut with an ellipsis to a third of a column
                col_w = (prect[2] - prect[0]) / cols
                cut = min(label_short, (col_w / 3) * REF_PX / min_px)
                for short, lref in ((False, label_full), (True, label_short), (True, min(cut, label_short - 0.01))):
                    # fewest pages (those at the smallest font), then the biggest font giving them: a bigger
                    # font never needs fewer pages, so the biggest is found by bisection
                    pages = _fits(n_rows, n_pinned, cols, n_vals, lref, val_ref, prect, min_px, names[mode])
                    if not pages:
                        continue
                    lo, hi = min_px, max_px
                    while lo < hi:
                        mid = (lo + hi + 1) // 2
                        if _fits(n_rows, n_pinned, cols, n_vals, lref, val_ref, prect, mid, names[mode]) == pages:
                            lo = mid
                        else:
                            hi = mid - 1
                    out.append(_Candidate(status, mode, cols, lo, pages, short, lref, srect, prect, status_px, min_px))
    return out


def _pick(cands: list[_Candidate], pads: dict[str, float]) -> _Candidate:
    """The best candidate: one page (a page flip hides half the pad), labels not cut, every player's
    column, the bigger font, ..."""

    def key(c: _Candidate) -> tuple:
        # no paging first, then every player's column, then the bigger font, full labels, fewer columns
        cut = c.label_ref < pads[c.mode]
        return (cut, c.pages, 0 if c.mode == "full" else 1, -c.px, c.use_short, c.columns, -c.status)

    return min(cands, key=key)


# ----------------------------------------------------------------------- status area


def _status_items(view: GameView, lang: str, rect: Rect, px: int, die: int, max_lines: int, hints: bool = True
                  ) -> tuple[tuple[list, list, list], int]:
    """Items of the status area laid out top-down in ``rect``; returns (rects, texts, dice), used height.
    A notice that would be cut takes the room of the hints (declared box, stop cost, advice): "throw
    again" and its reasons matter more while they are shown."""
    x0, y0, x1, y1 = rect
    padx = _pad_x(px)
    inner = x1 - x0 - 2 * padx
    lh = _row_h(px)
    rects: list[RectItem] = [RectItem(rect, PANEL, "status")]
    texts: list[TextItem] = []
    dice: list[DieItem] = []
    info = _status_lines(view, lang)
    y = y0 + padx // 2

    def line(text: str, color: RGB = TEXT, bold: bool = False, role: str = "status", x: int | None = None,
             width: int | None = None, bg: RGB | None = None, size: int | None = None, bg_w: int | None = None) -> None:
        nonlocal y
        s = size or px
        h = _row_h(s)
        xs = x0 + padx if x is None else x
        wd = inner if width is None else width
        cell = (xs, y, xs + wd, y + h)
        if bg is not None:
            bx1 = x1 - padx // 2 if bg_w is None else x0 + padx // 2 + bg_w
            rects.append(RectItem((x0 + padx // 2, y, bx1, y + h), bg, role, radius=max(2, px // 5)))
        t = fit_text(text, wd, s, bold)
        if t:
            texts.append(TextItem(t, (xs, y + h // 2), "lm", s, bold, color, cell, role))
        y += h

    # title: the player to move (or game over), round on the right when it fits
    title = str(info["title"])
    rnd = info.get("round")
    if rnd is not None:
        rw = int(math.ceil(text_width(str(rnd), px)))
        tw = text_width(title, px, True)
        if tw + rw + padx * 2 <= inner:
            h = lh
            texts.append(TextItem(str(rnd), (x1 - padx, y + h // 2), "rm", px, False, MUTED, (x1 - padx - rw, y, x1 - padx, y + h), "status"))
            line(title, TEXT, True, "player", width=inner - rw - padx * 2, bg=CURRENT_HEAD, bg_w=int(padx * 1.5 + tw + padx))
        else:
            line(title, TEXT, True, "player", bg=CURRENT_HEAD)
            line(str(rnd), MUTED)
    else:
        line(title, TEXT, True, "player")
    if view.finished:
        big = int(px * 1.3)
        for t in wrap_text(str(info["winner"]), inner - padx, big, max_lines + 1, True):
            line(t, TEXT, True, "winner", bg=WINNER_BG, size=big)
        if rect[3] - rect[1] < 5000 and rect[1] == 0 and rect[0] > 0:  # a side panel: the final ranking, as room allows
            y += lh // 2
            ranked = sorted(range(len(view.players)), key=lambda i: -view.players[i].total)
            for i in ranked:
                if y + lh > y1:
                    break
                pl = view.players[i]
                tot = str(pl.total)
                tw = int(math.ceil(text_width(tot, px, True)))
                texts.append(TextItem(tot, (x1 - padx, y + lh // 2), "rm", px, True, TEXT, (x1 - padx - tw, y, x1 - padx, y + lh), "standing"))
                line(pl.name, MUTED, False, "standing", width=inner - tw - padx)
    else:
        # the dice
        n = max(view.rules.dice, len(view.seen or ()))
        per_row, nrows = _dice_grid(n, inner, die)
        gap = max(2, die // 6)
        y += gap
        # a reroll shows the dice the camera saw (left to right, "?" where it did not read one), an
        # entry by hand the dice entered so far
        faces: Sequence[int | None] = (view.seen if view.seen is not None else
                                       view.dice if view.dice is not None else [None] * n)
        cursor = dict(view.extras).get("manual_cursor")  # the die being set by hand: framed
        for k, v in enumerate(faces):
            r, c = divmod(k, per_row)
            dx = x0 + padx + c * (die + gap)
            dy = y + r * (die + gap)
            if cursor is not None and str(k) == cursor:
                f = max(1, gap // 2)
                rects.append(RectItem((dx - f, dy - f, dx + die + f, dy + die + f), OPTION, "die_cursor",
                                      radius=max(2, die // 6 + f), outline=f))
            dice.append(DieItem((dx, dy, dx + die, dy + die), v, view.seen is not None and v is None))
        rows_used = math.ceil(len(faces) / per_row) if len(faces) else nrows
        y += rows_used * (die + gap)
        if view.dice is None:
            line(words(lang)["throw"], OPTION, True)
        # throws left and bank: one line when it fits
        parts = list(info["throws"])  # type: ignore[arg-type]
        joined = "   ".join(parts)
        if text_width(joined, px) <= inner:
            line(joined)
        else:
            for p in parts:
                line(p)
        for e in info["extra"] if hints else ():  # type: ignore[union-attr]
            for t in wrap_text(str(e), inner, px, 2):
                line(t, OPTION)
    extras = dict(view.extras)
    if view.notice and ("menu" in extras or "manual" in extras or view.finished):  # a menu or what to do next: framed, not the red of "throw again"
        text = view.notice[2:] if view.notice.startswith("> ") else view.notice
        top = y
        for t in wrap_text(MENU_MARK + " " + text, inner - padx, px, 4, False):
            line(t, TEXT, False, "menu", bg=MENU_BG, x=x0 + padx, width=inner - padx)
        rects.append(RectItem((x0 + padx // 2, top, x1 - padx // 2, y), MENU_EDGE, "menu_frame", radius=max(2, px // 5), outline=max(2, px // 10)))
    elif view.notice:
        room = max(4, (y1 - y - padx // 2) // lh)  # the lines left below (at least four)
        cut = len(wrap_text(view.notice, inner - padx, px, room + 1, True)) > room
        if hints and cut and (info["extra"] or (view.advice and max_lines)):
            return _status_items(view, lang, rect, px, die, max_lines, hints=False)
        for t in wrap_text(view.notice, inner - padx, px, room, True):
            line(t, TEXT, True, "notice", bg=NOTICE_BG, x=x0 + padx, width=inner - padx)
    if view.advice and max_lines and hints:
        for t in wrap_text(view.advice, inner, px, max_lines):
            line(t, ADVICE, False, "advice")
    used = y - y0 + padx // 2
    rects[0] = RectItem((x0, y0, x1, min(y1, y0 + used) if rect[3] - rect[1] > 5000 else y1), PANEL, "status")
    return (rects, texts, dice), used


# ----------------------------------------------------------------------- pad area


def _page_capacity(c: _Candidate, n_pinned: int) -> int:
    """Pad rows (besides the pinned ones) on one page of a paged layout."""
    per_col = (c.pad_rect[3] - c.pad_rect[1]) // _row_h(c.px) - 1
    return per_col * c.columns - n_pinned


def _pad_items(view: GameView, lang: str, c: _Candidate, page: int, rows: list[_Row], pinned: list[_Row]
               ) -> tuple[list[RectItem], list[TextItem], tuple[Rect, ...], tuple[str, ...]]:
    x0, y0, x1, y1 = c.pad_rect
    px = c.px
    rh = _row_h(px)
    padx = _pad_x(px)
    gap = px // 2
    cols = c.columns
    col_w = int((x1 - x0 - (cols - 1) * gap) / cols)
    if c.pages == 1:  # spread the rows over the height there is (up to 1.6 x the font)
        need = math.ceil((len(rows) + len(pinned)) / cols) + 1
        rh = max(rh, min(int(px * 1.6), (y1 - y0) // need))
    if c.pages > 1:
        cap = _page_capacity(c, len(pinned))
        page_rows = rows[page * cap : (page + 1) * cap] + pinned
    else:
        page_rows = rows + pinned
    # split into columns, balanced
    per = math.ceil(len(page_rows) / cols)
    chunks = [page_rows[i * per : (i + 1) * per] for i in range(cols)]
    shown = list(range(len(view.players))) if c.mode == "full" else [_focus(view)]
    n_vals = len(shown)
    label_w = int(math.ceil(HINTING * c.label_ref * px / REF_PX)) + 2 * padx
    min_val = int(math.ceil(_value_ref(view.rules) * px / REF_PX)) + 2 * padx
    name_w = math.ceil(max(text_width(view.players[p].name, px, True) for p in shown)) + 2 * padx  # up: a name is never cut by rounding
    val_w = int(max(min_val, min(name_w, (col_w - label_w) / n_vals)))
    if c.mode == "focus" or label_w + n_vals * val_w > col_w:  # (rounding may take a pixel or two)
        label_w = col_w - n_vals * val_w
    rects: list[RectItem] = []
    texts: list[TextItem] = []
    highlights: list[Rect] = []
    leaders = set(view.leaders)
    W = words(lang)
    for ci, chunk in enumerate(chunks):
        cx = x0 + ci * (col_w + gap)
        # header row
        hy = y0
        if c.mode == "full":
            head = f"{W['page']} {page + 1}/{c.pages}" if c.pages > 1 else ""
            if head:
                texts.append(TextItem(fit_text(head, label_w - 2 * padx, px), (cx + padx, hy + rh // 2), "lm", px, False, MUTED,
                                      (cx + padx, hy, cx + label_w - padx, hy + rh), "page"))
            for k, p in enumerate(shown):
                vx = cx + label_w + k * val_w
                wide = n_vals == 1 and not head  # a lone column's head reaches over the label column's
                cell = (cx if wide else vx, hy, vx + val_w, hy + rh)
                cur = p == view.current and not view.finished
                if cur:
                    rects.append(RectItem((vx, hy, vx + val_w, hy + rh * (len(chunk) + 1)), CURRENT_COL, "current_col"))
                    rects.append(RectItem(cell, CURRENT_HEAD, "current_head"))
                    highlights.append(cell)
                name = view.players[p].name
                room = val_w - 2 * padx
                if wide:
                    room = val_w + label_w - 2 * padx
                hpx = next((f for f in range(px, c.min_px - 1, -1) if text_width(name, f, True) <= room), c.min_px)
                if p in leaders and text_width(STAR + name, hpx, True) <= room:
                    name = STAR + name
                t = fit_text(name, room, hpx, True)
                if t and room > val_w - 2 * padx:
                    texts.append(TextItem(t, (vx + val_w - padx, hy + rh // 2), "rm", hpx, True, TEXT, (vx + val_w - padx - room, hy, vx + val_w - padx, hy + rh), "header"))
                elif t:
                    texts.append(TextItem(t, (vx + val_w // 2, hy + rh // 2), "mm", hpx, True, TEXT, (vx + padx, hy, vx + val_w - padx, hy + rh), "header"))
        else:
            p = shown[0]
            cell = (cx, hy, cx + col_w, hy + rh)
            cur = not view.finished
            rects.append(RectItem(cell, CURRENT_HEAD if cur else LEADER, "current_head" if cur else "header"))
            if cur:
                highlights.append(cell)
            name = view.players[p].name
            if c.pages > 1:
                name = f"{name}  ({page + 1}/{c.pages})"
            t = fit_text(name, col_w - 2 * padx, px, True)
            texts.append(TextItem(t, (cx + padx, hy + rh // 2), "lm", px, True, TEXT, (cx + padx, hy, cx + col_w - padx, hy + rh), "header"))
        # rows
        for ri, row in enumerate(chunk):
            ry = y0 + (ri + 1) * rh
            if ri % 2 == 1:
                rects.append(RectItem((cx, ry, cx + label_w, ry + rh), STRIPE, "stripe"))
            if row.rule_above and ri > 0:
                rects.append(RectItem((cx, ry, cx + col_w, ry + max(1, px // 12)), GRID, "rule"))
            label = row.short if c.use_short else row.label
            lt = fit_text(label, label_w - 2 * padx, px, _label_bold(row))
            if lt:
                texts.append(TextItem(lt, (cx + padx, ry + rh // 2), "lm", px, _label_bold(row),
                                      row.label_color, (cx + padx, ry, cx + label_w - padx, ry + rh), "label"))
            for k, cell_ in enumerate(row.cells):
                vx = cx + label_w + k * val_w
                if cell_.bg is not None:
                    rects.append(RectItem((vx + 1, ry + 1, vx + val_w - 1, ry + rh - 1), cell_.bg, "leader", radius=max(2, px // 6)))
                if cell_.role == "option":  # would-score: framed, so that it differs from a filled box by more than colour
                    rects.append(RectItem((vx + 2, ry + 2, vx + val_w - 2, ry + rh - 2), cell_.color, "option_frame",
                                          radius=max(2, px // 6), outline=max(1, px // 12)))
                if cell_.text:
                    bold = cell_.bold and text_width(cell_.text, px, True) <= val_w - 2 * padx
                    t = fit_text(cell_.text, val_w - 2 * padx, px, bold)
                    texts.append(TextItem(t, (vx + val_w - padx, ry + rh // 2), "rm", px, bold, cell_.color,
                                          (vx + padx, ry, vx + val_w - padx, ry + rh), cell_.role))
        # grid line under the header
        rects.append(RectItem((cx, y0 + rh - 1, cx + col_w, y0 + rh), GRID, "rule"))
    shown_ids = tuple(r.box_id for r in page_rows if r.box_id)
    return rects, texts, tuple(highlights), shown_ids


# ----------------------------------------------------------------------- public API


def layout(view: GameView, size: tuple[int, int] = (800, 480), lang: str = "sv", page: int | None = 0) -> Layout:
    """Where everything goes on a ``size`` = (width, height) screen; ``page`` wraps around;
    ``page=None`` picks the page holding the declared box (Special 8), else the first."""
    W, H = int(size[0]), int(size[1])
    if W < 200 or H < 200:
        raise ScoreboardError(f"screen {W}x{H} is too small for the scoreboard (at least 200x200)")
    modes = ("full", "focus") if len(view.players) > 1 else ("full",)
    pad_rows = {m: _pad_rows(view, lang, m) for m in modes}
    cands = _candidates(view, lang, (W, H), pad_rows)
    if not cands:
        raise ScoreboardError(f"screen {W}x{H}: no layout fits {len(view.players)} players of {view.rules.name}")
    pads = {m: _widths(rows + pinned, True) for m, (rows, pinned) in pad_rows.items()}
    c = _pick(cands, pads)
    if page is None:
        page = 0
        if view.declared and c.pages > 1:
            rows, pinned = pad_rows[c.mode]
            at = next(i for i, r in enumerate(rows) if r.box_id == view.declared)
            page = at // _page_capacity(c, len(pinned))
    page = page % c.pages
    srect, die, max_lines = _choose_status(view, lang, W, H, c.status, c.status_px)
    (s_rects, s_texts, s_dice), _ = _status_items(view, lang, srect, c.status_px, die, max_lines)
    p_rects, p_texts, highlights, ids = _pad_items(view, lang, c, page, *pad_rows[c.mode])
    return Layout(
        size=(W, H), min_px=min_text_px((W, H)), pad_px=c.px, status_px=c.status_px, mode=c.mode,
        columns=c.columns, status="side" if c.status else "band", page=page, pages=c.pages,
        rects=tuple(s_rects + p_rects), texts=tuple(p_texts + s_texts), dice=tuple(s_dice),
        highlights=highlights, box_ids=ids,
    )


def page_count(view: GameView, size: tuple[int, int] = (800, 480), lang: str = "sv") -> int:
    """How many pages the pad needs on this screen (1 on most screens; the app may flip pages)."""
    return layout(view, size, lang).pages


PIPS = MappingProxyType({
    1: ((0.5, 0.5),),
    2: ((0.27, 0.27), (0.73, 0.73)),
    3: ((0.27, 0.27), (0.5, 0.5), (0.73, 0.73)),
    4: ((0.27, 0.27), (0.73, 0.27), (0.27, 0.73), (0.73, 0.73)),
    5: ((0.27, 0.27), (0.73, 0.27), (0.5, 0.5), (0.27, 0.73), (0.73, 0.73)),
    6: ((0.27, 0.22), (0.73, 0.22), (0.27, 0.5), (0.73, 0.5), (0.27, 0.78), (0.73, 0.78)),
})


def draw_die(d: ImageDraw.ImageDraw, item: DieItem, origin: tuple[int, int]) -> None:
    """One die, its face's pips and all, in ``item.rect`` moved by ``origin``."""
    x0, y0, x1, y1 = item.rect
    ox, oy = origin
    x0, y0, x1, y1 = x0 + ox, y0 + oy, x1 + ox - 1, y1 + oy - 1
    s = x1 - x0
    r = max(2, s // 6)
    if item.doubt:
        d.rounded_rectangle((x0, y0, x1, y1), r, fill=NOTICE_BG, outline=DIE, width=max(1, s // 16))
        d.text(((x0 + x1) / 2, (y0 + y1) / 2), "?", fill=DIE, font=font(max(6, int(s * 0.7)), True), anchor="mm")
        return
    if item.value is None:
        d.rounded_rectangle((x0, y0, x1, y1), r, outline=DIE_EMPTY, width=max(1, s // 16))
        return
    d.rounded_rectangle((x0, y0, x1, y1), r, fill=DIE, outline=DIE_EDGE, width=1)
    pr = max(1.5, s * 0.09 - 0.5)
    for fx, fy in PIPS.get(item.value, ()):
        cx, cy = x0 + fx * s, y0 + fy * s
        d.ellipse((cx - pr, cy - pr, cx + pr, cy + pr), fill=PIP)


def draw(lay: Layout, image: Image.Image | None = None, origin: tuple[int, int] = (0, 0)) -> Image.Image:
    """Paint ``lay`` onto ``image`` (a new one of the layout's size by default) at ``origin``."""
    W, H = lay.size
    img = image if image is not None else Image.new("RGB", (W, H), BG)
    d = ImageDraw.Draw(img)
    ox, oy = origin
    if image is not None:
        d.rectangle((ox, oy, ox + W - 1, oy + H - 1), fill=BG)
    for r in lay.rects:
        x0, y0, x1, y1 = r.rect
        box = (x0 + ox, y0 + oy, x1 + ox - 1, y1 + oy - 1)
        if x1 <= x0 or y1 <= y0:
            continue
        if r.outline:
            d.rounded_rectangle(box, r.radius, outline=r.fill, width=r.outline)
        elif r.radius:
            d.rounded_rectangle(box, r.radius, fill=r.fill)
        else:
            d.rectangle(box, fill=r.fill)
    for t in lay.texts:
        mask, dx, dy = text_mask(t.text, t.px, t.bold, t.anchor)
        img.paste(t.color, (t.xy[0] + ox + dx, t.xy[1] + oy + dy), mask)
    for die in lay.dice:
        draw_die(d, die, origin)
    return img


def render_image(view: GameView, size: tuple[int, int] = (800, 480), lang: str = "sv", page: int | None = 0) -> Image.Image:
    """The scoreboard as a PIL RGB image of ``size`` = (width, height)."""
    return draw(layout(view, size, lang, page))


def render(view: GameView, size: tuple[int, int] = (800, 480), lang: str = "sv", page: int | None = 0) -> np.ndarray:
    """The scoreboard as a numpy RGB uint8 array of shape (height, width, 3)."""
    return np.asarray(render_image(view, size, lang, page))


# ----------------------------------------------------------------------- text view


def render_text(view: GameView, lang: str = "sv") -> str:
    """The same content as plain text: status lines, then the pad (``>`` marks the player to move,
    ``*`` the leader's total, ``[n]`` what an open box would score now)."""
    rs = view.rules
    W = words(lang)
    info = _status_lines(view, lang)
    out: list[str] = [f"{rs.title(lang)}"]
    if view.finished:
        out.append(f"{info['title']}. {info['winner']}")
    else:
        out.append(f"{W['turn']}: {view.player.name} · {info['round']} · " + " · ".join(info["throws"]))  # type: ignore[arg-type]
        dice = " ".join(str(v) for v in view.dice) if view.dice is not None else "-"
        out.append(f"{W['dice']}: {dice}")
        if view.seen is not None and "manual" not in dict(view.extras):  # (the entry by hand is in its notice)
            out.append(f"{W['seen']}: {dice_text(view.seen)}")
        for e in info["extra"]:  # type: ignore[union-attr]
            out.append(str(e))
    if view.notice:
        out.append(f"! {view.notice}")
    if view.advice:
        out.append(f"{W['advice']}: {view.advice}")
    rows, pinned = _pad_rows(view, lang, "full")
    names = [(">" if i == view.current and not view.finished else "") + p.name for i, p in enumerate(view.players)]
    lw = max(len(r.label) for r in rows + pinned)
    vw = [max(6, len(n)) for n in names]
    out.append("")
    out.append(" " * lw + "".join(f"  {n:>{w}}" for n, w in zip(names, vw)))
    for r in rows + pinned:
        if r.rule_above:
            out.append("-" * (lw + sum(w + 2 for w in vw)))
        cells = []
        for c, w in zip(r.cells, vw):
            t = c.text
            if c.role == "option":
                t = f"[{t}]"
            if c.role == "total" and c.bg is not None:
                t = "*" + t
            cells.append(f"  {t:>{w}}")
        out.append(f"{r.label:<{lw}}" + "".join(cells))
    if view.leaders and not view.finished:
        out.append(f"{', '.join(view.players[i].name for i in view.leaders)} {W['leads']}")
    return "\n".join(out) + "\n"


# ----------------------------------------------------------------------- sample views


def sample_view(rules: str = "special8", players: int | Sequence[str] = 2, progress: float = 0.5, seed: int = 0,
                notice: str | None = None, advice: str | None = None, lang_names: bool = True) -> GameView:
    """A view from a real game (controller.game.game) played with random dice and a greedy choice of box
    up to ``progress`` (0..1) of the pad; ``progress=1`` plays to the end. For tests, the bench and
    screenshots."""
    from controller.game.game import Game, Setup

    names = ("Anna", "Bo", "Cecilia", "Dag", "Eva", "Fredrik")
    plist = list(names[:players]) if isinstance(players, int) else list(players)
    g = Game(Setup.create(rules, plist))
    rng = random.Random(seed)
    rs = g.rules
    turns = int(round(progress * len(rs.boxes) * len(plist)))
    for _ in range(turns):
        if g.finished:
            break
        throws = rng.randint(1, rs.throws)
        for _ in range(throws):
            if not g.can_throw or g.throws_left == 0:
                break
            g.apply({"throw": [rng.randint(1, 6) for _ in range(rs.dice)]})
        opts, _ = g.options()
        if not opts:
            g.apply({"throw": [rng.randint(1, 6) for _ in range(rs.dice)]})
            opts, _ = g.options()
        box = max(opts, key=lambda b: (opts[b] - 0.6 * _box_par(rs, b), rng.random()))
        g.apply({"score": box})
    if not g.finished:
        g.apply({"throw": [rng.randint(1, 6) for _ in range(rs.dice)]})
    v = g.view()
    return replace(v, notice=notice, advice=advice)


def _box_par(rs, box_id: str) -> float:
    """Rough mean score of a box when every die is thrown once (a greedy player's yardstick)."""
    i = rs.box_index(box_id)
    return float(rs.table.prob @ rs.table.scores[:, i])


def write_gallery(out_dir: str | Path, langs: Iterable[str] = ("sv",), rules: Iterable[str] = ("yatzy", "maxi", "special8", "yahtzee"),
                  players: Iterable[int] = (1, 2, 6), sizes: Iterable[tuple[int, int]] = SIZES) -> list[Path]:
    """PNGs of sample views at every size in landscape and portrait; returns the files written."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for rname in rules:
        for n in players:
            for stage, kw in (("mid", dict(progress=0.45, notice=None, advice=None)),
                              ("notice", dict(progress=0.3, notice="Tärning utanför brickan — kasta igen", advice="Behåll 5 5 5, kasta resten")),
                              ("end", dict(progress=1.0))):
                v = sample_view(rname, n, seed=n, **kw)  # type: ignore[arg-type]
                for lang in langs:
                    for (w, h) in sizes:
                        for (sw, sh) in ((w, h), (h, w)):
                            lay = layout(v, (sw, sh), lang)
                            for pg in range(lay.pages):
                                p = out / f"{rname}-{n}p-{stage}-{lang}-{sw}x{sh}{f'-p{pg + 1}' if lay.pages > 1 else ''}.png"
                                draw(layout(v, (sw, sh), lang, pg)).save(p)
                                written.append(p)
    return written


if __name__ == "__main__":  # python -m controller.screen.scoreboard OUT_DIR [LANG...]
    import sys

    if len(sys.argv) < 2:
        print("usage: python -m controller.screen.scoreboard OUT_DIR [LANG ...]", file=sys.stderr)
        raise SystemExit(2)
    files = write_gallery(sys.argv[1], sys.argv[2:] or ("sv",))
    print(f"{len(files)} PNGs in {sys.argv[1]}")
