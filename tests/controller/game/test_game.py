"""controller.game: every rule of RULES.md the referee applies, one test each."""

from __future__ import annotations

import pytest

from controller.game import rules as R
from controller.game.game import Game, GameError, Setup, new_bank, parse_players


def ev(text: str) -> dict:
    """'t 12345' / 't 1,2,3,4,5' -> throw, 'm 12345' manual throw, 's box', 'd box', 'u' -> events."""
    op, _, arg = text.partition(" ")
    if op in ("t", "m"):
        e: dict = {"throw": R.parse_roll(arg)}
        if op == "m":
            e["manual"] = True
        return e
    if op == "s":
        return {"score": arg}
    if op == "d":
        return {"declare": arg}
    if op == "u":
        return {"undo": True}
    raise AssertionError(text)


def game(rules: str, players="1", *events: str, **kw) -> Game:
    g = Game(Setup.create(rules, players, **kw))
    play(g, *events)
    return g


def play(g: Game, *events: str) -> Game:
    for e in events:
        g.apply(ev(e))
    return g


def refused(g: Game, event: str, match: str) -> None:
    """The event raises GameError and changes nothing."""
    before_state, before_events = g.state, g.events
    with pytest.raises(GameError, match=match):
        g.apply(ev(event))
    assert g.state == before_state
    assert g.events == before_events


def box(g: Game, box_id: str, player: int = 0) -> int | None:
    return g.state.players[player].boxes[g.rules.box_index(box_id)]


# ------------------------------------------------------------------- setup


def test_players_count_or_names():
    assert parse_players(2) == ("Player 1", "Player 2")
    assert parse_players("3") == ("Player 1", "Player 2", "Player 3")
    assert parse_players(2, "sv") == ("Spelare 1", "Spelare 2") and parse_players("2", "da") == ("Spiller 1", "Spiller 2")
    assert parse_players("Anna,Bo", "sv") == ("Anna", "Bo")  # names stay as given
    assert parse_players("Anna, Bo") == ("Anna", "Bo")
    assert Setup.create("special8").players == ("Player 1", "Player 2")  # Special 8's own default


@pytest.mark.parametrize("players,match", [(0, "1 to 6"), (7, "1 to 6"), ("Anna,Anna", "two players"), ("Anna,", "empty")])
def test_bad_players(players, match):
    with pytest.raises(GameError, match=match):
        Setup.create("yatzy", players)


def test_setup_round_trip_keeps_rules_text(tmp_path):
    src = R.RULESET_DIR / "yatzy.toml"
    mine = tmp_path / "house.toml"
    mine.write_text(src.read_text().replace('name = "yatzy"', 'name = "house"'))
    s = Setup.create(R.load(str(mine)), "A,B", forced_order=True, banking=False)
    d = s.to_dict()
    mine.write_text("garbage = [")  # the file changes after the game started
    s2 = Setup.from_dict(d)
    assert s2.rules.name == "house" and s2.players == ("A", "B") and s2.forced_order and not s2.banking
    assert s2.rules.box_ids == s.rules.box_ids


# ------------------------------------------------------------------- turns


def test_turn_rotation_and_three_throws():
    g = game("yatzy", "A,B,C")
    assert g.current_player == 0 and g.throws_left == 3 and not g.can_score
    play(g, "t 12345", "t 12345", "t 12345")
    assert g.throws_left == 0 and not g.can_throw and g.can_score
    refused(g, "t 12345", "no throws left")
    play(g, "s small_straight")
    assert g.current_player == 1 and g.throws_left == 3 and g.dice is None
    assert box(g, "small_straight") == 15
    play(g, "t 66666", "s yatzy", "t 11111", "s ones")
    assert g.current_player == 0
    v = g.view()
    assert v.round == 2 and [p.total for p in v.players] == [15, 50, 5]
    assert v.leaders == (1,) and v.winners == ()


@pytest.mark.parametrize(
    "event,match",
    [
        ("s chance", "throw first"),
        ("t 1234", "5 dice, got 4"),
        ("t 123456", "5 dice, got 6"),
        ("t 12347", "face 7"),
        ("t 0,1,2,3,4", "face 0"),
        ("d chance", "not a rule of yatzy"),
        ("u", "nothing to undo"),
    ],
)
def test_illegal_at_start(event, match):
    refused(game("yatzy"), event, match)


def test_illegal_boxes():
    g = game("yatzy", "1", "t 11111", "s ones", "t 11111")
    refused(g, "s ones", "already filled")
    refused(g, "s eights", "no box 'eights'")


@pytest.mark.parametrize(
    "event,match",
    [
        ({"throw": [1, 2, 3, 4, True]}, "integers"),
        ({"throw": "12345"}, "integers"),
        ({"throw": [1, 2, 3, 4, 5], "manual": "yes"}, "manual"),
        ({"throw": [1, 2, 3, 4, 5], "who": 1}, "unknown key 'who'"),
        ({"score": 3}, "box id"),
        ({"undo": False}, "must be true"),
        ({"score": "ones", "declare": "ones"}, "exactly one"),
        ({}, "exactly one"),
        ([1, 2, 3], "JSON object"),
    ],
)
def test_malformed_events(event, match):
    g = game("yatzy")
    with pytest.raises(GameError, match=match):
        g.apply(event)
    assert g.events == () and not g.can_undo


def test_manual_flag_kept_and_changes_nothing():
    a = game("yatzy", "1", "m 33545")
    b = game("yatzy", "1", "t 33545")
    assert a.events[0] == {"throw": [3, 3, 5, 4, 5], "manual": True}
    assert b.events[0] == {"throw": [3, 3, 5, 4, 5]}
    assert a.view().manual and not b.view().manual
    assert a.view().options == b.view().options
    assert dict(a.view().options)["two_pairs"] == 16


def test_game_end_and_shared_win():
    rs = R.load("yatzy")
    g = game("yatzy", "A,B")
    for bid in rs.box_ids:  # both players throw the same dice into the same boxes
        play(g, "t 66666", f"s {bid}", "t 66666", f"s {bid}")
    assert g.finished and not g.can_throw and not g.can_score
    assert g.winners == ("A", "B") and g.totals()[0] == g.totals()[1]
    assert g.current_player == 1  # the last player, once the game is over
    refused(g, "t 66666", "game is over")
    refused(g, "s ones", "game is over")
    v = g.view()
    assert v.finished and v.winners == ("A", "B") and v.leaders == (0, 1) and v.options == ()
    assert g.to_json()["winners"] == ["A", "B"]


def test_single_winner():
    rs = R.load("yatzy")
    g = game("yatzy", "A,B")
    for bid in rs.box_ids:
        play(g, "t 66666", f"s {bid}", "t 55555", f"s {bid}")
    assert g.winners == ("A",)


# ------------------------------------------------------------------- bonus


def test_bonus_and_pace_yatzy():
    g = game("yatzy", "1", "t 33331", "s threes")
    v = g.view().players[0]
    assert v.bonus_pace == 3.0 and v.upper == 12 and v.bonus == 0  # 12 - 3 x 3
    play(g, "t 11123", "s ones")  # 3 - 3 = 0
    assert g.view().players[0].bonus_pace == 3.0
    play(g, "t 66661", "s sixes", "t 55551", "s fives", "t 44441", "s fours", "t 22213", "s twos")
    p = g.view().players[0]
    assert p.upper == 12 + 3 + 24 + 20 + 16 + 6 == 81 and p.bonus == 50
    assert p.total == 81 + 50


def test_bonus_exact_threshold():
    g = game("yatzy", "1", "t 11123", "s ones", "t 22213", "s twos", "t 33312", "s threes")
    play(g, "t 44412", "s fours", "t 55512", "s fives", "t 66612", "s sixes")
    assert g.upper_sum() == 63 and g.bonus(0) == 50 and g.view().players[0].bonus_pace == 0.0


def test_bonus_pace_special8_par_six():
    g = game("special8", "1", "t 22222221", "s twos")
    assert g.view().players[0].bonus_pace == 2.0  # seven twos: 14 - 12
    play(g, "t 11112345", "s ones")
    assert g.view().players[0].bonus_pace == 0.0  # four ones: 4 - 6 = -2


# ------------------------------------------------------------------- banking


def test_no_banking_in_yatzy():
    g = game("yatzy", "1", "t 12345", "s small_straight")
    assert g.bank == 0 and g.view().banking is False


def test_maxi_banks_uncapped_beyond_ten():
    g = game("maxi", "1")
    fills = ["ones", "twos", "threes", "fours", "fives", "sixes"]
    for i, bid in enumerate(fills, 1):
        play(g, "t 123456", f"s {bid}")  # one throw used, two banked
        assert g.bank == 2 * i
    assert g.bank == 12
    play(g, "t 123456", "t 123456", "t 123456")
    assert g.throws_left == 0 and g.can_throw
    for left in range(11, -1, -1):
        play(g, "t 123456")
        assert g.bank == left
    assert g.turn_throws == 15 and g.view().banked_throws == 12
    refused(g, "t 123456", "bank is empty")
    play(g, "s chance")
    assert g.bank == 0


def test_maxi_bank_spent_only_after_ordinary_throws():
    g = game("maxi", "1", "t 123456", "s ones", "t 123456")
    assert g.bank == 2 and g.throws_left == 2
    play(g, "t 123456", "t 123456", "t 123456")
    assert g.bank == 1 and g.throws_left == 0
    play(g, "s twos")
    assert g.bank == 1  # no unused ordinary throws


def test_maxi_with_banking_off():
    g = game("maxi", "1", "t 123456", "s ones", banking=False)
    assert g.bank == 0
    play(g, "t 123456", "t 123456", "t 123456")
    refused(g, "t 123456", "no throws left")
    v = g.view()
    assert v.banking is False and v.stop_cost == 0


def test_bank_is_per_player():
    g = game("maxi", "A,B", "t 123456", "s ones", "t 123456", "t 123456", "s ones")
    assert [p.bank for p in g.state.players] == [2, 1]
    assert g.view().bank == 2 and g.view().players[1].bank == 1


@pytest.mark.parametrize(
    "bank,unused,new",
    [(6, 1, 5), (5, 2, 5), (6, 2, 4), (4, 2, 6), (0, 2, 2), (5, 1, 6), (3, 2, 5), (6, 0, 6)],
)
def test_cap_formula(bank, unused, new):
    assert new_bank("capped", 6, bank, unused) == new
    assert new_bank("uncapped", None, bank, unused) == bank + unused
    assert new_bank("none", None, bank, unused) == bank


def special8_with_bank(bank: int) -> Game:
    """One Special 8 player whose bank is ``bank`` (even, <= 6) at the start of a turn."""
    g = game("special8", "1")
    for bid in ["ones", "twos", "threes"][: bank // 2]:
        play(g, "t 12345612", f"s {bid}")
    assert g.bank == bank and g.throws_left == 3
    return g


def test_special8_bank_6_stop_after_2nd_gives_5():
    g = special8_with_bank(6)
    play(g, "t 12345612", "t 12345612")
    assert g.view().stop_cost == 1
    play(g, "s chance")
    assert g.bank == 5


def test_special8_bank_5_stop_after_1st_gives_5():
    g = special8_with_bank(6)
    play(g, "t 12345612", "t 12345612", "s fours")
    assert g.bank == 5
    play(g, "t 12345612")
    assert g.view().stop_cost == 1  # throwing once more would have reached 6
    play(g, "s fives")
    assert g.bank == 5


def test_special8_bank_6_stop_after_1st_gives_4():
    g = special8_with_bank(6)
    play(g, "t 12345612")
    assert g.view().stop_cost == 2
    play(g, "s chance")
    assert g.bank == 4


def test_special8_at_most_nine_throws_and_bank_never_over_cap():
    g = special8_with_bank(6)
    for _ in range(9):
        play(g, "t 12345612")
    assert g.turn_throws == 9 and g.bank == 0 and g.view().stop_cost == 0
    refused(g, "t 12345612", "bank is empty")
    play(g, "s chance")
    assert g.bank == 0


def test_special8_below_cap_banks_freely():
    g = special8_with_bank(4)
    play(g, "t 12345612")
    assert g.view().stop_cost == 0 and not g.view().can_declare
    play(g, "s chance")
    assert g.bank == 6


# --------------------------------------------------------------- declared throws

STRAIGHT_3_4 = "t 1,2,3,4,5,6,3,4"  # the page's example: a full straight plus a 3 and a 4 (chance 28)


def test_declare_page_example_improves_chance():
    g = special8_with_bank(6)
    play(g, STRAIGHT_3_4)
    v = g.view()
    assert v.can_declare and "chance" in v.declare_targets and v.stop_cost == 2
    play(g, "d chance")
    v = g.view()
    assert v.declared == "chance" and v.standing == (1, 2, 3, 4, 5, 6, 3, 4)
    assert dict(v.options)["full_straight"] == 21  # options are the standing result's
    play(g, "t 1,2,3,4,5,6,5,4")  # 3+4 -> 5+4 = 9 > 7: the engine scores chance at once
    assert box(g, "chance") == 30 and g.dice is None and g.current_player == 0
    assert g.bank == 5  # one unused ordinary throw: 6 + 1 > 6 -> 5
    assert g.view().players[0].total == 2 + 4 + 3 + 30  # ones, twos, threes of the set-up turns


def test_declare_page_example_no_improvement_scores_standing():
    g = special8_with_bank(6)
    play(g, STRAIGHT_3_4, "d chance", "t 1,2,3,4,5,6,1,2", "t 1,2,3,4,5,6,3,4")  # 3, then 7 = equal: not more
    assert box(g, "chance") is None and g.throws_left == 0 and g.dice == (1, 2, 3, 4, 5, 6, 3, 4)
    assert not g.can_throw
    refused(g, "t 1,2,3,4,5,6,6,6", "no ordinary throws left after the declare")  # no banked throws after a declare
    play(g, "u")  # undo the last declared throw
    play(g, "t 1,1,1,1,1,1,1,1")  # standing result still the straight; last dice all ones
    assert dict(g.view().options)["full_straight"] == 21 and dict(g.view().options)["fours"] == 8
    play(g, "s full_straight")  # the standing result, not the last dice
    assert box(g, "full_straight") == 21 and g.bank == 6  # no unused throws: nothing lost


def test_declare_improves_on_last_throw_keeps_bank():
    g = special8_with_bank(6)
    play(g, STRAIGHT_3_4, "d chance", "t 1,2,3,4,5,6,1,1", "t 1,2,3,4,5,6,6,6")
    assert box(g, "chance") == 33 and g.bank == 6


def test_declare_may_stop_early_with_standing_result():
    g = special8_with_bank(6)
    play(g, STRAIGHT_3_4, "d chance", "t 1,2,3,4,5,6,1,1", "s full_straight")
    assert box(g, "full_straight") == 21 and g.bank == 5  # stopped with one unused throw


def test_undo_of_engine_scored_throw_takes_back_its_score():
    g = special8_with_bank(6)
    play(g, STRAIGHT_3_4, "d chance", "t 1,2,3,4,5,6,6,6")
    assert box(g, "chance") == 33 and g.bank == 5  # one ordinary throw unused
    play(g, "u")
    assert box(g, "chance") is None and g.declared == "chance" and g.standing == (1, 2, 3, 4, 5, 6, 3, 4)
    assert g.bank == 6 and g.throws_left == 2 and g.dice == (1, 2, 3, 4, 5, 6, 3, 4)
    play(g, "u")
    assert g.declared is None and g.view().can_declare


def test_declare_legality():
    g = special8_with_bank(6)
    refused(g, "d chance", "throw first")
    play(g, STRAIGHT_3_4)
    refused(g, "d ones", "already filled")
    refused(g, "d eights", "no box")
    play(g, "d chance")
    refused(g, "d yatzy", "already declared")
    g = special8_with_bank(6)
    play(g, STRAIGHT_3_4, "t 1,2,3,4,5,6,3,4")
    play(g, "d chance")  # after the 2nd throw: 6 + 1 > 6 still allowed
    g = special8_with_bank(6)
    play(g, STRAIGHT_3_4, STRAIGHT_3_4, STRAIGHT_3_4)
    refused(g, "d chance", "before the last ordinary throw")


def test_declare_needs_a_throw_to_lose():
    g = special8_with_bank(4)
    play(g, STRAIGHT_3_4)  # 4 + 2 = 6: stopping loses nothing
    refused(g, "d chance", "loses no banked throw")
    assert g.view().declare_targets == ()
    g = special8_with_bank(4)
    play(g, STRAIGHT_3_4, STRAIGHT_3_4)
    refused(g, "d chance", "loses no banked throw")  # 4 + 1


def test_declare_not_with_banking_off_or_other_games():
    g = game("special8", "1", STRAIGHT_3_4, banking=False)
    refused(g, "d chance", "banking is off")
    g = game("maxi", "1", "t 123456")
    refused(g, "d chance", "not a rule of maxi")


# ---------------------------------------------------------------- forced order


def test_forced_order():
    g = game("yatzy", "1", "t 66666", forced_order=True)
    assert g.view().options == (("ones", 0),)
    refused(g, "s yatzy", "forced order: the next box is ones")
    play(g, "s ones", "t 22222")
    assert g.view().options == (("twos", 10),)
    play(g, "s twos")
    assert box(g, "twos") == 10 and g.view().forced_order


def test_forced_order_special8_declare_only_next_box():
    g = game("special8", "1", forced_order=True)
    play(g, "t 11111111", "s ones", "t 22222222", "s twos", "t 33333333", "s threes")
    assert g.bank == 6
    play(g, "t 44441234")
    assert g.view().declare_targets == ("fours",)
    refused(g, "d chance", "forced order")
    play(g, "d fours", "t 44444412")
    assert box(g, "fours") == 24 and g.bank == 5


# ------------------------------------------------------------------- yahtzee


def yahtzee_with(yahtzee_box: str) -> Game:
    """One Yahtzee player whose Yahtzee box holds 50 ("t 55555") or 0 (scratched)."""
    g = game("yahtzee", "1", yahtzee_box, "s yahtzee")
    return g


def test_yahtzee_extra_bonus_paid():
    g = yahtzee_with("t 55555")
    assert box(g, "yahtzee") == 50 and g.yatzy_value() == 50
    play(g, "t 33333")
    v = g.view()
    assert v.extra_bonus_now == 100 and v.options == (("threes", 15),)  # strict joker: matching upper box
    play(g, "s threes")
    p = g.view().players[0]
    assert p.extra_bonus == 100 and p.total == 50 + 15 + 100
    assert g.to_json()["players"][0]["total"] == 165 and g.to_json()["players"][0]["bonus"] == 0


def test_yahtzee_no_extra_bonus_when_scratched():
    g = yahtzee_with("t 12346")
    assert box(g, "yahtzee") == 0
    play(g, "t 33333")
    assert g.view().extra_bonus_now == 0
    play(g, "s threes")
    assert g.view().players[0].total == 15


def test_yahtzee_strict_joker():
    g = yahtzee_with("t 55555")
    play(g, "t 22222")
    refused(g, "s full_house", "joker rule: this roll must go in twos")
    play(g, "s twos", "t 22222")  # twos filled: any open lower box at full value
    opts = dict(g.view().options)
    assert opts["full_house"] == 25 and opts["large_straight"] == 40 and opts["small_straight"] == 30
    assert "ones" not in opts
    play(g, "s full_house")
    assert box(g, "full_house") == 25 and g.view().players[0].extra_bonus == 200


def test_yahtzee_joker_zero_in_upper_when_lower_full():
    rs = R.load("yahtzee")
    g = yahtzee_with("t 66666")
    lower = [b.id for b in rs.boxes if not b.upper and b.id != "yahtzee"]
    for bid in lower:
        play(g, "t 12346", f"s {bid}")
    play(g, "t 66666", "s sixes", "t 66666")
    opts = dict(g.view().options)
    assert set(opts) == {"ones", "twos", "threes", "fours", "fives"} and set(opts.values()) == {0}
    play(g, "s ones")
    assert box(g, "ones") == 0


def test_yahtzee_five_equal_is_no_full_house_without_joker():
    g = game("yahtzee", "1", "t 44444")
    assert dict(g.view().options)["full_house"] == 0


# ---------------------------------------------------------------------- undo


def test_undo_each_kind_down_to_start():
    g = game("maxi", "A,B", "t 123456", "s ones", "t 666666", "t 666666")
    states = [Game(g.setup, g.events[:i]).state for i in range(len(g.events) + 1)]
    for i in range(len(states) - 1, 0, -1):
        assert g.state == states[i]
        play(g, "u")
    assert g.state == states[0] and not g.can_undo
    refused(g, "u", "nothing to undo")
    assert len(g.events) == 8  # 4 events + 4 undos, all in the log


def test_undo_score_restores_bank_and_turn():
    g = game("maxi", "A,B", "t 123456", "s ones")
    assert g.current_player == 1 and g.state.players[0].bank == 2
    play(g, "u")
    assert g.current_player == 0 and g.bank == 0 and box(g, "ones") is None and g.dice == (1, 2, 3, 4, 5, 6)


def test_undo_banked_throw_gives_it_back():
    g = game("maxi", "1", "t 123456", "s ones", "t 123456", "t 123456", "t 123456", "t 111111")
    assert g.bank == 1
    play(g, "u")
    assert g.bank == 2 and g.dice == (1, 2, 3, 4, 5, 6)


def test_replay_equals_live_and_view_round_trip():
    g = game("special8", "A,B", "t 12345612", "s ones", "t 11111111", "u", "t 22222222", "s twos")
    again = Game.replay(g.setup, g.events)
    assert again.state == g.state and again.events == g.events and again.view() == g.view()


def test_replay_reports_bad_event_index():
    s = Setup.create("yatzy", "1")
    with pytest.raises(GameError, match="event 2: score: no box"):
        Game(s, [{"throw": [1, 2, 3, 4, 5]}, {"score": "nope"}])


def test_check_changes_nothing():
    g = game("yatzy", "1", "t 12345")
    g.check({"score": "chance"})
    with pytest.raises(GameError):
        g.check({"score": "nope"})
    assert len(g.events) == 1 and g.can_score
