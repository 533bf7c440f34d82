"""`yatzycam demo` (a whole game on a simulated tray) and `yatzycam play` (the appliance)."""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path
from typing import Any

from controller.cli import UserError
from controller.cli.args import decimal, whole
from controller.language import add_option as add_lang


DEMO_NAMES = ("Anna", "Bo", "Cecilia", "Dag", "Eva", "Fredrik")


def demo_players(players: str) -> str:
    """The demo's players: a count gets short names (they fit a small screen's column head)."""
    p = players.strip()
    if p.isascii() and p.isdigit() and len(p) < 3 and 1 <= int(p) <= len(DEMO_NAMES):
        return ",".join(DEMO_NAMES[: int(p)])
    return players


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "demo",
        help="a whole game on a simulated tray, played by a simulated player",
        description="A whole game on a simulated tray and panel: a simulated player throws, sets dice aside, "
        "presses the button and picks boxes through the real reader, game, store and screen, to the end. "
        "Never waits for input unless --keyboard.",
    )
    p.add_argument("--rules", default="yatzy", metavar="NAME", help="rule set name or .toml path (default yatzy)")
    p.add_argument("--players", default="1", metavar="P", help="a count (2: Anna and Bo) or names (Anna,Bo); default 1")
    p.add_argument("--screen", default="terminal", choices=("terminal", "window", "png"), help="where the screen goes (default terminal)")
    p.add_argument("--out", default=None, metavar="DIR", help="--screen png: the folder for the PNGs (default the current one)")
    p.add_argument("--keyboard", action="store_true", help="you are the panel: space throws, m menu, q quits (see the key help)")
    p.add_argument("--seed", type=whole(0, 2**63 - 1, "a seed"), default=1, help="random seed of the table and the player (default 1)")
    p.add_argument("--db", default=None, metavar="PATH", help="SQLite file for the game (default a temporary file)")
    add_lang(p, "screen")
    p.add_argument("--cocked", type=decimal(0.0, 1.0, "a share of throws"), default=0.06, help="share of throws with a cocked die, 0..1 (default 0.06); after 5 rerolls in a row the player enters the dice by hand")
    p.add_argument("--off", type=decimal(0.0, 1.0, "a share of throws"), default=0.04, help="share of throws with a die off the tray, 0..1 (default 0.04)")
    p.add_argument("--buttons", choices=("one", "all"), default="one", help="the simulated player uses the THROW button alone (default) or all four")
    p.add_argument("--advisor", action="store_true", help="the simulated player follows the advisor, and the screen shows its advice (the first run of a rule set builds its table)")
    p.add_argument("--quiet", action="store_true", help="print only the totals")
    p.set_defaults(func=cmd_demo)

    p = sub.add_parser("play", help="the appliance: camera, buttons, LEDs, screen", description="Run the scorekeeper: camera, GPIO panel and screen from the config file; resumes an unfinished game.")
    p.add_argument("--config", default=None, metavar="FILE", help="config file (default /etc/yatzycam/config.toml if it exists, else the defaults)")
    p.add_argument("--keyboard", action="store_true", help="a keyboard panel instead of the GPIO buttons")
    p.add_argument("--new", action="store_true", help="start a new game even if one is unfinished")
    add_lang(p, "screen")
    p.set_defaults(func=cmd_play)


# ---------------------------------------------------------------------- demo


def cmd_demo(args: argparse.Namespace) -> int:
    from controller import app as A
    from controller.game.rules import RulesError

    from hardware.display import PngSink, WindowSink

    out = sys.stdout
    if args.screen == "terminal":
        screen: Any = A.TerminalScreen(args.lang, out, pads=not args.quiet, live=args.keyboard)
    elif args.screen == "png":
        screen = A.SinkScreen([PngSink(Path(args.out or "."))], (800, 480), args.lang)
    else:
        screen = A.SinkScreen([WindowSink()], (800, 480), args.lang)
    tmp = None
    db = args.db
    if db is None:
        tmp = tempfile.TemporaryDirectory(prefix="yatzycam-demo-")
        db = str(Path(tmp.name) / "demo.db")
    try:
        try:
            rig = A.simulated_rig(
                args.rules,
                demo_players(args.players),
                seed=args.seed,
                db_path=db,
                screen=screen,
                one_button=args.buttons == "one",
                keyboard=args.keyboard,
                cocked_rate=args.cocked,
                off_rate=args.off,
                lang=args.lang,
                advisor=args.advisor,
            )
        except RulesError as e:
            raise UserError(str(e)) from None
        if rig.player is not None and not args.quiet:
            rig.player.say = lambda text: print(f"  {text}", file=out)
        with rig:
            if args.keyboard:
                from hardware.panel import KEY_HELP

                print(KEY_HELP, file=sys.stderr)
                rig.panel.start()
                rig.app.run(until=lambda: False)
            else:
                A.play_out(rig)
            report = A.demo_report(rig)
    finally:
        if tmp is not None:
            tmp.cleanup()
    game = rig.app.game
    if rig.app.unsaved is not None:
        raise UserError(f"stopped: not saved: {rig.app.unsaved}")
    if not game.finished:
        print("the game was left unfinished", file=sys.stderr)
    for name, total in zip(game.players, game.totals()):
        print(f"{name}: {total}", file=out)
    if game.finished:
        print(f"winner: {', '.join(game.winners)}", file=out)

    def n(k: int, one: str, many: str) -> str:
        return f"{k} {one if k == 1 else many}"

    print(
        f"{n(report['throws'], 'throw', 'throws')} read, {n(report['rerolls'], 'reroll', 'rerolls')} "
        f"({report['rerolls_real']} real, {report['rerolls_false']} false), "
        f"{n(report['manual'], 'throw', 'throws')} by hand "
        f"({report['by_hand_after_rerolls']} after {A.MAX_REROLLS} rerolls in a row); "
        f"press to screen p50 {report['latency_p50_ms']:.0f} ms, p95 {report['latency_p95_ms']:.0f} ms; "
        f"{report['wall_s']:.1f} s",
        file=out,
    )
    return 0 if game.finished or args.keyboard else 1


# ---------------------------------------------------------------------- play


def cmd_play(args: argparse.Namespace) -> int:
    from controller import app as A
    from controller import config as C

    path = args.config
    if path is None and C.DEFAULT_PATH.exists():
        path = C.DEFAULT_PATH
    cfg = C.load(path)
    return A.play(cfg, keyboard=args.keyboard, new=args.new, lang=args.lang)
