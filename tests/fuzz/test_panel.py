"""Property test: any sequence of panel inputs on the simulated appliance (the real reader on
rendered throws, cocked dice among them, the real game, a real SQLite store, a manual clock).

Whatever is pressed, in the menu, in the dice editor or between throws: nothing raises; the game
the app holds is the game its stored events replay to; every stored throw has the game's number of
faces, each 1-6; the dice row never shows a face outside 1-6; the screen renders, in each of its
languages. Inputs a button cannot make (a typed digit 0 or 7, a tap on box 40) are among them. ``APP_FAST`` sequences in ``make test``,
``APP_SLOW`` in the ``fuzz_slow`` twin (``make test-fuzz``).
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller import app as A
from controller.game.game import Game
from controller.screen import scoreboard
from hardware.camera import ManualClock
from hardware.panel import Action, Input
from tests.fuzz import FAST, SLOW

APP_FAST, APP_SLOW = 40, 300  # sequences (each about a second: a rig, its throws read from renders)
ACTIONS = [Action.THROW, Action.MENU, Action.NEXT, Action.PREV, Action.SCORE, Action.UNDO,
           Action.READ_AGAIN, Action.MANUAL, Action.DIGIT, Action.PICK, Action.SHUTDOWN]
SEQUENCES = st.tuples(
    st.sampled_from(["yatzy", "special8", "maxi"]),
    st.sampled_from([0.0, 0.5]),  # share of cocked dice: rerolls, dice seen and not read
    st.lists(st.tuples(st.sampled_from(ACTIONS), st.one_of(st.integers(0, 7), st.integers(-2, 40))),
             min_size=1, max_size=30),
    st.sampled_from(["sv", "nb", "da", "en"]),
)


def run_sequence(rules: str, cocked: float, seq: list[tuple[Action, int]], lang: str) -> None:
    db = Path(tempfile.mkdtemp(prefix="yatzycam-panel-")) / "g.db"
    with A.simulated_rig(rules, 2, seed=len(seq), db_path=str(db), clock=ManualClock(), gpio=False,
                         cocked_rate=cocked, off_rate=0.0, lang=lang) as r:
        app = r.app
        n = app.game.rules.dice
        for action, value in seq:
            if action is Action.THROW and value % 2 == 0 and app.menu is None and app.manual is None:
                r.source.throw()  # the dice thrown before the press (else the same dice are read again)
            app.handle(Input(action, value if action in (Action.DIGIT, Action.PICK) else None, app.clock.now()))
            v = app.view()
            assert all(d is None or 1 <= d <= 6 for d in v.seen or ())
        events = [e["event"] for e in r.store.events(app.game_id)]
        assert Game.replay(app.game.setup, events).to_json() == app.game.to_json()
        for e in events:
            if "throw" in e:
                assert len(e["throw"]) == n and all(1 <= f <= 6 for f in e["throw"]), e
        img = scoreboard.render(app.view(), (480, 320), lang)
        assert img.shape == (320, 480, 3)


@settings(FAST, max_examples=APP_FAST)
@given(SEQUENCES)
def test_any_panel_input_keeps_the_game_and_its_record_equal(case):
    run_sequence(*case)


@pytest.mark.slow
@pytest.mark.fuzz_slow
@settings(SLOW, max_examples=APP_SLOW)
@given(SEQUENCES)
def test_any_panel_input_keeps_the_game_and_its_record_equal_slow(case):
    run_sequence(*case)
