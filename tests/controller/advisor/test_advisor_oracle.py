"""The exact advisor against an independent exact solver (yatzy-solver, MIT, Rust).

Each test builds our table for one rule set (from scratch, in a temporary cache)
and the oracle's table once, then compares every option value of hundreds of
random situations to 1e-6, checks the published start values, hand-checked
positions on the real pad, and that simulated games average the start value.
Slow (a minute or two each): left out of `make test-fast`.
"""

from __future__ import annotations

import numpy as np
import pytest
import yatzy_solver as ys  # the test extra: pip install -e '.[test]'

from controller.game import rules as R
from controller.advisor.advice import Advisor
from controller.advisor.sim import Policy, simulate

CASES = {
    # our rule set, oracle variant, box id renames, start value (Verhoeff / Larsson-Sjöberg with RULES.md's rules)
    "yahtzee": ("american+forced-joker", {"yahtzee": "five_of_a_kind"}, 254.5877),
    "yatzy": ("yatzy-scandinavian", {}, 248.44),
}


def _situations(rs: R.RuleSet, count: int, seed: int):
    rng = np.random.default_rng(seed)
    ids = list(rs.box_ids)
    out = []
    while len(out) < count:
        p_open = rng.uniform(0.1, 0.9)
        open_ids = [b for b in ids if rng.random() < p_open]
        if not open_ids:
            continue
        upper = sum(int(rs.box(b).param("face")) * int(rng.integers(0, 6)) for b in ids if rs.box(b).upper and b not in open_ids)
        yv = int(rng.choice([0, 50])) if (rs.yatzy_box and rs.yatzy_box not in open_ids) else None
        if rng.random() < 0.15:
            dice = [int(rng.integers(1, 7))] * rs.dice
        else:
            dice = sorted(rng.integers(1, 7, size=rs.dice).tolist())
        out.append((dice, open_ids, upper, int(rng.integers(0, rs.throws)), yv))
    return out


def _notation(rs, rename, dice, open_ids, upper, tl, yv) -> str:
    filled = [rename.get(b, b) for b in rs.box_ids if b not in open_ids]
    s = f"dice {' '.join(map(str, dice))} | rolls {tl} | upper {min(upper, rs.bonus_threshold)} | filled {','.join(filled) or '-'}"
    if yv is not None:
        s += f" | {rename[rs.yatzy_box]} {yv}"
    return s


def _ours_by_action(advice, rename) -> dict[str, float]:
    out = {}
    for o in advice.options:
        if o.action == "score":
            out[f"score {rename.get(o.box, o.box)}"] = o.value
        else:
            out[f"keep {' '.join(map(str, o.keep)) or '-'}"] = o.value
    return out


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(CASES))
def test_exact_table_equals_oracle(name, tmp_path):
    variant, rename, published = CASES[name]
    rs = R.load(name)
    adv = Advisor.for_rules(rs, cache=tmp_path)
    assert adv.strategy == "exact" and adv.exact.loaded_from is None
    oracle = ys.Solver.build(ys.Variant(variant))

    # the start value: the published figure, and the oracle's to 1e-6
    assert adv.expected_start() == pytest.approx(oracle.state_value("upper 0 | filled -"), abs=1e-6)
    assert adv.expected_start() == pytest.approx(published, abs=5e-3 if name == "yatzy" else 5e-5)

    # every option of many random situations
    checked = 0
    for dice, open_ids, upper, tl, yv in _situations(rs, 400, seed=hash(name) % 1000):
        advice = adv.advise(dice, open_ids, upper=upper, throws_left=tl, yatzy_value=yv)
        ours = _ours_by_action(advice, rename)
        theirs = dict(oracle.option_values(_notation(rs, rename, dice, open_ids, upper, tl, yv)))
        assert set(ours) == set(theirs), (dice, open_ids, upper, tl, yv)
        for k, v in theirs.items():
            assert ours[k] == pytest.approx(v, abs=1e-6), (k, dice, open_ids, upper, tl, yv)
        best = max(theirs.values())
        assert advice.expected == pytest.approx(best, abs=1e-6)
        checked += len(ours)
    assert checked > 4000

    # hand-checked on the real pad: the last box, three fives kept, two throws left
    top = {"yahtzee": 63, "yatzy": 63}[name]
    a = adv.advise([5, 5, 5, 2, 3], [rs.yatzy_box or "yatzy"], upper=top, throws_left=2)
    assert a.text == "keep 5 5 5, throw 2 3"
    assert a.expected == pytest.approx(50 * (11 / 36) ** 2, abs=1e-9)
    a = adv.advise([6, 6, 6, 1, 1], ["chance"], upper=top, throws_left=1, yatzy_value=0 if rs.yatzy_box else None)
    assert (a.text, a.expected) == ("keep 6 6 6, throw 1 1", pytest.approx(25.0, abs=1e-9))

    # simulated games average the start value (the strategy is what the table says it is)
    res = simulate(rs, Policy("exact", adv.future), 3000, seed=11, model=adv.model, space=adv.space)
    assert res.illegal == 0
    assert abs(res.mean - adv.expected_start()) < 4 * res.stderr, (res.mean, res.stderr)

    # and the cached table loads fast and equal
    again = Advisor.for_rules(rs, cache=tmp_path)
    assert again.exact.loaded_from and again.exact.build_s < 1.0
    assert np.array_equal(again.exact.V, adv.exact.V, equal_nan=True)
