"""vision.floornet and its part in vision.tray.find_floor: the floor net catches the colour finder's
gross misses (a flood over the rim onto the table) and keeps its floor where the two agree.

The scenes are of the renderer's train pool and of the calibration's tray kinds, from seeds neither
the floor net's training nor the calibration bench uses."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from calibration.bench import REAL
from vision import floornet, tray
from vision import synthetic as S
from vision.synthetic_trays import random_tray, true_floor

#: (seed, n_dice, size, condition) of train-pool scenes whose colour finder's floor ran onto the table
FLOODED = [(95000016, 8, (1280, 960), "off_tray"), (95000050, 6, (1280, 960), "missing"),
           (95000059, 8, (640, 480), "clean")]


def _pool_empty(seed: int, n: int, size: tuple[int, int], condition: str):
    scene = S.random_scene(np.random.default_rng(seed), n, size, condition, pool="train")
    return S.render_empty(scene), true_floor(scene), size


def test_the_committed_floor_net_is_there() -> None:
    assert floornet.available() and floornet.MODEL.stat().st_size < 1_000_000


@pytest.mark.parametrize("case", FLOODED)
def test_a_floor_the_colour_finder_flooded_is_found_by_the_net(case) -> None:
    empty, truth, size = _pool_empty(*case)
    colour = tray._colour_floor(empty)
    assert tray.iou(colour, truth, size) < 0.5  # the colour finder alone runs onto the table
    assert tray.iou(tray.find_floor(empty), truth, size) >= 0.9


@pytest.mark.parametrize("seed", range(2_000_000, 2_000_006))
def test_where_the_two_agree_the_colour_finders_floor_is_kept(seed: int) -> None:
    scene = random_tray(np.random.default_rng(seed))
    empty = S.render(scene)
    found = tray.find_floor(empty)
    assert tray.iou(found, true_floor(scene), scene.size) >= 0.95
    colour = tray._colour_floor(empty)
    p = floornet.probability(empty)
    if floornet.sure_against(tray.mask(colour, scene.size) > 0, p) <= tray.DISAGREE \
            and colour != tray.whole_frame(scene.size):
        assert found == colour


def test_the_net_marks_the_floor_not_the_table() -> None:
    empty, truth, size = _pool_empty(*FLOODED[0])
    p = floornet.probability(empty)
    assert p.shape == empty.shape[:2] and p.dtype == np.float32
    inside = tray.mask(truth, size) > 0
    outside = cv2.dilate(inside.astype(np.uint8), np.ones((61, 61), np.uint8)) == 0
    assert p[inside].mean() > 0.9 and p[outside].mean() < 0.1


def test_without_the_model_file_the_colour_finder_alone(monkeypatch, tmp_path) -> None:
    empty, truth, size = _pool_empty(*FLOODED[0])
    monkeypatch.setattr(floornet, "MODEL", tmp_path / "none.onnx")
    assert not floornet.available()
    assert tray.find_floor(empty) == tray._colour_floor(empty)


def test_a_frame_of_floor_only_is_the_whole_frame() -> None:
    scene = random_tray(np.random.default_rng(2_000_010), kind="floor")
    found = tray.find_floor(S.render(scene))
    assert tray.iou(found, tray.whole_frame(scene.size), scene.size) >= 0.99


def test_a_tray_whose_walls_cut_the_corners_is_not_the_whole_frame() -> None:
    """A tray filling most of the frame, its walls across the frame's corners: the colour finder
    sees no rim and takes the whole frame; the net's floor leaves the corners out, and it is taken."""
    scene = random_tray(np.random.default_rng(197))
    empty = S.render(scene)
    assert tray._colour_floor(empty) == tray.whole_frame(scene.size)
    p = floornet.probability(empty)
    assert tray._border_share(p >= floornet.FLOOR_P) < tray.WHOLE_BORDER
    found = tray.find_floor(empty)
    assert found != tray.whole_frame(scene.size)
    assert tray.iou(found, true_floor(scene), scene.size) >= 0.95


def test_sure_against_counts_only_the_cells_the_net_is_sure_of() -> None:
    p = np.full((100, 100), 0.5, np.float32)  # unsure everywhere
    floor = np.zeros((100, 100), bool)
    floor[20:80, 20:80] = True  # 3,600 cells
    assert floornet.sure_against(floor, p) == 0.0
    p[20:30, 20:80] = 0.0  # sure that 600 of them are no floor
    p[0:10, 0:36] = 1.0  # sure that 360 cells outside are floor
    assert floornet.sure_against(floor, p) == pytest.approx((600 + 360) / 3600)
    p[:] = 0.5
    p[20:80, 20:80] = 0.99  # sure of the floor itself: no disagreement
    assert floornet.sure_against(floor, p) == 0.0


def test_a_wall_taken_for_floor_is_overruled_where_the_net_is_sure() -> None:
    """The colour finder runs up a wall as dark as the floor: its floor still overlaps the net's by
    IoU > 0.9, but the net is sure the strip is no floor, and its floor is taken."""
    scene = random_tray(np.random.default_rng(458))
    empty, size, truth = S.render(scene), scene.size, true_floor(scene)
    colour = tray._colour_floor(empty)
    assert tray.iou(colour, truth, size) < 0.95
    p = floornet.probability(empty)
    assert tray.iou(colour, tray._net_floor(empty, p), size) > 0.9
    assert floornet.sure_against(tray.mask(colour, size) > 0, p) > tray.DISAGREE
    assert tray.iou(tray.find_floor(empty), truth, size) >= 0.95


def test_a_smudge_over_the_floors_edge_is_floor():
    """A round opening where painting out a die at its edge pulled a wedge of the dark surround in:
    the colour finder stops at the smudge; the floor net, which learnt that the floor runs on under
    what lies on it, gives the whole opening."""
    name = "images-00014_jpg.rf.8f16bd937d37e9863fea34f267d.jpg"
    img = cv2.imread(str(REAL / name))
    truth = tuple(map(tuple, json.loads((REAL / "floors.json").read_text())[name]["floor"]))
    size = (img.shape[1], img.shape[0])
    assert tray.iou(tray._colour_floor(img), truth, size) < 0.9
    assert tray.iou(tray.find_floor(img), truth, size) >= 0.95
