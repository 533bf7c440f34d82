"""The store's readers on damaged, empty, foreign and read-only files: one line per damaged row,
the rest readable, nothing written into a file that is not ours."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from controller import app as A
from controller.cli.main import main
from controller.game.game import Setup
from controller.store import Store, StoreError


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def three_games(path: Path) -> Path:
    """Game 1 finished-looking, 2 and 3 playing, each with a throw."""
    with Store(path) as s:
        for _ in range(3):
            gid = s.new_game(Setup.create("yatzy", ["Anna"]))
            s.append(gid, {"throw": [1, 2, 3, 4, 5]})
    return path


def edit(path: Path, *sql: str) -> None:
    c = sqlite3.connect(path)
    for q in sql:
        c.execute(q)
    c.commit()
    c.close()


def test_a_damaged_event_row_names_its_game_and_line_and_the_rest_reads(tmp_path, capsys):
    db = three_games(tmp_path / "g.db")
    edit(db, "UPDATE events SET event='{bad' WHERE game_id=2 AND seq=0")
    before = digest(db)
    assert main(["export", "2", "--db", str(db)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err == f"yatzycam export: {db}: game 2: event line 1: damaged (not JSON: Expecting property name enclosed in double quotes)\n"
    assert main(["export", "3", "--db", str(db)]) == 0
    assert json.loads(capsys.readouterr().out)["events"][0]["event"] == {"throw": [1, 2, 3, 4, 5]}
    assert main(["history", "--all", "--db", str(db)]) == 0  # the rows history lists are whole
    assert "#2" in capsys.readouterr().out
    assert digest(db) == before


def test_a_result_without_total_is_one_line_and_the_other_games_are_listed(tmp_path, capsys):
    db = three_games(tmp_path / "g.db")
    edit(db, """UPDATE games SET status='finished', result='[{"name": "Anna"}]' WHERE id=3""",
         "UPDATE games SET status='finished', result='{bad' WHERE id=1")
    assert main(["history", "--all", "--db", str(db)]) == 2
    out, err = capsys.readouterr()
    assert err.splitlines() == [f"yatzycam history: {db}: game 3: its result: damaged (no 'total')",
                                f"yatzycam history: {db}: game 1: its result: damaged (not JSON: Expecting property name enclosed in double quotes)"]
    assert [line.split()[0] for line in out.splitlines() if line.startswith("#")] == ["#2"]
    assert main(["history", "--json", "--db", str(db)]) == 2
    assert json.loads(capsys.readouterr().out)["games"] == []


def test_play_does_not_resume_a_damaged_game_it_says_so_and_starts_a_new_one(tmp_path, capsys):
    db = three_games(tmp_path / "g.db")
    edit(db, "UPDATE events SET event='[1]' WHERE game_id=3 AND seq=0")
    with Store(db) as store:
        game, gid = A.open_game(store, "yatzy", ["Bo"])
        assert gid == 4 and game.players == ("Bo",)
        assert store.events(2)  # the others untouched
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"yatzycam: {db}: game 3: event line 1: damaged (not a JSON object); it cannot be resumed: a new game"]


def test_history_on_an_empty_file_writes_nothing_into_it(tmp_path, capsys):
    empty = tmp_path / "empty.sqlite"
    empty.touch()
    for argv in (["history"], ["history", "--all"], ["export", "1"]):
        assert main([*argv, "--db", str(empty)]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "not a yatzycam database (an empty file)" in err
    assert empty.stat().st_size == 0 and sorted(os.listdir(tmp_path)) == ["empty.sqlite"]


def test_export_of_a_game_number_sqlite_cannot_hold_is_one_line(tmp_path, capsys):
    db = three_games(tmp_path / "g.db")
    assert main(["export", str(10**25), "--db", str(db)]) == 2
    assert capsys.readouterr().err == f"yatzycam export: no game 1e+25 in {db}\n"
    with Store(db, readonly=True) as s, pytest.raises(StoreError, match="no game 0 in"):
        s.record(0)


def _readonly_folder_cmd(folder: Path, argv: list[str]) -> list[str] | None:
    """The command run with ``folder`` read-only for it: a read-only bind mount in a user namespace
    (root ignores a folder's mode), else the folder's mode for a user who is not root."""
    cli = " ".join([sys.executable, "-m", "controller.cli", *argv])
    if shutil.which("unshare") and subprocess.run(["unshare", "-rm", "true"], capture_output=True).returncode == 0:
        return ["unshare", "-rm", "sh", "-c", f"mount --bind {folder} {folder} && mount -o remount,ro,bind {folder} {folder} && exec {cli}"]
    if os.geteuid() != 0:
        folder.chmod(0o555)
        return ["sh", "-c", f"exec {cli}"]
    return None


def test_a_good_database_in_a_read_only_folder_is_read(tmp_path):
    folder = tmp_path / "ro"
    folder.mkdir()
    db = three_games(folder / "g.db")  # closed: no -wal, no -shm beside it
    assert sorted(os.listdir(folder)) == ["g.db"]
    before = digest(db)
    for argv, want in ((["history", "--all"], "#3"), (["export", "2"], '"throw": [1, 2, 3, 4, 5]')):
        cmd = _readonly_folder_cmd(folder, [*argv, "--db", str(db)])
        assert cmd is not None, "neither a user namespace nor a user who is not root: no way to make a folder read-only"
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=60, cwd=Path(__file__).resolve().parents[2])
        folder.chmod(0o755)
        assert r.returncode == 0 and r.stderr == "" and want in r.stdout, r.stderr
    assert digest(db) == before and sorted(os.listdir(folder)) == ["g.db"]
