"""`yatzycam doctor` (check camera, pins, screen, calibration, database, disk) and
`yatzycam calibrate-live` (guided calibration from the live camera)."""

from __future__ import annotations

import argparse
import json
from typing import Any

from controller.cli.args import whole


def register(sub: argparse._SubParsersAction) -> None:
    from controller.doctor import CHECKS

    p = sub.add_parser(
        "doctor",
        help="check camera, pins, screen, calibration, database (exit 1 when a check fails)",
        description="Check that this machine is ready to keep score; every failed check says how to fix it. "
        "Exit 0 when all pass, 1 otherwise. Stop the service first (sudo systemctl stop yatzycam): "
        "it holds the camera and the pins.",
    )
    p.add_argument("--config", metavar="FILE", help="the config file (default: /etc/yatzycam/config.toml if it exists)")
    p.add_argument("--json", action="store_true", help="one JSON object: ok, checks [{name, ok, detail, fix}]")
    p.add_argument("--only", metavar="CHECK", action="append", choices=CHECKS, help=f"run only this check (repeatable): {', '.join(CHECKS)}")
    p.add_argument("--picture", metavar="PNG", help="when the calibration no longer fits the live frame (camera or "
                   "tray moved), draw the calibrated floor and keep zone on the live frame here")
    p.set_defaults(func=cmd_doctor)

    c = sub.add_parser(
        "calibrate-live",
        help="calibrate from the live camera, guided: empty tray, press; dice flat, press",
        description="Guided calibration from the configured camera. Stop the service first "
        "(sudo systemctl stop yatzycam). Each step and the tray floor found are shown on the "
        "configured display and said on this terminal. The profile replaces the old one only when "
        "the reference throw reads back as N dice.",
    )
    c.add_argument("--config", metavar="FILE", help="the config file (default: /etc/yatzycam/config.toml if it exists)")
    c.add_argument("--dice", type=whole(1, 12, "a number of dice"), metavar="N", help="dice in the reference throw (default: the rule set's)")
    c.add_argument("--out", metavar="CAL.json", help="where the profile goes (default: paths.calibration)")
    c.add_argument("--keyboard", action="store_true", help="press Enter instead of the throw button")
    c.add_argument("--no-screen", action="store_true", help="the steps on this terminal only, not on the configured display")
    c.set_defaults(func=cmd_calibrate_live)


def _lgpio_dir() -> None:
    """lgpio writes .lgd-nfy* files into the working directory (the unit sets LG_WD): run from a
    folder the user cannot write (sudo -u yatzycam in /home/pi) it fails, so give it /tmp."""
    import os
    import tempfile

    if "LG_WD" not in os.environ and not os.access(os.getcwd(), os.W_OK):
        os.environ["LG_WD"] = tempfile.gettempdir()


def _config_path(args: argparse.Namespace) -> str | None:
    from controller.config import DEFAULT_PATH

    return args.config if args.config is not None else (str(DEFAULT_PATH) if DEFAULT_PATH.exists() else None)


def cmd_doctor(args: argparse.Namespace) -> int:
    from controller.doctor import report, run_checks

    _lgpio_dir()
    checks = run_checks(_config_path(args), args.only or (), picture=args.picture)
    ok = all(c.ok for c in checks)
    if args.json:
        print(json.dumps({"ok": ok, "checks": [c.as_dict() for c in checks]}))
    else:
        print(report(checks))
    return 0 if ok else 1


HOLD_S = 1.0  # calibrate-live: a press of the throw button this long or longer is a hold (take the whole frame)


def cmd_calibrate_live(args: argparse.Namespace) -> int:
    from controller import config as C
    from controller.doctor import CalibrationFailed
    from controller.game.rules import load as load_rules
    from controller.store import DbLock

    _lgpio_dir()
    cfg = C.load(_config_path(args))
    n_dice = args.dice if args.dice is not None else load_rules(cfg.game.rules).dice
    if not 1 <= n_dice <= 12:
        raise CalibrationFailed(f"--dice {n_dice}: use 1..12 dice")

    with DbLock(cfg.paths.db, "calibrate-live"):  # not while a game runs on this database (it holds the camera)
        return _calibrate_live(args, cfg, n_dice)


def _open_screen(cfg: Any) -> Any:
    """The display the config names, as ``play`` opens it (``app.config_screen``), or None: with the
    terminal sink (the steps are printed anyway) and when it cannot be opened (said in one line on stderr)."""
    import sys

    from controller.app import config_screen
    from hardware.display import DisplayError

    if cfg.display.sink == "terminal":
        return None
    try:
        return config_screen(cfg)
    except DisplayError as e:
        print(f"yatzycam calibrate-live: the screen is not used ({e}); the steps are on this terminal", file=sys.stderr, flush=True)
        return None


def _calibrate_live(args: argparse.Namespace, cfg: Any, n_dice: int) -> int:
    import sys
    from pathlib import Path

    from controller import config as C
    from controller.doctor import CalibrationFailed, calibrate_live
    from hardware.display import DisplayError

    screen: Any = None  # opened once the button is there (below)

    def on_screen(draw: Any) -> None:
        nonlocal screen
        if screen is None:
            return
        try:
            draw(screen)
        except DisplayError as e:  # the panel went away mid-way: the terminal goes on alone
            print(f"yatzycam calibrate-live: the screen is no longer used ({e})", file=sys.stderr, flush=True)
            broken, screen = screen, None
            broken.close()

    def show(text: str) -> None:
        print(text, flush=True)
        on_screen(lambda s: s.show_message(text))

    button = None
    if args.keyboard:

        def wait_press() -> None:
            if sys.stdin.readline() == "":
                raise CalibrationFailed("no more input on stdin (press Enter at each step)")

    else:
        from gpiozero import Button

        if cfg.pins.throw is None:
            raise CalibrationFailed("pins.throw is not set: wire the button or use --keyboard")
        button = Button(cfg.pins.throw, pull_up=True)

        def wait_press() -> None:
            button.wait_for_press()
            button.wait_for_release()

    def show_frame(frame, text: str) -> None:
        """The found floor drawn on the empty frame: written next to the throws' pictures, said in words."""
        import cv2

        cfg.paths.images.mkdir(parents=True, exist_ok=True)
        pic = cfg.paths.images / "calibration-floor.png"
        cv2.imwrite(str(pic), frame)
        print(f"{text} (picture: {pic})", flush=True)
        on_screen(lambda s: s.show_picture(cv2.cvtColor(frame, cv2.COLOR_BGR2RGB), text))

    if args.keyboard:

        def wait_choice() -> str:
            print("Enter: accept; h then Enter: the whole frame", flush=True)
            line = sys.stdin.readline()
            if line == "":
                raise CalibrationFailed("no more input on stdin (press Enter at each step)")
            return "hold" if line.strip().lower() in ("h", "hold") else "press"

    else:

        def wait_choice() -> str:
            import time

            button.wait_for_press()
            t0 = time.monotonic()
            button.wait_for_release()
            return "hold" if time.monotonic() - t0 >= HOLD_S else "press"

    try:
        screen = None if args.no_screen else _open_screen(cfg)
        source = C.open_camera(cfg)
        try:
            out = calibrate_live(source, wait_press, show, Path(args.out) if args.out else cfg.paths.calibration, n_dice,
                                 cfg.paths.images, show_frame=show_frame, wait_choice=wait_choice)
        finally:
            source.close()
    finally:
        if button is not None:
            button.close()
        if screen is not None:
            screen.close()
    print(f"wrote {out}")
    return 0
