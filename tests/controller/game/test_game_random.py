"""Whole games of every rule set played by a seeded random legal player.

The totals are checked against an independent sum of the boxes (upper bonus from
the threshold, Yahtzee extra bonuses counted here from the rolls), each box
against the rules engine's score of the dice, and the bank against its limits.
"""

from __future__ import annotations

import random

import pytest

from controller.game import rules as R
from controller.game.game import Game, GameError, Setup

ALL = R.builtin_names()


def random_game(rules: str, seed: int, players: int, undo_rate: float = 0.0, **kw) -> tuple[Game, list[dict]]:
    """Play to the end; return the game and an independent record per player."""
    rng = random.Random(seed)
    g = Game(Setup.create(rules, players, **kw))
    rs = g.rules
    yz = rs.yatzy_box
    mine = [{"boxes": {}, "extra": 0} for _ in range(players)]
    snapshots: list[list[dict]] = []
    steps = 0
    while not g.finished:
        steps += 1
        assert steps < 20_000
        cur = g.current_player
        v = g.view()
        assert v.can_throw == g.can_throw and v.can_score == g.can_score
        assert g.turn_throws <= rs.throws + (rs.bank_cap or 99)
        if rs.banking == "capped" and g.setup.banking:
            assert 0 <= g.bank <= rs.bank_cap
        if undo_rate and g.can_undo and rng.random() < undo_rate:
            g.apply({"undo": True})
            mine = snapshots.pop()
            continue
        snapshots.append([{"boxes": dict(m["boxes"]), "extra": m["extra"]} for m in mine])
        choices = []
        if g.can_throw:
            choices += ["throw"] * 3
        if g.can_score:
            choices += ["score"] * 2
        if v.can_declare:
            choices.append("declare")
        what = rng.choice(choices)
        if what == "throw":
            faces = [rng.randint(1, 6) for _ in range(rs.dice)]
            if rng.random() < 0.05:
                faces = [faces[0]] * rs.dice  # more Yatzys than chance gives
            declared, standing = g.declared, g.standing
            g.apply({"throw": faces})
            if declared is not None:
                filled = g.state.players[cur].boxes[rs.box_index(declared)]
                improved = rs.score(faces)[declared] > rs.score(standing)[declared]
                assert (filled is not None) == improved  # the engine scores an improvement at once
                if improved:
                    assert filled == rs.score(faces)[declared] and g.dice is None
                    mine[cur]["boxes"][declared] = filled
        elif what == "score":
            opts = dict(v.options)
            assert opts, "a legal score always exists"
            bid = rng.choice(list(opts))
            faces = g.scoring_dice()
            held = g.yatzy_value()
            all_same = len(set(faces)) == 1
            g.apply({"score": bid})
            joker = rs.joker and yz is not None and held is not None and all_same
            expected = rs.table.joker[rs.table.index(faces), rs.box_index(bid)] if joker else rs.score(faces)[bid]
            assert g.state.players[cur].boxes[rs.box_index(bid)] == expected
            mine[cur]["boxes"][bid] = int(expected)
            if rs.extra_bonus and all_same and held:
                mine[cur]["extra"] += rs.extra_bonus
        else:
            g.apply({"declare": rng.choice(v.declare_targets)})
    return g, mine


def independent_totals(rs: R.RuleSet, mine: list[dict]) -> list[int]:
    out = []
    for m in mine:
        upper = sum(m["boxes"][b.id] for b in rs.boxes if b.upper)
        bonus = rs.bonus_points if upper >= rs.bonus_threshold else 0
        out.append(sum(m["boxes"].values()) + bonus + m["extra"])
    return out


@pytest.mark.parametrize("rules", ALL)
@pytest.mark.parametrize("seed", range(3))
def test_whole_random_games(rules, seed):
    rng = random.Random(seed)
    players = rng.randint(1, 6)
    g, mine = random_game(rules, seed, players, forced_order=seed == 2)
    rs = g.rules
    assert g.finished
    for m in mine:
        assert set(m["boxes"]) == set(rs.box_ids)
    j = g.to_json()
    totals = independent_totals(rs, mine)
    assert [p["total"] for p in j["players"]] == totals
    for p, m in zip(j["players"], mine):
        assert p["boxes"] == m["boxes"]
    best = max(totals)
    assert j["winners"] == [n for n, t in zip(g.players, totals) if t == best]
    assert Game.replay(g.setup, g.events).state == g.state
    if rs.declare:
        assert any("declare" in e for e in g.events)  # the random player exercised declared throws


@pytest.mark.parametrize("rules", ["maxi", "special8"])
def test_random_games_banking_off(rules):
    g, mine = random_game(rules, 7, 2, banking=False)
    assert all(p.bank == 0 for p in g.state.players)
    assert [p["total"] for p in g.to_json()["players"]] == independent_totals(g.rules, mine)


@pytest.mark.parametrize("rules", ALL)
def test_random_games_with_undo(rules):
    """Undos anywhere: the state always equals a replay of the events still in force."""
    g, mine = random_game(rules, 11, 3, undo_rate=0.15)
    kept: list[dict] = []
    for e in g.events:
        if "undo" in e:
            kept.pop()
        else:
            kept.append(e)
    assert any("undo" in e for e in g.events)
    assert Game(g.setup, kept).state == g.state
    assert [p["total"] for p in g.to_json()["players"]] == independent_totals(g.rules, mine)


def test_random_illegal_events_never_change_state():
    rng = random.Random(5)
    g = Game(Setup.create("special8", 2))
    junk = [{"throw": [1] * 7}, {"score": "nope"}, {"declare": "chance"}, {"throw": [9] * 8}, {"undo": 1}, {"x": 1}]
    for _ in range(400):
        e = rng.choice(junk + [{"throw": [rng.randint(1, 6) for _ in range(8)]}, {"score": rng.choice(g.rules.box_ids)}])
        before = g.state
        try:
            g.apply(e)
        except GameError:
            assert g.state is before
        if g.finished:
            break
    assert Game(g.setup, g.events).state == g.state
