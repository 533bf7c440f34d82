"""The tray floor on trays that fill the frame, on frames of floor only and on real frames (dice painted
out, floors drawn by hand); the floor given by hand; the profile drawn on a frame."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration import calibrate, load
from calibration.bench import REAL, real
from calibration.draw import draw
from controller.cli.main import main
from vision import synthetic as S
from vision import tray
from vision.synthetic_trays import KINDS, random_tray, true_floor


def test_random_tray_kinds_and_truth():
    seen = set()
    for seed in range(40):
        sc = random_tray(np.random.default_rng(seed))
        seen.add(sc.tray.shape)
        w, h = sc.size
        tf = np.array(true_floor(sc))
        assert tf[:, 0].min() >= -1e-6 and tf[:, 0].max() <= w - 1 + 1e-6 and tf[:, 1].min() >= -1e-6 and tf[:, 1].max() <= h - 1 + 1e-6
        frac = tray.mask(tuple(map(tuple, tf)), (w, h)).mean()
        assert 0.27 <= frac <= 1.0
    assert seen == {"rect", "rounded", "round", "hex", "oct"}
    with pytest.raises(ValueError):
        random_tray(np.random.default_rng(0), "triangle-same")
    assert "floor" in KINDS and "oct-lighter" in KINDS


@pytest.mark.parametrize("kind,seed", [("floor", 2_000_001), ("round-lighter", 2_000_002), ("rect-same", 2_000_003)])
def test_floor_found_on_renders(kind, seed):
    sc = random_tray(np.random.default_rng(seed), kind)
    img = S.render(sc)
    found = tray.find_floor(img)
    assert tray.iou(found, true_floor(sc), sc.size) >= 0.9
    if kind == "floor":
        assert found == tray.whole_frame(sc.size)


def test_real_frames_found_with_their_hand_drawn_floors():
    """33 real frames: every floor found, each with IoU >= 0.9 with the hand-drawn floor (the issue's
    target; measured: the worst 0.914, a webcam desk)."""
    r = real(REAL)
    assert r["n"] >= 30 and r["found"] == r["n"]
    assert r["iou_ge_0.9"] == r["n"] and r["iou_min"] >= 0.9


def test_floor_by_hand_and_whole_frame(tmp_path: Path, capsys):
    name = "webcam-dice_1.jpg"
    empty = tmp_path / "empty.png"
    cv2.imwrite(str(empty), cv2.imread(str(REAL / name)))
    out = tmp_path / "cal.json"
    assert main(["calibrate", "--empty", str(empty), "--floor", "20,30,600,30,600,450,20,450", "--out", str(out)]) == 0
    assert load(out).floor == ((20.0, 30.0), (600.0, 30.0), (600.0, 450.0), (20.0, 450.0))
    before = out.read_bytes()
    # a polygon off the frame, or a sliver: one line, exit 2, the old profile left in place
    for bad in ("20,30,900,30,600,450", "10,10,12,10,12,12"):
        assert main(["calibrate", "--empty", str(empty), "--floor", bad, "--out", str(out)]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and "--floor" in err[0]
        assert out.read_bytes() == before
    assert main(["calibrate", "--empty", str(empty), "--whole-frame", "--out", str(out)]) == 0
    assert np.allclose(load(out).floor, tray.whole_frame((640, 480)), atol=0.01)
    # the drawing: written, the floor's outline in green where the polygon runs
    pic = tmp_path / "show.png"
    assert main(["show-calibration", str(out), str(empty), "--out", str(pic)]) == 0
    img = cv2.imread(str(pic))
    assert img.shape == (480, 640, 3)
    x0, y0 = (round(v) for v in tray.whole_frame((640, 480))[0])
    assert img[240, x0, 1] > 150 and img[240, x0, 1] > img[240, x0, 2] + 60  # the left side is green
    assert main(["show-calibration", str(out), str(tmp_path / "gone.png"), "--out", str(pic)]) == 2


def test_calibrate_takes_a_given_floor_and_draws_it():
    sc = random_tray(np.random.default_rng(2_000_010), "hex-darker")
    img = S.render(sc)
    floor = true_floor(sc)
    cal = calibrate(img, floor=floor, auto_keep_zone=False)
    assert cal.floor == floor
    pic = draw(img, cal)
    assert pic.shape == img.shape and not np.array_equal(pic, img)
    with pytest.raises(Exception) as e:
        calibrate(img, floor=((0.0, 0.0), (1.0, 0.0)))
    assert getattr(e.value, "user_error", False)


def test_floors_index_is_complete():
    rows = json.loads((REAL / "floors.json").read_text())
    files = sorted(p.name for p in REAL.glob("*.jpg"))
    assert sorted(rows) == files and len(files) >= 30
    for r in rows.values():
        assert len(r["floor"]) >= 4 and r["source"] in ("rune55", "webcam", "fisheye")


@pytest.mark.parametrize("offset", [48, 68, 95])
def test_floor_found_where_the_flood_stops_short(offset):
    """Tuning renders where the flood alone stopped in a wall's shade or ran onto the rim (IoU 0.37-0.71):
    the rays' outline, refined and chosen over the flood's, reaches the wall's foot."""
    from calibration.bench import TUNE_SEED

    sc = random_tray(np.random.default_rng(TUNE_SEED + offset))
    img = S.render(sc)
    assert tray.iou(tray.find_floor(img), true_floor(sc), sc.size) >= 0.95


@pytest.mark.parametrize("offset", [408, 450])
def test_floor_reaches_a_faint_wall_foot(offset):
    """Tuning renders where the refinement took the wall's top for its foot on some sides (IoU 0.90 and 0.92
    before): the foot's step, faint against the grain of the whole outline, stands out from the floor's own
    steps near it once the step vectors are averaged along the outline; a later pass holds a foot found."""
    from calibration.bench import TUNE_SEED

    sc = random_tray(np.random.default_rng(TUNE_SEED + offset))
    img = S.render(sc)
    assert tray.iou(tray.find_floor(img), true_floor(sc), sc.size) >= 0.95


def test_rays_outline_and_choice_between_two_floors():
    """A plain disc of felt in a dark rim: the rays' rough outline lies on the rim's edge; of two floors, the
    smaller is taken when a colour step runs along its outline, the bigger when it lies in plain felt."""
    img = np.full((480, 640, 3), 40, np.uint8)
    cv2.circle(img, (320, 240), 180, (60, 140, 60), -1)
    rough = tray._ray_rough(img)
    assert rough is not None
    r = np.hypot(np.asarray(rough)[:, 0] - 320, np.asarray(rough)[:, 1] - 240)
    assert np.all(np.abs(r - 180) <= 4)
    disc = tuple((320 + 180 * np.cos(a), 240 + 180 * np.sin(a)) for a in np.linspace(0, 2 * np.pi, 64, endpoint=False))
    small = tuple((320 + 120 * np.cos(a), 240 + 120 * np.sin(a)) for a in np.linspace(0, 2 * np.pi, 64, endpoint=False))
    big = tuple((320 + 230 * np.cos(a), 240 + 230 * np.sin(a)) for a in np.linspace(0, 2 * np.pi, 64, endpoint=False))
    assert tray._arbitrate(img, small, disc, 320) == disc  # the smaller lies in plain felt
    assert tray._arbitrate(img, disc, big, 320) == disc  # the step runs along the disc's outline


def test_no_floor_found_says_how_to_give_it_and_keeps_the_old_profile(tmp_path: Path, capsys):
    """A tray that fills under 8% of the frame (a scene of the vision bench's): the finder refuses it; the
    one line says how to give the floor by hand, exit 2, and the old profile stays."""
    from vision import bench as VB

    scene, _ = VB.make_scene(VB.cases(583)[582])
    empty = tmp_path / "empty.png"
    cv2.imwrite(str(empty), S.render_empty(scene))
    out = tmp_path / "cal.json"
    out.write_text("old")
    assert main(["calibrate", "--empty", str(empty), "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no clear tray floor" in err[0] and "--floor" in err[0] and "--whole-frame" in err[0]
    assert out.read_text() == "old"
    assert main(["calibrate", "--empty", str(empty), "--floor", ",".join(f"{v:.1f}" for p in true_floor(scene) for v in p),
                 "--out", str(out)]) == 0


def test_the_calibration_bench_counts_the_keep_zones_it_finds_beside_the_vision_benchs_trays() -> None:
    """A keep zone the calibration misses leaves the dice set aside in it outside the calibrated tray
    (the reader calls them off the tray): the bench says how many it finds, on the scenes that have one."""
    from calibration.bench import scenes
    from vision import bench as VB
    from vision import synthetic as S

    n = 10  # the vision bench's first ten scenes: two of them have a keep zone
    drawn = sum(S.frame_polygons(VB.make_scene(c)[0])["keep_zone"] is not None for c in VB.cases(n))
    out = scenes(n)
    kz = out["keep_zones"]
    assert drawn == 2 and kz["scenes_with_one"] == drawn
    assert 1 <= kz["iou_ge_0.8"] <= kz["found"] <= drawn
    assert 0 <= kz["found_where_there_is_none"] <= n - drawn
    assert out["n"] == n and out["found"] == n
