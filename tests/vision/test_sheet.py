"""What `yatzycam bench --pictures DIR` draws: contact sheets (vision.sheet), the real dice passed ok
that their labels do not bear out (vision.bench.misread_tiles), the calibration's real frames and
worst renders (calibration.bench), and the command's bad input."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration import bench as CB
from controller.cli.main import main
from vision import bench, sheet

DATA = Path(__file__).resolve().parents[1] / "data"


def test_a_tile_keeps_the_pictures_shape_and_carries_its_text():
    tall = np.full((100, 50), 200, np.uint8)
    t = sheet.tile(tall, "")
    assert t.shape == (sheet.TILE, sheet.TILE, 3)
    cols = np.flatnonzero(t[:, :, 0].max(axis=0) > 0)
    assert cols.min() == sheet.TILE // 4 and cols.max() == 3 * sheet.TILE // 4 - 1  # fitted, not stretched
    with_text = sheet.tile(tall, "read 5 / label 3")
    assert (with_text[2:12] != t[2:12]).any()


def test_around_pads_with_black_where_the_square_leaves_the_picture():
    img = np.full((40, 60, 3), 255, np.uint8)
    sq = sheet.around(img, 2, 2, 10)
    assert sq.shape == (20, 20, 3)
    assert (sq[:8, :8] == 0).all() and (sq[12:, 12:] == 255).all()


def test_a_sheet_lays_tiles_in_rows_and_writes_nothing_for_none(tmp_path):
    tiles = [sheet.tile(np.full((10, 10), v, np.uint8), "") for v in (50, 100, 150, 200, 250)]
    s = sheet.sheet(tiles, cols=2)
    assert s.shape == (3 * sheet.TILE, 2 * sheet.TILE, 3)
    assert (s[2 * sheet.TILE:, sheet.TILE:] == 0).all()  # the last row filled with black
    assert sheet.write(tmp_path / "none.png", []) is None and not (tmp_path / "none.png").exists()
    p = sheet.write(tmp_path / "sub" / "five.png", tiles, cols=2)
    assert cv2.imread(str(p)).shape == s.shape


def test_misread_tiles_are_the_dice_passed_ok_that_the_labels_do_not_bear_out():
    rec = next(r for r in bench.photo_records(DATA, "rune55") if len(r["boxes"]) >= 2)
    b0, b1 = rec["boxes"][:2]
    centre = lambda b: [(b[0] + b[2]) / 2, (b[1] + b[3]) / 2]  # noqa: E731
    wrong = b1[4] % 6 + 1
    dice = [{"value": b0[4], "status": "ok", "center": centre(b0)},  # right: no tile
            {"value": wrong, "status": "ok", "center": centre(b1)},  # wrong face: a tile
            {"value": 3, "status": "unreadable", "center": [1.0, 1.0]}]  # refused: no tile
    assert bench.judge_photo(dice, rec["boxes"])[0][:2] == ["right", "wrong_face"]
    shape = cv2.imread(rec["path"]).shape[:2]
    tiles = bench.misread_tiles(rec, dice, shape)
    assert len(tiles) == 1 and tiles[0].shape == (sheet.TILE, sheet.TILE, 3)
    assert bench.misread_tiles(rec, dice[:1], shape) == []


def test_the_calibration_pictures_show_each_real_frame_and_the_worst_renders(tmp_path):
    rows = json.loads((CB.REAL / "floors.json").read_text())
    names = sorted(rows)[:3]
    small = tmp_path / "floors"
    small.mkdir()
    for n in names:
        shutil.copy(CB.REAL / n, small / n)
    (small / "floors.json").write_text(json.dumps({n: rows[n] for n in names}))
    out = CB.real(small, pictures=tmp_path / "pics")
    assert out["n"] == 3
    img = cv2.imread(out["picture"])
    assert img.shape == (320, 3 * 320, 3)  # three frames, one row
    green = (img[:, :, 1] > 180) & (img[:, :, 0] < 110) & (img[:, :, 2] < 110)
    assert green.any(axis=0).reshape(3, 320).any(axis=1).all()  # a floor found on each
    worst = CB.renders(2, pictures=tmp_path / "pics")
    assert cv2.imread(worst["picture"]).shape == (320, 2 * 320, 3)


def test_bench_pictures_that_cannot_be_a_folder_is_one_line_and_exit_2(tmp_path, capsys):
    f = tmp_path / "a-file"
    f.write_text("x")
    assert main(["bench", "--only", "rules", "--quick", "--pictures", str(f)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--pictures" in err


@pytest.mark.slow
def test_the_vision_section_writes_the_misread_sheet_of_each_source(tmp_path):
    out = bench.photos(DATA, None, quick=True, pictures=tmp_path)
    for source in bench.SOURCES:
        pic = out[source].get("misread_picture", "")
        assert pic.startswith("none") or cv2.imread(pic) is not None, (source, pic)
