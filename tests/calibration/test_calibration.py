"""Calibration: the tray floor found on rendered trays, the profile's JSON round trip and its clear errors,
and the `calibrate` / `read` commands' exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration import Calibration, CalibrationError, calibrate, check_frame, load, save
from controller.cli.main import main
from vision import tray

synthetic = pytest.importorskip("vision.synthetic")


@pytest.fixture(scope="module")
def scenes() -> dict:
    out = {}
    for i, shape in enumerate(("rect", "rounded", "hex")):
        rng = np.random.default_rng(40 + i)
        sc = synthetic.random_scene(rng, 5, (640, 480), "clean", tray_shape=shape, keep_zone=False)
        out[shape] = (sc, synthetic.render_empty(sc))
    rng = np.random.default_rng(7)
    sc = synthetic.random_scene(rng, 6, (640, 480), "clean", keep_zone=True)
    out["keep"] = (sc, synthetic.render_empty(sc))
    return out


@pytest.mark.parametrize("shape", ["rect", "rounded", "hex"])
def test_floor_found(scenes: dict, shape: str) -> None:
    sc, empty = scenes[shape]
    floor = tray.find_floor(empty)
    assert tray.iou(floor, sc.tray.floor, sc.size) > 0.8
    # the middle of the tray is inside, the frame's corner is not
    assert tray.inside(floor, *sc.center) and not tray.inside(floor, 2, 2)


def test_keep_zone_found_only_when_marked(scenes: dict) -> None:
    sc, empty = scenes["keep"]
    assert sc.keep_zone is not None
    cal = calibrate(empty)
    assert cal.keep_zone is not None and tray.iou(cal.keep_zone, sc.keep_zone, sc.size) > 0.7
    sc2, empty2 = scenes["rect"]
    assert calibrate(empty2).keep_zone is None


def test_round_trip(tmp_path: Path, scenes: dict) -> None:
    sc, empty = scenes["rounded"]
    cal = calibrate(empty, n_dice=5)
    cal = Calibration(cal.image_size, cal.floor, ((1.0, 2.0), (30.0, 2.0), (30.0, 40.0)), 12.5, 4.0, True, 5,
                      cal.empty_small)
    p = save(cal, tmp_path / "cal.json")
    back = load(p)
    assert back.image_size == (640, 480) and back.pip_a == 12.5 and back.pip_dark is True and back.n_dice == 5
    assert back.keep_zone == cal.keep_zone
    assert np.allclose(np.array(back.floor), np.array(cal.floor), atol=0.01)
    assert back.empty_image() is not None and back.empty_image().shape[1] == 320


@pytest.mark.parametrize("text, why", [
    ("{not json", "not a calibration file"),
    ('{"kind": "something-else", "version": 1}', "not a yatzycam calibration"),
    ('[1, 2, 3]', "not a yatzycam calibration"),
    ('{"kind": "yatzycam-calibration", "version": 0}', "version 0"),
    ('{"kind": "yatzycam-calibration", "version": 1, "image_size": [640, 480]}', "damaged"),
    ('{"kind": "yatzycam-calibration", "version": 1, "image_size": [640, 480], "floor": [[0, 0], [1, 1]]}', "damaged"),
    ('{"kind": "yatzycam-calibration", "version": 1, "image_size": [640, 480], '
     '"floor": [[0, 0], [9, 0], [9, 9]], "pip_a": -3}', "damaged"),
])
def test_bad_files_are_one_clear_line(tmp_path: Path, text: str, why: str) -> None:
    p = tmp_path / "cal.json"
    p.write_text(text)
    with pytest.raises(CalibrationError) as e:
        load(p)
    assert why in str(e.value) and "\n" not in str(e.value) and str(p) in str(e.value)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(CalibrationError, match="no such calibration"):
        load(tmp_path / "nope.json")


def test_blank_empty_frame_fails() -> None:
    with pytest.raises(CalibrationError, match="empty frame"):
        calibrate(np.zeros((480, 640, 3), np.uint8))


def test_check_frame(scenes: dict) -> None:
    sc, empty = scenes["rect"]
    cal = calibrate(empty)
    assert check_frame(empty, cal) is None
    assert "640x480" in check_frame(cv2.resize(empty, (320, 240)), cal)
    moved = np.roll(empty, (90, 140), axis=(0, 1))
    assert check_frame(moved, cal) is not None


def test_commands(tmp_path: Path, scenes: dict, capsys) -> None:
    sc, empty = scenes["rect"]
    frame = synthetic.render(sc)
    e, f = tmp_path / "empty.png", tmp_path / "frame.png"
    cv2.imwrite(str(e), empty)
    cv2.imwrite(str(f), frame)
    out = tmp_path / "cal.json"
    assert main(["calibrate", "--empty", str(e), "--out", str(out)]) == 0
    assert json.loads(out.read_text())["kind"] == "yatzycam-calibration"
    capsys.readouterr()
    small = tmp_path / "small.png"
    cv2.imwrite(str(small), cv2.resize(frame, (320, 240)))
    rc = main(["read", "--calibration", str(out), "--dice", "5", "--json", str(f), str(small), str(tmp_path / "gone.png")])
    o = capsys.readouterr()
    lines = [json.loads(x) for x in o.out.splitlines()]
    assert rc == 2 and len(lines) == 3
    assert lines[0]["image"] == str(f) and lines[0]["verdict"] in ("ok", "reroll")
    assert set(lines[0]) == {"image", "verdict", "reasons", "values", "dice", "ms"}
    assert lines[1]["verdict"] == "error" and lines[2]["verdict"] == "error"
    err = o.err.strip().splitlines()
    assert len(err) == 2 and "calibrate again" in err[0] and "no such file" in err[1]
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    assert main(["read", "--calibration", str(bad), str(f)]) == 2
    assert capsys.readouterr().err.count("\n") == 1
    assert main(["calibrate", "--empty", str(tmp_path / "gone.png"), "--out", str(out)]) == 2
    assert main(["calibrate", "--empty", str(e), "--reference", str(f), "--out", str(out)]) == 2  # no --dice


def _table(style, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """(empty frame, reference frame of 5 flat dice) of one rendered table."""
    rng = np.random.default_rng(seed)
    sc = synthetic.random_scene(rng, 5, (640, 480), "clean", style=style, keep_zone=False)
    ref = synthetic.reference_scene(rng, 5, (640, 480), tray=sc.tray, lighting=sc.lighting,
                                    die_size=sc.dice[0].size_px, camera_height=sc.camera_height, style=style)
    return synthetic.render_empty(sc), synthetic.render(ref)


@pytest.mark.parametrize("style, kinds", [("white", "dark"), ("red", "light"), (("white", "red"), "both")])
def test_the_reference_throw_says_which_pips_the_set_has(style, kinds: str) -> None:
    empty, ref = _table(style, 11)
    assert calibrate(empty, ref, n_dice=5).pip_kinds == kinds
    # told of a sixth die the reference does not show, it cannot know that die's pips
    assert calibrate(empty, ref, n_dice=6).pip_kinds == "both"



def test_calibrate_says_which_pips_it_will_look_for(tmp_path: Path, capsys) -> None:
    empty, ref = _table("white", 11)
    e, r = tmp_path / "empty.png", tmp_path / "ref.png"
    cv2.imwrite(str(e), empty)
    cv2.imwrite(str(r), ref)
    assert main(["calibrate", "--empty", str(e), "--reference", str(r), "--dice", "5",
                 "--out", str(tmp_path / "cal.json")]) == 0
    assert "dark pips only" in capsys.readouterr().out
    assert main(["calibrate", "--empty", str(e), "--out", str(tmp_path / "cal2.json")]) == 0
    assert "pips only" not in capsys.readouterr().out


def test_pip_kinds_round_trip_and_older_files(tmp_path: Path, scenes: dict) -> None:
    sc, empty = scenes["rect"]
    cal = calibrate(empty)
    assert cal.pip_kinds == "both"  # no reference throw: look for both
    light = Calibration(cal.image_size, cal.floor, None, 10.0, 3.0, False, 5, cal.empty_small, "light")
    assert load(save(light, tmp_path / "cal.json")).pip_kinds == "light"
    d = json.loads((tmp_path / "cal.json").read_text())
    del d["pip_kinds"]  # a file from before the field: both kinds, as that yatzycam read them
    (tmp_path / "old.json").write_text(json.dumps(d))
    assert load(tmp_path / "old.json").pip_kinds == "both"
    d["pip_kinds"] = "plaid"
    (tmp_path / "bad.json").write_text(json.dumps(d))
    with pytest.raises(CalibrationError, match="damaged calibration \\(pip_kinds\\)"):
        load(tmp_path / "bad.json")


def test_the_reference_throw_grows_a_floor_found_too_small(monkeypatch) -> None:
    """The reference dice lie flat on the floor: a floor the finder cut short (a wall in deep shadow)
    is grown to take them in, and a reading of them is then no off-tray."""
    import sys

    empty, ref = _table("white", 11)
    true_floor = calibrate(empty).floor
    xs = [x for x, _ in true_floor]
    cut = min(xs) + 0.6 * (max(xs) - min(xs))  # keep the left 60% of the floor (one die lies beyond)
    short = tuple((min(x, cut), y) for x, y in true_floor)
    mod = sys.modules["calibration.calibrate"]
    monkeypatch.setattr(mod.tray, "find_floor", lambda frame, *a, **k: short)
    without = calibrate(empty, auto_keep_zone=False)
    assert without.floor == short
    cal = calibrate(empty, ref, n_dice=5, auto_keep_zone=False)
    from vision.reader import read

    seen = read(ref, cal, 5)
    assert seen.verdict == "ok", seen.reasons
    assert all(tray.inside(cal.floor, *d.center) for d in seen.dice)
    assert read(ref, without, 5).verdict == "reroll"  # the short floor puts some dice off the tray
