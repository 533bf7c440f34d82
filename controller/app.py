"""The appliance loop: button -> still tray -> reading -> game -> store -> LEDs and screen.

:class:`App` owns no device: it is handed a frame source (``hardware.camera``),
a panel (``hardware.panel``), a screen (anything with ``show(view)``), a store
and a clock, so the same loop runs on a Pi, on a desktop and in the tests, where
time is a :class:`~hardware.camera.ManualClock` and the pins are gpiozero's mock.

One input at a time (:meth:`App.step`):

- THROW: wait until the tray is still (small frames, :mod:`vision.settle`), read
  still frames until two agree, then either "throw again" with the reason (no
  throw used, LEDs blink, the screen says why and shows the dice it saw, left to
  right, "?" for each it did not read) or the throw is checked, stored
  (on disk), applied and only then shown.
- MENU / SCORE / NEXT / PREV: the menu - the legal boxes with their points
  (best first), declares (Special 8), read again, dice by hand, undo; with one
  button a short press moves on and a hold picks.
- READ_AGAIN: the same dice in the same places -> the last throw's faces are
  replaced (undo + throw in the log) without spending a throw; otherwise it is
  a new throw.
- MANUAL: dice entered by hand (a correction of the last throw or a new throw),
  stored with ``"manual": true``.
- UNDO: takes back the last event.

A camera call that fails is shown and retried; it never changes the game.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Protocol, Sequence

from controller.game.game import MAX_PLAYERS, Game, GameError, Setup
from controller.game.view import GameView, dice_text, face_text
from controller.language import SAYINGS, say
from hardware.camera import CameraError, Clock, FrameSource, ManualClock
from hardware.panel import Action, Input, Panel


class Screen(Protocol):
    def show(self, view: GameView) -> None: ...


@dataclass(frozen=True)
class AppTiming:
    settle_timeout_s: float = 10.0  # the tray never stills: give up, say so
    agree_frames: int = 2  # still frames that must read the same
    read_attempts: int = 4  # frames read at most per throw
    camera_retries: int = 3  # a failing camera call is retried this often per press
    camera_retry_s: float = 1.0
    save_retry_s: float = 30.0  # a write that may pass (a full disk) is tried again this long, then given up
    save_retry_every_s: float = 1.0
    idle_s: float = 0.05  # how long one step waits for input
    watch_idle: bool = True  # watch the tray between presses (a press on a still tray reads at once)


@dataclass(frozen=True)
class MenuItem:
    label: str
    kind: str  # "score" | "declare" | "read_again" | "manual_fix" | "manual_new" | "undo" | "new_game" | "close"
    arg: str | None = None


@dataclass
class Menu:
    items: list[MenuItem]
    cursor: int = 0

    @property
    def current(self) -> MenuItem:
        return self.items[self.cursor]

    def move(self, step: int) -> None:
        self.cursor = (self.cursor + step) % len(self.items)


@dataclass
class ManualEntry:
    dice: list[int | None]  # None: a die still to be set (one the camera did not read)
    replace_last: bool  # True: correct the last throw; False: a new throw
    cursor: int = 0


@dataclass(frozen=True)
class ThrowResult:
    """What one THROW press came to (for the demo, the bench and the tests)."""

    outcome: str  # "throw" | "reroll" | "camera" | "unsettled" | "refused" | "same"
    values: tuple[int, ...] = ()
    reasons: tuple[str, ...] = ()
    pressed_at: float = 0.0
    shown_at: float = 0.0
    frames: int = 0
    still_wall: float | None = None  # perf_counter when the last still frame the reading is made from arrived
    shown_wall: float | None = None  # perf_counter when the screen had been shown the result
    busy_ms: float = 0.0  # wall time the press's handling computed (on a ManualClock, not in shown_at - pressed_at)

    @property
    def still_to_screen_ms(self) -> float | None:
        """Wall time from the last (agreeing) still frame to the screen: our own latency."""
        if self.still_wall is None or self.shown_wall is None:
            return None
        return 1000.0 * (self.shown_wall - self.still_wall)


@dataclass
class Stats:
    results: list[ThrowResult] = field(default_factory=list)
    camera_errors: int = 0


class App:
    def __init__(
        self,
        game: Game,
        game_id: Any,
        store: Any,
        source: FrameSource,
        panel: Panel,
        screen: Screen,
        clock: Clock,
        calibration: Any = None,
        timing: AppTiming = AppTiming(),
        watchdog: Callable[[], None] | None = None,
        reopen: Callable[[], FrameSource] | None = None,
        lang: str = "sv",
        advisor: Callable[[GameView], str | None] | None = None,
        shutdown: Callable[[], None] | None = None,
    ) -> None:
        self.game = game
        self.game_id = game_id
        self.store = store
        self.source = source
        self.panel = panel
        self.screen = screen
        self.clock = clock
        self.calibration = calibration
        self.timing = timing
        self.watchdog = watchdog or (lambda: None)
        self.reopen = reopen
        self.lang = lang
        self.advisor = advisor
        self.notice: str | None = None
        self.seen: tuple[str | None, tuple[int | None, ...]] | None = None  # (the reroll notice, the dice seen)
        self.unsaved: str | None = None  # why the last write could not be saved (None: it was)
        self.menu: Menu | None = None
        self.manual: ManualEntry | None = None
        self.last_reading: Any = None  # the reading behind the last throw of this turn
        self.stats = Stats()
        self.quit = False
        self.last_result: ThrowResult | None = None
        self.shutdown = shutdown  # powers the device off (``hardware.power.poweroff``); None: off
        self._shutdown_asked: float | None = None
        from vision.settle import Settler

        self._settler = Settler()
        self.setup_menu = False  # the menu shows the next game's setup
        self.next_setup: tuple[str, int] = (game.rules.name, len(game.players))
        from vision import reader

        self._reader = reader

    # ------------------------------------------------------------------ output
    def say(self, key: str, **fill: object) -> str:
        """A notice or menu item in the app's language (controller.language.SAYINGS)."""
        return say(self.lang, key, **fill)

    def refusal(self, e: GameError) -> str:
        """What a refused event says: in the pad's language when the rules say why in words a player
        meets at the table (GameError.key), boxes by the pad's labels; else the rules' own line."""
        if e.key not in SAYINGS:
            return str(e)
        rs = self.game.rules

        def label(box: object) -> str:
            return rs.box(box).label(self.lang) if box in rs.box_ids else str(box)

        fill = {k: ", ".join(map(label, v)) if k == "boxes" else label(v) if k == "box" else v
                for k, v in e.fill.items()}
        return self.say(e.key, **fill)

    @property
    def _keyboard(self) -> bool:
        """The panel is a keyboard: prompts name keys, not the button's press and hold."""
        from hardware.panel import KeyboardPanel

        return isinstance(self.panel, KeyboardPanel)

    def view(self) -> GameView:
        v = self.game.view()
        extras: list[tuple[str, str]] = []
        notice = self.notice
        if self.menu is not None:
            item = self.menu.current
            extras += [("menu", item.label), ("menu_pos", f"{self.menu.cursor + 1}/{len(self.menu.items)}")]
            if item.kind == "score" and item.arg:
                extras.append(("cursor", item.arg))
            keys = self.say("menu_keys_keyboard" if self._keyboard else "menu_keys")
            notice = f"> {item.label}   ({self.menu.cursor + 1}/{len(self.menu.items)}; {keys})"
        elif self.manual is not None:
            m = self.manual
            dice = " ".join(f"[{face_text(d)}]" if i == m.cursor else face_text(d) for i, d in enumerate(m.dice))
            keys = self.say("by_hand_keys_keyboard" if self._keyboard else "by_hand_keys")
            notice = f"{self.say('by_hand', dice=dice)}   ({keys})"
            extras += [("manual", dice_text(m.dice)), ("manual_cursor", str(m.cursor))]
        advice = self.advisor(v) if self.advisor and not v.finished else None
        seen = self.seen_now() if self.menu is None else None
        if self.manual is not None:  # the dice row shows the dice as they are being entered
            seen = tuple(self.manual.dice)
        return replace(v, notice=notice, extras=tuple(extras), advice=advice or v.advice, seen=seen)

    def seen_now(self) -> tuple[int | None, ...] | None:
        """The dice the camera saw on the last reroll, while its notice is what the screen says."""
        return self.seen[1] if self.seen is not None and self.seen[0] is self.notice else None

    def refresh(self) -> GameView:
        """LEDs and screen from the game as it stands (after the store has it)."""
        v = self.view()
        self.panel.show(v.throws_left if not v.finished else 0, v.bank if not v.finished else 0)
        self.screen.show(v)
        return v

    # ------------------------------------------------------------------ loop
    def step(self, timeout: float | None = None) -> Input | None:
        """One turn of the loop: feed the watchdog, update the LEDs, handle one input."""
        self.watchdog()
        self.panel.tick()
        tick = getattr(self.screen, "tick", None)
        if tick is not None:
            tick(self.clock.now())
        inp = self.panel.get(self.timing.idle_s if timeout is None else timeout)
        if inp is None and self.timing.watch_idle:
            self.watch()
        if inp is not None:
            press = getattr(self.screen, "press", None)
            if press is not None and press(inp.t) and inp.action is not Action.QUIT:
                return inp  # the press only woke the blank screen
            self.handle(inp)
        return inp

    def run(self, until: Callable[[], bool] | None = None) -> None:
        self.refresh()
        while not self.quit and not (until and until()):
            self.step()

    def handle(self, inp: Input) -> None:
        a = inp.action
        if a is Action.DIGIT and inp.value not in range(1, 7):
            return  # (not a face: no panel makes one, and none is taken)
        if a is Action.QUIT:
            self.quit = True
            return
        if self._shutdown_asked is not None or a is Action.SHUTDOWN:
            if self._shutdown_input(inp):
                return
        if self.manual is not None:
            self._manual_input(inp)
        elif self.menu is not None:
            self._menu_input(inp)
        elif a is Action.THROW:
            if self.game.finished:
                self.open_menu()
            else:
                self.throw(inp.t)
        elif a in (Action.MENU, Action.SCORE, Action.NEXT, Action.PREV):
            self.open_menu(scores_only=a is Action.SCORE)
            if a is Action.NEXT and self.menu:
                self.menu.move(1)
            elif a is Action.PREV and self.menu:
                self.menu.move(-1)
            self.refresh()
        elif a is Action.UNDO:
            self.record({"undo": True})
        elif a is Action.READ_AGAIN:
            self.throw(inp.t, again=True)
        elif a is Action.MANUAL:  # right after a reroll: the throw refused, by hand; else a correction
            again = self.seen_now() is not None and self.game.can_throw
            self.start_manual(replace_last=not again and (self.last_reading is not None or self._turn_has_throw() and not self.game.can_throw))
        elif a is Action.PICK and inp.value is not None:
            ids = self.game.rules.box_ids
            if 0 <= inp.value < len(ids):
                self.record({"score": ids[inp.value]})
        elif a is Action.DIGIT:
            self.start_manual(replace_last=False)
            self._manual_input(inp)

    def _shutdown_input(self, inp: Input) -> bool:
        """The shutdown hold, then a confirming press within 10 s. True: the input is used up."""
        if self.shutdown is None:
            return inp.action is Action.SHUTDOWN
        if inp.action is Action.SHUTDOWN:
            self._shutdown_asked = inp.t
            self.notice = self.say("power_off")
            self.refresh()
            return True
        asked, self._shutdown_asked = self._shutdown_asked, None
        if inp.action is Action.THROW and asked is not None and inp.t - asked <= 10.0:
            self.notice = self.say("powering_off")
            self.refresh()
            self.quit = True
            self.shutdown()
            return True
        self.notice = None
        self.refresh()
        return True

    # ------------------------------------------------------------------ events
    def _turn_has_throw(self) -> bool:
        return self.game.dice is not None

    def record(self, event: dict[str, Any], reading: Any = None) -> bool:
        """Check, store (committed), apply, then show. False (and a notice) when refused."""
        try:
            self.game.check(event)
        except GameError as e:
            self.notice = self.refusal(e)
            self.refresh()
            return False
        if not self._store(event):
            return False
        self.game.apply(event)
        self.last_reading = reading if "throw" in event else None
        self.notice = None
        if self.game.finished:  # the screen says "game over" and the winner; the notice only what to do
            self.notice = self.say("new_game_prompt_keyboard" if self._keyboard else "new_game_prompt")
        self.refresh()
        return True

    def _store(self, event: dict[str, Any]) -> bool:
        """Commit ``event`` to the store. A write that may pass (a full disk) is tried again for
        ``timing.save_retry_s`` (the screen says so, the watchdog is fed); one that fails for good
        is shown and logged, ``unsaved`` says why, and the game is left as it was."""
        from controller.store import StoreError

        deadline = None
        while True:
            try:
                self.store.append(self.game_id, event)
            except StoreError as e:
                now = self.clock.now()
                if deadline is None:
                    deadline = now + self.timing.save_retry_s
                    if e.retry:
                        log(f"{e}: trying again for {self.timing.save_retry_s:g} s")
                if not e.retry or now >= deadline:
                    return self._not_saved(e)
                self.notice = self.say("not_saved_yet", e=e)
                self.screen.show(self.view())
                self.watchdog()
                self.clock.sleep(max(0.0, min(self.timing.save_retry_every_s, deadline - now)))
                continue
            self.unsaved = None
            return True

    def _not_saved(self, e: Exception) -> bool:
        self.unsaved = str(e)
        self.notice = self.say("not_saved", e=e)
        log(say("en", "not_saved", e=e))  # (the log is the operator's: English)
        self.refresh()
        return False

    def replace_throw(self, event: dict[str, Any], reading: Any = None) -> bool:
        """Replace the last throw of this turn (read again, or a correction by hand): undo + throw."""
        trial = self.game.copy()
        try:
            trial.apply({"undo": True})
            trial.apply(event)
        except GameError as e:
            self.notice = self.refusal(e)
            self.refresh()
            return False
        for ev in ({"undo": True}, event):
            if not self._store(ev):
                return False
            self.game.apply(ev)
        self.last_reading = reading
        self.notice = None
        self.refresh()
        return True

    def new_game(self) -> None:
        """A new game with the chosen setup (the unfinished one is marked abandoned in the store)."""
        old = self.game.setup
        rules, n = self.next_setup
        if rules == old.rules.name and n == len(old.players):
            setup = old
        else:
            setup = Setup.create(rules, n, banking=old.banking, lang=self.lang)
        from controller.store import StoreError

        try:
            if not self.game.finished:
                self.store.abandon(self.game_id)
            self.game_id = self.store.new_game(setup)
        except StoreError as e:
            self._not_saved(e)
            return
        self.game = Game(setup)
        self.last_reading = None
        self.notice = None
        self.refresh()

    # ------------------------------------------------------------------ camera
    def _camera(self, call: Callable[[], Any]) -> Any:
        """One camera call, retried; CameraError after the last try (the game untouched)."""
        last: CameraError | None = None
        for attempt in range(self.timing.camera_retries):
            try:
                return call()
            except CameraError as e:
                last = e
                self.stats.camera_errors += 1
                self.notice = self.say("camera_retrying", e=e)
                self.screen.show(self.view())
                self.watchdog()
                self.clock.sleep(self.timing.camera_retry_s)
                if self.reopen is not None:
                    try:
                        self.source.close()
                        self.source = self.reopen()
                    except CameraError as e2:
                        last = e2
        assert last is not None
        raise last

    def watch(self) -> None:
        """Idle: feed the settler one small frame, so that a press on a tray that has
        already been still long enough reads at once (no camera error is shown from here)."""
        try:
            small = self.source.capture_small()
        except CameraError:
            self._settler.reset()
            return
        self._settler.feed(small, self.clock.now())

    def idle_for(self, seconds: float) -> None:
        """Run the idle loop for ``seconds`` of clock time (the simulated player waiting)."""
        end = self.clock.now() + seconds
        while self.clock.now() < end and not self.panel.pending():
            before = self.clock.now()
            self.step(0)
            if self.clock.now() == before:  # nothing moved the clock: do it here
                self.clock.sleep(min(self.timing.idle_s, end - before))

    def wait_still(self) -> bool:
        """Small frames until the tray is still (True) or the timeout passes (False).

        The settler is the one the idle loop feeds: a tray still for ``still_s``
        before the press passes at the first frame."""
        settler = self._settler
        t0 = self.clock.now()
        while True:
            small = self._camera(lambda: self.source.capture_small())
            if settler.feed(small, self.clock.now()):
                return True
            self.watchdog()
            if self.clock.now() - t0 > self.timing.settle_timeout_s:
                return False

    def read_tray(self) -> tuple[Any, int]:
        """Read still frames until ``agree_frames`` in a row agree; (reading or None, frames read)."""
        from vision.settle import agree

        n = self.game.rules.dice
        run: list[Any] = []
        frames = 0
        last = None
        for _ in range(self.timing.read_attempts):
            frame = self._camera(lambda: self.source.capture())
            self._frame_wall = time.perf_counter()
            frames += 1
            r = self._reader.read(frame, self.calibration, n)
            last = r
            if run and not agree(run[-1], r):
                run = []
            run.append(r)
            if len(run) >= self.timing.agree_frames:
                return r, frames
        return (None if self.timing.agree_frames > 1 else last), frames

    def throw(self, pressed_at: float | None = None, again: bool = False) -> ThrowResult:
        pressed_at = self.clock.now() if pressed_at is None else pressed_at
        self._press_wall = time.perf_counter()  # (every outcome's busy_ms counts from here)
        again = again and self.last_reading is not None
        if not again and not self.game.can_throw:
            why = self.say("game_over" if self.game.finished else "no_throws_left")
            return self._result("refused", pressed_at, notice=why)
        self.panel.busy = True
        self._frame_wall = None
        try:
            try:
                if not self.wait_still():
                    return self._result("unsettled", pressed_at, notice=self.say("unsettled"))
                reading, frames = self.read_tray()
            except CameraError as e:
                return self._result("camera", pressed_at, notice=self.say("camera_failed", e=e))
            if reading is None:
                return self._result("reroll", pressed_at, ("disagree",), frames=frames, blink=True)
            if reading.verdict != "ok":
                return self._result("reroll", pressed_at, tuple(reading.reasons), frames=frames, blink=True,
                                    seen=reading.seen())
            event = {"throw": list(reading.values)}
            if again:
                from vision.settle import same_dice

                if same_dice(self.last_reading, reading):
                    if tuple(reading.values) == tuple(self.game.dice or ()):
                        return self._result("same", pressed_at, frames=frames, notice=self.say("same_dice"))
                    ok = self.replace_throw(event, reading)
                    return self._result("throw" if ok else "refused", pressed_at, values=reading.values, frames=frames, done=True)  # (record has shown the outcome)
                if not self.game.can_throw:
                    return self._result("refused", pressed_at, notice=self.say("moved_no_throws"))
            ok = self.record(event, reading)
            return self._result("throw" if ok else "refused", pressed_at, values=reading.values, frames=frames, done=True)  # (record has shown the outcome)
        finally:
            self.panel.busy = False

    def _result(
        self,
        outcome: str,
        pressed_at: float,
        reasons: tuple[str, ...] = (),
        values: Sequence[int] = (),
        frames: int = 0,
        notice: str | None = None,
        blink: bool = False,
        done: bool = False,
        seen: tuple[int | None, ...] | None = None,
    ) -> ThrowResult:
        if not done:  # record()/replace_throw() have shown the screen already
            if outcome == "reroll":
                why = ", ".join(self.say(r) if r in SAYINGS else r for r in reasons) or self.say("unclear")
                notice = self.say("throw_again", why=why)
            self.notice = notice
            self.seen = (notice, seen) if seen is not None else None
            if blink:
                self.panel.blink()
            self.refresh()
        still = getattr(self, "_frame_wall", None) if frames else None
        wall = time.perf_counter()
        res = ThrowResult(outcome, tuple(values), tuple(reasons), pressed_at, self.clock.now(), frames,
                          still, wall if still is not None else None,
                          1000.0 * (wall - self._press_wall))
        self._frame_wall = None
        self.stats.results.append(res)
        self.last_result = res
        return res

    # ------------------------------------------------------------------ menu
    def menu_items(self, scores_only: bool = False) -> list[MenuItem]:
        g = self.game
        rs = g.rules
        items: list[MenuItem] = []
        if self.setup_menu:
            return self.setup_items()
        if g.finished:
            items.append(MenuItem(self.say("new_game", setup=self._setup_text()), "new_game"))
        else:
            opts, extra = g.options()
            best = sorted(opts.items(), key=lambda kv: (-kv[1], rs.box_index(kv[0])))
            for box_id, pts in best:
                items.append(MenuItem(f"{rs.box(box_id).label(self.lang)}: {pts}", "score", box_id))
            if not scores_only:
                for box_id in g.declare_targets():
                    items.append(MenuItem(self.say("declare", box=rs.box(box_id).label(self.lang)), "declare", box_id))
                if self.last_reading is not None:
                    items.append(MenuItem(self.say("read_again"), "read_again"))
                if g.dice is not None:
                    items.append(MenuItem(self.say("fix_by_hand"), "manual_fix"))
                if g.can_throw:
                    by_hand = MenuItem(self.say("throw_by_hand"), "manual_new")
                    if self.seen_now() is not None:  # right after a reroll it comes first
                        items.insert(0, by_hand)
                    else:
                        items.append(by_hand)
        if g.can_undo:
            items.append(MenuItem(self.say("undo"), "undo"))
        items.append(MenuItem(self.say("another_game"), "setup"))
        items.append(MenuItem(self.say("back"), "close"))
        return items

    def _setup_text(self) -> str:
        rules, n = self.next_setup
        return self.say("setup_one" if n == 1 else "setup_many", rules=rules, n=n)

    def setup_items(self) -> list[MenuItem]:
        """Choosing the next game on the device: rule set and number of players."""
        rules, n = self.next_setup
        return [
            MenuItem(self.say("start" if self.game.finished else "give_up_and_start", setup=self._setup_text()), "new_game"),
            MenuItem(self.say("pick_rules", rules=rules), "setup_rules"),
            MenuItem(self.say("pick_players", n=n), "setup_players"),
            MenuItem(self.say("back"), "close"),
        ]

    def open_menu(self, scores_only: bool = False) -> None:
        self.menu = Menu(self.menu_items(scores_only))
        self.refresh()

    def _menu_input(self, inp: Input) -> None:
        a = inp.action
        assert self.menu is not None
        if a in (Action.THROW, Action.NEXT):
            self.menu.move(1)
            self.refresh()
        elif a is Action.PREV:
            self.menu.move(-1)
            self.refresh()
        elif a in (Action.MENU, Action.SCORE):
            item = self.menu.current
            self.menu = None
            self.pick(item, inp.t)
        elif a is Action.UNDO:
            self.menu = None
            self.setup_menu = False
            self.refresh()
        elif a is Action.PICK and inp.value is not None:
            self.menu = None
            self.handle(inp)

    def pick(self, item: MenuItem, t: float = 0.0) -> None:
        if item.kind == "score":
            self.record({"score": item.arg})
        elif item.kind == "declare":
            self.record({"declare": item.arg})
        elif item.kind == "read_again":
            self.throw(t, again=True)
        elif item.kind == "manual_fix":
            self.start_manual(replace_last=True)
        elif item.kind == "manual_new":
            self.start_manual(replace_last=False)
        elif item.kind == "undo":
            self.record({"undo": True})
        elif item.kind == "new_game":
            self.setup_menu = False
            self.new_game()
        elif item.kind == "setup":
            self.setup_menu = True
            self.open_menu()
        elif item.kind in ("setup_rules", "setup_players"):
            from controller.game.rules import builtin_names

            rules, n = self.next_setup
            if item.kind == "setup_rules":
                names = builtin_names()
                rules = names[(names.index(rules) + 1) % len(names)] if rules in names else names[0]
            else:
                n = n % MAX_PLAYERS + 1
            self.next_setup = (rules, n)
            cursor = 1 if item.kind == "setup_rules" else 2
            self.open_menu()
            assert self.menu is not None
            self.menu.cursor = cursor
            self.refresh()
        else:
            self.setup_menu = False
            self.refresh()

    # ------------------------------------------------------------------ dice by hand
    def start_manual(self, replace_last: bool) -> None:
        """Dice by hand: a correction starts from the last throw's faces; a new throw right after a
        reroll from the faces the camera read (left to right, "?" for each die still to be set), else
        from the last throw's or ones."""
        n = self.game.rules.dice
        if replace_last and self.game.dice is None:
            replace_last = False
        seen = self.seen_now()
        dice: list[int | None]
        if not replace_last and seen is not None and len(seen) == n:
            dice = list(seen)
        else:
            dice = list(self.game.dice or (1,) * n)
        self.manual = ManualEntry(dice, replace_last)
        self.refresh()

    def _manual_input(self, inp: Input) -> None:
        m = self.manual
        assert m is not None
        a = inp.action
        done = False
        d = m.dice[m.cursor]
        if a in (Action.THROW, Action.NEXT):
            m.dice[m.cursor] = 1 if d is None else d % 6 + 1
        elif a is Action.PREV:
            m.dice[m.cursor] = 6 if d is None else (d - 2) % 6 + 1
        elif a is Action.DIGIT and inp.value is not None:
            m.dice[m.cursor] = int(inp.value)
            done = m.cursor == len(m.dice) - 1
            m.cursor = min(m.cursor + 1, len(m.dice) - 1)
        elif a in (Action.MENU, Action.SCORE):
            done = m.cursor == len(m.dice) - 1
            m.cursor = min(m.cursor + 1, len(m.dice) - 1)
        elif a is Action.UNDO:  # cancel
            self.manual = None
            self.refresh()
            return
        if done and None in m.dice:  # a die not set yet: back to it
            m.cursor, done = m.dice.index(None), False
        if not done:
            self.refresh()
            return
        self.manual = None
        event = {"throw": sorted(d for d in m.dice if d is not None), "manual": True}
        if m.replace_last:
            self.replace_throw(event)
        else:
            self.record(event)
        self.last_reading = None  # a hand-entered throw has no picture to read again


def log(msg: str) -> None:
    print(f"yatzycam: {msg}", file=sys.stderr)


# ---------------------------------------------------------------------- the simulated player


def around(start: Sequence[int | None], faces: Sequence[int]) -> list[int]:
    """``faces`` in the order that changes the fewest dice of ``start``: the faces ``start`` already has
    kept in place, the rest in the other places (the order a person entering the dice would want)."""
    from collections import Counter

    left = Counter(faces)
    out: list[int | None] = []
    for d in start:
        keep = d is not None and left[d] > 0
        left[d] -= keep
        out.append(d if keep else None)
    rest = sorted(left.elements())
    return [d if d is not None else rest.pop(0) for d in out]


def advise_view(advisor: Any, view: GameView) -> Any:
    """The advisor's :class:`~controller.advisor.advice.Advice` for the view's situation, or None."""
    from controller.advisor.advice import AdviceError

    if view.finished or view.dice is None or view.declared:
        return None
    rs = view.rules
    p = view.player
    open_ids = [b.id for b, v in zip(rs.boxes, p.boxes) if v is None]
    yv = p.boxes[rs.box_index(rs.yatzy_box)] if rs.yatzy_box else None
    try:
        return advisor.advise(
            view.dice, open_ids, upper=p.upper, throws_left=min(view.throws_left, rs.throws - 1),
            bank=view.bank if view.banking else 0, yatzy_value=yv, score=p.total,
        )
    except AdviceError:
        return None


def advice_text(advisor: Any) -> Callable[[GameView], str | None]:
    """For the screen: "keep 5 5 5, throw 3" / "score Yatzy: 50"."""

    def text(view: GameView) -> str | None:
        a = advise_view(advisor, view)
        return None if a is None else a.text

    return text


def advisor_decision(advisor: Any) -> Callable[[GameView], tuple[list[int] | None, str | None]]:
    """For the simulated player: (faces to keep, None) or (None, box to score)."""

    def decide(view: GameView) -> tuple[list[int] | None, str | None]:
        a = advise_view(advisor, view)
        if a is None:
            return None, None
        best = a.best
        if best.action == "keep" and view.can_throw:
            return list(best.keep), None
        return None, best.box

    return decide


MAX_REROLLS = 5
"""Rerolls in a row after which the simulated player enters the dice by hand (every demo ends)."""


class Presser(Protocol):
    def press(self, button: str, seconds: float) -> None: ...


class GpioPresser:
    """Presses the panel's buttons on gpiozero's MockFactory pins (a finger on the button)."""

    def __init__(self, factory: Any, pins: dict[str, int], clock: Any) -> None:
        self.factory, self.pins, self.clock = factory, pins, clock

    def press(self, button: str, seconds: float) -> None:
        pin = self.factory.pin(self.pins[button])
        pin.drive_low()
        self.clock.advance(seconds)
        pin.drive_high()


class DirectPresser:
    """Puts the actions a button would give straight into a panel's queue (no GPIO)."""

    def __init__(self, panel: Panel, hold_s: float = 0.8) -> None:
        from hardware.panel import DEFAULT_BUTTONS

        self.panel, self.hold_s, self.map = panel, hold_s, DEFAULT_BUTTONS

    def press(self, button: str, seconds: float) -> None:
        m = self.map[button]
        action = m.hold if seconds >= self.hold_s else m.short
        if action is not None:
            self.panel.put(action, source=button)


def truth_values(table: Any) -> list[int | None]:
    """Per die of the simulated table: its top face (None: cocked or off the tray)."""
    return [d.value if d.status == "ok" else None for d in table.truth.dice]


def keep_faces(rs: Any, dice: Sequence[int]) -> list[int]:
    """A plain greedy keep: the dice of the most frequent face (the higher face on a tie)."""
    counts = [list(dice).count(f) for f in range(7)]
    face = max(range(1, 7), key=lambda f: (counts[f], f))
    return [face] * counts[face]


class SimPlayer:
    """A player at the simulated tray: throws, sets dice aside, presses the button, picks boxes.

    It only looks at what a person sees (the screen: the app's view and menu) and
    acts only through the tray and the buttons. ``one_button``: every choice is
    made with the THROW button (short: next, hold: pick); otherwise SCORE/NEXT
    buttons are used. ``press_early``: the share of presses made while the dice
    still roll (settle detection has to wait for them); the others come a moment
    after the dice lie still.
    """

    def __init__(
        self,
        app: App,
        source: Any,
        presser: Presser,
        rng: Any,
        one_button: bool = True,
        hold_s: float = 1.0,
        advisor: Callable[[GameView], tuple[list[int] | None, str | None]] | None = None,
    ) -> None:
        import numpy as np

        self.app, self.source, self.presser = app, source, presser
        self.rng = rng if rng is not None else np.random.default_rng(0)
        self.one_button = one_button
        self.hold_s = hold_s
        self.press_early = 0.25  # share of presses made while the dice still roll
        self.patience = 3  # rerolls of a clean throw before the player enters the dice by hand
        self.by_hand = 0  # throws the player entered by hand after rerolls in a row
        self.say: Callable[[str], None] | None = None  # where the player says what it does (the demo's output)
        self.advisor = advisor
        self.target: MenuItem | None = None
        self.manual_target: list[int] | None = None
        self._planned: ManualEntry | None = None  # the entry manual_target was put in its order for
        self.scored: list[tuple[int, str, tuple[int, ...]]] = []  # (player, box, the faces really on the tray)
        self._handled: ThrowResult | None = None
        self._rethrow_next = False
        self.rerolls = 0  # rerolls in a row of the current throw
        self.undone = 0  # accepted throws taken back (a cocked die the reader missed)
        self.corrected = 0  # misreads corrected by hand
        rs = app.game.rules
        tab = rs.table
        self._max = {b: int(tab.scores[:, i].max()) for i, b in enumerate(rs.box_ids)}

    def _short(self, button: str = "throw") -> None:
        self.presser.press(button, 0.12)

    def _hold(self, button: str = "throw") -> None:
        self.presser.press(button, self.hold_s + 0.2)

    def _throw(self, keep_idx: Sequence[int], again: bool = False) -> None:
        if again:
            self.source.rethrow()
        else:
            self.source.throw(keep=list(keep_idx))
        # most presses come once the dice lie still; some while they still roll
        if self.rng.random() < self.press_early:
            wait = float(self.rng.uniform(0.0, 1.0)) * self.source.roll_s
        else:
            wait = self.source.roll_s + float(self.rng.uniform(0.05, 0.6))
        self.app.idle_for(wait)  # the device watches the tray meanwhile
        self._short("throw")

    def choose_box(self, view: GameView) -> str:
        opts = view.option_map
        rs = view.rules

        def worth(b: str) -> tuple[float, int]:
            pts = opts[b]
            frac = pts / max(1, self._max[b])
            if rs.box(b).kind == "chance":
                frac *= 0.4
            return (frac, pts)

        best = max(opts, key=worth)
        if opts[best] == 0:  # scratch where the least is lost
            best = min(opts, key=lambda b: (self._max[b], rs.box_index(b)))
        return best

    def wants_to_stop(self, view: GameView) -> bool:
        opts = view.option_map
        rs = view.rules
        return any(
            pts > 0 and pts >= 0.75 * self._max[b] and rs.box(b).kind != "chance" for b, pts in opts.items()
        )

    def _open(self, kind: str, manual: Sequence[int] | None = None) -> None:
        """Open the menu (hold THROW) aiming at the item of ``kind``."""
        self.target = MenuItem("", kind, None)
        self.manual_target = list(manual) if manual is not None else None
        self._planned = None
        self._hold("throw")

    def act(self) -> None:
        """One thing a person does: throw (and press), or one press in the menu or the dice editor."""
        app = self.app
        if app.manual is not None:  # entering dice by hand: +1 until right, then on to the next die
            m = app.manual
            if self.manual_target is not None and self._planned is not m and len(self.manual_target) == len(m.dice):
                self.manual_target = around(m.dice, self.manual_target)  # a person keeps the faces already right
                self._planned = m
            target = self.manual_target or m.dice
            if m.dice[m.cursor] != (target[m.cursor] or 1):  # (a die to be set and no face in mind: a one)
                self._short("throw") if self.one_button else self._short("next")
            else:
                self._hold("throw") if self.one_button else self._short("score")
            return
        if app.menu is not None:
            items = app.menu.items
            t = self.target
            want = next((i for i, it in enumerate(items) if t and it.kind == t.kind and (t.arg is None or it.arg == t.arg)), None)
            if want is None:
                self.target = None
                want = next(i for i, it in enumerate(items) if it.kind == "close")
            if app.menu.cursor == want:
                self._hold("throw") if self.one_button else self._short("score")
            else:
                self._short("throw") if self.one_button else self._short("next")
            return
        view = app.view()
        if view.finished:
            return
        truth = self.source.table.truth
        last = app.last_result
        if last is not None and last is not self._handled:
            self._handled = last
            if last.outcome == "reroll":
                self.rerolls += 1
                clean_gave_up = truth.verdict == "ok" and self.rerolls >= self.patience
                if (clean_gave_up or self.rerolls >= MAX_REROLLS) and view.can_throw:
                    # the camera keeps misreading, or the dice keep landing cocked: by hand, as a
                    # person would (the face most up of every die, as the player reads it)
                    faces = sorted(d.face for d in truth.dice) if truth.verdict != "ok" else sorted(truth.values)
                    self.by_hand += 1
                    if self.say is not None:
                        self.say(f"{self.rerolls} rerolls in a row: the player enters the dice by hand ({' '.join(map(str, faces))})")
                    self._open("manual_new", faces)
                    self.rerolls = 0
                else:
                    self._throw((), again=True)
                return
            if last.outcome in ("unsettled", "camera"):
                self._short("throw")
                return
            if last.outcome == "throw":
                self.rerolls = 0
                if truth.verdict != "ok":  # the reader missed a cocked / off-tray die: take it back
                    self.undone += 1
                    self._rethrow_next = True
                    self._open("undo")
                    return
                if tuple(sorted(last.values)) != tuple(truth.values):  # a misread: correct it by hand
                    self.corrected += 1
                    self._open("manual_fix", sorted(truth.values))
                    return
        if self._rethrow_next:
            self._rethrow_next = False
            self._throw((), again=True)
            return
        if view.dice is None:
            self._throw(())
            return
        keep: list[int] | None = None
        box: str | None = None
        if self.advisor is not None:
            keep, box = self.advisor(view)
        elif not self.wants_to_stop(view):
            keep = keep_faces(view.rules, view.dice)
        if view.can_throw and keep is not None and len(keep) < len(view.dice):
            self._throw(self._keep_indices(keep))
            return
        box = box if box in view.option_map else self.choose_box(view)
        self.scored.append((view.current, box, tuple(sorted(truth.values))))
        self.target = MenuItem("", "score", box)
        self._hold("throw") if self.one_button else self._short("score")

    def _keep_indices(self, keep: Sequence[int]) -> list[int]:
        """Which dice on the tray to set aside for the faces ``keep`` (by what really lies there)."""
        truth = truth_values(self.source.table)
        want = list(keep)
        idx = []
        for i, v in enumerate(truth):
            if v is not None and v in want:
                want.remove(v)
                idx.append(i)
        return idx


# ---------------------------------------------------------------------- wiring: the simulated rig and the appliance

DEMO_PINS = {"throw": 17, "next": 27, "score": 22, "undo": 23}
DEMO_LEDS_THROWS = (5, 6, 13)
DEMO_LEDS_BANK = (19, 26, 12, 16, 20, 21)


def calibration_for(empty_frame: Any, n_dice: int, reference_frame: Any = None) -> Any:
    """The calibration of an empty tray and, when given, a reference frame of the dice lying flat
    (it fixes the die size: the reader is then faster and surer). A reference that does not
    calibrate falls back to the empty tray alone, as a user would calibrate again."""
    from calibration import CalibrationError, calibrate

    if reference_frame is not None:
        try:
            return calibrate(empty_frame, reference_frame, n_dice=n_dice)
        except CalibrationError:
            pass
    return calibrate(empty_frame, n_dice=n_dice)


class Rig:
    """A simulated table, tray camera, mocked GPIO panel, store and app, closed together."""

    def __init__(self, app: App, player: SimPlayer | None, source: Any, panel: Panel, store: Any, factory: Any) -> None:
        self.app, self.player, self.source, self.panel, self.store, self.factory = app, player, source, panel, store, factory
        import time

        self.started = time.perf_counter()
        self.tmp: Any = None  # a TemporaryDirectory holding the database, if the rig made one
        self.lock: Any = None  # the database's DbLock, held while the rig lives
        self.rerolls: list[str] = []  # per reroll: the scene's true verdict ("reroll" real, "ok" false)
        self.last_seen: ThrowResult | None = None
        self.checks: list[tuple[tuple[int, ...], tuple[int, ...], ThrowResult]] = []  # (rendered faces, game's dice, result) per throw

    def __enter__(self) -> "Rig":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.panel.close()
        self.source.close()
        self.store.close()
        if self.lock is not None:
            self.lock.release()
        if self.factory is not None:
            self.factory.reset()
        if self.tmp is not None:
            self.tmp.cleanup()


def simulated_rig(
    rules: str,
    players: Any = None,
    seed: int = 1,
    db_path: str | None = None,
    screen: Screen | None = None,
    one_button: bool = True,
    keyboard: bool = False,
    gpio: bool = True,
    cocked_rate: float = 0.06,
    off_rate: float = 0.04,
    size: tuple[int, int] = (640, 480),
    clock: Any = None,
    lang: str = "en",
    flicker: float = 0.02,
    timing: AppTiming = AppTiming(),
    advisor: bool = False,
    patience: int = 3,
) -> Rig:
    """Everything of the appliance on a simulated tray; ``gpio``: the panel on gpiozero's MockFactory."""
    import numpy as np

    from controller.store import DbLock, Store
    from hardware.camera import SimulatedSource
    from hardware.panel import GpioPanel, KeyboardPanel, Timing
    from vision.synthetic import SimTable, render, render_empty

    setup = Setup.create(rules, players, lang=lang)
    rs = setup.rules
    rng = np.random.default_rng(seed)
    clock = clock or ManualClock()
    table = SimTable(rs.dice, rng, size=size, cocked_rate=cocked_rate, off_rate=off_rate)
    calibration = calibration_for(render_empty(table.scene), rs.dice, render(table.reference_scene()))
    source = SimulatedSource(table, clock, seed=seed, flicker=flicker)
    source.show()
    tmp = None
    if db_path is None:  # a throwaway database, removed with the rig
        import tempfile

        tmp = tempfile.TemporaryDirectory(prefix="yatzycam-sim-")
        db_path = str(Path(tmp.name) / "sim.db")
    lock = DbLock(db_path, "demo")
    try:
        store = Store(db_path)
        game_id = store.new_game(setup)
    except BaseException:
        lock.release()
        raise
    factory = None
    ptiming = Timing(hold_s=1.0)
    if keyboard:
        panel: Panel = KeyboardPanel(clock, ptiming)
        presser: Any = DirectPresser(panel, ptiming.hold_s)
    elif gpio and _has_gpiozero():
        from gpiozero.pins.mock import MockFactory

        factory = MockFactory()
        pins = DEMO_PINS if not one_button else {"throw": DEMO_PINS["throw"]}
        panel = GpioPanel(pins, DEMO_LEDS_THROWS, DEMO_LEDS_BANK, clock=clock, timing=ptiming, pin_factory=factory)
        presser = GpioPresser(factory, DEMO_PINS, clock)
    else:
        panel = Panel(clock, ptiming)
        presser = DirectPresser(panel, ptiming.hold_s)
    adv = None
    if advisor:
        from controller.advisor.advice import Advisor

        adv = Advisor.for_rules(rs, setup.forced_order, setup.banking)
    app = App(Game(setup), game_id, store, source, panel, screen or _NullScreen(), clock, calibration, timing=timing, lang=lang,
              advisor=advice_text(adv) if adv else None)
    player = SimPlayer(app, source, presser, np.random.default_rng(seed + 1), one_button=one_button, hold_s=ptiming.hold_s,
                       advisor=advisor_decision(adv) if adv else None)
    player.patience = patience
    if keyboard:
        _hook_keyboard(panel, player)
    rig = Rig(app, player, source, panel, store, factory)
    rig.tmp = tmp
    rig.lock = lock
    return rig


def _has_gpiozero() -> bool:
    """gpiozero is a Pi/test dependency; without it the demo's panel is the plain queue panel."""
    try:
        import gpiozero  # noqa: F401
    except ImportError:
        log("gpiozero is not installed: the simulated player presses a plain panel instead of mocked GPIO pins")
        return False
    return True


def _hook_keyboard(panel: Panel, player: SimPlayer) -> None:
    """With --keyboard the simulated hand throws when THROW is pressed outside the menu."""
    put = panel.put

    def put_and_throw(action: Action, value: int | None = None, source: str = "") -> bool:
        app = player.app
        if action is Action.THROW and app.menu is None and app.manual is None and app.game.can_throw and not panel.busy:
            last = app.last_result
            if last is not None and last.outcome == "reroll" and app.notice:
                player.source.rethrow()
            elif app.game.dice is None:
                player.source.throw(())
            else:
                player.source.throw(player._keep_indices(keep_faces(app.game.rules, app.game.dice)))
        return put(action, value, source)

    panel.put = put_and_throw  # type: ignore[method-assign]


class _NullScreen:
    def show(self, view: GameView) -> None:
        pass


def play_out(rig: Rig, max_actions: int = 20000, on_step: Callable[[Rig], None] | None = None) -> None:
    """Let the simulated player play the game to its end (each input handled as it comes)."""
    app, player = rig.app, rig.player
    assert player is not None
    app.refresh()
    for _ in range(max_actions):
        if app.game.finished and app.menu is None or app.unsaved is not None:  # (a game that cannot be saved ends)
            break
        player.act()
        while app.panel.pending():
            app.step(0)
            res = app.last_result
            if res is not None and res is not rig.last_seen:
                rig.last_seen = res
                truth = rig.source.table.truth
                if res.outcome == "throw":
                    rig.checks.append((tuple(truth.values), tuple(sorted(res.values)), res))
                elif res.outcome == "reroll":
                    rig.rerolls.append(truth.verdict)  # "reroll": a real cocked/off-tray die; "ok": a false alarm
            if on_step is not None:
                on_step(rig)
    else:
        raise RuntimeError(f"the simulated game did not end in {max_actions} actions")


def percentile(values: Sequence[float], q: float) -> float:
    import numpy as np

    return float(np.percentile(np.asarray(values, dtype=float), q)) if len(values) else float("nan")


def demo_report(rig: Rig) -> dict[str, Any]:
    import time

    res = rig.app.stats.results
    computing = isinstance(rig.app.clock, ManualClock)  # its time is the waits alone: add the computing
    lat = [1000.0 * (r.shown_at - r.pressed_at) + (r.busy_ms if computing else 0.0)
           for r in res if r.outcome in ("throw", "reroll")]
    events = rig.app.game.events
    return {
        "throws": sum(r.outcome == "throw" for r in res),
        "rerolls": sum(r.outcome == "reroll" for r in res),
        "rerolls_real": rig.rerolls.count("reroll"),  # the scene really had a cocked / off-tray die
        "rerolls_false": rig.rerolls.count("ok"),  # a clean scene the reader refused
        "manual": sum(bool(e.get("manual")) for e in events),
        "by_hand_after_rerolls": rig.player.by_hand if rig.player else 0,
        "camera_errors": rig.app.stats.camera_errors,
        "latency_p50_ms": percentile(lat, 50),
        "latency_p95_ms": percentile(lat, 95),
        "latency_n": len(lat),
        "latencies_ms": lat,
        "still_to_screen_ms": [r.still_to_screen_ms for r in res if r.outcome in ("throw", "reroll") and r.still_to_screen_ms is not None],
        "misreads": sum(t != s for t, s, _ in rig.checks),
        "corrected": rig.player.corrected if rig.player else 0,
        "undone": rig.player.undone if rig.player else 0,
        "wall_s": time.perf_counter() - rig.started,
    }


def play(cfg: Any, keyboard: bool = False, new: bool = False, lang: str | None = None) -> int:
    """The appliance: camera, panel and screen from the config; resume an unfinished game.

    The database's lock is held for the whole run (a second ``play`` on it: InUseError, exit 2).
    A damaged calibration is said before any database, lock or game is made."""
    from controller.store import DbLock, Store

    calibration = _play_calibration(cfg)
    with DbLock(cfg.paths.db, "play"), Store(cfg.paths.db) as store:
        return _play(cfg, store, keyboard, new, lang, calibration)


def _play_calibration(cfg: Any) -> Any:
    """The calibration profile of ``paths.calibration`` (None when there is none yet)."""
    try:
        have_cal = Path(cfg.paths.calibration).exists()
    except OSError as e:
        from controller.config import ConfigError

        raise ConfigError(f"paths.calibration: {e.strerror or e}") from None
    if not have_cal:
        return None
    try:
        from calibration import load as load_cal  # type: ignore[attr-defined]
    except ImportError:
        log("calibration part not built: reading without a calibration")
        return None
    return load_cal(cfg.paths.calibration)


def _play(cfg: Any, store: Any, keyboard: bool, new: bool, lang: str | None, calibration: Any) -> int:
    from hardware.camera import SystemClock
    from hardware.notify import Notifier, Watchdog, watchdog_interval
    from hardware.panel import GpioPanel, KeyboardPanel, Timing

    from controller.config import open_camera as config_camera

    clock = SystemClock()

    def open_camera() -> FrameSource:
        return config_camera(cfg, clock)

    p = cfg.pins
    timing = Timing(hold_s=p.hold_time, debounce_s=p.bounce_time or 0.03, shutdown_s=p.shutdown_hold or 0.0)
    import warnings

    try:
        with warnings.catch_warnings():  # (gpiozero warns of each pin factory it cannot load: the error says it once)
            warnings.simplefilter("ignore")
            panel: Panel = KeyboardPanel(clock, timing) if keyboard else GpioPanel(p.buttons, p.leds_throws, p.leds_bank, clock=clock, timing=timing)
    except Exception as e:  # gpiozero's BadPinFactory and its kin: no pins on this machine
        if type(e).__module__.startswith("gpiozero"):
            from hardware.panel import PanelError

            raise PanelError(f"no GPIO pins ({e}): run on the Pi, or use --keyboard") from None
        raise
    if keyboard:
        panel.start()  # type: ignore[attr-defined]
    lang = lang or cfg.display.language
    g = cfg.game
    try:
        screen = config_screen(cfg, clock, lang)
        game, gid = open_game(store, g.rules, g.players_arg, g.forced_order, g.banking, new=new, lang=lang)  # (once the devices are there)
    except BaseException:
        panel.close()
        raise
    notifier = Notifier.from_env()
    dog = Watchdog(notifier, watchdog_interval())
    try:
        source = _retry_open(open_camera, screen, clock, game, dog, lang)
    except KeyboardInterrupt:
        panel.close()
        return 130
    from hardware.power import poweroff

    advice = None
    if cfg.game.advisor:
        from controller.advisor.advice import Advisor

        advice = advice_text(Advisor.for_rules(game.rules, game.setup.forced_order, game.setup.banking))
    app = App(game, gid, store, source, panel, screen, clock, calibration, watchdog=lambda: dog.feed(clock.now()),
              reopen=open_camera, lang=lang, shutdown=poweroff, advisor=advice)
    notifier.ready("waiting for a throw")
    try:
        app.run()
    finally:
        notifier.stopping()
        app.source.close()
        panel.close()
        store.close()
    return 0


def open_game(
    store: Any, rules: str, players: Any = None, forced_order: bool | None = None, banking: bool | None = None, new: bool = False,
    lang: str = "en",
) -> tuple[Game, int]:
    """The unfinished game to resume after a restart, else a new one from the config's setup (a count
    of players named in ``lang``)."""
    from controller.store import StoreError

    gid = None if new else store.latest_unfinished()
    if gid is not None:
        try:
            game = store.load(gid)
        except StoreError as e:  # a damaged row: said in one line; the game stays on disk as it is
            log(f"{e}; it cannot be resumed: a new game")
        else:
            log(f"resuming game {gid} ({game.rules.name}: {', '.join(game.players)})")
            return game, gid
    setup = Setup.create(rules, players, forced_order, True if banking is None else banking, lang)
    return Game(setup), store.new_game(setup)


def _retry_open(open_camera: Callable[[], FrameSource], screen: Screen, clock: Any, game: Game, dog: Any,
                lang: str = "en") -> FrameSource:
    """Open the camera, showing the error and retrying every few seconds until it works."""
    while True:
        try:
            return open_camera()
        except CameraError as e:
            log(f"camera: {e}")
            screen.show(replace(game.view(), notice=say(lang, "camera_down", e=e)))
            dog.feed(clock.now())
            clock.sleep(3.0)


def config_screen(cfg: Any, clock: Clock | None = None, lang: str | None = None) -> "SinkScreen":
    """The screen the config's ``display`` section names (``config.open_display``). Raises DisplayError."""
    from controller.config import open_display

    d = cfg.display
    sink, size = open_display(cfg)
    return SinkScreen([sink], size, lang or d.language, clock=clock, idle_s=d.blank_after_s, text=d.sink == "terminal", rotation=d.rotation)


# ---------------------------------------------------------------------- screens


PAGE_S = 8.0  # seconds a page of a multi-page pad stays up


class SinkScreen:
    """The scoreboard drawn for ``hardware.display`` sinks, blanked after ``idle_s`` idle seconds."""

    def __init__(
        self,
        sinks: Sequence[Any],
        size: tuple[int, int],
        lang: str,
        clock: Clock | None = None,
        idle_s: float = 0.0,
        text: bool = False,
        rotation: int = 0,
    ) -> None:
        from hardware.display import BlankingDisplay

        self.clock = clock
        self.size, self.lang, self.text, self.rotation = size, lang, text, rotation
        self.display = BlankingDisplay(sinks, idle_s, clock.now() if clock else 0.0)
        self.shown = 0
        self.view: GameView | None = None
        self.page: int | None = None  # None: the scoreboard's choice (the declared box's page, else the first)
        self.page_at = 0.0

    def _now(self) -> float:
        return self.clock.now() if self.clock else 0.0

    def show(self, view: GameView) -> None:
        self.view, self.page, self.page_at = view, None, self._now()
        self._draw()

    def _draw(self, activity: bool = True) -> None:
        from controller.screen import scoreboard

        view = self.view
        assert view is not None
        frame = scoreboard.render(view, self.size, self.lang, self.page)
        text = scoreboard.render_text(view, self.lang) if self.text else None
        self._send(frame, text, activity)

    def show_message(self, text: str) -> None:
        """Words in large letters on a plain screen (``controller.screen.message``), not the scoreboard."""
        from controller.screen.message import render_message

        self.view = None
        self._send(render_message(text, self.size), text)

    def show_picture(self, picture: Any, text: str) -> None:
        """An RGB picture fitted to the screen with ``text`` in a band under it."""
        from controller.screen.message import render_picture

        self.view = None
        self._send(render_picture(picture, text, self.size), text)

    def _send(self, frame: Any, text: str | None, activity: bool = True) -> None:
        import numpy as np

        if self.rotation:
            frame = np.ascontiguousarray(np.rot90(frame, k=self.rotation // 90))
        self.display.show(frame, text if self.text else None, self._now(), activity)
        self.shown += 1

    def press(self, now: float) -> bool:
        """A press: True when it only woke a blank screen."""
        return self.display.press(now)

    def tick(self, now: float) -> None:
        """Blank when idle; a pad too long for the screen (Special 8 on 480x320) flips pages every PAGE_S."""
        if self.view is not None and not self.display.is_blank and now - self.page_at >= PAGE_S:
            from controller.screen import scoreboard

            self.page_at = now
            pages = scoreboard.page_count(self.view, self.size, self.lang)
            if pages > 1:
                self.page = ((self.page or 0) + 1) % pages
                self._draw(activity=False)
        self.display.tick(now)

    def close(self) -> None:
        self.display.close()


class TerminalScreen:
    """The demo's screen on stdout: the whole pad as text (dice as read, what each open box would
    score, throws left, bank, bonus pace, totals) whenever the dice, a box or the turn change;
    "throw again" and other notices as one line each."""

    def __init__(self, lang: str, out: Any = None, pads: bool = True, live: bool = False) -> None:
        self.lang, self.out, self.pads, self.live = lang, out or sys.stdout, pads, live
        self._last_key: Any = None
        self._last_notice: str | None = None

    def show(self, view: GameView) -> None:
        from controller.screen import scoreboard

        filled = sum(sum(b is not None for b in p.boxes) for p in view.players)
        key = (filled, view.current, view.dice, view.throws_left, view.bank, view.declared, view.finished)
        menu = dict(view.extras).get("menu") is not None or dict(view.extras).get("manual") is not None
        if self.pads and key != self._last_key:
            print(scoreboard.render_text(replace(view, notice=None) if menu else view, self.lang), file=self.out)
            self._last_notice = view.notice
        self._last_key = key
        notice = view.notice
        if (self.pads or self.live) and notice and notice != self._last_notice:
            if self.live or not menu:  # menu and dice-editor lines only when a person is at the keys
                seen = "" if view.seen is None or "manual" in dict(view.extras) else \
                    f". {scoreboard.words(self.lang)['seen']}: {dice_text(view.seen)}"
                print(f"  [{view.players[view.current].name}] {notice}{seen}", file=self.out)
        self._last_notice = notice
        if self.live:
            self.out.flush()
