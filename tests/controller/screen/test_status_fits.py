"""Every status text of every language fits its box at every panel size (measured, never cut).

The status area's words (whose turn, the round, throws left, the bank, "throw!", declared, stop now,
by hand, game over, the winner) come from ``scoreboard.WORDS``; the side panel's width is chosen from
their measured width. Measured here with the same font: a language whose wording is too long for
a screen fails, whatever the language.
"""

from __future__ import annotations

import functools
from dataclasses import replace

import pytest

from controller.game.game import Game, Setup
from controller.game.rules import LANGUAGES
from controller.screen import scoreboard as sb

RULESETS = ("yatzy", "maxi", "maxi-tactic", "special8", "yahtzee")
PLAYERS = (1, 2, 6)
SCREENS = tuple(s for w, h in sb.SIZES for s in ((w, h), (h, w)))
STATUS_ROLES = {"status", "player", "winner", "standing"}  # drawn from WORDS (and the players' names)


@functools.lru_cache(maxsize=None)
def views(rname: str, n: int) -> tuple:
    """The status area's every state in a real game: dice read (with the bank), before the first
    throw, a declared box with the cost of stopping and dice by hand (what Special 8 shows), the end."""
    mid = sb.sample_view(rname, n, progress=0.45, seed=n)
    fresh = Game(Setup.create(rname, list(p.name for p in mid.players))).view()
    assert fresh.dice is None
    box = max(mid.rules.boxes, key=lambda b: sb.text_width(b.short_label("en"), 100))  # the widest short label
    busy = replace(mid, declared=box.id, stop_cost=mid.rules.dice, manual=True)
    end = sb.sample_view(rname, n, progress=1.0, seed=n)
    assert end.finished
    return mid, fresh, busy, end


def status_box(lay: sb.Layout) -> tuple[int, int, int, int]:
    return next(r.rect for r in lay.rects if r.role == "status")


def check_status(view, size, lang) -> int:
    """Asserts that every status text fits; returns how many texts were measured."""
    lay = sb.layout(view, size, lang)
    x0, _, x1, _ = status_box(lay)
    px = lay.status_px
    inner = x1 - x0 - 2 * sb._pad_x(px)
    measured = 0
    # the one-line texts at their widest (the most rounds, the most throws, a two-digit bank)
    for text, bold in sb.status_strings(view, lang):
        w = sb.text_width(text, px, bold)
        assert w <= inner, (lang, size, view.rules.name, len(view.players), text, round(w, 1), inner)
        measured += 1
    # and what is drawn: whole (no ellipsis), its measured width inside its cell
    for t in lay.texts:
        if t.role not in STATUS_ROLES:
            continue
        assert sb.ELLIPSIS not in t.text, (lang, size, view.rules.name, len(view.players), t.role, t.text)
        w = sb.text_width(t.text, t.px, t.bold)
        assert w <= t.cell[2] - t.cell[0], (lang, size, t.text, round(w, 1), t.cell)
        measured += 1
    return measured


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("size", [(480, 320), (800, 480), (1280, 720)])
def test_every_status_text_fits_special8_and_maxi(lang, size):
    measured = 0
    for rname in ("special8", "maxi"):
        for n in PLAYERS:
            for v in views(rname, n):
                measured += check_status(v, size, lang)
    assert measured >= 2 * len(PLAYERS) * 4 * 3  # every state had its texts measured


@pytest.mark.slow
@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("rname", RULESETS)
def test_every_status_text_fits_every_ruleset_at_every_size(lang, rname):
    for n in PLAYERS:
        for v in views(rname, n):
            for size in SCREENS:
                check_status(v, size, lang)


def test_the_declared_line_is_wrapped_not_cut():
    """Special 8's extra lines (declared box, cost of stopping, by hand) wrap at words; each piece fits."""
    _, _, busy, _ = views("special8", 1)
    for lang in LANGUAGES:
        lay = sb.layout(busy, (480, 320), lang)
        lines = [t for t in lay.texts if t.role == "status" and t.color == sb.OPTION]
        assert lines, lang
        assert all(sb.ELLIPSIS not in t.text for t in lines), [t.text for t in lines]
        joined = " ".join(t.text for t in lines)
        assert sb.words(lang)["declared"] in joined and sb.words(lang)["manual"] in joined


def test_a_wording_too_long_for_the_screen_is_found(monkeypatch):
    """The check can fail: a status word six times as long fits neither a side panel nor a band at 480x320."""
    mid, *_ = views("special8", 1)
    check_status(mid, (480, 320), "da")
    monkeypatch.setattr(sb, "WORDS", {**sb.WORDS, "da": dict(sb.WORDS["da"], throws=sb.WORDS["da"]["throws"] * 6)})
    with pytest.raises(AssertionError):
        check_status(mid, (480, 320), "da")
