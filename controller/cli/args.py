"""The command line's own checks, left to argparse: a parser whose usage errors are one line,
and the types every number on the command line goes through.

A usage error (a missing or unknown option, a value of the wrong kind or out of range) is one
line on stderr, ``yatzycam CMD: what is wrong (see yatzycam CMD --help)``, and exit code 2;
``--help`` still prints the whole help. argparse calls :meth:`Parser.error` for every such error
(its documented hook), so no command checks its own options' syntax.

The number types accept ASCII digits only: Python's ``int`` and ``float`` also take '٣', '1_000',
'nan' and 'inf', which are no number a user means here.
"""

from __future__ import annotations

import argparse
import math
import re
from collections.abc import Callable

HELP_HINT_SKIPPED = "(choose from"  # an invalid choice lists the choices: no need to point at --help


def printable(text: str) -> str:
    """``text`` on one line: a line break or another unprintable character shown escaped."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


class Parser(argparse.ArgumentParser):
    """argparse with one-line usage errors (subcommands' parsers are of the same class)."""

    def error(self, message: str):  # noqa: D401 - argparse's hook; must not return
        line = f"{self.prog}: {printable(message)}"
        if HELP_HINT_SKIPPED not in message:
            line += f" (see {self.prog} --help)"
        self.exit(2, line + "\n")


_INT = re.compile(r"[+-]?[0-9]+")
_DECIMAL = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]{1,3})?")
MAX_DIGITS = 30  # longer than any number a command takes (int() itself refuses over 4300 digits)


def _shown(text: str) -> str:
    return repr(text if len(text) <= 20 else text[:20] + "...")


def _bounds(lo: float | None, hi: float | None) -> str:
    if lo is not None and hi is not None:
        return f"{lo:g}..{hi:g}" if isinstance(lo, float) or isinstance(hi, float) else f"{lo}..{hi}"
    return f"at least {lo}" if lo is not None else f"at most {hi}"


def whole(lo: int | None = None, hi: int | None = None, what: str = "a whole number") -> Callable[[str], int]:
    """An argparse type: a whole number in ASCII digits, lo..hi."""

    def parse(text: str) -> int:
        t = text.strip()
        if not _INT.fullmatch(t):
            raise argparse.ArgumentTypeError(f"{_shown(text)} is not {what}")
        if len(t.lstrip("+-")) > MAX_DIGITS:
            raise argparse.ArgumentTypeError(f"{what} must be {_bounds(lo, hi)}, not {_shown(t)}" if lo is not None or hi is not None
                                             else f"{_shown(t)}: too many digits for {what}")
        n = int(t)
        if (lo is not None and n < lo) or (hi is not None and n > hi):
            raise argparse.ArgumentTypeError(f"{what} must be {_bounds(lo, hi)}, not {n}")
        return n

    return parse


def decimal(lo: float | None = None, hi: float | None = None, what: str = "a number") -> Callable[[str], float]:
    """An argparse type: a finite decimal number in ASCII (1, 0.5, 1e3), lo..hi."""

    def parse(text: str) -> float:
        v = number(text, what)
        if (lo is not None and v < lo) or (hi is not None and v > hi):
            raise argparse.ArgumentTypeError(f"{what} must be {_bounds(lo, hi)}, not {text.strip()}")
        return v

    return parse


def number(text: str, what: str = "a number") -> float:
    """A finite decimal number in ASCII; ArgumentTypeError otherwise (NaN, infinity, '1_0', '٣')."""
    t = text.strip()
    if not _DECIMAL.fullmatch(t):
        raise argparse.ArgumentTypeError(f"{_shown(text)} is not {what}")
    v = float(t)
    if not math.isfinite(v):
        raise argparse.ArgumentTypeError(f"{_shown(text)} is too large for {what}")
    return v
