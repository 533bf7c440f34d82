"""``yatzycam``: the parser (one group of subcommands per module of ``COMMAND_MODULES``),
``--version``, and the one-line handling of user errors (see :mod:`controller.cli`) and of usage
errors (see :mod:`controller.cli.args`)."""

from __future__ import annotations

import argparse
import errno
import importlib
import sys
import tomllib
from importlib import metadata
from pathlib import Path

from controller.cli.args import Parser, printable

# Order is the order of `yatzycam --help`.
COMMAND_MODULES = (
    "controller.cli.app",  # demo, play
    "controller.cli.rules",  # score, rules
    "controller.cli.game",  # replay, history, export
    "controller.cli.vision",  # calibrate, read
    "controller.cli.advise",  # advise
    "controller.cli.pi",  # doctor
    "controller.cli.bench",  # bench
)


def version() -> str:
    """The installed distribution's version; from a source tree that is not installed, the
    version its pyproject.toml gives; else "unknown"."""
    try:
        return metadata.version("yatzycam")
    except metadata.PackageNotFoundError:
        pass
    try:
        project = tomllib.loads((Path(__file__).resolve().parents[2] / "pyproject.toml").read_text(encoding="utf-8"))["project"]
        if project.get("name") == "yatzycam":
            return str(project["version"])
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, KeyError):
        pass
    return "unknown"


class _VersionAction(argparse.Action):
    """``--version``: the version is looked up only when asked for (a quick start otherwise)."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS, help=None):
        super().__init__(option_strings=option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        print(f"{parser.prog} {version()}")
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="yatzycam",
        description="A camera scorekeeper for Yatzy, Maxi Yatzy and Maxi Yatzy Special 8 played with real dice.",
    )
    parser.add_argument("--version", action=_VersionAction, help="print the version and exit")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")  # (none given: said in parse, with the commands)
    for name in COMMAND_MODULES:
        try:
            mod = importlib.import_module(name)
        except ModuleNotFoundError as e:
            if e.name == name:  # that part of the program is not built yet
                continue
            raise
        mod.register(sub)
    return parser


def _subparsers(parser: argparse.ArgumentParser) -> argparse._SubParsersAction:
    return next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))


def parse(parser: argparse.ArgumentParser, argv: list[str] | None) -> argparse.Namespace:
    """The arguments; a usage error is one line from the parser it belongs to (SystemExit 2).

    Arguments left over are the subcommand's to refuse (argparse's own ``parse_args`` has the
    top-level parser say so, with the top-level usage)."""
    args, extra = parser.parse_known_args(argv)
    command = getattr(args, "command", None)
    if command is None:
        names = ", ".join(_subparsers(parser).choices)
        parser.error(f"unrecognized arguments: {' '.join(extra)}" if extra else f"no command given: one of {names}")
    if extra:
        _subparsers(parser).choices[command].error(f"unrecognized arguments: {' '.join(extra)}")
    return args


def main(argv: list[str] | None = None) -> int:
    """Run one command; its exit code (a usage error: 2, ``--help`` and ``--version``: 0)."""
    parser = build_parser()
    try:
        args = parse(parser, argv)
    except SystemExit as e:  # (argparse's way out: --help, --version, a usage error)
        return e.code if isinstance(e.code, int) else 0 if e.code is None else 2
    if hasattr(args, "lang"):  # one language for every command: --lang, else the config's, else the locale's
        from controller.language import resolve

        args.lang = resolve(args.lang, getattr(args, "config", None))
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        print("yatzycam: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except Exception as e:  # noqa: BLE001 - user errors become one line
        if getattr(e, "user_error", False):
            print(f"yatzycam {args.command}: {printable(str(e))}", file=sys.stderr)  # (a path may hold a line break)
            return int(getattr(e, "exit_code", 2))
        if isinstance(e, OSError) and e.errno == errno.ENAMETOOLONG:  # a path given that no file can have
            name = str(e.filename or "")
            shown = name if len(name) <= 80 else name[:80] + "..."
            print(f"yatzycam {args.command}: {printable(shown)}: file name too long", file=sys.stderr)
            return 2
        raise


if __name__ == "__main__":
    sys.exit(main())
