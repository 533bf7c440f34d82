"""The advisor, quick tests: hand-checked positions on small pads, legality, cache, CLI.

The full yatzy / yahtzee tables against the exact oracle are in test_advisor_oracle.py (slow).
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from controller.game import rules as R
from controller.advisor.advice import Advisor, AdviceError
from controller.advisor.exact import solve, table_path
from controller.advisor.sim import GREEDY, Policy, simulate
from controller.cli.main import main

UPPER = [
    {"id": n, "kind": "upper", "face": f}
    for f, n in enumerate(["ones", "twos", "threes", "fours", "fives", "sixes"], 1)
]


def pad(boxes, **top) -> R.RuleSet:
    boxes = [{"label": b["id"].replace("_", " ").capitalize(), **b} for b in boxes]
    data = {"name": top.pop("name", "tiny"), "dice": 5, "throws": 3, "box": boxes, **top}
    return R.parse_ruleset(data, "test")


TINY = dict(
    boxes=[
        {"id": "sixes", "kind": "upper", "face": 6},
        {"id": "chance", "kind": "chance"},
        {"id": "yatzy", "kind": "all_same", "points": 50},
    ],
    bonus={"threshold": 18, "points": 50},
)

# a small Yahtzee: upper fives/sixes, full house 25, Yahtzee with extra bonus and joker
MINI_YAHTZEE = dict(
    boxes=[
        {"id": "fives", "kind": "upper", "face": 5},
        {"id": "sixes", "kind": "upper", "face": 6},
        {"id": "full_house", "kind": "groups", "sizes": [3, 2], "points": 25},
        {"id": "large_straight", "kind": "run", "length": 5, "points": 40},
        {"id": "yahtzee", "kind": "all_same", "points": 50},
        {"id": "chance", "kind": "chance"},
    ],
    bonus={"threshold": 30, "points": 35},
    yahtzee={"box": "yahtzee", "extra_bonus": 100, "joker": True},
)


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    rs = pad(TINY["boxes"], bonus=TINY["bonus"])
    return Advisor.for_rules(rs, cache=tmp_path_factory.mktemp("cache"))


@pytest.fixture(scope="module")
def mini(tmp_path_factory):
    rs = pad(MINI_YAHTZEE["boxes"], bonus=MINI_YAHTZEE["bonus"], yahtzee=MINI_YAHTZEE["yahtzee"], name="mini")
    return Advisor.for_rules(rs, cache=tmp_path_factory.mktemp("cache"))


# ----------------------------------------------------------------- hand-checked positions


def test_last_box_last_throw_is_the_score(tiny):
    a = tiny.advise([1, 2, 3, 4, 5], ["chance"], upper=0, throws_left=0)
    assert [o.text for o in a.options] == ["score Chance: 15"]
    assert a.expected == pytest.approx(15.0, abs=1e-12)
    assert a.stop and a.best.box == "chance"


def test_chance_alone_one_throw_left(tiny):
    # keep 6 6 6, throw the 1s: 18 + 2 x 3.5
    a = tiny.advise([6, 6, 6, 1, 1], ["chance"], upper=18, throws_left=1)
    assert a.text == "keep 6 6 6, throw 1 1"
    assert a.expected == pytest.approx(25.0, abs=1e-12)


def test_chance_alone_from_the_start(tiny):
    # one die, three throws, maximising: 3.5 -> 4.25 -> 14/3; five dice: 70/3
    v = tiny.exact.value(1 << tiny.rs.box_index("chance"), 0)
    assert v == pytest.approx(70 / 3, abs=1e-12)


def test_yatzy_alone_with_three_fives(tiny):
    # keep 5 5 5: each of two dice needs a 5 within two throws
    a = tiny.advise([5, 5, 5, 2, 3], ["yatzy"], upper=18, throws_left=2)
    assert a.text == "keep 5 5 5, throw 2 3"
    assert a.expected == pytest.approx(50 * (11 / 36) ** 2, abs=1e-12)


def test_upper_bonus_is_counted_when_crossed(tiny):
    a = tiny.advise([6, 6, 6, 1, 2], ["sixes"], upper=0, throws_left=0)
    assert a.expected == pytest.approx(18 + 50)
    a = tiny.advise([6, 6, 1, 1, 2], ["sixes"], upper=0, throws_left=0)
    assert a.expected == pytest.approx(12)


def test_values_add_the_score_so_far(tiny):
    a = tiny.advise([6, 6, 6, 1, 1], ["chance"], upper=18, throws_left=1, score=100)
    assert a.expected == pytest.approx(125.0)


def test_start_value_matches_simulated_games(tiny):
    res = simulate(tiny.rs, Policy("exact", tiny.future), 4000, seed=5, model=tiny.model, space=tiny.space)
    assert res.illegal == 0
    start = tiny.expected_start()
    assert abs(res.mean - start) < 4 * res.stderr, (res.mean, res.stderr, start)
    greedy = simulate(tiny.rs, GREEDY, 4000, seed=5, model=tiny.model, space=tiny.space)
    assert greedy.mean < res.mean


def test_mini_yahtzee_start_value_matches_simulation(mini):
    res = simulate(mini.rs, Policy("exact", mini.future), 4000, seed=9, model=mini.model, space=mini.space)
    assert res.illegal == 0
    assert abs(res.mean - mini.expected_start()) < 4 * res.stderr


# ----------------------------------------------------------------- legality / consistency


def _random_situations(adv: Advisor, count: int, seed: int):
    rng = np.random.default_rng(seed)
    rs = adv.rs
    ids = list(rs.box_ids)
    out = []
    while len(out) < count:
        open_ids = [b for b in ids if rng.random() < 0.5]
        if adv.forced:
            k = int(rng.integers(1, len(ids) + 1))
            open_ids = ids[-k:]
        if not open_ids:
            continue
        upper = sum(int(rs.box(b).param("face")) * int(rng.integers(0, 6)) for b in ids if rs.box(b).upper and b not in open_ids)
        yv = None
        if rs.yatzy_box and rs.yatzy_box not in open_ids:
            yv = int(rng.choice([0, 50]))
        dice = rng.integers(1, 7, size=rs.dice).tolist()
        if rng.random() < 0.2:
            dice = [int(rng.integers(1, 7))] * rs.dice  # all equal: joker territory
        out.append((dice, open_ids, upper, int(rng.integers(0, rs.throws)), yv))
    return out


@pytest.mark.parametrize("which", ["tiny", "mini"])
def test_never_illegal_and_consistent(which, request):
    adv = request.getfixturevalue(which)
    rs = adv.rs
    for dice, open_ids, upper, tl, yv in _random_situations(adv, 300, seed=3):
        a = adv.advise(dice, open_ids, upper=upper, throws_left=tl, yatzy_value=yv)
        legal, _ = rs.options(dice, open_ids, yv, adv.forced)
        for o in a.options:
            if o.action == "score":
                assert o.box in legal and o.points == legal[o.box]
            else:
                assert tl > 0
                assert sorted(o.keep + o.throw) == sorted(dice) and len(o.throw) > 0
        assert {o.box for o in a.options if o.action == "score"} == set(legal)
        # the option values agree with the within-turn recursion (which uses the vectorised rules)
        assert a.expected == pytest.approx(adv.turn_value(dice, open_ids, upper, tl, yatzy_value=yv), abs=1e-9)
        assert all(a.options[i].value >= a.options[i + 1].value - 1e-9 for i in range(len(a.options) - 1))


def test_strict_joker_forces_the_matching_upper_box(mini):
    ids = [b for b in mini.rs.box_ids if b != "yahtzee"]
    a = mini.advise([5] * 5, ids, upper=0, throws_left=0, yatzy_value=50)
    assert [o.box for o in a.options] == ["fives"]
    assert a.best.text == "score Fives: 25 + 100 bonus"
    # fives filled: any open lower box at full value (full house 25, straight 40)
    ids = ["sixes", "full_house", "large_straight", "chance"]
    a = mini.advise([5] * 5, ids, upper=10, throws_left=0, yatzy_value=0)
    assert {o.box: o.points for o in a.options} == {"full_house": 25, "large_straight": 40, "chance": 25}


def test_forced_order_yatzy_only_offers_the_next_box(tmp_path):
    rs = R.load("yatzy")
    adv = Advisor.for_rules(rs, forced_order=True, cache=tmp_path)
    assert adv.strategy == "exact"
    # value of forced-order Nordic Yatzy (checked against yatzy-solver's yatzy-scandinavian+forced)
    assert adv.expected_start() == pytest.approx(122.55852739642387, abs=1e-9)
    a = adv.advise([1, 3, 3, 5, 6], rs.box_ids[3:], upper=6, throws_left=0)
    assert [o.box for o in a.options] == ["fours"]
    for dice, open_ids, upper, tl, yv in _random_situations(adv, 100, seed=8):
        a = adv.advise(dice, open_ids, upper=upper, throws_left=tl)
        assert all(o.box == open_ids[0] for o in a.options if o.action == "score")


def test_lookahead_maxi_never_illegal(tmp_path):
    rs = R.load("maxi")
    adv = Advisor.for_rules(rs, cache=tmp_path, tune=False)
    assert adv.strategy == "lookahead" and adv.banking
    rng = np.random.default_rng(4)
    for _ in range(40):
        open_ids = [b for b in rs.box_ids if rng.random() < 0.6] or ["chance"]
        dice = rng.integers(1, 7, size=6).tolist()
        bank, tl = int(rng.integers(0, 5)), int(rng.integers(0, 3))
        a = adv.advise(dice, open_ids, upper=0, throws_left=tl, bank=bank)
        legal, _ = rs.options(dice, open_ids)
        assert {o.box for o in a.options if o.action == "score"} == set(legal)
        assert a.expected == pytest.approx(adv.turn_value(dice, open_ids, 0, tl, bank), abs=1e-9)
        if tl + bank == 0:
            assert a.stop


def test_bank_rules():
    from controller.advisor.core import bank_after_stop, new_bank

    s8, maxi = R.load("special8"), R.load("maxi")
    assert [new_bank(s8, 6, 1), new_bank(s8, 5, 2), new_bank(s8, 6, 2), new_bank(s8, 3, 2)] == [5, 5, 4, 5]
    assert new_bank(maxi, 40, 2) == 42
    assert bank_after_stop(maxi, 3, 1) == 1  # ordinary spent, one banked throw left
    assert bank_after_stop(maxi, 3, 5) == 5  # two ordinary left unused
    # the same rule as the game engine's, everywhere it can be asked
    from controller.game.game import new_bank as game_new_bank

    for rs in (s8, maxi):
        for bank in range(0, 7):
            for unused in range(0, 3):
                assert new_bank(rs, bank, unused) == game_new_bank(rs.banking, rs.bank_cap, bank, unused)
        banks = np.arange(7)
        assert list(new_bank(rs, banks, np.full(7, 2))) == [game_new_bank(rs.banking, rs.bank_cap, b, 2) for b in range(7)]


def test_bad_situations_are_refused(tiny):
    with pytest.raises(AdviceError):
        tiny.advise([1, 2, 3, 4, 5], [], 0, 0)
    with pytest.raises(AdviceError):
        tiny.advise([1, 2, 3, 4, 5], ["chance"], 0, 3)
    with pytest.raises(AdviceError):  # sixes open, so the upper sum must be 0
        tiny.advise([1, 2, 3, 4, 5], ["sixes", "chance"], 7, 0)
    with pytest.raises(AdviceError):
        tiny.advise([1, 2, 3, 4, 5], ["chance"], 0, 0, bank=2)
    with pytest.raises(R.RulesError):
        tiny.advise([1, 2, 3, 4, 9], ["chance"], 0, 0)
    with pytest.raises(R.RulesError):
        tiny.advise([1, 2, 3, 4, 5], ["nope"], 0, 0)


# ----------------------------------------------------------------------------- cache


def test_cache_is_versioned_and_reloaded(tmp_path):
    rs = pad(TINY["boxes"], bonus=TINY["bonus"])
    a1 = Advisor.for_rules(rs, cache=tmp_path)
    path = table_path(rs, False, tmp_path)
    assert path.exists() and a1.exact.loaded_from is None
    a2 = Advisor.for_rules(rs, cache=tmp_path)
    assert a2.exact.loaded_from == str(path)
    assert np.array_equal(a1.exact.V, a2.exact.V, equal_nan=True)
    other = pad(TINY["boxes"], bonus={"threshold": 18, "points": 40})
    assert table_path(other, False, tmp_path) != path
    assert Advisor.for_rules(other, cache=tmp_path).expected_start() < a1.expected_start()
    # a corrupt cache file is rebuilt, not trusted
    path.write_bytes(b"not a table")
    a3 = Advisor.for_rules(rs, cache=tmp_path)
    assert a3.exact.loaded_from is None and a3.expected_start() == pytest.approx(a1.expected_start())


def test_solve_matches_direct_enumeration_on_one_box():
    # one box (yatzy 50): P(five equal within three throws, optimal keeps) is 0.04603 (well known)
    rs = pad([{"id": "yatzy", "kind": "all_same", "points": 50}])
    t = solve(rs)
    assert t.start_value / 50 == pytest.approx(0.0460286, abs=1e-6)


# ------------------------------------------------------------------------------- CLI


def test_cli_advise_json(tmp_path, capsys):
    rc = main(["advise", "--rules", "yatzy", "--forced-order", "--cache-dir", str(tmp_path), "--json", "1", "3", "3", "5", "6"])
    assert rc == 0
    out = json.loads(capsys.readouterr().out)
    assert out["exact"] and out["options"][0]["text"] == out["advice"]
    assert all(o["box"] == "ones" for o in out["options"] if o["action"] == "score")
    assert math.isclose(out["expected"], max(o["expected"] for o in out["options"]))


def test_cli_expected_and_errors(tmp_path, capsys):
    assert main(["advise", "--rules", "yatzy", "--forced-order", "--cache-dir", str(tmp_path), "--expected"]) == 0
    assert "122.5585" in capsys.readouterr().out
    for argv in (
        ["advise", "--rules", "yatzy", "1", "2", "3"],
        ["advise", "--rules", "yatzy", "--open", "nope", "1", "2", "3", "4", "5"],
        ["advise", "--rules", "yatzy"],
        ["advise", "--rules", "nosuch", "1", "2", "3", "4", "5"],
        ["advise", "--rules", "yatzy", "--yahtzee-box", "50", "1", "2", "3", "4", "5"],
        ["advise", "--rules", "yahtzee", "--open", "chance", "1", "2", "3", "4", "5"],
        ["advise", "--rules", "yatzy", "--forced-order", "--cache-dir", str(tmp_path), "--upper", "-1", "1", "2", "3", "4", "5"],
    ):
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert err.startswith("yatzycam advise: ") and err.count("\n") == 1, err


def test_shipped_lookahead_values_cover_the_builtin_pads(tmp_path):
    # no self-play tuning on a Pi's first game: every built-in pad without an exact table
    # finds its values in controller/advisor_tuned.py (a stale key would tune and write here)
    from controller.advisor.exact import can_solve

    seen = 0
    for name in R.builtin_names():
        rs = R.load(name)
        for forced in (False, True):
            for banking in (True, False):
                if can_solve(rs, forced, banking and rs.banking != "none"):
                    continue
                adv = Advisor.for_rules(rs, forced_order=forced, banking=banking, cache=tmp_path)
                assert adv.strategy == "lookahead"
                assert adv.lookahead.weights.shape == (len(rs.boxes),)
                seen += 1
    assert seen >= 6
    assert list(tmp_path.iterdir()) == []


def test_one_throw_two_boxes_by_brute_force(tmp_path):
    # one throw a turn, chance and sixes: the first roll goes where it is worth more
    import itertools

    rs = pad([{"id": "chance", "kind": "chance"}, {"id": "sixes", "kind": "upper", "face": 6}], throws=1)
    adv = Advisor.for_rules(rs, cache=tmp_path)
    brute = sum(max(sum(r) + 5, 6 * r.count(6) + 17.5) for r in itertools.product(range(1, 7), repeat=5)) / 6**5
    assert adv.expected_start() == pytest.approx(brute, abs=1e-12)
