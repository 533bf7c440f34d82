"""Property tests: generated junk for every input kind, through ``main(argv)`` in-process.

For every input: the exit code is 0 or 2 (78 for a config); stderr is empty on success and one
line per bad item otherwise (an image, a line); nothing raises out of ``main`` (a traceback, or
argparse's SystemExit); no file in the input's folder changes and none appears. Command lines
themselves are junk too: a usage error is one line naming the command, never the usage. Each kind runs ``FAST`` (500 inputs) in
``make test`` and ``SLOW`` (5,000) in its ``slow``- and ``fuzz_slow``-marked twin (``make test-fuzz``).
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import math
import shutil
import sqlite3
import struct
import tempfile
import zlib
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from unittest import mock

import cv2
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.cli import main as cli_main
from controller.cli.main import main
from controller.game.rules import KINDS
from tests.fuzz import FAST, SLOW

ROOT = Path(tempfile.mkdtemp(prefix="yatzycam-fuzz-"))


# ----------------------------------------------------------------------------- the harness


class Sandbox:
    """A fresh folder per input; ``run`` calls main(argv) there and checks what every input must keep."""

    def __init__(self) -> None:
        self.dir = Path(tempfile.mkdtemp(dir=ROOT))

    def write(self, name: str, data: str | bytes) -> str:
        p = self.dir / name
        p.write_bytes(data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data)
        return str(p)

    def snapshot(self) -> dict[str, str]:
        return {str(p.relative_to(self.dir)): hashlib.sha256(p.read_bytes()).hexdigest()
                for p in sorted(self.dir.rglob("*")) if p.is_file()}

    def run(self, argv: list[str], ok: tuple[int, ...] = (0, 2), stdin: str = "") -> tuple[int, list[str], list[str]]:
        before = self.snapshot()
        out, err = io.StringIO(), io.StringIO()
        with redirect_stdout(out), redirect_stderr(err), mock.patch("sys.stdin", io.StringIO(stdin)):
            rc = main(argv)  # (a SystemExit or any other exception out of it fails the test)
        errors = err.getvalue().splitlines()
        assert rc in ok, (rc, errors)
        assert "Traceback" not in err.getvalue()
        assert (rc == 0) == (errors == []) or ok == (0, 78) and rc == 0 and errors == [], (rc, errors)
        assert self.snapshot() == before, "a file changed"
        return rc, out.getvalue().splitlines(), errors

    def close(self) -> None:
        shutil.rmtree(self.dir, ignore_errors=True)


@pytest.fixture(scope="module", autouse=True)
def _root():
    yield
    shutil.rmtree(ROOT, ignore_errors=True)


BUILD_PARSER = cli_main.build_parser  # (the real one: the fixture below stands a cached one in for it)
_PARSER: list = []


@pytest.fixture(scope="module", autouse=True)
def _one_parser():
    """main(argv) builds the same parser on every call (a few ms, most of a cheap input's time): built
    once here. argparse keeps no state between parses; nothing here changes the parser."""

    def built():
        if not _PARSER:
            _PARSER.append(BUILD_PARSER())
        return _PARSER[0]

    with mock.patch.object(cli_main, "build_parser", built):
        yield
    for p in cli_main._subparsers(_PARSER[0]).choices.values() if _PARSER else ():  # the real handlers ran
        assert p.get_default("func").__module__.startswith("controller.cli."), p.prog


def sandboxed(check):
    def run(*a):
        box = Sandbox()
        try:
            check(box, *a)
        finally:
            box.close()

    return run


# ----------------------------------------------------------------------------- junk values

INTS = st.one_of(st.integers(-3, 30), st.integers(-(2**63), 2**63 - 1), st.sampled_from([10**6 - 1, 10**6, 3_000_000_000]))
FLOATS = st.one_of(st.floats(-1, 15), st.floats(allow_nan=True, allow_infinity=True), st.sampled_from([1e308, -1e308, 0.3, 10.0]))
WORDS = st.sampled_from(["yatzy", "maxi", "sim", "png", "terminal", "en", "sv", "auto", "", " ", "²²²", "Anna", "/dev/null", "a" * 300])
SCALARS = st.one_of(INTS, FLOATS, st.booleans(), WORDS, st.text(max_size=12))
VALUES = st.one_of(SCALARS, st.lists(st.one_of(INTS, WORDS, st.booleans()), max_size=8))


def toml_value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf") if math.isinf(v) else repr(v)
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, list):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    raise TypeError(v)


def toml_table(name: str, d: dict, array: bool = False) -> str:
    head = f"[[{name}]]" if array else f"[{name}]"
    return head + "\n" + "".join(f"{json.dumps(k)} = {toml_value(v)}\n" for k, v in d.items())


def deep(n: int) -> str:
    return "[" * n


# ----------------------------------------------------------------------------- config

CONFIG_KEYS = {
    "pins": ["throw", "next", "score", "undo", "leds_throws", "leds_bank", "hold_time", "bounce_time", "shutdown_hold"],
    "camera": ["source", "size", "lores", "exposure", "focus", "device", "folder"],
    "display": ["sink", "device", "size", "rotation", "language", "blank_after_s", "file"],
    "game": ["rules", "players", "forced_order", "banking", "advisor"],
    "paths": ["db", "calibration", "images"],
    "sound": ["volume"],
}


@st.composite
def config_texts(draw) -> str:
    if draw(st.integers(0, 9)) == 0:  # raw junk, or a deep array
        return draw(st.one_of(st.text(max_size=60), st.integers(1, 5000).map(lambda n: "a = " + deep(n))))
    parts = []
    for section in draw(st.lists(st.sampled_from(list(CONFIG_KEYS)), max_size=4, unique=True)):
        keys = draw(st.lists(st.sampled_from(CONFIG_KEYS[section] + ["bogus"]), max_size=4, unique=True))
        parts.append(toml_table(section, {k: draw(VALUES) for k in keys}))
    return "\n".join(parts)


def check_config(box: Sandbox, text: str) -> None:
    path = box.write("config.toml", text)
    with mock.patch("controller.app.play", lambda cfg, **kw: 0):  # the config is all this checks: no appliance
        rc, _, errors = box.run(["play", "--config", path], ok=(0, 78))
    if rc == 78:
        assert len(errors) == 1 and errors[0].startswith("yatzycam play: "), errors


@FAST
@given(config_texts())
def test_config(text):
    sandboxed(check_config)(text)


@pytest.mark.slow
@pytest.mark.fuzz_slow
@SLOW
@given(config_texts())
def test_config_slow(text):
    sandboxed(check_config)(text)


# ----------------------------------------------------------------------------- rule set

BOX_PARAMS = ["face", "n", "points", "sizes", "lo", "hi", "length", "add_sum"]
RULE_INTS = st.one_of(st.integers(0, 8), INTS)


@st.composite
def ruleset_texts(draw) -> str:
    if draw(st.integers(0, 9)) == 0:
        return draw(st.one_of(st.text(max_size=60), st.integers(1, 5000).map(lambda n: "dice = " + deep(n))))
    top = {"name": draw(st.sampled_from(["mine", "", "x" * 200])), "dice": draw(RULE_INTS), "throws": draw(RULE_INTS)}
    if draw(st.booleans()):
        top[draw(st.sampled_from(["title", "notes", "bogus"]))] = draw(VALUES)
    text = "".join(f"{k} = {toml_value(v)}\n" for k, v in top.items())
    for section, keys in (("bonus", ["threshold", "points"]), ("banking", ["policy", "cap", "declare"]),
                          ("yahtzee", ["extra_bonus", "joker", "box"]), ("options", ["players", "forced_order"])):
        if draw(st.booleans()):
            chosen = draw(st.lists(st.sampled_from(keys), max_size=3, unique=True))
            text += toml_table(section, {k: draw(st.one_of(RULE_INTS, VALUES)) for k in chosen})
    for i in range(draw(st.integers(0, 6))):
        kind = draw(st.one_of(st.sampled_from(sorted(KINDS)), WORDS))
        params = draw(st.lists(st.sampled_from(BOX_PARAMS), max_size=4, unique=True))
        box = {"id": draw(st.sampled_from([f"b{i}", "b0", "a b", ""])), "kind": kind}
        box.update({k: draw(st.one_of(RULE_INTS, st.lists(RULE_INTS, max_size=4), st.booleans())) for k in params})
        text += toml_table("box", box, array=True)
    return text


def check_ruleset(box: Sandbox, text: str) -> None:
    path = box.write("mine.toml", text)
    rc, out, errors = box.run(["score", "--rules", path, "--json", "--", "1", "2", "3", "4", "5"])
    if rc == 0:
        scores = json.loads(out[0])
        assert all(type(v) is int and 0 <= v < 2**31 for v in scores.values()), scores  # no int32 wrap-around
    else:
        assert len(errors) == 1 and errors[0].startswith("yatzycam score: "), errors
    rc, _, errors = box.run(["rules", path])
    assert rc == 0 or len(errors) == 1


@FAST
@given(ruleset_texts())
def test_ruleset(text):
    sandboxed(check_ruleset)(text)


@pytest.mark.slow
@pytest.mark.fuzz_slow
@SLOW
@given(ruleset_texts())
def test_ruleset_slow(text):
    sandboxed(check_ruleset)(text)


# ----------------------------------------------------------------------------- faces

FACE_TEXT = st.one_of(st.text(max_size=8), st.text(alphabet="0123456789²٣۴߅,- ", max_size=12),
                      st.integers(0, 99999).map(str), st.just("5" * 5000), st.sampled_from(["33545", "1 2 3 4 5", "1,2,3,4,5"]))


def check_faces(box: Sandbox, faces: list[str], lines: list[str]) -> None:
    rc, _, errors = box.run(["score", "--rules", "yatzy", "--json", "--", *faces])
    assert rc == 0 or len(errors) == 1, errors
    text = "\n".join(lines) + "\n"
    rc, out, errors = box.run(["score", "--rules", "yatzy", "--json"], stdin=text)
    bad = [int(e.split(":")[1].split()[1]) for e in errors]  # "yatzycam score: line N: why"
    assert all(e.startswith("yatzycam score: line ") for e in errors) and len(set(bad)) == len(bad), errors
    assert len(out) == sum(1 for x in text.split("\n") if x.strip())  # one answer per roll, an error or scores


@FAST
@given(st.lists(FACE_TEXT, max_size=6), st.lists(FACE_TEXT.map(lambda s: s.replace("\r", " ")), max_size=4))
def test_faces(faces, lines):
    sandboxed(check_faces)(faces, lines)


@pytest.mark.slow
@pytest.mark.fuzz_slow
@SLOW
@given(st.lists(FACE_TEXT, max_size=6), st.lists(FACE_TEXT.map(lambda s: s.replace("\r", " ")), max_size=4))
def test_faces_slow(faces, lines):
    sandboxed(check_faces)(faces, lines)


# ----------------------------------------------------------------------------- events

JSON_JUNK = st.recursive(st.one_of(st.none(), st.booleans(), INTS, st.floats(allow_nan=False), st.text(max_size=8)),
                         lambda inner: st.one_of(st.lists(inner, max_size=6), st.dictionaries(st.text(max_size=6), inner, max_size=3)),
                         max_leaves=12)
EVENT = st.one_of(
    st.lists(st.integers(1, 6), min_size=5, max_size=5).map(lambda d: {"throw": d}),
    st.sampled_from(["ones", "chance", "yatzy", "nope", ""]).map(lambda b: {"score": b}),
    st.just({"undo": True}),
    st.dictionaries(st.sampled_from(["throw", "score", "declare", "undo", "manual", "x"]), JSON_JUNK, max_size=3),
    JSON_JUNK,
)
EVENT_LINE = st.one_of(EVENT.map(json.dumps), st.text(max_size=30).map(lambda s: s.replace("\n", " ").replace("\r", " ")),
                       st.integers(1, 100_000).map(deep), st.just('{"throw": [' + "1" * 5000 + "]}"))


def check_events(box: Sandbox, lines: list[str]) -> None:
    path = box.write("events.jsonl", "\n".join(lines) + "\n")
    rc, out, errors = box.run(["replay", "--rules", "yatzy", "--players", "2", path])
    if rc == 0:
        assert json.loads(out[0])["players"]
    else:
        assert len(errors) == 1 and errors[0].startswith(f"{path}: line ") and out == [], errors


@FAST
@given(st.lists(EVENT_LINE, max_size=12))
def test_events(lines):
    sandboxed(check_events)(lines)


@pytest.mark.slow
@pytest.mark.fuzz_slow
@SLOW
@given(st.lists(EVENT_LINE, max_size=12))
def test_events_slow(lines):
    sandboxed(check_events)(lines)


# ----------------------------------------------------------------------------- calibration

_SMALL = cv2.imencode(".png", np.full((60, 80, 3), 120, np.uint8))[1].tobytes()
POINT = st.lists(st.one_of(st.floats(-100, 800), FLOATS, INTS, WORDS), min_size=2, max_size=3)


@st.composite
def calibration_texts(draw) -> str:
    if draw(st.integers(0, 9)) == 0:
        return draw(st.one_of(st.text(max_size=40), st.integers(1, 100_000).map(deep)))
    d = {"kind": draw(st.sampled_from(["yatzycam-calibration"] * 5 + ["other"])), "version": draw(st.sampled_from([1] * 5 + [2, "1"]))}
    d["image_size"] = draw(st.one_of(st.just([640, 480]), st.lists(st.one_of(INTS, FLOATS), max_size=3), WORDS))
    d["floor"] = draw(st.one_of(st.just([[10, 10], [600, 10], [600, 400]]), st.lists(POINT, max_size=6), INTS))
    if draw(st.booleans()):
        d["keep_zone"] = draw(st.one_of(st.none(), st.lists(POINT, max_size=5)))
    for key, strat in (("die_px", st.one_of(st.none(), FLOATS, INTS, WORDS)), ("n_dice", st.one_of(st.none(), INTS, st.booleans())),
                       ("pip_a", st.one_of(st.none(), FLOATS))):
        if draw(st.booleans()):
            d[key] = draw(strat)
    if draw(st.booleans()):
        png = draw(st.one_of(st.just(_SMALL), st.binary(max_size=40), st.just(b"GIF89a" + bytes(30)), st.just(_SMALL[:40])))
        d["empty_small_png"] = draw(st.one_of(st.just(base64.b64encode(png).decode()), WORDS, INTS))
    return json.dumps(d)


def check_calibration(box: Sandbox, text: str) -> None:
    cal = box.write("cal.json", text)
    image = str(box.dir / "missing.png")
    rc, _, errors = box.run(["read", "--calibration", cal, image])
    assert rc == 2 and len(errors) == 1, errors
    if errors[0].startswith(f"yatzycam read: {image}: "):  # the calibration was taken: it must be usable
        from calibration import load

        c = load(cal)
        img = c.empty_image()
        assert img is None or img.ndim == 3
        assert all(math.isfinite(v) and abs(v) < 10**6 for p in c.floor for v in p)
    else:
        assert errors[0].startswith(f"yatzycam read: {cal}: "), errors


@FAST
@given(calibration_texts())
def test_calibration(text):
    sandboxed(check_calibration)(text)


@pytest.mark.slow
@pytest.mark.fuzz_slow
@SLOW
@given(calibration_texts())
def test_calibration_slow(text):
    sandboxed(check_calibration)(text)


# ----------------------------------------------------------------------------- image header

SIDES = st.one_of(st.integers(0, 70), st.integers(0, 2**32 - 1), st.sampled_from([20000, 8000, 7072, 65535]))


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


@st.composite
def image_bytes(draw) -> bytes:
    w, h = draw(SIDES), draw(SIDES)
    tail = draw(st.binary(max_size=40))
    form = draw(st.sampled_from(["png", "jpeg", "bmp", "ppm", "raw", "real"]))
    if form == "png":
        ihdr = struct.pack(">IIBBBBB", w, h, draw(st.sampled_from([8, 1, 16, 3])), draw(st.sampled_from([2, 0, 6, 3, 7])), 0, 0, 0)
        body = _chunk(b"IHDR", ihdr) + _chunk(b"IDAT", zlib.compress(tail)) * draw(st.integers(0, 1))
        return b"\x89PNG\r\n\x1a\n" + body + (_chunk(b"IEND", b"") if draw(st.booleans()) else b"")
    if form == "jpeg":
        sof = b"\xff\xc0" + struct.pack(">HBHHB", 11, 8, h & 0xFFFF, w & 0xFFFF, 1) + b"\x01\x11\x00"
        return b"\xff\xd8" + sof + tail + (b"\xff\xd9" if draw(st.booleans()) else b"")
    if form == "bmp":
        return b"BM" + struct.pack("<IHHIIiiHHII", 54 + len(tail), 0, 0, 54, 40, w & 0x7FFFFFFF, h & 0x7FFFFFFF, 1, 24, 0, len(tail)) + bytes(16) + tail
    if form == "ppm":
        return f"P6\n{w} {h}\n255\n".encode() + tail
    if form == "real":  # a real small picture, perhaps cut short
        img = np.random.default_rng(draw(st.integers(0, 9))).integers(0, 255, (draw(st.integers(8, 64)), draw(st.integers(8, 64)), 3), np.uint8)
        data = cv2.imencode(draw(st.sampled_from([".png", ".jpg", ".bmp"])), img)[1].tobytes()
        return data[: draw(st.integers(1, len(data)))] if draw(st.booleans()) else data
    return tail


def check_images(box: Sandbox, images: list[bytes]) -> None:
    paths = [box.write(f"img{i}.png", data) for i, data in enumerate(images)]
    rc, out, errors = box.run(["read", *paths])
    named = [next(p for p in paths if e.startswith(f"yatzycam read: {p}: ")) for e in errors]
    assert len(set(named)) == len(named) and len(out) == len(paths) - len(errors), (errors, out)  # a line for each good one


@FAST
@given(st.lists(image_bytes(), min_size=1, max_size=3))
def test_image_header(images):
    sandboxed(check_images)(images)


@pytest.mark.slow
@pytest.mark.fuzz_slow
@SLOW
@given(st.lists(image_bytes(), min_size=1, max_size=3))
def test_image_header_slow(images):
    sandboxed(check_images)(images)


# ----------------------------------------------------------------------------- database rows

_TEMPLATE: list[Path] = []


def template_db() -> Path:
    """Game 1 finished (every box of yatzy scored), game 2 playing with a throw."""
    if not _TEMPLATE:
        from controller.game.game import Setup
        from controller.game.rules import load
        from controller.store import Store

        path = ROOT / "template.sqlite"
        with Store(path) as s:
            g1 = s.new_game(Setup.create("yatzy", ["Anna"]))
            for b in load("yatzy").box_ids:
                s.append(g1, {"throw": [1, 2, 3, 4, 5]})
                s.append(g1, {"score": b})
            g2 = s.new_game(Setup.create("yatzy", ["Anna", "Bo"]))
            s.append(g2, {"throw": [6, 6, 6, 6, 6]})
        _TEMPLATE.append(path)
    return _TEMPLATE[0]


CELLS = [("games", c) for c in ("rules", "players", "setup", "status", "finished_at", "result", "created", "id")] + \
        [("events", c) for c in ("event", "seq", "at", "game_id")] + [("meta", "value")]
CELL_VALUES = st.one_of(st.none(), INTS, st.floats(allow_nan=False), st.text(max_size=20), st.binary(max_size=8),
                        JSON_JUNK.map(json.dumps), st.sampled_from(["{bad", '[{"name": "Anna"}]', "[1]", deep(100_000), "99"]))


def check_db(box: Sandbox, edits: list[tuple[tuple[str, str], int, object]]) -> None:
    db = box.dir / "g.sqlite"
    shutil.copy(template_db(), db)
    c = sqlite3.connect(db)
    c.execute("PRAGMA synchronous=OFF")  # (the edit need not survive a power cut: no fsync)
    for (table, col), row, value in edits:
        try:
            c.execute(f"UPDATE {table} SET {col}=? WHERE rowid IN (SELECT rowid FROM {table} LIMIT 1 OFFSET ?)" if table != "events"
                      else f"UPDATE events SET {col}=? WHERE (game_id, seq) IN (SELECT game_id, seq FROM events LIMIT 1 OFFSET ?)",
                      (value, row))
        except sqlite3.Error:  # (a CHECK, a key or a type the schema refuses: not an edit the file can hold)
            pass
    c.commit()
    c.close()
    for argv in (["history", "--all"], ["history", "--json"], ["export", "1"], ["export", "2", "--format", "csv"]):
        rc, _, errors = box.run([*argv, "--db", str(db)])
        if argv[0] == "export":
            assert rc == 0 or len(errors) == 1, errors
        assert all(e.startswith(f"yatzycam {argv[0]}: ") for e in errors) and len(errors) <= 3, errors


@FAST
@given(st.lists(st.tuples(st.sampled_from(CELLS), st.integers(0, 20), CELL_VALUES), min_size=1, max_size=2))
def test_database_rows(edits):
    sandboxed(check_db)(edits)


@pytest.mark.slow
@pytest.mark.fuzz_slow
@SLOW
@given(st.lists(st.tuples(st.sampled_from(CELLS), st.integers(0, 20), CELL_VALUES), min_size=1, max_size=2))
def test_database_rows_slow(edits):
    sandboxed(check_db)(edits)


# ----------------------------------------------------------------------------- command lines


def _options() -> dict[str, list[str]]:
    """Each command's option strings (--help left out: it ends the parse with the whole help)."""
    sub = cli_main._subparsers(BUILD_PARSER())
    return {name: sorted(s for a in p._actions for s in a.option_strings if s not in ("-h", "--help"))
            for name, p in sub.choices.items()}


OPTIONS = _options()
ARG_JUNK = st.one_of(
    st.sampled_from(["", "-", "--", "-x", "--bogus", "0", "-1", "7", "1e308", "nan", "inf", "٣", "1_0", "²", "3 3 5 4 5",
                     "a\nb", "yatzy", "x" * 300, "9" * 40, "--rules=yatzy", "--rul", "-h", "json"]),
    st.text(max_size=10), st.integers().map(str), st.floats().map(str))


@st.composite
def argvs(draw) -> list[str]:
    if draw(st.integers(0, 9)) == 0:  # no command, or not one
        return draw(st.lists(ARG_JUNK, max_size=3))
    command = draw(st.sampled_from(sorted(OPTIONS)))
    token = st.one_of(st.sampled_from(OPTIONS[command]), ARG_JUNK) if OPTIONS[command] else ARG_JUNK
    return [command, *draw(st.lists(token, max_size=8))]


_STUBBED: list = []  # a parser of its own whose handlers only record their arguments
_RAN: list = []


def stubbed_parser():
    if not _STUBBED:
        parser = BUILD_PARSER()
        for p in cli_main._subparsers(parser).choices.values():
            p.set_defaults(func=lambda args: _RAN.append(args) or 0)
        _STUBBED.append(parser)
    return _STUBBED[0]


def check_argv(box: Sandbox, argv: list[str]) -> None:
    """The parse alone: every command's handler is a stub (the other kinds run the real ones)."""
    _RAN.clear()
    ran = _RAN
    with mock.patch.object(cli_main, "build_parser", stubbed_parser):
        rc, out, errors = box.run(argv)
    if rc == 2:
        (line,) = errors  # one line, never the usage
        command = argv[0] if argv and argv[0] in OPTIONS else None
        assert line.startswith(f"yatzycam {command}: " if command else "yatzycam: "), line
        assert line.endswith(f"(see yatzycam{' ' + command if command else ''} --help)") or "(choose from" in line, line
        assert not ran and "usage:" not in line
    elif out and out[0].startswith("usage: "):  # -h: the whole help, nothing run
        assert not ran and any(x in ("-h", "--help") for x in argv) and "options:" in out
    else:
        assert len(ran) == 1 and ran[0].command == argv[0]


@FAST
@given(argvs())
def test_command_lines(argv):
    sandboxed(check_argv)(argv)


@pytest.mark.slow
@pytest.mark.fuzz_slow
@SLOW
@given(argvs())
def test_command_lines_slow(argv):
    sandboxed(check_argv)(argv)


@pytest.mark.parametrize("command", [None, *sorted(OPTIONS)])
def test_help_is_the_whole_help_and_exit_0(command, capsys):
    argv = [command, "--help"] if command else ["--help"]
    assert main(argv) == 0
    out, err = capsys.readouterr()
    assert out.startswith(f"usage: yatzycam{' ' + command if command else ''} ") and "options:" in out and err == ""
