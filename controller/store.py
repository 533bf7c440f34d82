"""The record: an SQLite event log that survives a power cut, plus history and statistics.

Every event of every game is one row, committed (WAL, ``synchronous=FULL``) before
:meth:`Store.append` returns, so nothing the screen has shown can be lost: after
a kill -9 or a power cut, :meth:`Store.load` replays the game to exactly the
state the last acknowledged event built. Only events the :class:`Game` accepts
are stored. A game's row keeps its setup *with the rule set's text*, so a replay
survives the rule-set file changing or disappearing.

A file that is not a yatzycam database (corrupt, or another program's) is
reported with its path and never written to.
"""

from __future__ import annotations

import csv
import errno
import fcntl
import io
import json
import os
import sqlite3
import threading
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterator, Mapping

from controller.game.game import Game, GameError, Setup

APP = "yatzycam"
SCHEMA_VERSION = 1

SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE games (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    created TEXT NOT NULL,
    rules TEXT NOT NULL,
    players TEXT NOT NULL,          -- JSON list of names
    setup TEXT NOT NULL,            -- JSON: Setup.to_dict(), rule-set text included
    status TEXT NOT NULL DEFAULT 'playing' CHECK (status IN ('playing', 'finished', 'abandoned')),
    finished_at TEXT,
    result TEXT                     -- JSON: Game.summary() once finished
);
CREATE TABLE events (
    game_id INTEGER NOT NULL REFERENCES games(id),
    seq INTEGER NOT NULL,           -- 0, 1, 2, ... within the game
    event TEXT NOT NULL,            -- JSON, as DESIGN.md spells it
    at TEXT NOT NULL,               -- UTC time it was committed
    PRIMARY KEY (game_id, seq)
) WITHOUT ROWID;
CREATE INDEX games_status ON games(status, id);
"""


class StoreError(Exception):
    """The database cannot be used (corrupt, foreign, unwritable) or has no such game.

    ``retry``: the failure may pass (a full disk, a busy database, an I/O error): a writer may try
    the same write again."""

    user_error = True

    def __init__(self, msg: str, retry: bool = False) -> None:
        super().__init__(msg)
        self.retry = retry


TRANSIENT = ("full", "locked", "busy", "disk i/o")  # sqlite3 messages of a write that may succeed later


def default_db_path(env: Mapping[str, str] | None = None) -> Path:
    """$STATE_DIRECTORY (systemd) / $XDG_DATA_HOME/yatzycam / ~/.local/share/yatzycam, + yatzycam.sqlite."""
    env = os.environ if env is None else env
    state = env.get("STATE_DIRECTORY", "").split(":")[0]
    if state:
        return Path(state) / "yatzycam.sqlite"
    xdg = env.get("XDG_DATA_HOME", "")
    base = Path(xdg) if xdg else Path(env.get("HOME") or Path.home()) / ".local" / "share"
    return base / "yatzycam" / "yatzycam.sqlite"


class InUseError(StoreError):
    """Another appliance process holds the database (exit 2: it may end, and systemd retries)."""


class DbLock:
    """One appliance per database: ``fcntl.flock`` on ``<db>.lock`` beside it, held until
    :meth:`release` (or the process ends: the kernel drops the lock with the last descriptor,
    so a killed process never leaves a stale lock). The file holds the holder's pid and command.

    ``play``, ``demo`` and ``calibrate-live`` take it; ``replay``, ``history`` and ``export``
    only read and never need it.
    """

    def __init__(self, db_path: str | Path, what: str = "play") -> None:
        db = Path(db_path)
        self.path = db.with_name(db.name + ".lock")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o644)
        except OSError as e:
            raise StoreError(f"{self.path}: cannot make the lock beside the database: {e.strerror or e}") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as e:
            holder = _lock_holder(fd)
            os.close(fd)
            if e.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                raise InUseError(
                    f"{db}: in use by another yatzycam{holder}; only one game runs on a database "
                    "(stop the other first, e.g. sudo systemctl stop yatzycam)"
                ) from None
            raise StoreError(f"{self.path}: cannot lock: {e.strerror or e}") from None
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()} {what}\n".encode())
        self._fd: int | None = fd

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # (the file stays: removing it would race a process that just opened it)
            self._fd = None

    def __enter__(self) -> DbLock:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def _lock_holder(fd: int) -> str:
    try:
        pid, _, what = os.pread(fd, 200, 0).decode("ascii").strip().partition(" ")
    except (OSError, UnicodeDecodeError):
        return ""
    return f" (pid {pid}: {what})" if pid.isdigit() and what.replace("-", "").isalpha() else ""


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


# ------------------------------------------------------------------------ records


@dataclass(frozen=True)
class PlayerResult:
    name: str
    total: int
    upper: int
    bonus: int
    extra_bonus: int
    yatzys: int
    winner: bool


@dataclass(frozen=True)
class GameRecord:
    """A game as the history lists it."""

    id: int
    rules: str
    created: str
    status: str  # playing | finished | abandoned
    finished_at: str | None
    players: tuple[str, ...]
    results: tuple[PlayerResult, ...]  # empty until finished

    @property
    def winners(self) -> tuple[str, ...]:
        return tuple(r.name for r in self.results if r.winner)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["players"] = list(self.players)
        d["results"] = [asdict(r) for r in self.results]
        d["winners"] = list(self.winners)
        return d


@dataclass(frozen=True)
class PlayerStats:
    """One player's figures over the finished games of one rule set."""

    name: str
    rules: str
    games: int
    wins: int  # shared wins count as wins
    average: float
    best: int
    bonus_rate: float  # share of games with the upper bonus
    yatzys: int  # scored throws with every die equal

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


# -------------------------------------------------------------------------- store


class Store:
    """One SQLite file of games. Safe to share between threads (one lock)."""

    def __init__(self, path: str | Path, create: bool = True, timeout: float = 10.0, readonly: bool = False) -> None:
        """Open (or, with ``create``, make) the database; ``timeout``: seconds to wait for another writer.

        ``readonly`` (history, export): opened read-only; nothing is ever written, not even a schema
        into an empty file, and a database in a folder this user cannot write is still read."""
        self.path = Path(path)
        self.readonly = readonly
        self.problems: list[str] = []  # damaged rows met while listing games (one line each)
        self._lock = threading.RLock()
        self._games: dict[int, Game] = {}
        self._rulesets: dict[tuple[str, str], Any] = {}  # (path, text) -> RuleSet, parsed once
        create = create and not readonly
        if self.path.is_dir():
            raise StoreError(f"{self.path}: is a directory, not a database file")
        if self.path.exists() and not self.path.is_file():
            raise StoreError(f"{self.path}: not a regular file (a FIFO, device or socket), not a database")
        if not self.path.exists():
            if not create:
                raise StoreError(f"{self.path}: no such database (no game has been recorded there)")
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as e:
                raise StoreError(f"{self.path}: cannot create its folder: {e.strerror or e}") from None
        self._db = self._connect(timeout)
        try:
            self._check_or_create(create)
            if not readonly:
                self._db.execute("PRAGMA journal_mode=WAL")
                self._db.execute("PRAGMA synchronous=FULL")
                self._db.execute("PRAGMA foreign_keys=ON")
        except StoreError:
            self._db.close()
            raise
        except sqlite3.Error as e:
            self._db.close()
            raise StoreError(f"{self.path}: cannot use the database: {e}") from None

    def _connect(self, timeout: float, immutable: bool = False) -> sqlite3.Connection:
        if self.readonly:
            from urllib.parse import quote

            # with no WAL file beside it no writer has the database open, and SQLite's immutable mode
            # reads the file alone: no -wal and -shm files are made beside it (a plain read-only
            # connection would leave them behind); with a writer there, its WAL is read as well
            immutable = immutable or not Path(f"{self.path}-wal").exists()
            target, uri = f"file:{quote(str(self.path.absolute()))}?mode=ro" + ("&immutable=1" if immutable else ""), True
        else:
            target, uri = str(self.path), False
        try:
            return sqlite3.connect(target, isolation_level=None, check_same_thread=False, timeout=timeout, uri=uri)
        except sqlite3.Error as e:
            raise StoreError(f"{self.path}: cannot open: {e}") from None

    def _tables(self) -> set[str]:
        try:
            return {r[0] for r in self._db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        except sqlite3.OperationalError as e:
            if not (self.readonly and "unable to open" in str(e)):
                raise
        # read-only, and SQLite cannot make the WAL index beside a file in a folder it may not write:
        # with no WAL file there (no writer has it open), the database file alone is the whole truth
        if Path(f"{self.path}-wal").exists():
            raise StoreError(f"{self.path}: cannot read: a writer has it open in a folder this user cannot write")
        self._db.close()
        self._db = self._connect(10.0, immutable=True)
        return {r[0] for r in self._db.execute("SELECT name FROM sqlite_master WHERE type='table'")}

    # ------------------------------------------------------------ lifecycle
    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _foreign(self, why: str) -> StoreError:
        return StoreError(f"{self.path}: not a yatzycam database ({why}); the file was left untouched")

    def _check_or_create(self, create: bool) -> None:
        """Refuse a corrupt or foreign file before writing a single byte to it."""
        try:
            tables = self._tables()
        except sqlite3.DatabaseError as e:
            if isinstance(e, sqlite3.OperationalError) and "unable to open" in str(e):
                raise StoreError(f"{self.path}: cannot open: {e}") from None
            raise self._foreign(f"corrupt or another program's file: {e}") from None
        db = self._db
        if not tables:
            if self.path.stat().st_size and not _looks_like_sqlite(self.path):
                raise self._foreign("not an SQLite file")
            if not create:
                raise self._foreign("an empty file" if not self.path.stat().st_size else "an SQLite file without tables")
            db.execute("BEGIN IMMEDIATE")
            try:
                if not db.execute("SELECT 1 FROM sqlite_master WHERE name='meta'").fetchone():  # not created meanwhile
                    for stmt in SCHEMA.split(";"):
                        if stmt.strip():
                            db.execute(stmt)
                    db.execute("INSERT INTO meta VALUES ('app', ?), ('schema', ?)", (APP, str(SCHEMA_VERSION)))
                db.execute("COMMIT")
            except sqlite3.Error:
                if db.in_transaction:
                    db.execute("ROLLBACK")
                raise
            return
        if "meta" not in tables:
            raise self._foreign(f"its tables are {', '.join(sorted(tables))}")
        try:
            meta = dict(db.execute("SELECT key, value FROM meta").fetchall())
        except sqlite3.DatabaseError as e:
            raise self._foreign(f"unreadable meta table: {e}") from None
        if meta.get("app") != APP:
            raise self._foreign(f"its meta table names {meta.get('app')!r}")
        try:
            version = int(str(meta.get("schema", "0") or 0))
        except ValueError:
            raise self._foreign(f"its meta table gives schema {meta.get('schema')!r:.40}") from None
        if version > SCHEMA_VERSION:
            raise StoreError(f"{self.path}: made by a newer yatzycam (schema {version}); left untouched")
        try:
            check = db.execute("PRAGMA quick_check").fetchone()[0]
        except sqlite3.DatabaseError as e:
            raise StoreError(f"{self.path}: the database is corrupt ({e}); left untouched") from None
        if check != "ok":
            why = "; ".join(x.strip() for x in str(check).splitlines() if x.strip() and not x.startswith("***"))
            raise StoreError(f"{self.path}: the database is corrupt ({why}); left untouched")

    @contextmanager
    def _reading(self) -> Iterator[None]:
        """Database errors while reading (a file damaged since it was opened) become StoreError."""
        try:
            with self._lock:
                yield
        except sqlite3.Error as e:
            raise StoreError(f"{self.path}: cannot read: {e}") from None

    def _write(self, sql_params: list[tuple[str, tuple]]) -> list[sqlite3.Cursor]:
        """Run statements in one transaction, committed (fsync) before returning."""
        db = self._db
        try:
            db.execute("BEGIN IMMEDIATE")
            out = [db.execute(sql, params) for sql, params in sql_params]
            db.execute("COMMIT")
            return out
        except (sqlite3.Error, OSError) as e:
            try:
                if db.in_transaction:
                    db.execute("ROLLBACK")
            except sqlite3.Error:
                pass  # (SQLite rolls back itself when it cannot)
            why = getattr(e, "strerror", None) or str(e)
            retry = isinstance(e, OSError) or any(w in why.lower() for w in TRANSIENT)
            raise StoreError(f"{self.path}: cannot save: {why}", retry=retry) from None

    # ---------------------------------------------------------------- games
    def new_game(self, setup: Setup) -> int:
        data = setup.to_dict()
        with self._lock:
            (cur,) = self._write(
                [
                    (
                        "INSERT INTO games (created, rules, players, setup) VALUES (?, ?, ?, ?)",
                        (_now(), setup.rules.name, json.dumps(list(setup.players)), json.dumps(data)),
                    )
                ]
            )
            gid = int(cur.lastrowid)
            self._games[gid] = Game(Setup.from_dict(data, self._rulesets))
            return gid

    def append(self, game_id: int, event: Mapping[str, Any]) -> Game:
        """Apply ``event`` to the game, commit it, and return the game as it now stands.

        GameError (nothing stored) if the rules refuse it; StoreError if it cannot be saved.
        """
        with self._lock:
            game = self._game(game_id)
            status = self._status(game_id)
            if status == "abandoned":
                raise StoreError(f"game {game_id} was abandoned")
            new = game.copy()
            new.apply(event)
            seq = len(game.events)
            stmts = [
                (
                    "INSERT INTO events (game_id, seq, event, at) VALUES (?, ?, ?, ?)",
                    (game_id, seq, json.dumps(new.events[-1]), _now()),
                )
            ]
            if new.finished != game.finished:
                if new.finished:
                    stmts.append(
                        (
                            "UPDATE games SET status='finished', finished_at=?, result=? WHERE id=?",
                            (_now(), json.dumps(new.summary()), game_id),
                        )
                    )
                else:  # an undo took back the last score
                    stmts.append(("UPDATE games SET status='playing', finished_at=NULL, result=NULL WHERE id=?", (game_id,)))
            try:
                self._write(stmts)
            except StoreError:
                self._games.pop(game_id, None)  # re-read from disk next time
                raise
            self._games[game_id] = new
            return new.copy()

    def abandon(self, game_id: int) -> None:
        """Mark an unfinished game as given up (it no longer resumes)."""
        with self._lock:
            if self._status(game_id) == "finished":
                raise StoreError(f"game {game_id} is finished; it cannot be abandoned")
            self._write([("UPDATE games SET status='abandoned' WHERE id=?", (game_id,))])

    def load(self, game_id: int) -> Game:
        """The game rebuilt from its events on disk (StoreError naming the game and the event's
        line when a row is damaged)."""
        with self._reading():
            setup = _cell(self._row(game_id)["setup"], f"{self.path}: game {game_id}: its setup", dict)
            events = [e["event"] for e in self.events(game_id)]
            try:
                game = Game(Setup.from_dict(setup, self._rulesets))
            except (GameError, ValueError, KeyError, TypeError, AttributeError, IndexError) as e:
                raise StoreError(f"{self.path}: game {game_id}: its setup is damaged: {e!r:.200}") from None
            for n, event in enumerate(events, 1):
                try:
                    game.apply(event)
                except (GameError, ValueError, KeyError, TypeError) as e:
                    raise StoreError(f"{self.path}: game {game_id}: event line {n} does not replay: {e}") from None
            self._games[game_id] = game
            return game.copy()

    def events(self, game_id: int) -> list[dict[str, Any]]:
        """The stored events with their sequence numbers and times."""
        with self._reading():
            self._row(game_id)
            rows = self._db.execute("SELECT seq, at, event FROM events WHERE game_id=? ORDER BY seq", (game_id,)).fetchall()
        where = f"{self.path}: game {game_id}: event line"
        out = []
        for n, (seq, at, e) in enumerate(rows, 1):
            if type(seq) is not int or not isinstance(at, str):
                raise StoreError(f"{where} {n}: damaged (its number or time)")
            out.append({"seq": seq, "at": at, "event": _cell(e, f"{where} {n}", dict)})
        return out

    def latest_unfinished(self) -> int | None:
        """The game to resume after a restart, if any."""
        with self._reading():
            row = self._db.execute("SELECT id FROM games WHERE status='playing' ORDER BY id DESC LIMIT 1").fetchone()
        return None if row is None else int(row[0])

    def _game(self, game_id: int) -> Game:
        g = self._games.get(game_id)
        if g is None:
            self.load(game_id)
            g = self._games[game_id]
        return g

    def _row(self, game_id: int) -> sqlite3.Row:
        if not 0 < int(game_id) < 2**63:  # (SQLite's integers; a larger one overflows)
            raise StoreError(f"no game {game_id if abs(game_id) < 10**12 else f'{game_id:.3g}'} in {self.path}")
        cur = self._db.execute("SELECT * FROM games WHERE id=?", (int(game_id),))
        cur.row_factory = sqlite3.Row
        row = cur.fetchone()
        if row is None:
            raise StoreError(f"no game {game_id} in {self.path}")
        return row

    def _status(self, game_id: int) -> str:
        return str(self._row(game_id)["status"])

    # -------------------------------------------------------------- history
    def record(self, game_id: int) -> GameRecord:
        with self._reading():
            return _record(self._row(game_id), str(self.path))

    def games(self, status: str | None = None) -> list[GameRecord]:
        """The games (newest first); a damaged row is left out and named in ``problems``."""
        with self._reading():
            cur = self._db.execute(
                "SELECT * FROM games" + (" WHERE status=?" if status else "") + " ORDER BY id DESC", (status,) if status else ()
            )
            cur.row_factory = sqlite3.Row
            out = []
            for row in cur.fetchall():
                try:
                    out.append(_record(row, str(self.path)))
                except StoreError as e:
                    if str(e) not in self.problems:
                        self.problems.append(str(e))
            return out

    def history(self, player: str | None = None) -> list[GameRecord]:
        """Finished games, newest first (only those ``player`` played, if given)."""
        out = self.games("finished")
        if player is not None:
            out = [g for g in out if player in g.players]
        return out

    def stats(self, player: str | None = None) -> list[PlayerStats]:
        """Per player and rule set, over finished games."""
        acc: dict[tuple[str, str], list[PlayerResult]] = {}
        for rec in self.history(player):
            for r in rec.results:
                if player is None or r.name == player:
                    acc.setdefault((rec.rules, r.name), []).append(r)
        out = []
        for (rules, name), rs in sorted(acc.items()):
            n = len(rs)
            out.append(
                PlayerStats(
                    name=name,
                    rules=rules,
                    games=n,
                    wins=sum(r.winner for r in rs),
                    average=round(sum(r.total for r in rs) / n, 1),
                    best=max(r.total for r in rs),
                    bonus_rate=round(sum(r.bonus > 0 for r in rs) / n, 3),
                    yatzys=sum(r.yatzys for r in rs),
                )
            )
        return out

    # --------------------------------------------------------------- export
    def export_json(self, game_id: int) -> dict[str, Any]:
        """Everything about one game: setup (rule-set text included), events, final state."""
        rec = self.record(game_id)
        game = self.load(game_id)
        return {
            "id": rec.id,
            "rules": rec.rules,
            "created": rec.created,
            "status": rec.status,
            "finished_at": rec.finished_at,
            "setup": game.setup.to_dict(),
            "events": self.events(game_id),
            "state": game.to_json(),
            "summary": game.summary(),
        }

    def export_csv(self, game_id: int, lang: str = "sv") -> str:
        """The score pad: one row per box, one column per player, then the sums."""
        game = self.load(game_id)
        rs = game.rules
        summary = game.summary()
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        words = CSV_WORDS.get(lang, CSV_WORDS["en"])
        w.writerow(["id", words["label"], *game.players])
        for b in rs.boxes:
            w.writerow([b.id, b.label(lang), *("" if s["boxes"][b.id] is None else s["boxes"][b.id] for s in summary)])
        for key in ("upper", "bonus", "extra_bonus", "total"):
            w.writerow([key, words[key], *(s[key] for s in summary)])
        w.writerow(["winner", words["winner"], *(words["yes"] if s["winner"] else "" for s in summary)])
        return buf.getvalue()


CSV_WORDS = {
    "sv": {"label": "ruta", "upper": "summa", "bonus": "bonus", "extra_bonus": "yatzybonus", "total": "totalt", "winner": "vinnare", "yes": "ja"},
    "nb": {"label": "rute", "upper": "sum", "bonus": "bonus", "extra_bonus": "yatzybonus", "total": "total", "winner": "vinner", "yes": "ja"},
    "da": {"label": "felt", "upper": "sum", "bonus": "bonus", "extra_bonus": "yatzybonus", "total": "total", "winner": "vinder", "yes": "ja"},
    "en": {"label": "box", "upper": "upper sum", "bonus": "bonus", "extra_bonus": "extra bonus", "total": "total", "winner": "winner", "yes": "yes"},
}
"""The CSV's own words per language (the first column keeps the language-neutral ids)."""


def _cell(text: Any, where: str, kind: type) -> Any:
    """A JSON cell of a row, or StoreError naming where it lies (an edited or damaged row)."""
    if not isinstance(text, str):
        raise StoreError(f"{where}: damaged (not JSON text)")
    try:
        value = json.loads(text)
    except json.JSONDecodeError as e:
        raise StoreError(f"{where}: damaged (not JSON: {e.msg})") from None
    except (RecursionError, ValueError) as e:  # (ValueError: an integer of over 4300 digits)
        raise StoreError(f"{where}: damaged (not JSON: {'nested too deeply' if isinstance(e, RecursionError) else e})") from None
    if not isinstance(value, kind):
        raise StoreError(f"{where}: damaged (not a JSON {'object' if kind is dict else 'list'})")
    return value


def _record(row: sqlite3.Row, db: str = "database") -> GameRecord:
    where = f"{db}: game {row['id']}"
    results = _cell(row["result"], f"{where}: its result", list) if row["result"] is not None else []
    players = _cell(row["players"], f"{where}: its players", list)
    try:
        return GameRecord(
            id=int(row["id"]),
            rules=str(row["rules"]),
            created=str(row["created"]),
            status=str(row["status"]),
            finished_at=None if row["finished_at"] is None else str(row["finished_at"]),
            players=tuple(str(p) for p in players),
            results=tuple(
                PlayerResult(
                    name=str(r["name"]),
                    total=_whole(r["total"]),
                    upper=_whole(r["upper"]),
                    bonus=_whole(r["bonus"]),
                    extra_bonus=_whole(r["extra_bonus"]),
                    yatzys=_whole(r["yatzys"]),
                    winner=r["winner"] is True,
                )
                for r in results
            ),
        )
    except KeyError as e:
        raise StoreError(f"{where}: its result: damaged (no {e})") from None
    except (TypeError, ValueError) as e:
        raise StoreError(f"{where}: its result: damaged ({e})") from None


def _whole(v: Any) -> int:
    if type(v) is not int or not -(10**9) < v < 10**9:
        raise ValueError(f"{v!r:.20} is not a score")
    return v


def _looks_like_sqlite(path: Path) -> bool:
    try:
        with path.open("rb") as f:
            return f.read(16) == b"SQLite format 3\x00"
    except OSError:
        return False
