"""`yatzycam replay`, `yatzycam history` and `yatzycam export`."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from controller.cli.args import printable, whole
from controller.game import rules as R
from controller.language import add_option as add_lang


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "replay",
        help="replay a game's events and print the final state as JSON",
        description="Replay events (one JSON object a line: {\"throw\": [faces]}, {\"score\": \"box\"}, "
        "{\"declare\": \"box\"}, {\"undo\": true}) and print the final state as JSON. An illegal or "
        "malformed event: nothing on stdout, 'FILE: line N: why' on stderr, exit 2.",
    )
    p.add_argument("--rules", required=True, metavar="NAME", help="rule set name or path to a .toml file")
    p.add_argument("--players", metavar="P", help="a count (2) or names (Anna,Bo); default: the rule set's")
    p.add_argument("--forced-order", action="store_true", help="boxes must be filled top to bottom")
    p.add_argument("--no-banking", action="store_true", help="no banked throws (Maxi without saved throws)")
    p.add_argument("events", metavar="EVENTS.jsonl", help="the events, one JSON object a line ('-': stdin)")
    p.set_defaults(func=cmd_replay)

    p = sub.add_parser(
        "history",
        help="finished games and each player's statistics",
        description="Finished games (newest first) and statistics per player and rule set: games, wins "
        "(shared wins count), average, best, bonus rate, yatzys.",
    )
    p.add_argument("--player", metavar="NAME", help="only games this player played, and their statistics")
    p.add_argument("--all", action="store_true", help="list unfinished and abandoned games too")
    p.add_argument("--json", action="store_true", help="one JSON object: {db, games, stats}")
    _db_arg(p)
    p.set_defaults(func=cmd_history)

    p = sub.add_parser("export", help="one game as JSON (setup, events, state) or CSV (the pad)", description="Export one game.")
    p.add_argument("game_id", metavar="GAME_ID", type=whole(what="a game number"), help="the game's number (see `yatzycam history --all`)")
    p.add_argument("--format", choices=("json", "csv"), default="json", help="json: setup, events, state; csv: the score pad")
    add_lang(p, "CSV (box labels and rows)")
    _db_arg(p)
    p.set_defaults(func=cmd_export)


def _db_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--db",
        metavar="PATH",
        help="the database (default: $STATE_DIRECTORY/yatzycam.sqlite, else $XDG_DATA_HOME/yatzycam/yatzycam.sqlite, "
        "else ~/.local/share/yatzycam/yatzycam.sqlite)",
    )


MAX_EVENT_LINE = 64 * 1024  # bytes: an event is a few dozen


def cmd_replay(args: argparse.Namespace) -> int:
    """The events streamed a line at a time: memory stays bounded whatever the file's length (the
    game keeps its states, not its log), and the first bad line ends it with one line."""
    from controller.game.game import Game, GameError, Setup
    from vision.inputfile import open_regular

    setup = Setup.create(args.rules, args.players, forced_order=True if args.forced_order else None, banking=not args.no_banking)
    name = args.events
    try:
        f = sys.stdin.buffer if name == "-" else open_regular(name)
    except OSError as e:
        print(printable(f"{name}: cannot read: {e.strerror or e}"), file=sys.stderr)
        return 2
    game = Game(setup, keep_log=False)
    with f:
        n = 0
        while True:
            try:
                raw = f.readline(MAX_EVENT_LINE + 1)
            except OSError as e:
                print(printable(f"{name}: cannot read: {e.strerror or e}"), file=sys.stderr)
                return 2
            if not raw:
                break
            n += 1
            why = _event_line_problem(raw)
            if why is None:
                try:
                    event = json.loads(raw.decode("utf-8"))
                except json.JSONDecodeError as e:
                    why = f"not JSON: {e.msg} (column {e.colno})"
                except (RecursionError, ValueError) as e:  # (ValueError: an integer of over 4300 digits)
                    why = "not JSON: nested too deeply" if isinstance(e, RecursionError) else f"not JSON: {e}"
                else:
                    try:
                        game.apply(event)
                    except GameError as e:
                        why = str(e)
            elif why == "":
                continue
            if why:
                print(printable(f"{name}: line {n}: {why}"), file=sys.stderr)
                return 2
    print(json.dumps(game.to_json()))
    return 0


def _event_line_problem(raw: bytes) -> str | None:
    """Why a line of an event file is no event (None: parse it; "": a blank line, skipped)."""
    if len(raw) > MAX_EVENT_LINE:
        return f"longer than {MAX_EVENT_LINE // 1024} kB: not an event"
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return "not UTF-8 text"
    return "" if not text.strip() else None


def _open(args: argparse.Namespace):
    from controller.store import Store, default_db_path

    path = Path(args.db) if args.db else default_db_path()
    if not args.db and not path.exists():  # nothing recorded yet at the default place
        return None, path
    return Store(path, readonly=True), path


def cmd_history(args: argparse.Namespace) -> int:
    store, path = _open(args)
    if store is None:  # (nothing wrong: said on stdout, below)
        games, stats = [], []
    else:
        with store:
            games = store.games() if args.all else store.history()
            if args.player is not None:
                games = [g for g in games if args.player in g.players]
            stats = store.stats(args.player)
            for problem in store.problems:  # a damaged row: one line each, the rest is listed
                print(printable(f"yatzycam history: {problem}"), file=sys.stderr)
    if args.json:
        print(json.dumps({"db": str(path), "games": [g.to_dict() for g in games], "stats": [s.to_dict() for s in stats]}))
        return 2 if store is not None and store.problems else 0
    if not games:
        print("no games" + (f" with {args.player}" if args.player else "") + (f" recorded yet ({path})" if store is None else ""))
    for g in games:
        when = (g.finished_at or g.created)[:16].replace("T", " ")
        if g.results:
            people = "  ".join(f"{r.name} {r.total}{'*' if r.winner else ''}" for r in g.results)
        else:
            people = ", ".join(g.players)
        status = "" if g.status == "finished" else f" [{g.status}]"
        print(f"#{g.id:<4} {when}  {g.rules:<12} {people}{status}")
    if stats:
        print()
        header = f"{'player':<14} {'rules':<12} {'games':>5} {'wins':>5} {'average':>8} {'best':>5} {'bonus':>6} {'yatzys':>6}"
        print(header)
        for s in stats:
            print(
                f"{s.name:<14} {s.rules:<12} {s.games:>5} {s.wins:>5} {s.average:>8.1f} {s.best:>5} "
                f"{s.bonus_rate:>6.0%} {s.yatzys:>6}"
            )
    return 2 if store is not None and store.problems else 0


def cmd_export(args: argparse.Namespace) -> int:
    from controller.store import Store, default_db_path

    path = Path(args.db) if args.db else default_db_path()
    with Store(path, readonly=True) as store:
        if args.format == "json":
            print(json.dumps(store.export_json(args.game_id), ensure_ascii=False))
        else:
            sys.stdout.write(store.export_csv(args.game_id, args.lang))
    return 0
