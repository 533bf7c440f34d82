"""The scoreboard drawn from real games (controller.game) at every panel size: geometry and pixels."""

from __future__ import annotations

import functools
import re
from dataclasses import replace

import cv2
import numpy as np
import pytest
from PIL import Image, ImageDraw

from controller.game import rules
from controller.screen import scoreboard as sb
from controller.game.game import Game, Setup

RULESETS = ("yatzy", "maxi", "maxi-tactic", "special8", "yahtzee")
PLAYERS = (1, 2, 6)
SCREENS = tuple(s for w, h in sb.SIZES for s in ((w, h), (h, w)))
SENTINEL = (255, 0, 255)


@functools.lru_cache(maxsize=None)
def view_of(rname: str, n: int, progress: float = 0.45, notice: bool = True):
    return sb.sample_view(
        rname, n, progress=progress, seed=n,
        notice="Tärning utanför brickan — kasta igen" if notice else None,
        advice="Behåll 5 5 5, kasta resten" if notice else None,
    )


def ink_bbox(t: sb.TextItem) -> tuple[int, int, int, int]:
    img = Image.new("L", (1, 1))
    return ImageDraw.Draw(img).textbbox(t.xy, t.text, font=sb.font(t.px, t.bold), anchor=t.anchor)


def inside(inner, outer, slack: int = 0) -> bool:
    return (inner[0] >= outer[0] - slack and inner[1] >= outer[1] - slack
            and inner[2] <= outer[2] + slack and inner[3] <= outer[3] + slack)


def check_screen(view, size, lang="sv", page=0) -> sb.Layout:
    """Every property the issue asks for, on one screen; returns the layout."""
    W, H = size
    lay = sb.layout(view, size, lang, page)
    img = sb.render(view, size, lang, page)
    assert img.shape == (H, W, 3) and img.dtype == np.uint8

    # 1. text is big enough, and every glyph's ink stays inside its cell and the image
    assert lay.smallest_px >= sb.min_text_px(size), (size, lay.smallest_px)
    boxes = []
    for t in lay.texts:
        ink = ink_bbox(t)
        assert inside(ink, t.cell, slack=1), (t.text, ink, t.cell)
        assert inside(ink, (0, 0, W, H)), (t.text, ink)
        boxes.append(ink)
    # ... and no two texts overlap
    b = np.array(boxes)
    ox = (b[:, None, 0] < b[None, :, 2] - 1) & (b[None, :, 0] < b[:, None, 2] - 1)
    oy = (b[:, None, 1] < b[None, :, 3] - 1) & (b[None, :, 1] < b[:, None, 3] - 1)
    overlap = ox & oy & ~np.eye(len(b), dtype=bool)
    assert not overlap.any(), [(lay.texts[i].text, lay.texts[j].text) for i, j in zip(*np.nonzero(overlap))][:3]
    for d in lay.dice:
        assert inside(d.rect, (0, 0, W, H)), d.rect
    for r in lay.rects:
        assert inside(r.rect, (0, 0, W, H)), (r.role, r.rect)

    # 2. nothing is painted outside the image: drawn at an offset on a bigger canvas, the margin is untouched
    m = 7
    canvas = Image.new("RGB", (W + 2 * m, H + 2 * m), SENTINEL)
    sb.draw(lay, canvas, (m, m))
    c = np.asarray(canvas)
    margin = np.ones(c.shape[:2], bool)
    margin[m : m + H, m : m + W] = False
    assert (c[margin] == SENTINEL).all()
    assert np.array_equal(c[m : m + H, m : m + W], img)

    # 3. the current player is highlighted: the highlight cell is painted in the highlight colour and
    #    carries the player's name; no other player's header is
    if not view.finished:
        assert len(lay.highlights) == lay.columns
        for x0, y0, x1, y1 in lay.highlights:
            cell = img[y0:y1, x0:x1].reshape(-1, 3)
            share = np.mean(np.all(cell == sb.CURRENT_HEAD, axis=1))
            assert share > 0.5, share
        names = [p.name for p in view.players]
        for t in lay.texts:
            if t.role != "header":
                continue
            shown = t.text.lstrip(sb.STAR).split("  (")[0].rstrip(sb.ELLIPSIS)
            owners = [i for i, nm in enumerate(names) if nm.startswith(shown)]
            assert owners, t.text
            bg = img[t.cell[1] + 2, t.cell[0] + 1]
            if owners == [view.current]:
                assert np.array_equal(bg, sb.CURRENT_HEAD), t.text
                assert any(inside(t.cell, h) for h in lay.highlights), t.text
            elif view.current not in owners:
                assert not np.array_equal(bg, sb.CURRENT_HEAD), t.text

    # 4. the totals: on screen on every page, and in the text view
    totals_on_screen = {t.text for t in lay.texts if t.role in ("total", "other")}
    assert str(view.player.total) in totals_on_screen
    if lay.mode == "full" or len(view.players) == 1:
        assert all(str(p.total) in totals_on_screen for p in view.players)
    return lay


def total_line(text: str, lang: str = "sv") -> list[int]:
    label = sb.words(lang)["total"]
    line = next(ln for ln in text.splitlines() if ln.startswith(label))
    return [int(x) for x in re.findall(r"\d+", line)]


@pytest.mark.parametrize("rname", RULESETS)
@pytest.mark.parametrize("n", PLAYERS)
def test_every_ruleset_and_player_count_at_800x480_and_480x320(rname, n):
    v = view_of(rname, n)
    for size in ((800, 480), (480, 320), (320, 480)):
        check_screen(v, size)
    assert total_line(sb.render_text(v)) == [p.total for p in v.players]


@pytest.mark.slow
@pytest.mark.parametrize("rname", RULESETS)
@pytest.mark.parametrize("n", PLAYERS)
@pytest.mark.parametrize("size", SCREENS, ids=lambda s: f"{s[0]}x{s[1]}")
def test_full_matrix_every_size_every_page(rname, n, size):
    v = view_of(rname, n)
    first = check_screen(v, size)
    seen: set[str] = set(first.box_ids)
    for page in range(1, first.pages):
        seen |= set(check_screen(v, size, page=page).box_ids)
    assert seen == set(v.rules.box_ids), "every box is on some page"


def test_text_size_floor_is_the_issues():
    assert sb.min_text_px((480, 320)) == 18 and sb.min_text_px((320, 480)) == 18
    assert sb.min_text_px((800, 480)) == 24 and sb.min_text_px((1280, 720)) == 24


def test_the_whole_special8_pad_fits_one_800x480_screen():
    v = view_of("special8", 2)
    lay = check_screen(v, (800, 480))
    assert lay.pages == 1 and set(lay.box_ids) == set(v.rules.box_ids)


def test_pages_cover_every_box_and_repeat_the_total_on_a_small_screen():
    v = view_of("special8", 6)
    lay = sb.layout(v, (480, 320))
    assert lay.pages >= 2 and sb.page_count(v, (480, 320)) == lay.pages
    seen = set()
    for page in range(lay.pages):
        lp = check_screen(v, (480, 320), page=page)
        seen |= set(lp.box_ids)
        assert any(t.role == "total" and t.text == str(v.player.total) for t in lp.texts)
    assert seen == set(v.rules.box_ids)
    assert sb.layout(v, (480, 320), page=lay.pages).page == 0  # pages wrap around


@pytest.mark.parametrize("rname,n,size", [("maxi", 2, (800, 480)), ("special8", 6, (480, 320)),
                                          ("yatzy", 1, (320, 480)), ("special8", 2, (1280, 720))])
def test_dice_are_drawn_with_the_right_number_of_pips(rname, n, size):
    v = view_of(rname, n)
    assert v.dice is not None
    lay = sb.layout(v, size)
    img = sb.render(v, size)
    assert [d.value for d in lay.dice] == list(v.dice)
    for d in lay.dice:
        x0, y0, x1, y1 = d.rect
        face = img[y0:y1, x0:x1]
        dark = np.all(face == sb.PIP, axis=2).astype(np.uint8)
        n, _ = cv2.connectedComponents(dark)
        assert n - 1 == d.value, (d.value, n - 1)


def test_options_notice_advice_and_pace_are_shown():
    v = view_of("yatzy", 2)
    lay = check_screen(v, (800, 480))
    shown = [t for t in lay.texts if t.role == "option"]
    opts = v.option_map
    assert shown and all(int(t.text) in opts.values() for t in shown)
    # the colour of an option that scores is the option colour on the pixels
    img = sb.render(v, (800, 480))
    t = next(t for t in shown if t.text != "0")
    x0, y0, x1, y1 = ink_bbox(t)
    assert np.all(img[y0:y1, x0:x1] == sb.OPTION, axis=2).any()
    notice = " ".join(t.text for t in lay.texts if t.role == "notice")
    assert notice.replace("…", "").split()[0] == "Tärning"
    assert any(t.role == "advice" for t in lay.texts)
    pace = [t for t in lay.texts if t.role == "pace"]
    for t in pace:
        assert t.color == (sb.GOOD if t.text.startswith("+") else sb.BAD)
    txt = sb.render_text(v)
    assert "Tärning utanför brickan" in txt and "Behåll 5 5 5" in txt
    for box, pts in opts.items():
        pad = txt.split("\n\n", 1)[1].splitlines()
        row = next(ln for ln in pad if ln.startswith(v.rules.box(box).label("sv")))
        assert f"[{pts}]" in row


def test_bonus_pace_colour_from_a_real_game():
    # Anna puts four fives in Fives: +5 over par (3 x 5) -> green "+5"; Bo scratches Ones... with two ones: -1
    g = Game(Setup.create("yatzy", ["Anna", "Bo"]))
    g.apply({"throw": [5, 5, 5, 5, 1]})
    g.apply({"score": "fives"})
    g.apply({"throw": [1, 1, 2, 3, 4]})
    g.apply({"score": "ones"})
    v = g.view()
    lay = sb.layout(v, (800, 480))
    pace = {t.text: t.color for t in lay.texts if t.role == "pace"}
    assert pace == {"+5": sb.GOOD, "\u22121": sb.BAD}


def test_winner_at_the_end():
    v = view_of("yatzy", 2, progress=1.0, notice=False)
    assert v.finished and v.winners
    for size in ((800, 480), (480, 320), (320, 480)):
        lay = check_screen(v, size)
        winner = " ".join(t.text for t in lay.texts if t.role == "winner")
        assert v.winners[0] in winner or winner.rstrip("…") in v.winners[0]
    assert sb.words("sv")["winner"] in sb.render_text(v)


@pytest.mark.parametrize("lang", ["sv", "nb", "da", "en"])
def test_labels_in_every_language(lang):
    v = view_of("maxi", 2)
    lay = check_screen(v, (1024, 600), lang)
    labels = {t.text for t in lay.texts if t.role == "label"}
    rs = v.rules
    for b in rs.boxes:
        assert b.label(lang) in labels or b.short_label(lang) in labels
    assert sb.words(lang)["total"] in labels
    assert total_line(sb.render_text(v, lang), lang) == [p.total for p in v.players]


def test_first_throw_not_made_yet_shows_empty_dice_places():
    g = Game(Setup.create("special8", ["Anna", "Bo"]))
    v = g.view()
    lay = check_screen(v, (800, 480))
    assert len(lay.dice) == 8 and all(d.value is None for d in lay.dice)
    assert sb.words("sv")["throw"] in {t.text for t in lay.texts}


def test_long_names_and_long_notice_are_cut_not_spilled():
    v = view_of("maxi", 6)
    long = replace(v, players=tuple(replace(p, name=p.name * 5) for p in v.players),
                   notice="Tärning utanför brickan och en annan på kant — kasta om alla tärningarna igen, tack så mycket",
                   advice="Behåll fem femmor och kasta den sjätte tärningen två gånger till om det behövs")
    for size in ((480, 320), (320, 480), (800, 480)):
        check_screen(long, size)


@pytest.mark.parametrize("lang", ["sv", "en", "nb", "da"])
@pytest.mark.parametrize("rname", ["yatzy", "maxi", "special8"])
def test_a_reroll_with_two_reasons_takes_the_hints_room_on_the_smallest_panel(lang, rname):
    """Throw again with two reasons on a 480x320 panel: the notice is cut only when it reaches the
    panel's foot, after the hints (stop cost, advice) have given up their room; with five dice
    both reasons are shown whole."""
    from controller.language import say

    reasons = [say(lang, r) for r in ("cocked", "off_tray")]
    v = replace(view_of(rname, 2), notice=say(lang, "throw_again", why=", ".join(reasons)))
    lay = check_screen(v, (480, 320), lang)
    notice = [t for t in lay.texts if t.role == "notice"]
    shown = " ".join(t.text for t in notice)
    assert shown.startswith(say(lang, "throw_again", why="|").split("|")[0] + reasons[0])
    if shown.endswith("\u2026"):
        assert not any(t.role == "advice" for t in lay.texts)
        assert notice[-1].cell[3] + (notice[-1].cell[3] - notice[-1].cell[1]) > 320
    if rname == "yatzy":
        assert all(r in shown for r in reasons), shown
    # on a bigger panel the notice is whole
    big = " ".join(t.text for t in sb.layout(v, (800, 480), lang).texts if t.role == "notice")
    assert all(r in big for r in reasons) and not big.endswith("\u2026"), big


@pytest.mark.slow
@pytest.mark.parametrize("lang", ["en", "nb", "da"])
@pytest.mark.parametrize("rname", RULESETS)
def test_other_languages_on_the_small_screens(lang, rname):
    for n in PLAYERS:
        v = view_of(rname, n)
        for size in ((480, 320), (320, 480)):
            lay = check_screen(v, size, lang)
            for page in range(1, lay.pages):
                check_screen(v, size, lang, page)


@pytest.mark.slow
@pytest.mark.parametrize("rname", RULESETS)
def test_end_of_game_at_every_size(rname):
    for n in PLAYERS:
        v = view_of(rname, n, progress=1.0, notice=False)
        assert v.finished
        for size in SCREENS:
            lay = check_screen(v, size)
            assert any(t.role == "winner" for t in lay.texts)
            assert not lay.highlights


def test_special8_stop_cost_and_declared_box_from_a_real_game():
    g = Game(Setup.create("special8", ["Anna"]))
    for b in ("ones", "twos", "threes"):  # three one-throw turns: a bank of 6
        g.apply({"throw": [1, 2, 3, 4, 5, 6, 1, 2]})
        g.apply({"score": b})
    g.apply({"throw": [1, 2, 3, 4, 5, 6, 3, 4]})
    v = g.view()
    assert v.stop_cost == 2 and v.bank == 6
    lay = check_screen(v, (800, 480))
    status = " ".join(t.text for t in lay.texts if t.role == "status")
    assert "Stopp nu: \u22122 sparade" in status and "Slag kvar 2" in status and "Sparade 6" in status
    g.apply({"declare": "chance"})
    v = g.view()
    assert "chance" not in sb.layout(v, (480, 320)).box_ids  # page 1 of 2 ...
    lay = check_screen(v, (480, 320), page=None)  # ... so the automatic page is the one with the declared box
    assert lay.page == 1 and "chance" in lay.box_ids
    status = " ".join(t.text for t in lay.texts if t.role == "status")
    assert "Deklarerat: Chans" in status
    label = next(t for t in lay.texts if t.role == "label" and t.text == "Chans")
    assert label.color == sb.OPTION and label.bold
    assert "Deklarerat: Chans" in sb.render_text(v)


def test_every_face_has_separate_pips_at_every_die_size_used():
    smallest = int(18 * 1.2)  # the smallest die a layout draws
    for side in range(smallest, 100):
        for value in range(1, 7):
            img = Image.new("RGB", (side + 4, side + 4), sb.BG)
            sb.draw_die(ImageDraw.Draw(img), sb.DieItem((2, 2, 2 + side, 2 + side), value), (0, 0))
            pips = np.all(np.asarray(img) == sb.PIP, axis=2).astype(np.uint8)
            n, _ = cv2.connectedComponents(pips, connectivity=8)
            assert n - 1 == value, (side, value, n - 1)


def test_wrap_keeps_words_fits_and_cuts_with_an_ellipsis():
    text = "Tärning utanför brickan och en annan på kant — kasta om alla tärningarna igen"
    for width in (60, 120, 200, 400, 2000):
        for max_lines in (0, 1, 2, 3, 10):
            lines = sb.wrap_text(text, width, 18, max_lines)
            assert len(lines) <= max_lines
            assert all(sb.text_width(ln, 18) <= width for ln in lines)
            if lines and not lines[-1].endswith(sb.ELLIPSIS):
                assert " ".join(lines) == text
    assert sb.wrap_text(text, 2000, 18, 1) == [text]
    assert sb.wrap_text(text, 200, 18, 1)[0].endswith(sb.ELLIPSIS)


def test_a_screen_too_small_is_a_user_error():
    with pytest.raises(sb.ScoreboardError, match="too small") as e:
        sb.layout(view_of("yatzy", 1), (160, 128))
    assert e.value.user_error


def test_bench_screen_section_reports_figures_with_sample_sizes():
    from controller.bench import screen as bench_screen

    out = bench_screen.bench(quick=True)
    assert out["frames_per_size"] == 30
    for key in ("800x480", "480x320"):
        fig = out[key]
        for part in ("render_write_wall", "render_write_cpu", "render_wall", "write_wall"):
            assert 0 < fig[part]["median_ms"] <= fig[part]["p95_ms"] <= fig[part]["max_ms"]


# ---------------------------------------------------------------- what the players see (issue: one page, more than colour)


@pytest.mark.parametrize("lang", ["sv", "nb", "da", "en"])
@pytest.mark.parametrize("players", [1, 2, 6])
def test_special8_fits_one_page_at_800x480_in_every_language(lang, players):
    v = sb.sample_view("special8", players, progress=0.45, seed=players)
    lay = sb.layout(v, (800, 480), lang)
    assert lay.pages == 1 and len(lay.box_ids) == len(v.rules.boxes)
    assert not [t.text for t in lay.texts if t.role == "label" and sb.ELLIPSIS in t.text]


def test_would_score_differs_from_filled_in_greyscale():
    from dataclasses import replace as _r

    v = sb.sample_view("yatzy", 1, progress=0.45, seed=1)
    lay = sb.layout(v, (800, 480), "en")
    grey = np.asarray(sb.draw(lay).convert("L")).astype(int)
    opt = next(t for t in lay.texts if t.role == "option")
    val = next(t for t in lay.texts if t.role == "value")

    def edge(t, g=None):  # just inside the top of the cell against its very top row (the background)
        g = grey if g is None else g
        x0, y0, x1, y1 = t.cell
        xm = (x0 + x1) // 2
        return abs(int(g[y0 + 3, xm]) - int(g[y0, xm]))

    assert edge(opt) > 40  # a would-score value is framed: bright pixels above and below it
    assert edge(val) < 20  # a filled one is not
    # and the frame is what tells them apart, not the colour alone: drop the frames and the ring is gone
    bare = _r(lay, rects=tuple(r for r in lay.rects if r.role != "option_frame"))
    grey2 = np.asarray(sb.draw(bare).convert("L")).astype(int)
    assert edge(opt, grey2) < 20


def test_a_menu_does_not_look_like_throw_again():
    from dataclasses import replace as _r

    v = sb.sample_view("yatzy", 2, progress=0.3, seed=1)
    menu = sb.layout(_r(v, notice="> Chance: 20   (1/9; press: next, hold: choose)", extras=(("menu", "Chance: 20"),)), (800, 480), "en")
    again = sb.layout(_r(v, notice="Throw again: a die is cocked (no throw used)"), (800, 480), "en")
    assert any(r.role == "notice" and r.fill == sb.NOTICE_BG for r in again.rects)
    assert not any(r.fill == sb.NOTICE_BG for r in menu.rects)
    assert any(r.role == "menu_frame" and r.outline for r in menu.rects)
    assert [t for t in menu.texts if t.role == "menu"] and all(not t.bold for t in menu.texts if t.role == "menu")


@pytest.mark.parametrize("rname,size,seen", [("yatzy", (480, 320), (6, None, 3, 5, 5)),
                                             ("special8", (320, 480), (6, 6, None, 1, 6, None, 2, 5)),
                                             ("maxi", (800, 480), (None, 2, 2, 4, 6, 1, 3)),  # a die too many
                                             ("special8", (480, 320), (1, 2, None, 3, 4, 5, 6, 6, None))])
def test_a_reroll_shows_the_dice_seen_with_a_question_mark_where_one_was_not_read(rname, size, seen):
    v = replace(view_of(rname, 2), notice="Throw again: a die cannot be read (no throw used)", seen=seen)
    lay = check_screen(v, size, "en")
    assert [d.value for d in lay.dice] == list(seen)  # the dice seen, in their order, not the game's dice
    assert [d.doubt for d in lay.dice] == [s is None for s in seen]
    img = sb.render(v, size, "en")
    for d in lay.dice:
        x0, y0, x1, y1 = d.rect
        face = img[y0:y1, x0:x1].reshape(-1, 3)
        red = np.mean(np.all(face == sb.NOTICE_BG, axis=1))
        if d.doubt:  # a red die with a light "?" on it, no pips
            assert red > 0.4 and np.any(np.all(face == sb.DIE, axis=1)) and not np.any(np.all(face == sb.PIP, axis=1))
        else:
            assert red == 0
    assert "Seen: " + " ".join("?" if s is None else str(s) for s in seen) in sb.render_text(v, "en")
    plain = sb.layout(replace(v, seen=None), size, "en")  # without it: the game's own dice, no red die
    assert [d.value for d in plain.dice] == list(v.dice) and not any(d.doubt for d in plain.dice)
    assert "Seen:" not in sb.render_text(replace(v, seen=None), "en")


@pytest.mark.parametrize("size", [(480, 320), (320, 480), (800, 480)])
def test_dice_entered_by_hand_frame_the_die_being_set(size):
    dice = (4, None, None, 6, 2)
    v = replace(view_of("yatzy", 2), seen=dice, notice="By hand: 4 [?] ? 6 2",
                extras=(("manual", "4 ? ? 6 2"), ("manual_cursor", "1")))
    lay = check_screen(v, size, "en")
    frames = [r for r in lay.rects if r.role == "die_cursor"]
    assert len(frames) == 1 and frames[0].fill == sb.OPTION and frames[0].outline
    assert inside(lay.dice[1].rect, frames[0].rect) and not inside(lay.dice[0].rect, frames[0].rect)
    img = sb.render(v, size, "en")
    x0, y0, x1, y1 = frames[0].rect
    assert np.all(img[y0 + (y1 - y0) // 2, x0] == sb.OPTION)  # the frame is painted
    assert "Seen:" not in sb.render_text(v, "en")  # (the entry is in its notice)
    assert not [r for r in sb.layout(replace(v, extras=()), size, "en").rects if r.role == "die_cursor"]
