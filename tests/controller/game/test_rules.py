"""The rules engine: every example of RULES.md, maxima, and properties over all multisets."""

import itertools
import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.game import rules as R
from controller.cli.main import main

ALL = R.builtin_names()


def roll(s: str) -> list[int]:
    return R.parse_roll(s)


@pytest.mark.parametrize(
    "faces,box,points",
    [
        ("33545", "two_pairs", 16),
        ("33335", "four_of_a_kind", 12),
        ("44444", "full_house", 0),
        ("62226", "full_house", 18),
        ("11222", "two_pairs", 6),
        ("12345", "small_straight", 15),
        ("23456", "large_straight", 20),
        ("44444", "yatzy", 50),
        ("44444", "two_pairs", 0),
        ("66554", "one_pair", 12),
    ],
)
def test_yatzy_examples(faces, box, points):
    assert R.load("yatzy").score(roll(faces))[box] == points


@pytest.mark.parametrize(
    "faces,box,points",
    [
        ("444222", "villa", 18),
        ("665533", "three_pairs", 28),
        ("555533", "tower", 26),
        ("666444", "villa", 30),
        ("333336", "five_of_a_kind", 15),
        ("666666", "sixes", 36),
        ("666666", "maxi_yatzy", 100),
        ("123456", "full_straight", 21),
        ("123451", "small_straight", 15),
        ("623456", "large_straight", 20),
        ("555533", "full_house", 21),  # kåk: the five dice of the groups, not all six
        ("666666", "villa", 0),  # groups need different faces
        ("555555", "three_pairs", 0),
    ],
)
def test_maxi_examples(faces, box, points):
    assert R.load("maxi").score(roll(faces))[box] == points


@pytest.mark.parametrize(
    "faces,box,points",
    [
        ("55566666", "villa", 33),  # "a three-plus-three of fives and sixes gives 33"
        ("55555555", "yatzy", 90),  # eight fives: 50 + 40
        ("22222221", "twos", 14),
        ("12345666", "straight_pair", 33),
        ("12345634", "straight_pair", 0),
        ("12345611", "straight_pair", 23),
        ("66554433", "four_pairs", 36),
        ("66655522", "three_three_two", 37),
        ("66665522", "four_two_two", 38),
        ("66666655", "six_two", 46),
        ("66666655", "seven_of_a_kind", 0),
        ("66666665", "seven_of_a_kind", 42),
        ("11112222", "two_fours", 12),
    ],
)
def test_special8_examples(faces, box, points):
    assert R.load("special8").score(roll(faces))[box] == points


@pytest.mark.parametrize(
    "faces,box,points",
    [
        ("33345", "three_of_a_kind", 18),
        ("33335", "four_of_a_kind", 17),
        ("22333", "full_house", 25),
        ("33333", "full_house", 0),
        ("12346", "small_straight", 30),
        ("34562", "small_straight", 30),
        ("34562", "large_straight", 40),
        ("13456", "small_straight", 30),
        ("12356", "small_straight", 0),
        ("55555", "yahtzee", 50),
    ],
)
def test_yahtzee_examples(faces, box, points):
    assert R.load("yahtzee").score(roll(faces))[box] == points


def test_maxima():
    assert R.load("yatzy").max_total() == 374
    assert R.load("maxi").max_total() == 649
    assert R.load("maxi-tactic").max_total() == 599
    assert R.load("special8").max_total() == 1145
    assert R.load("yahtzee").max_total() == 375
    assert R.load("yahtzee").max_total(extra_bonuses=True) == 1575


@pytest.mark.parametrize("name,n", [("yatzy", 252), ("maxi", 462), ("special8", 1287), ("yahtzee", 252)])
def test_table_covers_every_multiset(name, n):
    rs = R.load(name)
    t = rs.table
    assert t.size == n
    assert abs(t.prob.sum() - 1) < 1e-12
    # every multiset maps to its own row
    assert sorted(t.indices(t.counts).tolist()) == list(range(n))


def _ref_score(box: R.Box, faces: list[int], n_dice: int) -> int:
    """Independent, brute-force reference: try every choice of dice."""
    c = Counter(faces)
    p = dict(box.params)
    k = box.kind
    if k == "upper":
        return p["face"] * c[p["face"]]
    if k == "kind":
        fs = [f for f in range(1, 7) if c[f] >= p["n"]]
        return p["n"] * max(fs) if fs else 0
    if k == "pairs":
        best = 0
        for combo in itertools.combinations(range(1, 7), p["n"]):
            if all(c[f] >= 2 for f in combo):
                best = max(best, 2 * sum(combo))
        return best
    if k == "groups":
        best = 0
        for combo in itertools.permutations(range(1, 7), len(p["sizes"])):
            if all(c[f] >= s for f, s in zip(combo, p["sizes"])):
                best = max(best, sum(f * s for f, s in zip(combo, p["sizes"])))
        if p.get("points") is not None:
            return p["points"] if best else 0
        return best
    if k == "straight":
        ok = all(c[f] for f in range(p["lo"], p["hi"] + 1))
        return (p["points"] if p.get("points") is not None else sum(range(p["lo"], p["hi"] + 1))) if ok else 0
    if k == "chance":
        return sum(faces)
    if k == "all_same":
        return (p["points"] + (sum(faces) if p["add_sum"] else 0)) if len(c) == 1 else 0
    if k == "kind_all":
        return sum(faces) if max(c.values()) >= p["n"] else 0
    if k == "run":
        ok = any(all(c[f] for f in range(s, s + p["length"])) for s in range(1, 8 - p["length"]))
        return p["points"] if ok else 0
    if k == "straight_pair":
        rest = list(faces)
        for f in range(p["lo"], p["hi"] + 1):
            if f not in rest:
                return 0
            rest.remove(f)
        return sum(faces) if len(set(rest)) == 1 else 0
    raise AssertionError(k)


@pytest.mark.parametrize("name", ALL)
def test_every_multiset_matches_reference(name):
    rs = R.load(name)
    t = rs.table
    for i, faces in enumerate(t.faces.tolist()):
        for j, box in enumerate(rs.boxes):
            assert t.scores[i, j] == _ref_score(box, faces, rs.dice), (name, faces, box.id)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(ALL), st.data())
def test_permutation_invariance_and_bounds(name, data):
    rs = R.load(name)
    faces = data.draw(st.lists(st.integers(1, 6), min_size=rs.dice, max_size=rs.dice))
    perm = data.draw(st.permutations(faces))
    a, b = rs.score(faces), rs.score(perm)
    assert a == b
    assert list(a) == list(rs.box_ids)
    for box in rs.boxes:
        v = a[box.id]
        assert v >= 0
        if box.kind not in ("all_same", "groups", "straight", "run") or box.fixed_points is None:
            if box.kind not in ("all_same",):
                assert v <= sum(faces) or box.fixed_points is not None


def test_kind_and_pairs_are_monotone_in_n():
    rs = R.load("special8")
    t = rs.table
    ids = rs.box_ids
    for lo, hi in [("three_of_a_kind", "four_of_a_kind"), ("one_pair", "two_pairs"), ("two_pairs", "three_pairs")]:
        # having the bigger combination implies having the smaller
        has_hi = t.scores[:, ids.index(hi)] > 0
        assert np.all(t.scores[has_hi, ids.index(lo)] > 0)


def test_joker_options():
    rs = R.load("yahtzee")
    opts, extra = rs.options([4] * 5, set(rs.box_ids) - {"yahtzee"}, yatzy_value=50)
    assert opts == {"fours": 20} and extra == 100
    open_ = set(rs.box_ids) - {"yahtzee", "fours"}
    opts, extra = rs.options([4] * 5, open_, yatzy_value=0)
    assert extra == 0
    assert opts["full_house"] == 25 and opts["small_straight"] == 30 and opts["large_straight"] == 40
    assert opts["chance"] == 20 and "ones" not in opts
    opts, _ = rs.options([4] * 5, {"ones", "twos"}, yatzy_value=50)
    assert opts == {"ones": 0, "twos": 0}
    # without a filled Yahtzee box there is no joker
    opts, extra = rs.options([4] * 5, set(rs.box_ids), yatzy_value=None)
    assert opts["full_house"] == 0 and opts["yahtzee"] == 50 and extra == 0


def test_forced_order_options():
    rs = R.load("yatzy")
    opts, _ = rs.options([1, 1, 2, 3, 4], {"twos", "sixes", "chance"}, forced_order=True)
    assert opts == {"twos": 2}


# ---------------------------------------------------------------- bad rule files

BAD = [
    ('name="x"\ndice=5\nthrows=3\n[[box]]\nid="a"\nkind="bogus"\n', "box 'a': unknown kind 'bogus'"),
    ('name="x"\ndice=5\nthrows=3\n[[box]]\nid="a"\nkind="upper"\n', "box 'a': missing key 'face'"),
    ('name="x"\ndice=5\nthrows=3\n[[box]]\nid="a"\nkind="upper"\nface="one"\n', "box 'a': 'face' must be an integer"),
    ('name="x"\ndice=5\nthrows=3\n[[box]]\nid="a"\nkind="chance"\n[[box]]\nid="a"\nkind="chance"\n', "box 'a': duplicate box id"),
    ('name="x"\ndice=5\nthrows=3\n[[box]]\nid="six"\nkind="kind"\nn=6\n', "box 'six': kind 'kind' needs 6 dice, the game has 5"),
    ('name="x"\ndice=5\nthrows=3\n[[box]]\nid="g"\nkind="groups"\nsizes=[4,3]\n', "box 'g': kind 'groups' needs 7 dice"),
    ('name="x"\nthrows=3\n[[box]]\nid="a"\nkind="chance"\n', "top level: missing key 'dice'"),
    ('name="x"\ndice=5\nthrows=3\n[banking]\npolicy="sometimes"\n[[box]]\nid="a"\nkind="chance"\n', "policy 'sometimes' unknown"),
    ('name="x"\ndice=5\nthrows=3\nbox = 3\n', "'box' must be a list"),
    ('name = "x\n', "not valid TOML"),
]


@pytest.mark.parametrize("text,needle", BAD)
def test_bad_rule_files_are_refused_with_one_line(tmp_path, capsys, text, needle):
    f = tmp_path / "house.toml"
    f.write_text(text)
    with pytest.raises(R.RulesError) as e:
        R.load(str(f))
    msg = str(e.value)
    assert "\n" not in msg and str(f) in msg and needle in msg
    assert main(["score", "--rules", str(f), "12345"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and needle in err[0]


def test_user_rule_file_works_like_builtin(tmp_path):
    src = (R.RULESET_DIR / "yatzy.toml").read_text()
    f = tmp_path / "mine.toml"
    f.write_text(src.replace('name = "yatzy"', 'name = "mine"').replace("points = 50\nlabel", "points = 70\nlabel"))
    rs = R.load(str(f))
    assert rs.score([2] * 5)["yatzy"] == 70
    assert rs.max_total() == 374 + 20


def test_unknown_ruleset(capsys):
    assert main(["rules", "nope"]) == 2
    assert "unknown rule set 'nope'" in capsys.readouterr().err


# ------------------------------------------------------------------------- the CLI


def test_score_cli_stdin_keeps_lines_aligned():
    p = subprocess.run(
        [sys.executable, "-m", "controller.cli", "score", "--rules", "yatzy", "--json"],
        input="33545\n1 2 3\n1,2,3,4,7\n6,2,2,2,6\n",
        capture_output=True,
        text=True,
    )
    assert p.returncode == 2
    lines = p.stdout.splitlines()
    assert len(lines) == 4
    assert json.loads(lines[0])["two_pairs"] == 16
    assert "error" in json.loads(lines[1]) and "error" in json.loads(lines[2])
    assert json.loads(lines[3])["full_house"] == 18
    assert len(p.stderr.strip().splitlines()) == 2 and "Traceback" not in p.stderr


def test_score_cli_args(capsys):
    assert main(["score", "--rules", "maxi", "--json", "6", "6", "5", "5", "3", "3"]) == 0
    assert json.loads(capsys.readouterr().out)["three_pairs"] == 28
    assert main(["score", "--rules", "maxi", "6655"]) == 2
    assert "needs 6 dice" in capsys.readouterr().err
    assert main(["score", "--rules", "yatzy", "1", "2", "3", "4", "9"]) == 2


def test_rules_cli_lists_maxima(capsys):
    assert main(["rules"]) == 0
    out = capsys.readouterr().out
    for name, mx in [("yatzy", "374"), ("maxi", "649"), ("special8", "1145"), ("yahtzee", "1575")]:
        assert name in out and mx in out
    assert main(["rules", "maxi", "--lang", "nb"]) == 0
    out = capsys.readouterr().out
    assert "Tårn" in out and "Villa" in out and "Hus" in out


def test_special8_header_marks_reconstruction():
    head = (R.RULESET_DIR / "special8.toml").read_text().split("name =")[0]
    assert "RECONSTRUCTION" in head and "--rules" in head


@pytest.mark.parametrize("name", ALL)
def test_labels_in_every_language(name):
    rs = R.load(name)
    for b in rs.boxes:
        assert {lang for lang, _ in b.labels} == set(R.LANGUAGES)
