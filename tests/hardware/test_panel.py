"""The GPIO panel on gpiozero's MockFactory: presses, holds, bounce, a stuck button, LEDs."""

from __future__ import annotations

import pytest
from gpiozero.pins.mock import MockFactory

from hardware.camera import ManualClock
from hardware.panel import Action, GpioPanel, KeyboardPanel, Timing, led_pattern

THROW, NEXT, SCORE, UNDO = 17, 27, 22, 23
THROW_LEDS = (5, 6, 13)
BANK_LEDS = (16, 19, 20, 21, 26, 12)


@pytest.fixture
def rig():
    factory = MockFactory()
    clock = ManualClock(100.0)
    panel = GpioPanel(
        {"throw": THROW, "next": NEXT, "score": SCORE, "undo": UNDO},
        THROW_LEDS,
        BANK_LEDS,
        clock=clock,
        pin_factory=factory,
    )
    try:
        yield factory, clock, panel
    finally:
        panel.close()
        factory.reset()


def press(factory, clock, pin, seconds):
    factory.pin(pin).drive_low()
    clock.advance(seconds)
    factory.pin(pin).drive_high()


def drain(panel):
    out = []
    while (i := panel.get()) is not None:
        out.append(i.action)
    return out


def lit(factory, pins):
    return tuple(bool(factory.pin(p).state) for p in pins)


def test_short_press_and_hold(rig):
    factory, clock, panel = rig
    press(factory, clock, THROW, 0.1)
    press(factory, clock, THROW, 1.2)
    press(factory, clock, NEXT, 0.1)
    press(factory, clock, NEXT, 1.0)
    press(factory, clock, SCORE, 0.2)
    press(factory, clock, UNDO, 0.2)
    press(factory, clock, UNDO, 2.0)
    assert drain(panel) == [Action.THROW, Action.MENU, Action.NEXT, Action.PREV, Action.SCORE, Action.UNDO, Action.READ_AGAIN]


def test_bounce_and_stuck_button_are_ignored(rig):
    factory, clock, panel = rig
    press(factory, clock, THROW, 0.005)  # contact bounce
    factory.pin(THROW).drive_low()
    clock.advance(30.0)
    assert panel.stuck == ["throw"]
    factory.pin(THROW).drive_high()  # released after 30 s: nothing, not repeated
    assert drain(panel) == []
    assert panel.stuck == []
    press(factory, clock, THROW, 0.1)  # works again afterwards
    assert drain(panel) == [Action.THROW]


def test_button_pressed_at_start_is_ignored_until_released():
    factory = MockFactory()
    try:
        factory.pin(THROW).drive_low()
        clock = ManualClock()
        panel = GpioPanel({"throw": THROW}, clock=clock, pin_factory=factory)
        clock.advance(0.2)
        factory.pin(THROW).drive_high()
        assert drain(panel) == []
        press(factory, clock, THROW, 0.2)
        assert drain(panel) == [Action.THROW]
        panel.close()
    finally:
        factory.reset()


def test_press_while_busy_is_ignored_not_queued(rig):
    factory, clock, panel = rig
    panel.busy = True
    press(factory, clock, THROW, 0.1)
    press(factory, clock, THROW, 0.1)
    panel.busy = False
    assert drain(panel) == []
    assert panel.ignored == 2
    press(factory, clock, THROW, 0.1)
    assert drain(panel) == [Action.THROW]


def test_leds_show_throws_and_bank(rig):
    factory, clock, panel = rig
    for throws, bank in [(3, 0), (2, 1), (1, 4), (0, 6), (0, 0)]:
        panel.show(throws, bank)
        assert lit(factory, THROW_LEDS) == tuple(i < throws for i in range(3))
        assert lit(factory, BANK_LEDS) == tuple(i < bank for i in range(6))


def test_bank_over_six_blinks_all_six(rig):
    factory, clock, panel = rig
    panel.show(3, 9)
    seen = set()
    for _ in range(8):
        clock.advance(0.17)
        panel.tick()
        states = lit(factory, BANK_LEDS)
        assert len(set(states)) == 1  # all six together
        seen.add(states[0])
        assert lit(factory, THROW_LEDS) == (True, True, True)
    assert seen == {True, False}


def test_reroll_blinks_then_stops(rig):
    factory, clock, panel = rig
    panel.show(2, 3)
    panel.blink(1.0)
    seen = set()
    for _ in range(8):
        clock.advance(0.1)
        panel.tick()
        seen.add((lit(factory, THROW_LEDS), lit(factory, BANK_LEDS)))
    assert ((True, True, False), (True, True, True, False, False, False)) in seen
    assert ((False,) * 3, (False,) * 6) in seen
    clock.advance(1.0)
    panel.tick()
    assert lit(factory, THROW_LEDS) == (True, True, False)
    assert lit(factory, BANK_LEDS) == (True, True, True, False, False, False)


def test_led_pattern_is_pure():
    t = Timing()
    assert led_pattern(3, 0, 0.0, timing=t).throws == (True, True, True)
    assert led_pattern(0, 2, 0.0, timing=t).bank == (True, True, False, False, False, False)


def test_keyboard_panel_same_actions():
    panel = KeyboardPanel(clock=ManualClock())
    assert panel.feed(" nps ur e35\nq") == 13
    acts = [(i.action, i.value) for i in iter(panel.get, None)]
    assert [a for a, _ in acts] == [
        Action.THROW, Action.NEXT, Action.PREV, Action.SCORE, Action.THROW, Action.UNDO, Action.READ_AGAIN,
        Action.THROW, Action.MANUAL, Action.DIGIT, Action.DIGIT, Action.MENU, Action.QUIT,
    ]
    assert [v for a, v in acts if a is Action.DIGIT] == [3, 5]


def test_very_long_hold_asks_for_shutdown():
    factory = MockFactory()
    try:
        clock = ManualClock()
        panel = GpioPanel({"throw": THROW}, clock=clock, pin_factory=factory, timing=Timing(hold_s=1.0, shutdown_s=5.0, stuck_s=12.0))
        press(factory, clock, THROW, 1.5)
        press(factory, clock, THROW, 6.0)
        press(factory, clock, THROW, 20.0)
        assert drain(panel) == [Action.MENU, Action.SHUTDOWN]
        panel.close()
    finally:
        factory.reset()
