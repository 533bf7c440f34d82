"""The bad inputs the hardening issue lists, each run as a real subprocess: one line on stderr
naming what is wrong, the documented exit code, nothing changed, nothing hanging.

The files of the corpus are in tests/fuzz/corpus; inputs that are large or special (a FIFO, a
20000x20000 PNG header, a 48 MP photo, nested brackets, damaged databases) are made here.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import cv2
import numpy as np
import pytest

CORPUS = Path(__file__).resolve().parent / "corpus"
ROOT = Path(__file__).resolve().parents[2]
CLI = [sys.executable, "-m", "controller.cli"]


def run(tmp_path: Path, *argv: str, timeout: float = 60) -> subprocess.CompletedProcess:
    env = {**os.environ, "STATE_DIRECTORY": str(tmp_path / "state")}  # where a config's database would go
    return subprocess.run([*CLI, *argv], capture_output=True, text=True, timeout=timeout, cwd=ROOT, env=env,
                          stdin=subprocess.DEVNULL)


def one_line(r: subprocess.CompletedProcess, code: int, *words: str) -> str:
    lines = r.stderr.splitlines()
    assert r.returncode == code and len(lines) == 1 and "Traceback" not in r.stderr, (r.returncode, r.stderr)
    assert all(w in lines[0] for w in words), lines[0]
    return lines[0]


def tree(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def corpus_unchanged():
    before = tree(CORPUS)
    yield
    assert tree(CORPUS) == before


@pytest.mark.parametrize("name,words", [
    ("config-hold-nan.toml", ["pins.hold_time", "0.3..10 seconds"]),
    ("config-hold-inf.toml", ["pins.hold_time", "0.3..10 seconds"]),
    ("config-hold-20.toml", ["pins.hold_time", "0.3..10 seconds"]),
    ("config-shutdown-0.5.toml", ["pins.shutdown_hold", "1..11 seconds"]),
    ("config-shutdown-nan.toml", ["pins.shutdown_hold", "1..11 seconds"]),
    ("config-players-8.toml", ["game.players", "1..6"]),
    ("config-db-no-such-user.toml", ["paths.db", "names no user's home directory"]),
    ("config-db-nul.toml", ["paths.db", "holds a NUL character"]),
    ("config-rules-name-too-long.toml", ["game.rules", "unknown rule set 'aaaa", "...'"]),  # (no file of that name can be)
])
def test_bad_config_exits_78_before_any_database(tmp_path, corpus_unchanged, name, words):
    r = run(tmp_path, "play", "--config", str(CORPUS / name), "--keyboard")
    one_line(r, 78, f"yatzycam play: {CORPUS / name}: ", *words)
    assert not (tmp_path / "state").exists()  # no database, no lock, no folder


@pytest.mark.parametrize("name,words", [
    ("rules-bonus-points-negative.toml", ["[bonus]", "'points' must be 0..999999, got -50"]),
    ("rules-threshold-negative.toml", ["[bonus]", "'threshold' must be 0..999999, got -5"]),
    ("rules-extra-bonus-negative.toml", ["[yahtzee]", "'extra_bonus' must be 0..999999, got -100"]),
    ("rules-points-3e9.toml", ["box 'big'", "'points' must be 0..999999, got 3000000000"]),
    ("rules-points-1e30.toml", ["box 'big'", "'points' must be 0..999999, got 1e+30"]),
])
def test_bad_rule_sets(tmp_path, corpus_unchanged, name, words):
    r = run(tmp_path, "score", "--rules", str(CORPUS / name), "1", "2", "3", "4", "5")
    one_line(r, 2, f"yatzycam score: {CORPUS / name}: ", *words)


@pytest.mark.parametrize("faces,words", [(["²²²²²"], ["'²²²²²' is not a die face"]), (["5" * 5000], ["a roll of 5000 characters"]),
                                         (["1", "2", "3", "4", "5" * 5000], ["a roll of 5008 characters"]),
                                         (["1", "2", "3", "4", "5" * 150], ["'555555555555...' is not a die face"]),
                                         (["١", "٢", "٣", "٤", "٥"], ["'١' is not a die face"])])
def test_faces_are_ascii_digits(tmp_path, faces, words):
    one_line(run(tmp_path, "score", "--rules", "yatzy", *faces), 2, "yatzycam score: ", *words)


@pytest.mark.parametrize("argv", [
    ["calibrate", "--empty", "tests/data/images/00007_jpg.rf.72c5ac851783774615084169e67dcb79.jpg", "--out", "{long}.json"],
    ["history", "--db", "{long}.db"],
    ["export", "1", "--format", "json", "--db", "{long}.db"],
])
def test_a_path_too_long_for_the_system_is_one_line(tmp_path, argv):
    long = str(tmp_path / ("y" * 300))  # over NAME_MAX: the system refuses to look it up at all
    r = run(tmp_path, *[a.replace("{long}", long) for a in argv])
    one_line(r, 2, f"yatzycam {argv[0]}: ", "yyyy...: file name too long")
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # nothing made


def test_a_rule_set_name_too_long_for_a_file_name_is_unknown(tmp_path):
    one_line(run(tmp_path, "score", "--rules", "b" * 300, "1", "2", "3", "4", "5"), 2,
             "yatzycam score: unknown rule set 'bbbb", "...' (built in: ")


def test_replay_of_deep_brackets_and_bad_json_is_one_line(tmp_path, corpus_unchanged):
    deep = tmp_path / "deep.jsonl"
    deep.write_text("[" * 100_000 + "\n")
    one_line(run(tmp_path, "replay", "--rules", "yatzy", str(deep)), 2, f"{deep}: line 1: ")
    nested = tmp_path / "nested.jsonl"
    nested.write_text("[" * 50_000 + "\n")  # under the line limit: the JSON parser's own depth
    one_line(run(tmp_path, "replay", "--rules", "yatzy", str(nested)), 2, f"{nested}: line 1: not JSON: nested too deeply")
    bad = CORPUS / "events-bad-json.jsonl"
    one_line(run(tmp_path, "replay", "--rules", "yatzy", str(bad)), 2, f"{bad}: line 2: not JSON")


def _replay_big(tmp_path: Path, megabytes: int) -> tuple[subprocess.CompletedProcess, float]:
    """replay of a throw/undo file of that size; (the run, the replaying process's peak memory in MB)."""
    events = tmp_path / "big.jsonl"
    pair = '{"throw": [1, 2, 3, 4, 5]}\n{"undo": true}\n' * 1000
    with events.open("w") as f:
        for _ in range(megabytes * 1_000_000 // len(pair) + 1):
            f.write(pair)
    measured = ("import sys; from controller.cli.main import main; rc = main(sys.argv[1:]); "
                "print(next(l.split()[1] for l in open('/proc/self/status') if l.startswith('VmHWM')), file=sys.stderr); sys.exit(rc)")
    # (VmHWM: this process's own peak; ru_maxrss keeps the forking parent's across exec)
    r = subprocess.run([sys.executable, "-c", measured, "replay", "--rules", "yatzy", str(events)], capture_output=True,
                       text=True, timeout=600, cwd=ROOT)
    *errors, peak_kb = r.stderr.splitlines()
    return subprocess.CompletedProcess(r.args, r.returncode, r.stdout, "\n".join(errors)), int(peak_kb) / 1024


def test_replay_streams_its_events_in_bounded_memory(tmp_path):
    r, peak_mb = _replay_big(tmp_path, 6)
    assert r.returncode == 0 and r.stderr == "" and '"finished": false' in r.stdout
    assert peak_mb < 200  # (the whole file would be some 100 MB of events in memory)


@pytest.mark.slow
def test_replay_of_60_mb(tmp_path):
    r, peak_mb = _replay_big(tmp_path, 60)
    assert r.returncode == 0 and r.stderr == "" and peak_mb < 200


def _png_header(w: int, h: int) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(b"\x00" * 1000)) + chunk(b"IEND", b""))


def test_read_refuses_a_fifo_and_a_huge_image_in_one_line_each(tmp_path):
    fifo = tmp_path / "frame.png"
    os.mkfifo(fifo)
    huge = tmp_path / "huge.png"
    huge.write_bytes(_png_header(20000, 20000))
    r = run(tmp_path, "read", str(fifo), str(huge), timeout=30)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert r.stderr.splitlines() == [f"yatzycam read: {fifo}: cannot read (is a FIFO (named pipe), not a file)",
                                     f"yatzycam read: {huge}: 20000x20000 is 400 MP: at most 50 MP is read (a camera frame or a phone photo)"]
    r = run(tmp_path, "read", "--calibration", str(fifo), str(huge), timeout=30)
    one_line(r, 2, f"{fifo}: cannot read the calibration (is a FIFO (named pipe), not a file)")
    r = run(tmp_path, "score", "--rules", str(fifo), "12345", timeout=30)
    one_line(r, 2, f"{fifo}: cannot read: is a FIFO (named pipe), not a file")
    r = run(tmp_path, "play", "--config", str(fifo), timeout=30)
    one_line(r, 78, f"{fifo}: cannot read: is a FIFO (named pipe), not a file")
    r = run(tmp_path, "replay", "--rules", "yatzy", str(fifo), timeout=30)
    one_line(r, 2, f"{fifo}: cannot read: is a FIFO (named pipe), not a file")


def test_a_48_mp_photo_is_decoded_reduced(tmp_path):
    from vision import imagefile

    photo = sorted((ROOT / "tests" / "data" / "images").glob("*.jpg"))[0]
    big = cv2.resize(cv2.imread(str(photo)), (8000, 6000), interpolation=cv2.INTER_LINEAR)
    data = cv2.imencode(".jpg", big, [cv2.IMWRITE_JPEG_QUALITY, 80])[1].tobytes()
    assert imagefile.header(data) == ("JPEG", 8000, 6000)
    assert imagefile.reduction(8000, 6000)[0] == 2
    assert imagefile.reduction(4608, 2592)[0] == 1 and imagefile.reduction(10000, 5000)[0] == 2
    with pytest.raises(imagefile.ImageFileError, match="10000x5001 is 50 MP: at most 50 MP"):
        imagefile.reduction(10000, 5001)
    path = tmp_path / "48mp.jpg"
    path.write_bytes(data)
    assert imagefile.load(path).shape == (3000, 4000, 3)


@pytest.mark.slow
def test_read_of_a_48_mp_photo_gives_a_reading(tmp_path):
    photo = sorted((ROOT / "tests" / "data" / "images").glob("*.jpg"))[0]
    big = tmp_path / "48mp.jpg"
    cv2.imwrite(str(big), cv2.resize(cv2.imread(str(photo)), (8000, 6000)))
    r = run(tmp_path, "read", str(big), timeout=300)
    assert r.returncode == 0 and r.stderr == "" and r.stdout.startswith(f"{big}: "), r.stderr


@pytest.mark.parametrize("name,words", [("calibration-png-not-png.json", ["empty_small_png is not a PNG picture"]),
                                        ("calibration-floor-1e308.json", ["a corner lies far outside the 640x480 frame"])])
def test_bad_calibrations(tmp_path, corpus_unchanged, name, words):
    frame = tmp_path / "frame.png"
    cv2.imwrite(str(frame), np.random.default_rng(0).integers(0, 255, (480, 640, 3), np.uint8))
    one_line(run(tmp_path, "read", "--calibration", str(CORPUS / name), str(frame)), 2, f"{CORPUS / name}: damaged calibration", *words)


def test_calibrate_out_into_a_missing_folder_or_onto_a_folder(tmp_path):
    empty = tmp_path / "empty.png"
    cv2.imwrite(str(empty), np.full((480, 640, 3), 90, np.uint8))
    for out, words in ((tmp_path / "no" / "cal.json", ["no such folder"]), (tmp_path, ["is a folder"])):
        one_line(run(tmp_path, "calibrate", "--empty", str(empty), "--out", str(out)), 2, "yatzycam calibrate: --out ", *words)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty.png"]  # no .tmp left


def test_damaged_databases_are_one_line_each_and_left_as_they_were(tmp_path):
    from controller.game.game import Setup
    from controller.store import Store

    db = tmp_path / "g.sqlite"
    with Store(db) as s:
        for _ in range(3):
            s.append(s.new_game(Setup.create("yatzy", ["Anna"])), {"throw": [1, 2, 3, 4, 5]})
    c = sqlite3.connect(db)
    c.execute("UPDATE events SET event='{bad' WHERE game_id=2")
    c.execute("""UPDATE games SET status='finished', result='[{"name": "Anna"}]' WHERE id=3""")
    c.commit()
    c.close()
    before = tree(tmp_path)
    one_line(run(tmp_path, "history", "--all", "--db", str(db)), 2, f"{db}: game 3: its result: damaged (no 'total')")
    one_line(run(tmp_path, "export", "2", "--db", str(db)), 2, f"{db}: game 2: event line 1: damaged")
    one_line(run(tmp_path, "export", str(10**25), "--db", str(db)), 2, "no game 1e+25")
    assert run(tmp_path, "export", "1", "--db", str(db)).returncode == 0
    empty = tmp_path / "empty.sqlite"
    empty.touch()
    one_line(run(tmp_path, "history", "--db", str(empty)), 2, "not a yatzycam database (an empty file)")
    assert empty.stat().st_size == 0
    empty.unlink()
    assert tree(tmp_path) == before


@pytest.mark.parametrize("argv,words", [
    ([], ["yatzycam: no command given: one of demo, play", "(see yatzycam --help)"]),
    (["--bogus"], ["yatzycam: unrecognized arguments: --bogus (see yatzycam --help)"]),
    (["score"], ["yatzycam score: the following arguments are required: --rules (see yatzycam score --help)"]),
    (["score", "--rules", "yatzy", "--bogus", "12345"], ["yatzycam score: unrecognized arguments: --bogus"]),
    (["demo", "--screen", "tv"], ["yatzycam demo: argument --screen: invalid choice: 'tv' (choose from"]),
    (["demo", "--seed", "-1"], ["yatzycam demo: argument --seed: a seed must be 0..", "not -1"]),
    (["demo", "--cocked", "nan"], ["argument --cocked: 'nan' is not a share of throws"]),
    (["export", "١"], ["yatzycam export: argument GAME_ID: '١' is not a game number"]),
    (["read", "--dice", "1_0", "x.png"], ["argument --dice: '1_0' is not a number of dice"]),
    (["advise", "--rules", "maxi", "--expected", "--games", "1000000000"], ["argument --games: a number of games must be 1..10000"]),
    (["calibrate", "--empty", "x.png", "--out", "c.json", "--floor", "0,0,nan,nan"], ["argument --floor: expected numbers", "'nan'"]),
])
def test_usage_errors_are_one_line_exit_2(tmp_path, argv, words):
    one_line(run(tmp_path, *argv), 2, *words)
    assert sorted(tmp_path.iterdir()) == []


def test_help_is_still_the_whole_help(tmp_path):
    r = run(tmp_path, "score", "--help")
    assert r.returncode == 0 and r.stderr == "" and r.stdout.startswith("usage: yatzycam score ") and "--rules NAME" in r.stdout


def test_calibrate_refuses_a_keep_zone_off_the_frame_and_show_calibration_a_wrong_extension(tmp_path):
    empty = tmp_path / "empty.png"
    frame = np.full((480, 640, 3), 60, np.uint8)
    frame[40:440, 60:580] = 200
    cv2.imwrite(str(empty), frame)
    cal = tmp_path / "cal.json"
    one_line(run(tmp_path, "calibrate", "--empty", str(empty), "--out", str(cal), "--keep-zone", "0,0,1e308,1e308"), 2,
             "yatzycam calibrate: --keep-zone: a corner lies outside the 640x480 frame")
    assert not cal.exists()
    assert run(tmp_path, "calibrate", "--empty", str(empty), "--out", str(cal)).returncode == 0
    one_line(run(tmp_path, "show-calibration", str(cal), str(empty), "--out", str(tmp_path / "x.jpgx")), 2,
             "yatzycam show-calibration: ", "x.jpgx: cannot write the picture")


def test_play_with_a_damaged_calibration_makes_no_database(tmp_path):
    cal = tmp_path / "cal.json"
    cal.write_text('{"kind": "yatzycam-calibration", "version": 1}')
    cfg = tmp_path / "config.toml"
    cfg.write_text(f'[camera]\nsource = "sim"\n[display]\nsink = "terminal"\n[paths]\ndb = "{tmp_path / "g.db"}"\n'
                   f'calibration = "{cal}"\n')
    one_line(run(tmp_path, "play", "--config", str(cfg), "--keyboard"), 2, f"{cal}: damaged calibration")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cal.json", "config.toml"]  # no database, no lock


def test_score_on_stdin_refuses_a_long_line_and_bytes_that_are_not_utf8(tmp_path):
    r = subprocess.run([*CLI, "score", "--rules", "yatzy", "--json"], input=b"1" * 100_000 + b"\n\xff\xfe\n33545\n",
                       capture_output=True, timeout=60, cwd=ROOT)
    assert r.returncode == 2 and r.stderr.decode().splitlines() == [
        "yatzycam score: line 1: longer than 1000 characters: not a roll", "yatzycam score: line 2: not UTF-8 text"]
    assert len(r.stdout.splitlines()) == 3 and r.stdout.splitlines()[2].startswith(b'{"ones": 0')


def test_a_players_count_in_other_digits_is_a_name_and_a_huge_one_is_one_line(tmp_path):
    r = subprocess.run([*CLI, "replay", "--rules", "yatzy", "--players", "²", "-"], input="", capture_output=True,
                       text=True, timeout=60, cwd=ROOT)
    assert r.returncode == 0 and '"name": "\\u00b2"' in r.stdout
    one_line(run(tmp_path, "demo", "--players", "9" * 5000, "--quiet", "--db", str(tmp_path / "d.db")), 2,
             "yatzycam demo: a game needs 1 to 6 players, got 999999999999...")
