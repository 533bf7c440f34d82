"""`yatzycam advise`: the best keep / box for a roll, and the expected score of a game."""

from __future__ import annotations

import argparse
import json
import sys

from controller.cli.args import whole
from controller.game import rules as R
from controller.language import add_option as add_lang


MAX_POINTS = 999_999  # as the rule sets' numbers
MAX_BANK = 99  # banked throws (Maxi banks at most 2 a turn)
MAX_GAMES = 10_000  # simulated games: some 30 s here (the standard error is then about half a point)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "advise",
        help="the best dice to keep and box to score, with expected final scores",
        description="Advice for one situation: every legal option (each keep, each box) with the expected "
        "final score it leads to, best first. Exact optimal solitaire play for yatzy, yahtzee and pads of "
        "that size (any pad in forced order) without banking; a one-turn lookahead with tuned values "
        "elsewhere. The exact table is built once (about a minute) and cached.",
    )
    p.add_argument("--rules", required=True, metavar="NAME", help="rule set name or path to a .toml file")
    p.add_argument("--open", metavar="BOX,BOX,...", help="the open boxes (default: every box)")
    p.add_argument("--upper", type=whole(0, MAX_POINTS, "an upper sum"), default=0, metavar="N", help="sum of the filled upper boxes (default 0)")
    p.add_argument("--throws-left", type=whole(0, 99, "a number of throws"), metavar="K", help="ordinary throws left this turn (default: throws - 1)")
    p.add_argument("--bank", type=whole(0, MAX_BANK, "a number of banked throws"), default=0, metavar="B",
                   help=f"banked throws (default 0, at most {MAX_BANK})")
    p.add_argument("--score", type=whole(0, MAX_POINTS, "a number of points"), default=0, metavar="P", help="points already on the pad, added to the expected scores")
    p.add_argument("--yahtzee-box", choices=("open", "0", "50"), help="Yahtzee: what the Yahtzee box holds (default open)")
    p.add_argument("--forced-order", action="store_true", help="boxes are filled top to bottom")
    p.add_argument("--no-banking", action="store_true", help="play a banking game without banking")
    p.add_argument("--expected", action="store_true", help="print the expected final score of a game from the start")
    p.add_argument("--games", type=whole(1, MAX_GAMES, "a number of games"), default=1000, metavar="N",
                   help=f"with --expected and no exact table: games simulated (default 1000, at most {MAX_GAMES})")
    p.add_argument("--top", type=whole(1, 1000, "a number of options"), default=6, metavar="N", help="options shown (default 6; --json gives all)")
    add_lang(p, "box labels")
    p.add_argument("--cache-dir", metavar="DIR", help="where the tables are cached (default $CACHE_DIRECTORY, $XDG_CACHE_HOME/yatzycam or ~/.cache/yatzycam)")
    p.add_argument("--json", action="store_true", help="one JSON object")
    p.add_argument("faces", nargs="*", help="the dice as read, e.g. 1 3 3 5 6 or 13356")
    p.set_defaults(func=cmd_advise)


def _fail(msg: str):
    from controller.advisor.advice import AdviceError

    return AdviceError(msg)


def _open_ids(rs: R.RuleSet, text: str | None, yahtzee_box: str | None) -> list[str]:
    if text is None:
        ids = list(rs.box_ids)
        if yahtzee_box in ("0", "50") and rs.yatzy_box:
            ids.remove(rs.yatzy_box)
        return ids
    ids = [x.strip() for x in text.split(",") if x.strip()]
    if not ids:
        raise _fail("--open names no box")
    for bid in ids:
        if bid not in rs.box_ids:
            raise _fail(f"--open: no box {bid!r} in {rs.name} (boxes: {', '.join(rs.box_ids)})")
    return ids


def cmd_advise(args: argparse.Namespace) -> int:
    from controller.advisor.advice import Advisor

    rs = R.load(args.rules)
    if args.yahtzee_box and not rs.yatzy_box:
        raise _fail(f"{rs.name} has no Yahtzee box rules (--yahtzee-box is for yahtzee)")
    banking = not args.no_banking
    if not args.expected and not args.faces:
        raise _fail("give the dice (e.g. 1 3 3 5 6), or --expected")
    open_ids = _open_ids(rs, args.open, args.yahtzee_box)
    yv = None
    if rs.yatzy_box:
        if args.yahtzee_box in ("0", "50"):
            if rs.yatzy_box in open_ids:
                raise _fail(f"--yahtzee-box {args.yahtzee_box} but --open lists {rs.yatzy_box}")
            yv = int(args.yahtzee_box)
        elif rs.yatzy_box not in open_ids:
            raise _fail(f"the {rs.yatzy_box} box is filled: say what it holds with --yahtzee-box 0 or 50")
    faces = R.parse_roll(" ".join(args.faces)) if args.faces else None
    if faces is not None:
        rs.check_roll(faces)
    progress = None
    if sys.stderr.isatty():
        def progress(k: int, total: int, secs: float) -> None:
            print(f"\rbuilding the {rs.name} table: {k}/{total} ({secs:.0f} s)", end="" if k < total else "\n", file=sys.stderr, flush=True)
    adv = Advisor.for_rules(rs, forced_order=args.forced_order, banking=banking, cache=args.cache_dir, progress=progress)
    if args.expected:
        return _expected(adv, args)
    advice = adv.advise(faces, open_ids, upper=args.upper, throws_left=args.throws_left, bank=args.bank, yatzy_value=yv, score=args.score, lang=args.lang)
    if args.json:
        print(json.dumps(advice.as_dict()))
        return 0
    kind = "exact" if advice.exact else "estimated by the lookahead"
    print(f"{advice.text}   expected final score {advice.expected:.2f} ({kind})")
    for o in advice.options[1 : 1 + max(0, args.top - 1)]:
        print(f"  {o.value:8.2f}  {o.value - advice.expected:+8.2f}  {o.text}")
    return 0


def _expected(adv, args: argparse.Namespace) -> int:
    from controller.advisor.sim import Policy, simulate

    if adv.exact is not None:
        v = adv.expected_start()
        out = {"rules": adv.rs.name, "strategy": "exact", "expected": round(v, 6), "forced_order": adv.forced}
        print(json.dumps(out) if args.json else f"{adv.rs.name}: expected final score under optimal solitaire play {v:.4f}")
        return 0
    res = simulate(adv.rs, Policy("advisor", adv.future, adv.throw_value), args.games, seed=2024, forced=adv.forced, banking=adv.banking, model=adv.model, space=adv.space)
    out = {"rules": adv.rs.name, "strategy": adv.strategy, "expected": round(res.mean, 3), "stderr": round(res.stderr, 3), "games": len(res.scores), "banking": adv.banking, "forced_order": adv.forced}
    if args.json:
        print(json.dumps(out))
    else:
        print(f"{adv.rs.name}: mean final score of the advisor's play {res.mean:.2f} ± {res.stderr:.2f} ({len(res.scores)} simulated solitaire games; no exact table for this game)")
    return 0
