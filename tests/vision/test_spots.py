"""Pips of a known size (the calibrated path): centre-surround spots, split when blurred together,
and kept only on a plain face."""

from __future__ import annotations

import cv2
import numpy as np

from vision.pips import spots_at, spots_response

A = 8.0  # corner-pip offset, px (the reader's working scale)


def _die(pips: list[tuple[float, float]], blur: float, felt: int = 60, body: int = 230, pip: int = 30) -> np.ndarray:
    """A grey picture: one square die, side 4a, at (60, 60) on felt, with dark pips at template positions."""
    img = np.full((120, 120), felt, np.uint8)
    cv2.rectangle(img, (60 - 16, 60 - 16), (60 + 16, 60 + 16), body, -1)
    for u, v in pips:
        cv2.circle(img, (int(round(60 + u * A)), int(round(60 + v * A))), 3, pip, -1, cv2.LINE_AA)
    return cv2.GaussianBlur(img, (0, 0), blur)


SIX = [(-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1)]


def test_a_blurred_six_gives_six_spots() -> None:
    g = _die(SIX, blur=1.3)  # the column's pips run together at half their peak
    dark, _ = spots_response(g, None, A)
    spots = spots_at(dark, True, 0.38 * A, 30.0, base=g, ring=0.6 * A)
    assert len(spots) == 6
    for u, v in SIX:
        assert any(abs(p.x - (60 + u * A)) < 1.5 and abs(p.y - (60 + v * A)) < 1.5 for p in spots)


def test_a_crevice_between_touching_dice_is_no_pip() -> None:
    """Two dice 2 px apart on dark felt: the crevice's ends look like dark spots, but their ring
    runs over both dice and the felt, not over one plain face."""
    img = np.full((120, 160), 60, np.uint8)
    cv2.rectangle(img, (30, 44), (62, 76), 230, -1)
    cv2.rectangle(img, (64, 44), (96, 76), 230, -1)
    g = cv2.GaussianBlur(img, (0, 0), 1.0)
    dark, _ = spots_response(g, None, A)
    assert len(spots_at(dark, True, 0.38 * A, 30.0)) > 0  # without the ring test: false pips
    assert spots_at(dark, True, 0.38 * A, 30.0, base=g, ring=0.6 * A) == []


def test_where_limits_the_search() -> None:
    g = _die([(0, 0)], blur=1.0)
    dark, _ = spots_response(g, None, A)
    assert len(spots_at(dark, True, 0.38 * A, 30.0)) == 1
    nowhere = np.zeros(g.shape, bool)
    assert spots_at(dark, True, 0.38 * A, 30.0, nowhere) == []
