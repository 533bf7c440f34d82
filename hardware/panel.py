"""The panel: buttons in, LEDs out. gpiozero for the Pi; a keyboard panel for a desktop.

Buttons become plain :class:`Input` values (an :class:`Action`, an optional
value, the time) in a queue the app reads; nothing here knows the game.

Buttons (pins from the config file; only THROW is required):

======  ==============  ==========================
button  short press     hold (``hold_s``, released)
======  ==============  ==========================
THROW   THROW           MENU
NEXT    NEXT            PREV
SCORE   SCORE           MENU
UNDO    UNDO            READ_AGAIN
======  ==============  ==========================

With THROW alone the whole game plays: a short press registers a throw; a hold
opens the menu (the boxes with their points, then undo, read again, dice by
hand); in the menu a short press moves on and a hold picks. The app gives
THROW and MENU those meanings while its menu is open.

A press counts when the button is released: shorter than ``debounce_s`` is
contact bounce and ignored; between ``hold_s`` and ``stuck_s`` it is a hold;
a THROW hold of ``shutdown_s`` or more asks to power off (the app wants a
confirming press); longer than ``stuck_s`` (a stuck or jammed button) nothing at all, and a button
found pressed at start is ignored until it is released. While the app reads
the tray (``busy``) presses are ignored and counted in ``ignored``: a press is
never counted twice and never spends a throw the player did not make.

LEDs: ``throw_leds`` (3) light one per ordinary throw left; ``bank_leds`` (6)
one per banked throw; a bank over 6 (Maxi without a cap) blinks all six (the
exact number is on the screen). After a reroll (:meth:`Panel.blink`) the lit
LEDs blink for ``blink_s``. Blinking is driven by :meth:`Panel.tick` with the
app's clock, so tests see exact, repeatable pin states.
"""

from __future__ import annotations

import enum
import queue
import sys
import threading
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Sequence, TextIO



class PanelError(RuntimeError):
    """The buttons and LEDs cannot be opened (no GPIO on this machine, a pin in use): one line."""

    user_error = True

class Action(enum.Enum):
    THROW = "throw"  # register a throw (in the menu: move on)
    MENU = "menu"  # open the menu (in the menu: pick)
    NEXT = "next"
    PREV = "prev"
    SCORE = "score"  # score the chosen box (or open the choice)
    UNDO = "undo"
    READ_AGAIN = "read_again"
    MANUAL = "manual"  # enter / correct the dice by hand
    DIGIT = "digit"  # a face typed on a keyboard (value 1..6)
    PICK = "pick"  # a box tapped on a touch screen (value: box index)
    QUIT = "quit"
    SHUTDOWN = "shutdown"  # a very long hold of THROW (``shutdown_s``): ask to power off


@dataclass(frozen=True)
class Input:
    action: Action
    value: int | None = None
    t: float = 0.0
    source: str = ""  # the button or key it came from


@dataclass(frozen=True)
class ButtonMap:
    short: Action
    hold: Action | None


DEFAULT_BUTTONS: dict[str, ButtonMap] = {
    "throw": ButtonMap(Action.THROW, Action.MENU),
    "next": ButtonMap(Action.NEXT, Action.PREV),
    "score": ButtonMap(Action.SCORE, Action.MENU),
    "undo": ButtonMap(Action.UNDO, Action.READ_AGAIN),
}


@dataclass(frozen=True)
class Timing:
    debounce_s: float = 0.03
    hold_s: float = 0.8
    stuck_s: float = 12.0
    shutdown_s: float = 0.0  # a THROW hold this long (and under stuck_s) asks to power off; 0 = off
    blink_s: float = 2.0  # how long the LEDs blink after a reroll
    blink_hz: float = 4.0
    overflow_hz: float = 1.5  # all six bank LEDs blinking: bank over 6


class ButtonTimer:
    """Press/release edges with timestamps -> "short" | "hold" | None (pure logic)."""

    def __init__(self, timing: Timing, pressed_at_start: bool = False) -> None:
        self.timing = timing
        self.down_at: float | None = None
        self.blocked = pressed_at_start  # ignore until released
        self.stuck = False

    def down(self, t: float) -> None:
        if self.down_at is None and not self.blocked:
            self.down_at = t

    def up(self, t: float) -> str | None:
        start, self.down_at = self.down_at, None
        if self.blocked:
            self.blocked = False
            return None
        if start is None:
            return None
        d = t - start
        if d >= self.timing.stuck_s:
            self.stuck = False
            return None
        if self.timing.shutdown_s and d >= self.timing.shutdown_s:
            return "shutdown"
        if d >= self.timing.hold_s:
            return "hold"
        if d >= self.timing.debounce_s:
            return "short"
        return None  # bounce

    def check_stuck(self, t: float) -> bool:
        """True while the button has been held longer than ``stuck_s``."""
        self.stuck = self.down_at is not None and t - self.down_at >= self.timing.stuck_s
        return self.stuck

    def holding(self, t: float) -> bool:
        return self.down_at is not None and self.timing.hold_s <= t - self.down_at < self.timing.stuck_s


@dataclass(frozen=True)
class LedState:
    throws: tuple[bool, ...]
    bank: tuple[bool, ...]

    def text(self) -> str:
        return "throws " + "".join("●" if b else "○" for b in self.throws) + "  bank " + "".join("●" if b else "○" for b in self.bank)


def led_pattern(
    throws_left: int,
    bank: int,
    t: float,
    n_throw: int = 3,
    n_bank: int = 6,
    blink_until: float = -1.0,
    timing: Timing = Timing(),
) -> LedState:
    """Which LEDs are lit at time ``t`` (pure: the tests compare pins to this)."""
    throws = [i < throws_left for i in range(n_throw)]
    if bank > n_bank:  # a bank over the LEDs: all blink, the screen shows the number
        on = int(t * timing.overflow_hz * 2) % 2 == 0
        banks = [on] * n_bank
    else:
        banks = [i < bank for i in range(n_bank)]
    if t < blink_until:  # a reroll: what is lit blinks
        if int(t * timing.blink_hz * 2) % 2 == 1:
            throws = [False] * n_throw
            banks = [False] * n_bank
    return LedState(tuple(throws), tuple(banks))


class Panel:
    """What the app talks to: a queue of :class:`Input`, the LEDs, the busy flag."""

    def __init__(self, clock: Any, timing: Timing = Timing(), n_throw: int = 3, n_bank: int = 6) -> None:
        self.clock = clock
        self.timing = timing
        self.n_throw = n_throw
        self.n_bank = n_bank
        self.queue: queue.Queue[Input] = queue.Queue()
        self.busy = False
        self.ignored = 0
        self.throws_left = 0
        self.bank = 0
        self.blink_until = -1.0
        self.leds = led_pattern(0, 0, 0.0, n_throw, n_bank, timing=timing)

    # input side
    def put(self, action: Action, value: int | None = None, source: str = "") -> bool:
        """Queue an input; ignored (False) while the app is busy reading the tray."""
        if self.busy and action is not Action.QUIT:
            self.ignored += 1
            return False
        self.queue.put(Input(action, value, self.clock.now(), source))
        return True

    def get(self, timeout: float | None = 0.0) -> Input | None:
        """The next input, or None. ``timeout`` 0: do not wait."""
        try:
            if not timeout:
                return self.queue.get_nowait()
            return self.queue.get(timeout=timeout)
        except queue.Empty:
            return None

    def pending(self) -> int:
        return self.queue.qsize()

    # output side
    def show(self, throws_left: int, bank: int) -> None:
        self.throws_left, self.bank = throws_left, bank
        self.tick()

    def blink(self, seconds: float | None = None) -> None:
        """Blink the lit LEDs (a reroll: no throw was used)."""
        self.blink_until = self.clock.now() + (self.timing.blink_s if seconds is None else seconds)
        self.tick()

    def tick(self) -> LedState:
        """Bring the LEDs up to date with the clock (call it every loop)."""
        self.leds = led_pattern(
            self.throws_left, self.bank, self.clock.now(), self.n_throw, self.n_bank, self.blink_until, self.timing
        )
        self._write(self.leds)
        return self.leds

    def _write(self, leds: LedState) -> None:  # a device panel lights its LEDs
        pass

    @property
    def stuck(self) -> list[str]:
        return []

    def close(self) -> None:
        pass

    def __enter__(self) -> "Panel":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class GpioPanel(Panel):
    """Buttons and LEDs on GPIO pins through gpiozero (MockFactory in tests).

    ``buttons``: name -> pin for any of throw/next/score/undo (throw required);
    ``throw_leds``/``bank_leds``: pins, up to 3 and 6 (fewer or none is allowed).
    Buttons pull up (pressed = pin low), as a button to ground wires.
    """

    def __init__(
        self,
        buttons: dict[str, int | str],
        throw_leds: Sequence[int | str] = (),
        bank_leds: Sequence[int | str] = (),
        clock: Any = None,
        timing: Timing = Timing(),
        pin_factory: Any = None,
        mapping: dict[str, ButtonMap] | None = None,
    ) -> None:
        from gpiozero import Button, LED

        if clock is None:
            from hardware.camera import SystemClock

            clock = SystemClock()
        if "throw" not in buttons:
            raise ValueError("the panel needs a THROW button pin")
        super().__init__(clock, timing, len(throw_leds), len(bank_leds))
        self.mapping = mapping or DEFAULT_BUTTONS
        self._lock = threading.Lock()
        self.buttons: dict[str, Any] = {}
        self.timers: dict[str, ButtonTimer] = {}
        self.throw_leds: list[Any] = []
        self.bank_leds: list[Any] = []
        try:
            for name, pin in buttons.items():
                if name not in self.mapping:
                    raise ValueError(f"unknown button {name!r} (one of {', '.join(self.mapping)})")
                b = Button(pin, pull_up=True, bounce_time=None, pin_factory=pin_factory)
                self.buttons[name] = b
                self.timers[name] = ButtonTimer(timing, pressed_at_start=b.is_pressed)
                b.when_pressed = self._on(name, True)
                b.when_released = self._on(name, False)
            self.throw_leds = [LED(p, pin_factory=pin_factory) for p in throw_leds]
            self.bank_leds = [LED(p, pin_factory=pin_factory) for p in bank_leds]
        except Exception:
            self.close()
            raise
        self.tick()

    def _on(self, name: str, pressed: bool) -> Callable[[], None]:
        def handler() -> None:
            t = self.clock.now()
            with self._lock:
                timer = self.timers[name]
                if pressed:
                    timer.down(t)
                    return
                kind = timer.up(t)
            if kind is not None:
                m = self.mapping[name]
                if kind == "shutdown":
                    action = Action.SHUTDOWN if name == "throw" else m.hold
                else:
                    action = m.short if kind == "short" else m.hold
                if action is not None:
                    self.put(action, source=name)

        return handler

    def _write(self, leds: LedState) -> None:
        for led, on in zip(self.throw_leds, leds.throws):
            if led.is_lit != on:
                led.value = on
        for led, on in zip(self.bank_leds, leds.bank):
            if led.is_lit != on:
                led.value = on

    @property
    def stuck(self) -> list[str]:
        t = self.clock.now()
        with self._lock:
            return [name for name, timer in self.timers.items() if timer.check_stuck(t)]

    def holding(self) -> bool:
        t = self.clock.now()
        return any(timer.holding(t) for timer in self.timers.values())

    def close(self) -> None:
        for dev in [*self.buttons.values(), *self.throw_leds, *self.bank_leds]:
            try:
                dev.close()
            except Exception:  # noqa: BLE001 - closing must not fail
                pass
        self.buttons, self.throw_leds, self.bank_leds = {}, [], []


KEYS: dict[str, Action] = {
    " ": Action.THROW,
    "t": Action.THROW,
    "m": Action.MENU,
    "\n": Action.MENU,
    "\r": Action.MENU,
    "n": Action.NEXT,
    "p": Action.PREV,
    "s": Action.SCORE,
    "u": Action.UNDO,
    "r": Action.READ_AGAIN,
    "e": Action.MANUAL,
    "q": Action.QUIT,
}

KEY_HELP = "space/t throw · n/p next/prev box · s score · m menu · u undo · r read again · e dice by hand (1-6, Enter) · q quit"


class KeyboardPanel(Panel):
    """The same actions from a keyboard (a desktop, the demo with ``--keyboard``).

    :meth:`feed` takes typed characters (also from an OpenCV window's keys);
    :meth:`start` reads them from a terminal in a daemon thread (single keys
    when stdin is a terminal, else whole lines). The LEDs are shown as text.
    """

    def __init__(self, clock: Any = None, timing: Timing = Timing(), keys: dict[str, Action] | None = None) -> None:
        if clock is None:
            from hardware.camera import SystemClock

            clock = SystemClock()
        super().__init__(clock, timing)
        self.keys = keys or KEYS
        self._thread: threading.Thread | None = None
        self._restore: Callable[[], None] | None = None

    def feed(self, chars: Iterable[str]) -> int:
        """Typed characters -> inputs; returns how many were queued."""
        n = 0
        for ch in chars:
            if ch in "123456":
                n += self.put(Action.DIGIT, int(ch), source="key")
            elif ch.lower() in self.keys or ch in self.keys:
                n += self.put(self.keys.get(ch, self.keys.get(ch.lower(), Action.QUIT)), source="key")
        return n

    def start(self, stream: TextIO | None = None) -> None:
        stream = stream or sys.stdin
        if stream.isatty():
            try:
                import termios
                import tty

                fd = stream.fileno()
                old = termios.tcgetattr(fd)
                tty.setcbreak(fd)
                self._restore = lambda: termios.tcsetattr(fd, termios.TCSADRAIN, old)
            except Exception:  # noqa: BLE001 - no termios: line mode
                self._restore = None

        def reader() -> None:
            while True:
                ch = stream.read(1)
                if not ch:
                    self.put(Action.QUIT, source="eof")
                    return
                self.feed(ch)

        self._thread = threading.Thread(target=reader, name="keyboard-panel", daemon=True)
        self._thread.start()

    def close(self) -> None:
        if self._restore is not None:
            self._restore()
            self._restore = None
