"""One appliance per database (the lock beside it) and a write that cannot be saved (a full disk)."""

from __future__ import annotations

import errno
import json
import sqlite3
import subprocess
import sys
import time

import pytest

from controller import app as A
from controller import store as S
from controller.cli.main import main
from controller.store import DbLock, InUseError, Store
from hardware.camera import ManualClock

from tests.controller.test_app_play import config


class FullDisk:
    """A connection whose writes of events fail as SQLite's do on a full disk (everything else is real)."""

    def __init__(self, db: sqlite3.Connection, error: Exception) -> None:
        self._db, self.error, self.refused = db, error, 0

    def execute(self, sql, *args):
        if sql.startswith("INSERT INTO events"):
            self.refused += 1
            raise self.error
        return self._db.execute(sql, *args)

    def __getattr__(self, name):
        return getattr(self._db, name)


def one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


# ------------------------------------------------------------------ the lock


def test_a_second_holder_of_the_database_is_refused_and_the_first_keeps_it(tmp_path):
    db = tmp_path / "games.sqlite"
    with DbLock(db, "play"):
        with pytest.raises(InUseError, match=r"in use by another yatzycam \(pid \d+: play\)") as e:
            DbLock(db, "demo")
        assert e.value.user_error and not isinstance(e.value, ValueError)
    with DbLock(db, "demo"):  # released: the next one takes it
        pass
    assert not db.exists()  # the lock alone creates no database


def test_a_second_play_says_so_in_one_line_exit_2_and_nothing_is_created(tmp_path, capsys):
    cfg = config(tmp_path)
    with DbLock(tmp_path / "games.sqlite", "play"):
        assert main(["play", "--config", str(cfg), "--keyboard"]) == 2
        line = one_line(capsys.readouterr().err)
        assert line.startswith("yatzycam play: ") and "in use by another yatzycam" in line
        assert not (tmp_path / "games.sqlite").exists()
        assert main(["demo", "--db", str(tmp_path / "games.sqlite"), "--quiet"]) == 2
        assert "in use by another yatzycam" in one_line(capsys.readouterr().err)


def test_readers_work_beside_a_running_appliance_and_the_lock_dies_with_its_process(tmp_path):
    db = tmp_path / "games.sqlite"
    with Store(db) as store:
        gid = store.new_game(__import__("controller.game.game", fromlist=["Setup"]).Setup.create("yatzy", ["Anna"]))
        store.append(gid, {"throw": [1, 2, 3, 4, 5]})
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, time; from controller.store import DbLock; l = DbLock(sys.argv[1], 'play'); "
         "print('held', flush=True); time.sleep(60)", str(db)],
        stdout=subprocess.PIPE, text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        cli = [sys.executable, "-m", "controller.cli"]
        r = subprocess.run([*cli, "history", "--all", "--db", str(db)], capture_output=True, text=True, timeout=60)
        assert r.returncode == 0 and f"#{gid}" in r.stdout, r.stderr
        r = subprocess.run([*cli, "export", str(gid), "--db", str(db)], capture_output=True, text=True, timeout=60)
        assert r.returncode == 0 and json.loads(r.stdout)["events"][0]["event"] == {"throw": [1, 2, 3, 4, 5]}
        r = subprocess.run([*cli, "demo", "--db", str(db)], capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
        assert r.returncode == 2 and f"(pid {holder.pid}: play)" in one_line(r.stderr)
    finally:
        holder.kill()
        holder.wait()
    with DbLock(db, "play"):  # a killed holder leaves no stale lock
        pass


# ------------------------------------------------------------------ a full disk


@pytest.mark.parametrize("error", [sqlite3.OperationalError("database or disk is full"), OSError(errno.ENOSPC, "No space left on device")])
def test_an_unsaved_throw_is_retried_30_s_then_shown_and_logged_and_the_game_is_as_it_was(tmp_path, capsys, error):
    shown = []

    class Screen:
        def show(self, view):
            shown.append(view.notice)

    clock = ManualClock()
    with A.simulated_rig("yatzy", 1, seed=2, db_path=str(tmp_path / "g.db"), screen=Screen(), clock=clock, gpio=False) as rig:
        rig.app.record({"throw": [1, 1, 2, 3, 4]})
        before = rig.app.game.to_json()
        rig.store._db = disk = FullDisk(rig.store._db, error)
        t0 = clock.now()
        assert rig.app.record({"score": "ones"}) is False
        assert 30.0 <= clock.now() - t0 < 31.0  # tried again for the 30 s, no longer
        assert disk.refused == 31
        assert rig.app.game.to_json() == before
        assert rig.app.unsaved and "cannot save" in rig.app.unsaved
        assert shown[-1].startswith("not saved: ") and any(n and n.startswith("not saved yet") for n in shown)
        rig.store._db = disk._db  # the disk has room again: the same press saves
        assert rig.app.record({"score": "ones"}) is True and rig.app.unsaved is None
        events = [e["event"] for e in rig.store.events(rig.app.game_id)]
    assert events == [{"throw": [1, 1, 2, 3, 4]}, {"score": "ones"}]
    log = capsys.readouterr().err.strip().splitlines()
    assert log[0].endswith("trying again for 30 s") and log[1].startswith("yatzycam: not saved: ") and len(log) == 2


def test_the_retry_window_is_real_time_on_a_real_clock(tmp_path):
    from hardware.camera import SystemClock

    timing = A.AppTiming(save_retry_s=0.3, save_retry_every_s=0.05)
    with A.simulated_rig("yatzy", 1, seed=2, db_path=str(tmp_path / "g.db"), clock=SystemClock(), timing=timing, gpio=False) as rig:
        rig.store._db = FullDisk(rig.store._db, sqlite3.OperationalError("database or disk is full"))
        t0 = time.monotonic()
        assert rig.app.record({"throw": [1, 1, 2, 3, 4]}) is False
        assert 0.3 <= time.monotonic() - t0 < 2.0
        assert rig.app.game.events == ()


def test_the_demo_on_a_full_disk_ends_with_one_line(tmp_path, capsys, monkeypatch):
    connect = sqlite3.connect
    monkeypatch.setattr(S.sqlite3, "connect", lambda *a, **k: FullDisk(connect(*a, **k), sqlite3.OperationalError("database or disk is full")))
    assert main(["demo", "--quiet", "--db", str(tmp_path / "d.db")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("yatzycam demo: stopped: not saved: ") and "database or disk is full" in err[-1]
    assert all(line.startswith("yatzycam: ") for line in err[:-1])  # the log's two lines (tried again, not saved)
    monkeypatch.undo()
    with Store(tmp_path / "d.db") as store:
        (rec,) = store.games()
        assert store.events(rec.id) == []
