"""The reader: verdict rules, bad frames, the model's thresholds, each detection's status, and
rendered tray scenes read with and without a calibration by the committed model."""

from __future__ import annotations

import json
from pathlib import Path
from unittest import mock

import cv2
import numpy as np
import pytest

from calibration import Calibration, calibrate
from vision import reader
from vision.detector import Die, ModelError
from vision.faces import NOT_A_DIE, NOT_READABLE
from vision.reader import DieReading, FrameError, Reading, Thresholds, load_image, read, verdict_of



# The committed models are below issue 26's targets (see vision/model/MODEL_CARD.md): these read
# whole throws as the targets ask and fail with them today; strict, so they fail loudly once they read them.
BELOW_TARGET = pytest.mark.xfail(strict=True, reason="the committed models are below the reader's targets")


def _dice(*spec: tuple[int | None, str]) -> tuple[DieReading, ...]:
    return tuple(DieReading(v, (10.0 * i, 5.0), s) for i, (v, s) in enumerate(spec))


def test_verdict_rules() -> None:
    ok = verdict_of(_dice((3, "ok"), (5, "ok"), (1, "ok")), 3)
    assert ok.verdict == "ok" and ok.reasons == () and ok.values == (1, 3, 5)
    missing = verdict_of(_dice((3, "ok"), (5, "ok")), 3)
    assert missing.verdict == "reroll" and missing.reasons == ("missing",) and missing.values == (3, 5)
    extra = verdict_of(_dice((3, "ok"), (5, "ok"), (2, "ok"), (2, "ok")), 3)
    assert extra.reasons == ("extra",)
    mixed = verdict_of(_dice((3, "ok"), (None, "unreadable"), (None, "cocked"), (None, "off_tray")), 5)
    assert mixed.reasons == ("cocked", "off_tray", "missing", "unreadable")
    assert mixed.values == (3,)  # values are the ok dice, whatever the verdict
    assert verdict_of(_dice((3, "ok")), None).verdict == "ok"  # no count: nothing missing


@pytest.mark.parametrize("probs, cls, face", [
    ((0.1, 0.05, 0.7, 0.05, 0.0, 0.0, 0.1, 0.0), 2, 3),
    ((0.3, 0.0, 0.0, 0.0, 0.0, 0.3, 0.4, 0.0), NOT_READABLE, None),
    ((0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.45, 0.55), NOT_A_DIE, None),
    ((0.25, 0.25, 0.25, 0.25, 0.0, 0.0, 0.0, 0.0), 0, 1),  # a tie: the first, as np.argmax
    ((0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.5, 0.5), NOT_READABLE, None),
])
def test_a_detections_class_is_its_most_likely_the_first_of_equals(probs, cls, face) -> None:
    d = Die(10.0, 20.0, 30.0, 0.9, probs)
    assert d.cls == cls == int(np.argmax(probs)) and d.face == face and d.conf == max(probs)
    assert Die(10.0, 20.0, 30.0, 0.9, np.array(probs, np.float32)).cls == cls


def test_reading_json_shape() -> None:
    r = Reading(_dice((4, "ok"), (None, "cocked")), "reroll", ("cocked",), 3.14159)
    j = r.to_json("a.png")
    assert list(j) == ["image", "verdict", "reasons", "values", "dice", "ms"]
    assert j["dice"][1] == {"value": None, "center": [10.0, 5.0], "status": "cocked"}
    assert j["values"] == [4] and j["ms"] == 3.14
    assert set(reader.REASONS) == {"cocked", "off_tray", "missing", "extra", "unreadable"}
    assert set(reader.STATUSES) == {"ok", "cocked", "off_tray", "unreadable"}


@pytest.mark.parametrize("frame, why", [
    (np.zeros((480, 640, 3), np.uint8), "black"),
    (np.full((480, 640, 3), 128, np.uint8), "blank"),
    (np.zeros((8, 8, 3), np.uint8), "not an image"),
    (np.zeros((480, 640, 3), np.float32), "not an image"),
    (np.zeros((480, 640, 2), np.uint8), "not an image"),
    ("frame.png", "not an image"),
])
def test_bad_frames_raise_one_line(frame, why: str) -> None:
    with pytest.raises(FrameError) as e:
        read(frame)
    assert why in str(e.value) and "\n" not in str(e.value)
    assert e.value.user_error


def test_bad_files(tmp_path) -> None:
    (tmp_path / "empty.png").write_bytes(b"")
    (tmp_path / "text.png").write_text("not a picture")
    (tmp_path / "folder.png").mkdir()
    ok, jpg = cv2.imencode(".jpg", np.random.default_rng(0).integers(0, 255, (64, 64, 3), np.uint8))
    (tmp_path / "cut.jpg").write_bytes(jpg.tobytes()[:400])
    for name, why in (("missing.png", "no such file"), ("empty.png", "empty file"), ("text.png", "not an image"),
                      ("cut.jpg", "truncated"), ("folder.png", "folder")):
        with pytest.raises(FrameError, match=why):
            load_image(str(tmp_path / name))


def test_a_frame_of_another_size_than_the_calibration() -> None:
    cal = Calibration((640, 480), ((10.0, 10.0), (600.0, 10.0), (600.0, 400.0)), die_px=30.0)
    frame = np.random.default_rng(1).integers(0, 255, (240, 320, 3), np.uint8)
    with pytest.raises(FrameError, match="calibrate again"):
        read(frame, cal)


# ------------------------------------------------------------------ the model and its thresholds

def test_thresholds_file(tmp_path: Path) -> None:
    assert reader.load_thresholds(tmp_path / "none.json") == Thresholds(reader.DIE_SCORE, reader.FACE_PROB)
    p = tmp_path / "thresholds.json"
    p.write_text(json.dumps({"die": 0.4, "face": 0.97, "n": 1234, "method": "held-out scenes"}))
    assert reader.load_thresholds(p) == Thresholds(0.4, 0.97)
    p.write_text(json.dumps({"face": 0.95}))  # a missing key keeps its default
    assert reader.load_thresholds(p) == Thresholds(reader.DIE_SCORE, 0.95)
    p.write_text(json.dumps({"die": 0.4, "face": 0.97, "mirror": True}))  # cuts for a mirrored read
    assert reader.load_thresholds(p) == Thresholds(0.4, 0.97, True)
    p.write_text(json.dumps({"die": 0.4, "face": 0.997, "mirror": True, "heat_weight": 0.75}))
    assert reader.load_thresholds(p) == Thresholds(0.4, 0.997, True, 0.75)
    for text, why in (("{", "damaged"), ("[0.5, 0.9]", "damaged"), ('{"die": "high"}', "damaged"),
                      ('{"mirror": "yes"}', "true or false"), ('{"heat_weight": -1}', "heat_weight"),
                      ('{"heat_weight": "much"}', "damaged"),
                      ('{"die": 0.5, "face": 1.5}', "between 0 and 1"), ('{"die": 0}', "between 0 and 1")):
        p.write_text(text)
        with pytest.raises(ModelError, match=why) as e:
            reader.load_thresholds(p)
        assert str(p) in str(e.value) and "\n" not in str(e.value) and e.value.user_error


def test_the_committed_model_and_thresholds_are_sane() -> None:
    m = reader.model()
    th = m.thresholds
    assert 0.0 < th.die < 1.0 and 0.5 <= th.face <= 1.0
    assert reader.model() is m  # loaded once per process
    assert reader.model(m.detector.path) is m  # the cache is keyed by the model file
    assert m.faces.path == reader.faces_path(m.detector.path) == m.detector.path.with_name("dice.faces.onnx")


def test_a_detector_without_its_face_net_is_one_clear_line(tmp_path: Path) -> None:
    lone = tmp_path / "dice.onnx"
    lone.write_bytes(reader.model().detector.path.read_bytes())
    with pytest.raises(ModelError, match="face model") as e:
        reader.model(lone)
    assert "dice.faces.onnx" in str(e.value) and "\n" not in str(e.value) and e.value.user_error


def test_a_missing_model_is_one_clear_line(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match="no such model file") as e:
        reader.model(tmp_path / "gone.onnx")
    assert e.value.user_error and "\n" not in str(e.value)


# ------------------------------------------------------------------ each detection's status

FLOOR = ((100.0, 100.0), (500.0, 100.0), (500.0, 380.0), (100.0, 380.0))
KEEP = ((520.0, 100.0), (630.0, 100.0), (630.0, 380.0), (520.0, 380.0))


def _die(x: float, y: float, face: int | None, p: float, size: float = 30.0, score: float = 0.9,
         cls: int | None = None) -> Die:
    """A detection with the face net's eight class probabilities: `face` (None: not readable, or `cls`) at p."""
    cls = (NOT_READABLE if face is None else face - 1) if cls is None else cls
    rest = (1.0 - p) / 7.0
    return Die(x, y, size, score, tuple(p if i == cls else rest for i in range(8)))


def test_each_detection_gets_its_status() -> None:
    th = Thresholds(0.5, 0.9)
    cal = Calibration((640, 480), FLOOR, KEEP, die_px=30.0)
    assert reader.judge(_die(300, 200, 4, 0.97), th, cal) == DieReading(4, (300, 200), "ok", "", 30.0, 0.97)
    assert reader.judge(_die(300, 200, None, 0.6), th, cal).status == "cocked"
    assert reader.judge(_die(300, 200, None, 0.6, cls=NOT_A_DIE), th, cal).status == "unreadable"  # never a face
    low = reader.judge(_die(300, 200, 6, 0.85), th, cal)
    assert low.status == "unreadable" and low.value is None  # a doubt is never a face
    assert reader.judge(_die(300, 200, 6, 0.85), Thresholds(0.5, 0.8), cal).value == 6
    # outside the floor: on the rim or the table, unless in the keep zone
    assert reader.judge(_die(80, 200, 2, 0.99), th, cal).status == "off_tray"
    assert reader.judge(_die(575, 240, 2, 0.99), th, cal).status == "ok"  # in the keep zone
    assert reader.judge(_die(508, 240, 2, 0.99), th, cal).status == "off_tray"  # between tray and keep zone
    assert reader.judge(_die(80, 200, 2, 0.99), th).status == "ok"  # no calibration: no floor


def test_a_faces_sureness_joins_the_detectors_heat_by_its_weight() -> None:
    assert reader.sureness(0.996, 0.2, 0.0) == 0.996  # weight 0: the face net's probability alone
    assert reader.sureness(0.996, 0.5, 0.75) == pytest.approx(0.996)  # an even heat says nothing
    assert reader.sureness(0.99, 0.95, 0.75) > 0.99 > reader.sureness(0.99, 0.4, 0.75)
    assert reader.sureness(0.99, 0.95, 1.0) > reader.sureness(0.99, 0.95, 0.5)
    got = reader.sureness(np.array([0.9, 0.999, 0.0, 1.0]), np.array([0.9, 0.3, 0.9, 1.0]), 0.75)
    assert got.shape == (4,) and np.all((got >= 0.0) & (got <= 1.0)) and got[2] < 1e-6  # arrays too, no overflow
    th = Thresholds(0.3, 0.995, heat=0.75)
    assert reader.judge(_die(300, 200, 5, 0.99, score=0.95), th).status == "ok"  # sure of a die here: passes
    weak = reader.judge(_die(300, 200, 5, 0.996, score=0.35), th)
    assert weak.status == "unreadable" and weak.value is None  # a faint detection: doubted
    assert reader.judge(_die(300, 200, 5, 0.996, score=0.35), Thresholds(0.3, 0.995)).status == "ok"  # weight 0


def test_of_a_die_found_at_several_levels_the_surest_read_of_about_its_size_is_kept() -> None:
    # one large die: found strongest at one level (read 4, unsure), and at another level at about
    # the same size (read 6, sure); a second die beside it, found once
    strong = _die(200, 200, 4, 0.7, size=110.0, score=0.9)
    whole = _die(204, 198, 6, 0.999, size=130.0, score=0.6)
    beside = _die(340, 200, 2, 0.99, size=120.0, score=0.8)
    kept = reader.surest([strong, whole, beside])
    assert len(kept) == 2
    one = next(d for d in kept if d.x < 300)
    assert one.face == 6 and one.size == 130.0 and one.score == 0.9  # the surest read, the strongest heat
    assert next(d for d in kept if d.x > 300) == beside
    # a part of the die (half its size, two rows of a six) read sure as a 4 does not overrule it, nor
    # does a detection of about twice its size; the die's own read stands, sure or not
    part = _die(190, 205, 4, 0.9999, size=60.0, score=0.5)
    big = _die(200, 200, 3, 0.9999, size=260.0, score=0.3)
    assert [d.face for d in reader.surest([whole, part])] == [6]
    assert [(d.face, d.size) for d in reader.surest([strong, part, big])] == [(4, 110.0)]
    assert reader.surest([strong, part])[0].probs == strong.probs  # (read 4 unsure: a doubt)
    # a face beats "not readable" however sure; no face at all: the strongest stays
    cocked = _die(200, 200, None, 0.95, size=110.0, score=0.9)
    assert reader.surest([cocked, whole])[0].face == 6
    flat_doubt = _die(202, 200, None, 0.6, size=90.0, score=0.5)
    assert reader.surest([cocked, flat_doubt]) == [cocked]
    # a coarse detection spanning two dice does not join either die's group, and goes with the strongest
    span = _die(270, 200, 1, 0.9999, size=300.0, score=0.3)
    kept = reader.surest([strong, whole, beside, span])
    assert sorted(d.face for d in kept) == [2, 6]


def test_off_tray_lies_between_a_flat_die_and_a_die_on_the_rim() -> None:
    cal = Calibration((640, 480), FLOOR, None, die_px=30.0)
    assert not reader.off_tray(cal, 100 + 0.3 * 30, 240, 30.0)  # flat against the left wall
    assert reader.off_tray(cal, 100 - 0.5 * 30, 240, 30.0)  # on the rim
    assert reader.off_tray(cal, 20, 20, 30.0)  # on the table
    kept = Calibration((640, 480), FLOOR, KEEP, die_px=30.0)
    assert not reader.off_tray(kept, 520 - 0.1 * 30, 240, 30.0)  # at the keep zone's edge
    assert reader.off_tray(kept, 520 - 0.5 * 30, 240, 30.0)


def test_the_region_takes_in_the_floor_keep_zone_and_a_margin() -> None:
    cal = Calibration((640, 480), FLOOR, KEEP, die_px=30.0)
    x0, y0, x1, y1 = reader.region(cal, 30.0)
    assert (x0, y0) == (100 - 45, 100 - 45) and x1 == 640 and y1 == 380 + 45 + 1
    assert reader.region(Calibration((640, 480), FLOOR), None)[0] == 100 - 40  # a tenth of the floor


# ------------------------------------------------------------------ rendered scenes

synthetic = pytest.importorskip("vision.synthetic")


def _table(seed: int, n: int, condition: str, size=(640, 480), **kw):
    """(frame, calibration from the empty tray and a reference throw, truth, scene)."""
    rng = np.random.default_rng(seed)
    scene = synthetic.random_scene(rng, n, size, condition, **kw)
    ref = synthetic.reference_scene(rng, n, size, like=scene)
    cal = calibrate(synthetic.render_empty(scene), synthetic.render(ref), n)
    return synthetic.render(scene), cal, synthetic.truth(scene), scene


@pytest.fixture(scope="module")
def clean() -> list:
    return [_table(300 + i, (5, 6, 8)[i % 3], "clean") for i in range(4)]


def _top_side(scene, i: int) -> float:
    """The side of die i's top face in the image (it lies a die nearer the camera than the floor)."""
    d = scene.dice[i]
    return d.size_px * scene.camera_height / (scene.camera_height - d.base_z - d.size_px)


def test_the_reference_throw_gives_the_die_size(clean: list) -> None:
    for frame, cal, truth, scene in clean:
        assert cal.die_px is not None
        assert abs(cal.die_px / _top_side(scene, 0) - 1.0) < 0.15, (cal.die_px, _top_side(scene, 0))


def test_every_die_passed_ok_on_clean_scenes_is_right(clean: list) -> None:
    """Every die ok reads its own face; a throw not read whole is refused with a reason."""
    for frame, cal, truth, scene in clean:
        r = read(frame, cal, truth.expected_n)
        for d in r.dice:
            if d.status == "ok":
                near = min(truth.dice, key=lambda t: np.hypot(t.center[0] - d.center[0], t.center[1] - d.center[1]))
                assert np.hypot(near.center[0] - d.center[0], near.center[1] - d.center[1]) < 0.5 * d.size
                assert d.value == near.face, f"read {d.value} on a {near.face}"
        assert r.verdict == "ok" or r.reasons


@BELOW_TARGET
def test_clean_scenes_read_whole(clean: list) -> None:
    exact = sum(r.verdict == "ok" and r.values == t.values
                for r, t in ((read(f, c, t.expected_n), t) for f, c, t, _ in clean))
    assert exact >= 3


def test_missing_and_extra_against_the_count(clean: list) -> None:
    frame, cal, truth, _ = clean[0]
    n = len(read(frame, cal).dice)
    assert n == len(truth.dice)
    assert "missing" in read(frame, cal, n + 1).reasons
    assert "extra" in read(frame, cal, n - 1).reasons
    assert not {"missing", "extra"} & set(read(frame, cal, n).reasons)


def test_a_missing_die_is_named() -> None:
    frame, cal, truth, _ = _table(210, 6, "missing")
    r = read(frame, cal, 6)
    assert r.verdict == "reroll" and "missing" in r.reasons


@pytest.mark.parametrize("seed", [500, 501])
def test_a_cocked_throw_is_refused(seed: int) -> None:
    frame, cal, truth, _ = _table(seed, 5, "cocked")
    assert "cocked" in truth.reasons
    assert read(frame, cal, 5).verdict == "reroll"


def test_a_cocked_die_is_refused_and_mostly_named_cocked() -> None:
    """Every cocked throw is refused; most say "cocked" (the others "unreadable": the face net's
    doubt about a leaning die can be its face rather than its lean; the bench gives the rate)."""
    named = 0
    for seed in range(500, 510):
        frame, cal, truth, _ = _table(seed, 5, "cocked")
        r = read(frame, cal, 5)
        assert r.verdict == "reroll", seed
        named += "cocked" in r.reasons
    assert named >= 5


@pytest.mark.parametrize("seed", [600, 601])
def test_a_die_off_the_tray_is_flagged(seed: int) -> None:
    frame, cal, truth, _ = _table(seed, 5, "off_tray", keep_zone=False)
    r = read(frame, cal, 5)
    assert r.verdict == "reroll" and "off_tray" in r.reasons
    for t in truth.dice:
        if t.status == "off_tray":
            d = min(r.dice, key=lambda d: np.hypot(t.center[0] - d.center[0], t.center[1] - d.center[1]))
            assert np.hypot(t.center[0] - d.center[0], t.center[1] - d.center[1]) < 0.5 * d.size
            assert d.status in ("off_tray", "cocked", "unreadable")  # never ok


@pytest.mark.parametrize("seed", [640, 658])
def test_a_die_that_rolled_far_off_the_tray_is_called_off_the_tray_not_missing(seed: int) -> None:
    """The calibrated reader looks MARGIN dice around the floor; when it finds fewer dice than the
    throw has, it looks at the rest of the frame (reader.beyond), so the die on the table is named."""
    frame, cal, truth, _ = _table(seed, 5, "off_tray", keep_zone=False)
    x0, y0, x1, y1 = reader.region(cal, cal.die_px)
    far = [t for t in truth.dice if t.status == "off_tray" and not (x0 <= t.center[0] < x1 and y0 <= t.center[1] < y1)]
    assert far, "the scene has no die beyond the region: the test would not test beyond()"
    r = read(frame, cal, 5)
    assert r.verdict == "reroll" and "off_tray" in r.reasons and "missing" not in r.reasons
    for t in far:
        d = min(r.dice, key=lambda d: np.hypot(t.center[0] - d.center[0], t.center[1] - d.center[1]))
        assert np.hypot(t.center[0] - d.center[0], t.center[1] - d.center[1]) < 0.3 * d.size
        assert d.status == "off_tray"


def test_the_frame_beyond_the_region_is_read_only_where_the_region_leaves_room() -> None:
    frame, cal, truth, _ = _table(640, 5, "off_tray", keep_zone=False)
    m = reader.model()
    h, w = frame.shape[:2]
    assert reader.beyond(frame, m, cal.die_px, (0, 0, w, h), []) == []  # the region is the frame
    x0, y0, x1, y1 = reader.region(cal, cal.die_px)
    found = reader.beyond(frame, m, cal.die_px, (x0, y0, x1, y1), [])
    assert found and all(not (x0 <= d.x < x1 and y0 <= d.y < y1) for d in found)
    assert reader.beyond(frame, m, cal.die_px, (x0, y0, x1, y1), found) == []  # none twice


def test_a_missing_die_is_not_called_off_the_tray() -> None:
    frame, cal, truth, _ = _table(210, 6, "missing")
    r = read(frame, cal, 6)
    assert "missing" in r.reasons and "off_tray" not in r.reasons


def _plain_render():
    rng = np.random.default_rng(700)
    scene = synthetic.reference_scene(rng, 5, (640, 480))
    return synthetic.render(scene), synthetic.truth(scene)


def test_no_calibration_finds_dice_on_a_plain_top_down_render() -> None:
    frame, truth = _plain_render()
    r = read(frame, None, 5)
    assert r.dice
    for d in r.dice:
        near = min(truth.dice, key=lambda t: np.hypot(t.center[0] - d.center[0], t.center[1] - d.center[1]))
        assert np.hypot(near.center[0] - d.center[0], near.center[1] - d.center[1]) < 0.3 * d.size
        if d.status == "ok":
            assert d.value == near.face


def test_no_calibration_reads_a_plain_top_down_render() -> None:
    frame, truth = _plain_render()
    r = read(frame, None, 5)
    assert r.verdict == "ok" and r.values == truth.values, (r.values, r.reasons, truth.values)


def test_a_calibration_without_die_size_still_reads(clean: list) -> None:
    """An empty-tray calibration alone (no reference throw): the pyramid over the tray's region."""
    frame, cal, truth, _ = clean[1]
    bare = Calibration(cal.image_size, cal.floor, cal.keep_zone, None, cal.n_dice, cal.empty_small)
    r = read(frame, bare, truth.expected_n)
    assert len(r.dice) == len(truth.dice)
    assert all(d.value in truth.values for d in r.dice if d.status == "ok")


def test_read_command_json_contract(tmp_path: Path, clean: list, capsys) -> None:
    from controller.cli.main import main

    frame, cal, truth, _ = clean[0]
    f = tmp_path / "frame.png"
    cv2.imwrite(str(f), frame)
    (tmp_path / "bad.png").write_text("no")
    rc = main(["read", "--json", "--dice", str(truth.expected_n), str(f), str(tmp_path / "bad.png")])
    o = capsys.readouterr()
    lines = [json.loads(x) for x in o.out.splitlines()]
    assert rc == 2 and len(lines) == 2 and o.err.count("\n") == 1 and "not an image" in o.err
    good, bad = lines
    assert list(good) == ["image", "verdict", "reasons", "values", "dice", "ms"]
    assert good["verdict"] in ("ok", "reroll") and set(good["reasons"]) <= set(reader.REASONS)
    assert all(set(d) == {"value", "center", "status"} and d["status"] in reader.STATUSES for d in good["dice"])
    assert good["ms"] > 0
    assert bad["verdict"] == "error" and bad["dice"] == [] and "not an image" in bad["error"]
    assert main(["read", str(f)]) == 0
    assert capsys.readouterr().out.startswith(f"{f}: ")
    # the line for people: a reroll says why and shows the dice seen, left to right, "?" where not read
    again = reader.Reading(tuple(reader.DieReading(v, c, st) for v, c, st in
                                 ((5, (90.0, 5.0), "ok"), (None, (10.0, 50.0), "cocked"), (2, (50.0, 9.0), "ok"))),
                           "reroll", ("cocked",))
    with mock.patch.object(reader, "read", return_value=again):
        assert main(["read", str(f)]) == 0
    assert capsys.readouterr().out == f"{f}: reroll 2 5 (throw again: cocked; seen left to right: ? 2 5)\n"


def test_a_calibrated_read_looks_only_at_the_trays_region(clean: list) -> None:
    """The calibrated reader converts only the tray's region: the dice (centres in the frame's pixels,
    the face net's probabilities, its crops turned toward the whole frame's centre) are those of the
    whole frame read over that region."""
    for frame, cal, truth, scene in clean[:2]:
        gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        x0, y0, x1, y1 = reader.region(cal, cal.die_px)
        m = reader.model()
        whole = reader.look(gray, m, die_px=cal.die_px, roi=(x0, y0, x1, y1))
        part = reader.look(gray[y0:y1, x0:x1], m, die_px=cal.die_px, window=(x0, y0, *cal.image_size))
        assert len(whole) == len(part) > 0
        for a, b in zip(whole, part):
            assert abs(a.x - b.x) < 1e-6 and abs(a.y - b.y) < 1e-6
            inner = x0 + cal.die_px < a.x < x1 - cal.die_px and y0 + cal.die_px < a.y < y1 - cal.die_px
            if inner:  # (a crop at the region's edge sees the edge repeated rather than the frame)
                assert np.allclose(a.probs, b.probs, atol=1e-4)


def test_the_die_size_hardly_moves_with_the_region_it_is_read_in() -> None:
    """A reference throw read in the same region moved by a few pixels gives nearly the same die size
    (one read's size moved by up to 30% so: where a die falls on the net's grid; pooled over scales)."""
    for seed in (300, 301, 302):
        rng = np.random.default_rng(seed)
        n = (5, 6, 8)[seed % 3]
        scene = synthetic.random_scene(rng, n, (640, 480), "clean")
        ref = synthetic.render(synthetic.reference_scene(rng, n, (640, 480), like=scene))
        x0, y0, x1, y1 = reader.region(calibrate(synthetic.render_empty(scene)), None)
        sizes = [reader.die_size(ref, n, roi=(max(0, x0 + d), max(0, y0 + d), min(640, x1 - d), min(480, y1 - d)))
                 for d in range(-6, 7, 2)]
        assert None not in sizes and max(sizes) / min(sizes) < 1.12, (seed, sizes)
