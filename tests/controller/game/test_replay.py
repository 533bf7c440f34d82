"""`yatzycam replay`: the final state as JSON; a bad event -> 'FILE: line N: why', exit 2."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from controller.game import rules as R
from controller.cli.main import main


def write(tmp_path: Path, *events, name="events.jsonl") -> Path:
    p = tmp_path / name
    p.write_text("".join((e if isinstance(e, str) else json.dumps(e)) + "\n" for e in events))
    return p


def replay(capsys, *args) -> tuple[int, str, str]:
    rc = main(["replay", *map(str, args)])
    cap = capsys.readouterr()
    return rc, cap.out, cap.err


def test_whole_yatzy_game_shape(tmp_path, capsys):
    rs = R.load("yatzy")
    events = []
    for bid in rs.box_ids:
        events += [{"throw": [6] * 5}, {"score": bid}, {"throw": [1, 2, 3, 4, 5]}, {"throw": [5] * 5}, {"score": bid}]
    rc, out, err = replay(capsys, "--rules", "yatzy", "--players", "Anna,Bo", write(tmp_path, *events))
    assert rc == 0 and err == ""
    state = json.loads(out)
    assert set(state) == {"players", "current_player", "finished", "winners"}
    anna, bo = state["players"]
    assert set(anna) == {"name", "boxes", "upper", "bonus", "total", "bank"}
    assert list(anna["boxes"]) == list(rs.box_ids)
    assert anna["boxes"]["sixes"] == 30 and anna["boxes"]["ones"] == 0 and anna["boxes"]["yatzy"] == 50
    assert anna["upper"] == 30 and anna["bonus"] == 0 and bo["upper"] == 25
    assert anna["total"] == sum(anna["boxes"].values())
    assert state["finished"] is True and state["winners"] == ["Anna"]


def test_players_count_and_default(tmp_path, capsys):
    f = write(tmp_path, {"throw": [1] * 8}, {"score": "ones"})
    rc, out, _ = replay(capsys, "--rules", "special8", f)
    state = json.loads(out)
    assert rc == 0 and [p["name"] for p in state["players"]] == ["Player 1", "Player 2"]
    assert state["current_player"] == 1 and state["players"][0]["bank"] == 2
    rc, out, _ = replay(capsys, "--rules", "yatzy", "--players", "3", write(tmp_path, {"throw": [1] * 5}))
    assert len(json.loads(out)["players"]) == 3 and json.loads(out)["finished"] is False


def test_special8_declare_and_bank(tmp_path, capsys):
    events = []
    for bid in ("ones", "twos", "threes"):
        events += [{"throw": [1, 2, 3, 4, 5, 6, 1, 2]}, {"score": bid}]
    events += [{"throw": [1, 2, 3, 4, 5, 6, 3, 4]}, {"declare": "chance"}, {"throw": [1, 2, 3, 4, 5, 6, 6, 6]}]
    rc, out, _ = replay(capsys, "--rules", "special8", "--players", "1", write(tmp_path, *events))
    (p,) = json.loads(out)["players"]
    assert rc == 0 and p["boxes"]["chance"] == 33 and p["bank"] == 5


def test_yahtzee_extra_bonus_in_total_not_bonus(tmp_path, capsys):
    f = write(tmp_path, {"throw": [5] * 5}, {"score": "yahtzee"}, {"throw": [4] * 5}, {"score": "fours"})
    rc, out, _ = replay(capsys, "--rules", "yahtzee", "--players", "1", f)
    (p,) = json.loads(out)["players"]
    assert p["bonus"] == 0 and p["total"] == 50 + 20 + 100


def test_forced_order_and_no_banking(tmp_path, capsys):
    f = write(tmp_path, {"throw": [1, 2, 3, 4, 5, 6]}, {"score": "ones"})
    rc, out, _ = replay(capsys, "--rules", "maxi", "--players", "1", "--no-banking", "--forced-order", f)
    assert rc == 0 and json.loads(out)["players"][0]["bank"] == 0
    rc, out, _ = replay(capsys, "--rules", "maxi", "--players", "1", f)
    assert json.loads(out)["players"][0]["bank"] == 2
    f = write(tmp_path, {"throw": [1, 2, 3, 4, 5, 6]}, {"score": "chance"})
    rc, out, err = replay(capsys, "--rules", "maxi", "--players", "1", "--forced-order", f)
    assert rc == 2 and out == "" and err == f"{f}: line 2: score: forced order: the next box is ones, not chance\n"


@pytest.mark.parametrize(
    "lines,n,why",
    [
        (['{"score": "chance"}'], 1, "score: throw first"),
        (['{"throw": [1,2,3,4,5]}', "", '{"throw": [1,2,3,4]}'], 3, "throw: this game has 5 dice, got 4 faces"),
        (['{"throw": [1,2,3,4,5]}', '{"score": "chance"}', '{"score": "chance"}'], 3, "score: throw first"),
        (['{"throw": [1,2,3,4,5]}', "{'score': 'chance'}"], 2, "not JSON"),
        (['{"throw": [1,2,3,4,5]}'] * 4, 4, "throw: no throws left"),
        (['{"declare": "chance"}'], 1, "declare: declared throws are not a rule of yatzy"),
        (['{"undo": true}'], 1, "nothing to undo"),
        (['{"throw": [1,2,3,4,5]}', '{"score": "sevens"}'], 2, "no box 'sevens'"),
        (["[1, 2, 3]"], 1, "a JSON object"),
    ],
)
def test_bad_event_line(tmp_path, capsys, lines, n, why):
    f = tmp_path / "events.jsonl"
    f.write_text("\n".join(lines) + "\n")
    rc, out, err = replay(capsys, "--rules", "yatzy", "--players", "1", f)
    assert rc == 2 and out == ""
    assert err.startswith(f"{f}: line {n}: ") and why in err and err.count("\n") == 1


def test_real_command_line_and_stdin(tmp_path):
    f = write(tmp_path, {"throw": [2, 2, 3, 3, 6]}, {"score": "two_pairs"})
    exe = [sys.executable, "-m", "controller.cli", "replay", "--rules", "yatzy", "--players", "Anna"]
    ok = subprocess.run([*exe, str(f)], capture_output=True, text=True)
    assert ok.returncode == 0 and json.loads(ok.stdout)["players"][0]["total"] == 10
    piped = subprocess.run([*exe, "-"], input=f.read_text(), capture_output=True, text=True)
    assert piped.returncode == 0 and piped.stdout == ok.stdout
    bad = subprocess.run([*exe, "-"], input='{"score": "x"}\n', capture_output=True, text=True)
    assert bad.returncode == 2 and bad.stdout == "" and bad.stderr.startswith("-: line 1: score: throw first")
    assert "Traceback" not in bad.stderr
    missing = subprocess.run([*exe, str(tmp_path / "nope.jsonl")], capture_output=True, text=True)
    assert missing.returncode == 2 and "nope.jsonl: cannot read" in missing.stderr and missing.stdout == ""
