"""The app's screen: a pad longer than the panel flips pages; a blank screen stays blank."""

import numpy as np

from controller.screen import scoreboard
from controller.app import PAGE_S, SinkScreen
from hardware.camera import ManualClock
from hardware.display import PngSink


def test_long_pad_flips_pages_and_blank_screen_stays_blank(tmp_path):
    view = scoreboard.sample_view("special8", 6, progress=0.4, seed=3)
    size = (480, 320)
    pages = scoreboard.page_count(view, size, "sv")
    assert pages >= 2  # 6 players x 31 rows cannot fit one 480x320 page
    clock = ManualClock()
    screen = SinkScreen([PngSink(tmp_path)], size, "sv", clock=clock, idle_s=60)
    screen.show(view)
    first = sorted(tmp_path.glob("*.png"))
    assert len(first) == 1 and screen.page is None
    seen = {0}
    for _ in range(pages):
        clock.advance(PAGE_S)
        screen.tick(clock.now())
        seen.add(screen.page)
    assert seen == set(range(pages))  # every page came up
    shots = sorted(tmp_path.glob("*.png"))
    assert len(shots) == 1 + pages
    # after the idle time the screen blanks and stops flipping
    clock.advance(61)
    screen.tick(clock.now())
    assert screen.display.is_blank
    n = len(list(tmp_path.glob("*.png")))
    page = screen.page
    clock.advance(PAGE_S)
    screen.tick(clock.now())
    assert screen.page == page and len(list(tmp_path.glob("*.png"))) == n


def test_short_pad_never_flips(tmp_path):
    view = scoreboard.sample_view("yatzy", 2, progress=0.5, seed=1)
    clock = ManualClock()
    screen = SinkScreen([PngSink(tmp_path)], (800, 480), "en", clock=clock)
    screen.show(view)
    for _ in range(3):
        clock.advance(PAGE_S)
        screen.tick(clock.now())
    assert screen.page is None and len(list(tmp_path.glob("*.png"))) == 1
    assert np.asarray(scoreboard.render(view, (800, 480), "en")).shape == (480, 800, 3)


def test_terminal_screen_shows_the_dice_as_read_and_what_each_box_would_score():
    import io

    from controller.app import TerminalScreen
    from controller.game.game import Game, Setup

    g = Game(Setup.create("yatzy", "Anna,Bo"))
    g.apply({"throw": [6, 6, 6, 2, 3]})
    out = io.StringIO()
    TerminalScreen("en", out).show(g.view())
    text = out.getvalue()
    assert "Dice: 6 6 6 2 3" in text and "Throws left 2" in text
    sixes = next(line for line in text.splitlines() if line.startswith("Sixes"))
    assert "[18]" in sixes  # would-score, marked
    assert "Bonus" in text and "Total" in text
