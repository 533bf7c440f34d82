"""The face net's crop and the committed face model on dice cut from real photos."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from vision import faces, reader


def _board() -> np.ndarray:
    g = np.full((200, 300), 90, np.uint8)
    cv2.rectangle(g, (130, 80), (170, 120), 230, -1)  # a die's top face, 40 px, centred at (150, 100)
    cv2.circle(g, (150, 100), 5, 20, -1)
    return g


def test_the_crop_centres_the_die_at_its_context_scale() -> None:
    c = faces.crop(_board(), 150.0, 100.0, 40.0)
    assert c.shape == (faces.CROP, faces.CROP) and c.dtype == np.float32
    mid = faces.CROP // 2
    assert c[mid, mid] < 60  # the pip at the centre
    face_px = faces.CROP / faces.CONTEXT  # the top face's side in the crop
    inside = c[mid, int(mid + 0.35 * face_px)]
    outside = c[mid, min(faces.CROP - 1, int(mid + 0.62 * face_px))]
    assert inside > 200 and outside < 110  # the face ends where CONTEXT says


def test_a_quarter_turn_of_the_crop_is_the_crop_of_the_turned_picture() -> None:
    g = _board()
    cv2.circle(g, (160, 90), 3, 20, -1)  # something off the axis
    a = faces.crop(g, 150.0, 100.0, 40.0, angle=90.0).astype(int)
    b = np.rot90(faces.crop(g, 150.0, 100.0, 40.0)).astype(int)
    assert np.abs(a - b).mean() < 1.0  # (a turn of the crop about its middle is exact)


def test_a_die_at_the_picture_edge_and_a_large_die_crop_cleanly() -> None:
    g = _board()
    edge = faces.crop(g, 2.0, 2.0, 40.0)  # the window leaves the picture: its edge is repeated
    assert edge.shape == (faces.CROP, faces.CROP)
    big = cv2.resize(g, None, fx=8, fy=8, interpolation=cv2.INTER_NEAREST)  # a 320 px die, area-resampled
    a = faces.crop(big, 150.0 * 8 + 3.5, 100.0 * 8 + 3.5, 320.0).astype(int)
    b = faces.crop(g, 150.0, 100.0, 40.0).astype(int)
    assert np.abs(a - b).mean() < 12.0


def test_normalise_gives_zero_mean_unit_spread_and_keeps_a_flat_crop_flat() -> None:
    rng = np.random.default_rng(0)
    x = np.stack([rng.integers(0, 255, (faces.CROP, faces.CROP)), np.full((faces.CROP, faces.CROP), 77)]).astype(np.uint8)
    n = faces.normalise(x)
    assert n.shape == (2, 1, faces.CROP, faces.CROP)
    assert abs(float(n[0].mean())) < 1e-4 and math.isclose(float(n[0].std()), 1.0, rel_tol=1e-3)
    assert float(np.abs(n[1]).max()) == 0.0


def test_the_committed_face_net_reads_probabilities_for_each_die() -> None:
    net = reader.model().faces
    g = _board()
    p = net.probs(g, [(150.0, 100.0, 40.0), (40.0, 40.0, 40.0)])
    assert p.shape == (2, faces.N_CLASSES)
    assert np.allclose(p.sum(axis=1), 1.0)
    assert net.probs(g, []).shape == (0, faces.N_CLASSES)


@pytest.mark.parametrize("x, y", [(500.0, 100.0), (60.0, 400.0), (320.0, 460.0), (600.0, 240.0)])
def test_each_crop_is_turned_so_the_pictures_centre_lies_straight_up(x: float, y: float) -> None:
    """A mark on the side of a die that faces the picture's centre ends at the top middle of its crop."""
    g = np.zeros((480, 640), np.uint8)
    to = np.array([319.5 - x, 239.5 - y])
    to /= np.linalg.norm(to)
    cv2.circle(g, (round(x + 15 * to[0]), round(y + 15 * to[1])), 3, 255, -1)
    c = faces.crop(g, x, y, 30.0, faces.toward_centre(x, y, 640, 480))
    row, col = np.unravel_index(int(np.argmax(c)), c.shape)
    assert row < faces.CROP * 0.3 and abs(col - (faces.CROP - 1) / 2) <= 2
    assert faces.toward_centre(319.5, 239.5, 640, 480) == 0.0


def test_the_crop_samples_exactly_without_opencv_warps() -> None:
    """On a brightness ramp (which bilinear sampling keeps exactly) a turned crop holds the ramp's own
    values at the points it maps to: no 8-bit rounding, no OpenCV-version-dependent warp."""
    yy, xx = np.mgrid[0:200, 0:300].astype(np.float64)
    ramp = (0.5 * xx + 0.3 * yy).astype(np.float32)  # 0-210: no clipping
    x, y, side, angle = 150.3, 100.7, 20.0, 33.0  # no shrinking: the window is sampled as it is
    c = faces.crop(ramp, x, y, side, angle)
    M = cv2.getRotationMatrix2D((0.0, 0.0), angle, faces.CROP / (faces.CONTEXT * side))
    inv = cv2.invertAffineTransform(M)
    v, u = np.mgrid[0:faces.CROP, 0:faces.CROP].astype(np.float64) - (faces.CROP - 1) / 2.0
    sx = inv[0, 0] * u + inv[0, 1] * v + x
    sy = inv[1, 0] * u + inv[1, 1] * v + y
    assert np.abs(c - (0.5 * sx + 0.3 * sy)).max() < 1e-3


@pytest.mark.parametrize("x, y", [(2.0, 3.0), (77.5, 1.2), (40.0, 58.6), (0.0, 0.0)])
def test_a_crop_off_the_picture_samples_its_edge_exactly(x: float, y: float) -> None:
    """Where the window leaves the picture the edge is repeated: on a ramp, each pixel of the crop is
    the ramp at the nearest point of the picture (the point it maps to, clamped to the picture)."""
    h, w = 60, 80
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float64)
    ramp = (0.5 * xx + 0.3 * yy).astype(np.float32)
    side, angle = 20.0, -27.0  # no shrinking
    c = faces.crop(ramp, x, y, side, angle)
    inv = cv2.invertAffineTransform(cv2.getRotationMatrix2D((0.0, 0.0), angle, faces.CROP / (faces.CONTEXT * side)))
    v, u = np.mgrid[0:faces.CROP, 0:faces.CROP].astype(np.float64) - (faces.CROP - 1) / 2.0
    sx = np.clip(inv[0, 0] * u + inv[0, 1] * v + x, 0, w - 1)
    sy = np.clip(inv[1, 0] * u + inv[1, 1] * v + y, 0, h - 1)
    assert np.abs(c - (0.5 * sx + 0.3 * sy)).max() < 1e-3


def test_a_mirrored_read_is_the_same_for_the_picture_and_its_mirror_image() -> None:
    """Read twice (the crop and its mirror image, logits averaged), a die's probabilities do not change
    when the whole picture is mirrored (the crop of the mirrored picture is the mirrored crop), while a
    single read does; the reader takes the mirrored read from its thresholds file."""
    from vision.faces import FaceNet

    rng = np.random.default_rng(4)
    g = rng.integers(40, 200, (240, 320)).astype(np.uint8)
    g = cv2.GaussianBlur(g, (5, 5), 0)
    cv2.rectangle(g, (206, 66), (230, 90), 230, -1)  # a die off the centre, two pips on a diagonal
    cv2.circle(g, (211, 71), 3, 20, -1)
    cv2.circle(g, (225, 85), 3, 20, -1)
    flipped = np.ascontiguousarray(g[:, ::-1])
    # (a die small enough that its crop is only resampled bilinearly, which mirrors exactly; an
    # area-resampled crop mirrors to within a grey level)
    dice, mirrored_dice = [(218.0, 78.0, 24.0)], [(319.0 - 218.0, 78.0, 24.0)]
    single = FaceNet(faces.MODEL.with_name("dice.faces.onnx"))
    twice = FaceNet(faces.MODEL.with_name("dice.faces.onnx"), mirror=True)
    a, b = twice.probs(g, dice), twice.probs(flipped, mirrored_dice)
    assert np.allclose(a, b, atol=1e-5)
    one_a, one_b = single.probs(g, dice), single.probs(flipped, mirrored_dice)
    assert not np.allclose(one_a, one_b, atol=1e-5)
    assert np.allclose(a, (one_a + one_b) / 2, atol=0.2)  # (the logits are averaged, not the probabilities)
    assert reader.model().faces.mirror == reader.model().thresholds.mirror
    assert reader.model(mirror=True).faces.mirror and not reader.model(mirror=False).faces.mirror
