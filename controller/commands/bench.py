"""`yatzycam bench`: accuracy and speed figures of every part, with sample sizes.

Each section is a function ``bench(quick: bool) -> dict`` in the module that owns
the part; ``SECTIONS`` names them. A section whose module is not built yet is
reported as missing, not silently skipped.
"""

from __future__ import annotations

import argparse
import importlib
import json
import platform
import sys
import time

SECTIONS: dict[str, str] = {
    "rules": "controller.bench_rules:bench",
    "game": "controller.bench_game:bench",
    "vision": "vision.bench:bench",
    "screen": "controller.bench_screen:bench",
    "app": "controller.bench_app:bench",
    "advisor": "controller.bench_advisor:bench",
}


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


def cmd_bench(args: argparse.Namespace) -> int:
    names = args.only or list(SECTIONS)
    out: dict = {"machine": {"python": platform.python_version(), "cpu": platform.processor() or platform.machine()}}
    for name in names:
        mod_name, fn = SECTIONS[name].split(":")
        t0 = time.perf_counter()
        try:
            mod = importlib.import_module(mod_name)
        except ModuleNotFoundError as e:
            if e.name != mod_name:
                raise
            out[name] = {"missing": f"{mod_name} is not built yet"}
        else:
            out[name] = getattr(mod, fn)(args.quick)
            out[name]["section_s"] = round(time.perf_counter() - t0, 2)
        if not args.json:
            print(f"{name}:")
            _print_section(name, out[name])
            sys.stdout.flush()
    if args.json:
        print(json.dumps(out))
    return 0
