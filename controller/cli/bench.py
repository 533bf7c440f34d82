"""`yatzycam bench`: accuracy and speed figures of every part, with sample sizes.

The sections and how they are run are in :mod:`controller.bench.run`.
"""

from __future__ import annotations

import argparse
import json
import sys

from controller.bench.run import SECTIONS, run


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("bench", help="accuracy and speed figures of every part", description=__doc__.splitlines()[0])
    p.add_argument("--json", action="store_true", help="one JSON object")
    p.add_argument("--only", metavar="SECTION", action="append", choices=sorted(SECTIONS), help="run only this section (repeatable)")
    p.add_argument("--quick", action="store_true", help="smaller samples (for a quick look; the note figures use the full run)")
    p.set_defaults(func=cmd_bench)


def _print_section(name: str, figures: dict, indent: str = "  ") -> None:
    for k, v in figures.items():
        if isinstance(v, dict):
            print(f"{indent}{k}:")
            _print_section(name, v, indent + "  ")
        else:
            print(f"{indent}{k}: {v:.4g}" if isinstance(v, float) else f"{indent}{k}: {v}")


def _print_done(name: str, figures: dict) -> None:
    print(f"{name}:")
    _print_section(name, figures)
    sys.stdout.flush()


def cmd_bench(args: argparse.Namespace) -> int:
    out = run(args.only or list(SECTIONS), args.quick, done=None if args.json else _print_done)
    if args.json:
        print(json.dumps(out))
    return 0
