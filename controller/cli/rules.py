"""`yatzycam score` and `yatzycam rules`."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator

from controller.game import rules as R
from controller.language import add_option as add_lang


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "score",
        help="what each box would score for a roll",
        description="Score a roll in every box of a pad. Faces as arguments, or one roll a line on "
        "stdin (faces separated by spaces or commas, or a digit string like 33545).",
    )
    p.add_argument("--rules", required=True, metavar="NAME", help="rule set name or path to a .toml file")
    p.add_argument("--json", action="store_true", help="one JSON object a line (box id -> points, pad order)")
    add_lang(p, "box labels")
    p.add_argument("faces", nargs="*", help="the faces of all dice, e.g. 3 3 5 4 5 or 33545")
    p.set_defaults(func=cmd_score)

    p = sub.add_parser("rules", help="list the rule sets, or print one pad", description="List the rule sets, or print one pad with each box's rule.")
    p.add_argument("name", nargs="?", help="rule set name or path to a .toml file")
    add_lang(p, "box labels")
    p.set_defaults(func=cmd_rules)


def _table(rs: R.RuleSet, scores: dict[str, int], lang: str) -> str:
    width = max(len(b.label(lang)) for b in rs.boxes)
    return "\n".join(f"{b.label(lang):<{width}}  {scores[b.id]:>4}" for b in rs.boxes)


def cmd_score(args: argparse.Namespace) -> int:
    rs = R.load(args.rules)
    rs.table  # build once
    if args.faces:
        faces = R.parse_roll(" ".join(args.faces))
        scores = rs.score(faces)
        print(json.dumps(scores) if args.json else _table(rs, scores, args.lang))
        return 0
    bad = 0
    for n, line in enumerate(_lines(sys.stdin), 1):
        if not line.strip():
            continue
        try:
            if len(line) > MAX_LINE:
                raise R.RulesError(f"longer than {MAX_LINE} characters: not a roll")
            if not _utf8(line):
                raise R.RulesError("not UTF-8 text")
            scores = rs.score(R.parse_roll(line))
        except R.RulesError as e:
            bad += 1
            print(f"yatzycam score: line {n}: {e}", file=sys.stderr)
            print(json.dumps({"error": str(e)}) if args.json else f"error: {e}", flush=True)
            continue
        if args.json:
            print(json.dumps(scores), flush=True)
        else:
            print(f"{' '.join(map(str, R.parse_roll(line)))}\n{_table(rs, scores, args.lang)}\n", flush=True)
    return 2 if bad else 0


MAX_LINE = 1000  # characters: a roll is a few


def _lines(f) -> Iterator[str]:
    """The lines of ``f``, each cut at MAX_LINE + 1 characters (the rest of a longer line is read and
    dropped, never held): memory stays bounded whatever comes in."""
    while True:
        line = f.readline(MAX_LINE + 1)
        if not line:
            return
        if len(line) > MAX_LINE and not line.endswith("\n"):
            while (rest := f.readline(64 * 1024)) and not rest.endswith("\n"):
                pass
        yield line


def _utf8(line: str) -> bool:
    """Whether a line read from stdin was UTF-8 (Python keeps other bytes as lone surrogates)."""
    try:
        line.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def describe_pad(rs: R.RuleSet, lang: str) -> str:
    out = [f"{rs.title(lang)} ({rs.name}): {rs.dice} dice, {len(rs.boxes)} boxes, {rs.throws} throws a turn"]
    if rs.bonus_threshold:
        out.append(f"bonus {rs.bonus_points} at {rs.bonus_threshold} in the upper section (par {rs.bonus_par:.2f} per face)")
    bank = {"none": "no banking", "uncapped": "unused throws banked, no cap"}.get(
        rs.banking, f"unused throws banked, at most {rs.bank_cap} (overflow: bank = {2 * (rs.bank_cap or 0)} - B - u)"
    )
    out.append(bank + ("; declared throws" if rs.declare else ""))
    if rs.extra_bonus or rs.joker:
        out.append(f"extra {rs.yatzy_box}: {rs.extra_bonus} each" + ("; joker rule" if rs.joker else ""))
    width = max(len(b.label(lang)) for b in rs.boxes)
    for i, b in enumerate(rs.boxes, 1):
        out.append(f"{i:>3}  {b.id:<18} {b.label(lang):<{width}}  {b.describe()}")
    out.append(f"maximum total {rs.max_total()}" + (f" ({rs.max_total(True)} with extra bonuses)" if rs.extra_bonus else ""))
    if rs.notes:
        out.append(rs.notes)
    return "\n".join(out)


def cmd_rules(args: argparse.Namespace) -> int:
    if args.name:
        print(describe_pad(R.load(args.name), args.lang))
        return 0
    print(f"{'name':<12} {'dice':>4} {'boxes':>5} {'max':>6}  title")
    for name in R.builtin_names():
        rs = R.load(name)
        print(f"{name:<12} {rs.dice:>4} {len(rs.boxes):>5} {rs.max_total():>6}  {rs.title(args.lang)}" + (f"; {rs.max_total(True)} with extra Yahtzee bonuses" if rs.extra_bonus else ""))
    return 0
