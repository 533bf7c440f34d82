"""controller.store on a real SQLite file: durability, resume, history, statistics, export."""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import sqlite3
from pathlib import Path

import pytest

from controller.game import rules as R
from controller.cli.main import main
from controller.game.game import Game, GameError, Setup
from controller.store import Store, StoreError, default_db_path


def play_to_end(store: Store, gid: int, faces_for=lambda i, n: [6] * n) -> Game:
    """Every player fills every box in pad order with one throw: faces_for(turn, dice)."""
    g = store.load(gid)
    i = 0
    while not g.finished:
        g = store.append(gid, {"throw": faces_for(i, g.rules.dice)})
        g = store.append(gid, {"score": g.open_boxes()[0]})
        i += 1
    return g


@pytest.fixture
def store(tmp_path):
    with Store(tmp_path / "db" / "yatzycam.sqlite") as s:
        yield s


def test_default_db_path():
    assert default_db_path({"STATE_DIRECTORY": "/var/lib/yatzycam", "HOME": "/h"}) == Path("/var/lib/yatzycam/yatzycam.sqlite")
    assert default_db_path({"STATE_DIRECTORY": "/a:/b"}) == Path("/a/yatzycam.sqlite")
    assert default_db_path({"XDG_DATA_HOME": "/x", "HOME": "/h"}) == Path("/x/yatzycam/yatzycam.sqlite")
    assert default_db_path({"HOME": "/h"}) == Path("/h/.local/share/yatzycam/yatzycam.sqlite")


def test_wal_and_full_sync(store):
    db = sqlite3.connect(store.path)
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert store._db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    assert dict(db.execute("SELECT key, value FROM meta"))["app"] == "yatzycam"


def test_append_is_on_disk_when_it_returns(store):
    gid = store.new_game(Setup.create("yatzy", "Anna,Bo"))
    store.append(gid, {"throw": [1, 2, 3, 4, 5], "manual": True})
    other = sqlite3.connect(store.path)  # another connection sees it at once: committed
    rows = other.execute("SELECT seq, event FROM events WHERE game_id=?", (gid,)).fetchall()
    assert rows == [(0, '{"throw": [1, 2, 3, 4, 5], "manual": true}')]


def test_only_legal_events_are_stored(store):
    gid = store.new_game(Setup.create("yatzy", 1))
    with pytest.raises(GameError, match="throw first"):
        store.append(gid, {"score": "chance"})
    with pytest.raises(GameError, match="5 dice"):
        store.append(gid, {"throw": [1, 2]})
    store.append(gid, {"throw": [1, 2, 3, 4, 5]})
    with pytest.raises(GameError):
        store.append(gid, {"score": "nope"})
    assert [e["event"] for e in store.events(gid)] == [{"throw": [1, 2, 3, 4, 5]}]
    assert store.load(gid).can_score


def test_failed_write_changes_nothing(tmp_path):
    path = tmp_path / "y.sqlite"
    with Store(path, timeout=0.05) as s:
        gid = s.new_game(Setup.create("yatzy", 1))
        s.append(gid, {"throw": [1, 2, 3, 4, 5]})
        other = sqlite3.connect(path, isolation_level=None)
        other.execute("BEGIN IMMEDIATE")  # another writer holds the lock: our commit cannot happen
        with pytest.raises(StoreError, match="cannot save: database is locked"):
            s.append(gid, {"score": "small_straight"})
        other.execute("ROLLBACK")
        other.close()
        g = s.load(gid)
        assert g.can_score and g.events == ({"throw": [1, 2, 3, 4, 5]},)
        assert s.append(gid, {"score": "small_straight"}).totals() == (15,)


def test_resume_after_reopen(tmp_path):
    path = tmp_path / "y.sqlite"
    with Store(path) as s:
        assert s.latest_unfinished() is None
        gid = s.new_game(Setup.create("special8", "Anna,Bo"))
        for e in [{"throw": [1, 2, 3, 4, 5, 6, 1, 2]}, {"score": "ones"}, {"throw": [6] * 8}, {"undo": True}, {"throw": [5] * 8}]:
            live = s.append(gid, e)
    with Store(path) as s:
        assert s.latest_unfinished() == gid
        g = s.load(gid)
        assert g.state == live.state and g.events == live.events
        assert dataclasses.replace(g.view(), rules=None) == dataclasses.replace(live.view(), rules=None)
        assert g.dice == (5,) * 8 and g.current_player == 1 and g.state.players[0].bank == 2
        s.append(gid, {"score": "yatzy"})
        assert s.load(gid).totals() == (2, 90)


def test_rule_file_change_does_not_change_a_stored_game(tmp_path):
    mine = tmp_path / "house.toml"
    mine.write_text((R.RULESET_DIR / "yatzy.toml").read_text().replace("points = 50", "points = 75", 1))
    with Store(tmp_path / "y.sqlite") as s:
        gid = s.new_game(Setup.create(R.load(str(mine)), 1))
        s.append(gid, {"throw": [1, 1, 1, 2, 3]})
        s.append(gid, {"score": "ones"})
        mine.unlink()
    with Store(tmp_path / "y.sqlite") as s:
        g = s.load(gid)
        assert g.rules.name == "yatzy" and g.rules.bonus_points == 75 and g.totals() == (3,)
        assert str(mine) == s.export_json(gid)["setup"]["rules_path"]


def test_finish_history_stats_and_undo_reopens(store):
    gid = store.new_game(Setup.create("yatzy", "Anna,Bo"))
    assert store.history() == []
    g = play_to_end(store, gid)
    assert g.finished and store.latest_unfinished() is None
    (rec,) = store.history()
    assert rec.id == gid and rec.status == "finished" and rec.rules == "yatzy" and rec.winners == ("Anna", "Bo")
    assert [r.total for r in rec.results] == list(g.totals())
    store.append(gid, {"undo": True})  # take back the last score: playing again
    assert store.history() == [] and store.latest_unfinished() == gid
    store.append(gid, {"score": "yatzy"})
    assert store.history()[0].id == gid


def test_stats_per_player_and_rules(store):
    # game 1: Anna throws five of each upper box's face (bonus), then sixes; Bo always ones. Anna wins.
    g1 = store.new_game(Setup.create("yatzy", "Anna,Bo"))
    play_to_end(store, g1, lambda i, n: [min(i // 2 + 1, 6)] * n if i % 2 == 0 else [1] * n)
    # game 2: both always ones: a shared win, no bonus
    g2 = store.new_game(Setup.create("yatzy", "Anna,Bo"))
    play_to_end(store, g2, lambda i, n: [1] * n)
    # an unfinished game does not count
    g3 = store.new_game(Setup.create("yatzy", "Anna,Cid"))
    store.append(g3, {"throw": [6] * 5})
    totals1 = store.load(g1).totals()
    totals2 = store.load(g2).totals()
    anna, bo = (s for s in store.stats() if s.rules == "yatzy")
    assert store.load(g1).bonus(0) == 50 and totals1[0] > totals1[1] and totals2[0] == totals2[1]
    assert (anna.name, anna.games, anna.wins, anna.best) == ("Anna", 2, 2, totals1[0])
    assert anna.average == round((totals1[0] + totals2[0]) / 2, 1)
    assert anna.bonus_rate == 0.5 and bo.bonus_rate == 0.0
    assert anna.yatzys == 30 and bo.yatzys == 30 and bo.wins == 1 and bo.best == totals2[1]
    assert [s.name for s in store.stats("Bo")] == ["Bo"]
    assert [r.id for r in store.history("Anna")] == [g2, g1]
    assert [r.id for r in store.games()] == [g3, g2, g1]


def test_abandon(store):
    gid = store.new_game(Setup.create("yatzy", 1))
    store.abandon(gid)
    assert store.latest_unfinished() is None
    with pytest.raises(StoreError, match="abandoned"):
        store.append(gid, {"throw": [1, 2, 3, 4, 5]})


def test_unknown_game(store):
    with pytest.raises(StoreError, match="no game 42"):
        store.load(42)
    with pytest.raises(StoreError, match="no game 42"):
        store.append(42, {"throw": [1, 2, 3, 4, 5]})


@pytest.mark.parametrize(
    "content",
    [b"hello, this is a text file and not a database\n" * 20, b"SQLite format 3\x00" + b"\xff" * 4000, b"\x00" * 300],
    ids=["text", "garbled-sqlite", "zeros"],
)
def test_corrupt_file_reported_and_untouched(tmp_path, content):
    path = tmp_path / "yatzycam.sqlite"
    path.write_bytes(content)
    with pytest.raises(StoreError, match=str(path)):
        Store(path)
    assert path.read_bytes() == content
    assert not (tmp_path / "yatzycam.sqlite-wal").exists()


def test_foreign_sqlite_reported_and_untouched(tmp_path):
    path = tmp_path / "other.sqlite"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE recipes (name TEXT)")
    db.execute("INSERT INTO recipes VALUES ('pancakes')")
    db.commit()
    db.close()
    before = path.read_bytes()
    with pytest.raises(StoreError, match=r"other\.sqlite: not a yatzycam database \(its tables are recipes\)"):
        Store(path)
    assert path.read_bytes() == before


def test_damaged_yatzycam_database_reported(tmp_path):
    path = tmp_path / "y.sqlite"
    with Store(path) as s:
        gid = s.new_game(Setup.create("yatzy", 1))
        for _ in range(3):
            s.append(gid, {"throw": [1, 2, 3, 4, 5]})
    data = bytearray(path.read_bytes())
    page = 4096 * 5  # the events table's root page (pages: meta, its index, games, sqlite_sequence, events)
    data[page : page + 64] = b"\xa5" * 64  # scribble over its page header
    path.write_bytes(bytes(data))
    before = path.read_bytes()
    with pytest.raises(StoreError, match=f"{path}: the database is corrupt") as err:
        Store(path).load(gid)
    assert "\n" not in str(err.value)
    assert path.read_bytes() == before


def test_missing_database_not_created_for_reading(tmp_path):
    with pytest.raises(StoreError, match="no such database"):
        Store(tmp_path / "none.sqlite", create=False)
    assert not (tmp_path / "none.sqlite").exists()


def test_export_json_and_csv(store):
    gid = store.new_game(Setup.create("yahtzee", "Anna,Bo"))
    g = play_to_end(store, gid, lambda i, n: [4] * n)
    data = store.export_json(gid)
    assert data["id"] == gid and data["status"] == "finished" and data["state"] == g.to_json()
    assert [e["event"] for e in data["events"]] == list(g.events) and all(e["at"] for e in data["events"])
    again = Game.replay(Setup.from_dict(data["setup"]), [e["event"] for e in data["events"]])
    assert again.state == g.state
    rows = list(csv.reader(io.StringIO(store.export_csv(gid, "en"))))
    assert rows[0] == ["id", "box", "Anna", "Bo"]
    sv = {r[0]: r[1] for r in csv.reader(io.StringIO(store.export_csv(gid, "sv")))}
    assert sv["upper"] == "summa" and sv["total"] == "totalt" and sv["winner"] == "vinnare"  # one language, ids kept
    body = {r[0]: r[2:] for r in rows[1:]}
    assert body["fours"] == ["20", "20"] and body["yahtzee"] == ["50", "50"]
    assert body["total"] == [str(t) for t in g.totals()] and body["winner"] == ["yes", "yes"]
    assert int(body["extra_bonus"][0]) == 100  # Chance comes after the Yahtzee box: one further Yahtzee
    assert sum(int(body[b.id][0]) for b in g.rules.boxes) + int(body["bonus"][0]) + 100 == g.totals()[0]


# ----------------------------------------------------------------- commands


def test_history_and_export_commands(tmp_path, capsys):
    path = tmp_path / "y.sqlite"
    with Store(path) as s:
        gid = s.new_game(Setup.create("maxi", "Anna,Bo"))
        g = play_to_end(s, gid, lambda i, n: [3] * n)
    assert main(["history", "--db", str(path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["games"][0]["id"] == gid and out["games"][0]["winners"] == ["Anna", "Bo"]
    assert {s["name"] for s in out["stats"]} == {"Anna", "Bo"} and out["stats"][0]["games"] == 1
    assert main(["history", "--db", str(path)]) == 0
    text = capsys.readouterr().out
    assert f"#{gid}" in text and f"Anna {g.totals()[0]}*" in text and "average" in text
    assert main(["history", "--db", str(path), "--player", "Cid"]) == 0
    assert "no games with Cid" in capsys.readouterr().out
    assert main(["export", str(gid), "--format", "json", "--db", str(path)]) == 0
    assert json.loads(capsys.readouterr().out)["state"] == g.to_json()
    assert main(["export", str(gid), "--format", "csv", "--lang", "en", "--db", str(path)]) == 0
    assert capsys.readouterr().out.splitlines()[0] == "id,box,Anna,Bo"
    assert main(["export", "99", "--db", str(path)]) == 2
    assert "no game 99" in capsys.readouterr().err


def test_history_default_path_from_env(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("STATE_DIRECTORY", str(tmp_path))
    assert main(["history", "--json"]) == 0
    cap = capsys.readouterr()
    assert json.loads(cap.out) == {"db": str(tmp_path / "yatzycam.sqlite"), "games": [], "stats": []} and cap.err == ""
    assert main(["history"]) == 0  # nothing recorded is no error: said on stdout
    assert capsys.readouterr() == (f"no games recorded yet ({tmp_path / 'yatzycam.sqlite'})\n", "")
    assert not (tmp_path / "yatzycam.sqlite").exists()
    with Store(tmp_path / "yatzycam.sqlite") as s:
        play_to_end(s, s.new_game(Setup.create("yatzy", 1)))
    assert main(["history", "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)["games"]) == 1


def test_commands_refuse_foreign_db(tmp_path, capsys):
    path = tmp_path / "notes.txt"
    path.write_text("not a database\n" * 50)
    assert main(["history", "--db", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("yatzycam history: ") and str(path) in err and err.count("\n") == 1
    assert path.read_text() == "not a database\n" * 50
