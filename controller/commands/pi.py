"""`yatzycam doctor`: check the camera, pins, screen, calibration, database and disk on this Pi."""

from __future__ import annotations

import argparse
import json


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
    p.set_defaults(func=cmd_doctor)


def cmd_doctor(args: argparse.Namespace) -> int:
    from controller.config import DEFAULT_PATH
    from controller.doctor import report, run_checks

    path = args.config if args.config is not None else (DEFAULT_PATH if DEFAULT_PATH.exists() else None)
    checks = run_checks(path, args.only or ())
    ok = all(c.ok for c in checks)
    if args.json:
        print(json.dumps({"ok": ok, "checks": [c.as_dict() for c in checks]}))
    else:
        print(report(checks))
    return 0 if ok else 1
