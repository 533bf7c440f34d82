"""``yatzycam``: the parser (one group of subcommands per module of ``COMMAND_MODULES``),
``--version``, and the one-line handling of user errors (see :mod:`controller.cli`)."""

from __future__ import annotations

import argparse
import importlib
import sys
import tomllib
from importlib import metadata
from pathlib import Path

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
    parser = argparse.ArgumentParser(
        prog="yatzycam",
        description="A camera scorekeeper for Yatzy, Maxi Yatzy and Maxi Yatzy Special 8 played with real dice.",
    )
    parser.add_argument("--version", action=_VersionAction, help="print the version and exit")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name in COMMAND_MODULES:
        try:
            mod = importlib.import_module(name)
        except ModuleNotFoundError as e:
            if e.name == name:  # that part of the program is not built yet
                continue
            raise
        mod.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
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
            print(f"yatzycam {args.command}: {e}", file=sys.stderr)
            return int(getattr(e, "exit_code", 2))
        raise


if __name__ == "__main__":
    sys.exit(main())
