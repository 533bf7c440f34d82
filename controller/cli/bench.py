"""`yatzycam bench`: accuracy and speed figures of every part, with sample sizes.

The sections and how they are run are in :mod:`controller.bench.run`.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

from controller.bench.run import SECTIONS, run


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("bench", help="accuracy and speed figures of every part", description=__doc__.splitlines()[0])
    p.add_argument("--json", action="store_true", help="one JSON object")
    p.add_argument("--only", metavar="SECTION", action="append", choices=sorted(SECTIONS), help="run only this section (repeatable)")
    p.add_argument("--quick", action="store_true", help="smaller samples (for a quick look; the note figures use the full run)")
    p.add_argument("--data", metavar="DIR", help="real labelled photos (dice-photos layout) for the vision section "
                   "(default: $YATZYCAM_PHOTOS; none: that part is skipped)")
    p.add_argument("--models", metavar="DIR", help="the vision section's leave-one-source-out fold models, "
                   "DIR/without-SOURCE.onnx")
    p.add_argument("--pictures", metavar="DIR", help="also draw what was counted, to look at: the calibration "
                   "section's real frames and worst renders (true floor white, floor found green), the vision "
                   "section's real dice passed ok that their labels do not bear out (made if missing)")
    p.add_argument("--dice", metavar="N", type=int, help="the vision section's wrong-face rate on renders over at "
                   "least N dice read ok (default 10000; more renders further scenes, for a tighter bound)")
    p.set_defaults(func=cmd_bench)


def _figure(v: dict) -> str | None:
    """One line for a count with its interval ({"k", "n", "rate", "ci95"}), else None."""
    if set(v) != {"k", "n", "rate", "ci95"}:
        return None
    if not v["n"]:
        return f"{v['k']}/0"
    lo, hi = v["ci95"]
    return f"{v['k']}/{v['n']} = {100 * v['rate']:.2f}% (95% CI {100 * lo:.2f}-{100 * hi:.2f}%)"


def _print_section(name: str, figures: dict, indent: str = "  ") -> None:
    for k, v in figures.items():
        if isinstance(v, dict) and _figure(v) is not None:
            print(f"{indent}{k}: {_figure(v)}")
        elif isinstance(v, dict):
            print(f"{indent}{k}:")
            _print_section(name, v, indent + "  ")
        else:
            print(f"{indent}{k}: {v:.4g}" if isinstance(v, float) else f"{indent}{k}: {v}")


def _print_done(name: str, figures: dict) -> None:
    print(f"{name}:")
    _print_section(name, figures)
    sys.stdout.flush()


def cmd_bench(args: argparse.Namespace) -> int:
    for flag in ("data", "models"):
        given = getattr(args, flag, None)
        if given is not None and not os.path.isdir(given):
            print(f"yatzycam bench: --{flag} {given}: no such folder", file=sys.stderr)
            return 2
    if args.dice is not None and not 100 <= args.dice <= 1_000_000:
        print(f"yatzycam bench: --dice {args.dice}: give 100 to 1000000", file=sys.stderr)
        return 2
    if args.pictures is not None:
        try:
            os.makedirs(args.pictures, exist_ok=True)
        except OSError as e:
            print(f"yatzycam bench: --pictures {args.pictures}: {e.strerror or e}", file=sys.stderr)
            return 2
    out = run(args.only or list(SECTIONS), args.quick, done=None if args.json else _print_done,
              data=args.data, models=args.models, pictures=args.pictures, dice=args.dice)
    if args.json:
        print(json.dumps(out))
    return 0
