"""vision.free on drawn dice: what a face must look like to be read, and what is left unread."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from vision.free import free_dice
from vision.pips import LAYOUTS

SIDE = 640


def _canvas(seed: int = 0, texture: float = 0.0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    img = np.full((SIDE, SIDE), 110.0)
    if texture:
        img += cv2.GaussianBlur(rng.normal(0, texture, (SIDE, SIDE)), (0, 0), 2.0)
    return img


def _die(img: np.ndarray, cx: float, cy: float, value: int | None, angle: float = 0.0, size: float = 150.0,
         pip_r: float = 13.0, body: float = 225.0, pip: float = 40.0, skip: tuple[int, ...] = ()) -> None:
    """A die seen from above: a rounded square `size` px wide, `value` pips (None: no pips)."""
    c, s = math.cos(angle), math.sin(angle)
    h = size / 2
    pts = np.array([[cx + c * u - s * v, cy + s * u + c * v] for u, v in ((-h, -h), (h, -h), (h, h), (-h, h))])
    cv2.fillConvexPoly(img, np.round(pts).astype(np.int32), body, lineType=cv2.LINE_AA)
    if value is None:
        return
    a = size * 0.27
    for k, (u, v) in enumerate(LAYOUTS[value]):
        if k in skip:
            continue
        x, y = cx + a * (c * u - s * v), cy + a * (s * u + c * v)
        cv2.circle(img, (round(x), round(y)), round(pip_r), pip, -1, lineType=cv2.LINE_AA)


def _photo(img: np.ndarray) -> np.ndarray:
    img = cv2.GaussianBlur(img, (0, 0), 1.2)
    return np.clip(img, 0, 255).astype(np.uint8)


@pytest.mark.parametrize("value", [1, 2, 3, 4, 5, 6])
def test_each_face_is_read_at_its_centre(value: int) -> None:
    img = _canvas()
    _die(img, 300, 330, value, angle=0.4)
    got = free_dice(_photo(img))
    assert [v for v, _, _ in got] == [value]
    _, x, y = got[0]
    assert abs(x - 300) < 6 and abs(y - 330) < 6


def test_light_pips_on_a_dark_die() -> None:
    img = _canvas()
    _die(img, 200, 200, 5, angle=0.2, body=50.0, pip=235.0)
    _die(img, 440, 420, 3, angle=-0.5, body=50.0, pip=235.0)
    assert sorted(v for v, _, _ in free_dice(_photo(img))) == [3, 5]


def test_several_dice_one_photo() -> None:
    img = _canvas(texture=6.0)
    for (x, y), v, ang in zip(((130, 140), (470, 150), (140, 470), (460, 480)), (2, 4, 6, 1), (0.1, 0.7, -0.3, 0.5)):
        _die(img, x, y, v, angle=ang, size=140.0, pip_r=12.0)
    assert sorted(v for v, _, _ in free_dice(_photo(img))) == [1, 2, 4, 6]


def test_half_a_six_is_not_a_four() -> None:
    """Two rows of a six (its third row lost) make a 3:2 rectangle of pips: not a four's square."""
    img = _canvas()
    _die(img, 320, 320, None)
    a = 150 * 0.27
    for u, v in ((-1.0, -1.0), (1.0, -1.0), (-1.0, 0.0), (1.0, 0.0)):
        cv2.circle(img, (round(320 + 0.75 * a * u), round(320 + a * v)), 13, 40.0, -1, lineType=cv2.LINE_AA)
    assert free_dice(_photo(img)) == []


def test_two_with_one_pip_missing_is_not_a_one() -> None:
    """A corner pip with the die's edge close by is no one (the other pip of the two was not found)."""
    img = _canvas()
    _die(img, 320, 320, 2, angle=0.3, skip=(1,))
    _die(img, 150, 150, 5, angle=0.0)  # gives the dice's size
    assert sorted(v for v, _, _ in free_dice(_photo(img))) == [5]


def test_symbol_die_is_not_read() -> None:
    """A cross on a die face is no pip face."""
    img = _canvas()
    _die(img, 320, 320, None)
    cv2.rectangle(img, (305, 260), (335, 380), 40.0, -1)
    cv2.rectangle(img, (260, 305), (380, 335), 40.0, -1)
    assert free_dice(_photo(img)) == []


def test_specks_on_a_textured_table_are_not_ones() -> None:
    """Dark specks smaller than a one's pip are no dice. (Round spots of pip size on a plain table
    are read: nothing checks for a die body around a face.)"""
    img = _canvas(seed=3, texture=14.0)
    rng = np.random.default_rng(4)
    for _ in range(12):
        x, y = rng.uniform(60, 580, 2)
        cv2.circle(img, (int(x), int(y)), int(rng.uniform(2, 4)), float(rng.uniform(30, 70)), -1)
    assert free_dice(_photo(img)) == []


def test_face_cut_by_the_edge_is_left_unread() -> None:
    img = _canvas()
    _die(img, 20, 320, 5)
    assert free_dice(_photo(img)) == []


@pytest.mark.parametrize("value", [3, 6])
def test_light_pips_in_a_recessed_face(value: int) -> None:
    """A light die with a darker round recess holding light pips is read (a drawn guard: the real
    photos where the rim joins the pips are in test_photos)."""
    img = _canvas()
    _die(img, 320, 320, None, angle=0.3, size=200.0, body=235.0)
    cv2.circle(img, (320, 320), 72, 150.0, -1, lineType=cv2.LINE_AA)
    a = 200 * 0.19
    c, s = math.cos(0.3), math.sin(0.3)
    for u, v in LAYOUTS[value]:
        cv2.circle(img, (round(320 + a * (c * u - s * v)), round(320 + a * (s * u + c * v))), 12, 235.0, -1,
                   lineType=cv2.LINE_AA)
    assert [v for v, _, _ in free_dice(_photo(img))] == [value]


def test_small_dark_six_with_blurred_columns() -> None:
    """Small dark dice with light, blurred pips are read (a drawn guard: the real photos where a six's
    pips blur into columns are in test_photos)."""
    img = _canvas(texture=4.0)
    _die(img, 320, 320, 6, angle=0.2, size=70.0, pip_r=6.0, body=60.0, pip=170.0)
    _die(img, 160, 170, 4, angle=0.5, size=70.0, pip_r=6.0, body=60.0, pip=170.0)
    img = cv2.GaussianBlur(img, (0, 0), 1.5)
    assert sorted(v for v, _, _ in free_dice(_photo(img))) == [4, 6]
