"""The ``yatzycam`` command. Each subcommand lives in ``controller/cli/``.

A module there exposes ``register(subparsers)``; it adds its parser and sets
``func`` (args -> exit code). Heavy imports (OpenCV, the reader) happen inside
the handlers so that ``yatzycam score`` stays quick to start.

Errors meant for the user carry ``user_error = True`` (see ``UserError``); they
are printed as one line on stderr and the exit code is 2 — never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import sys

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


class UserError(Exception):
    """Bad input from the user: one clear line, exit code 2."""

    user_error = True


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="yatzycam",
        description="A camera scorekeeper for Yatzy, Maxi Yatzy and Maxi Yatzy Special 8 played with real dice.",
    )
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
