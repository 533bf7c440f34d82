"""Flat black dice with white pips on black felt (own seeds, not the bench's): the body map hardly
sees such a die, and _square_top's sixteen whole-pixel rays found its flat top one ray short (11
of 16), so its face was refused and the scene a reroll. The finer look (reader._square_fine: 32
sub-pixel rays, the square's middle within 0.1 corner offsets of the face's, past the face's own
pips) takes it, as inferred: tilt-gated (reader.FINE_GATE)."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from tests.vision.test_hard_scenes import _bench_like, _drawn_top
from vision import reader
from vision.dice import Face
from vision.pips import LAYOUTS, Fit, single

SCENES = [
    # a black one on black felt, its pip (contrast 171) found; no die body under it, and its square
    # top one ray short: the one was left loose ("unreadable")
    (35000196, (1280, 960), 8, (355.4, 788.3), 1),
    # a black two on black felt, both pips found a two's diagonal apart; its body's middle (its
    # shadow) 0.92 corner offsets aside and no square top (its own pips cut two rays): refused
    (22000800, (1280, 960), 6, (411.8, 243.6), 2),
]


@pytest.mark.slow
@pytest.mark.parametrize("seed, size, n, at, value", SCENES)
def test_a_flat_black_die_on_black_felt_reads(seed: int, size: tuple[int, int], n: int,
                                              at: tuple[float, float], value: int) -> None:
    r, t = _bench_like(seed, size, n)
    assert r.verdict == "ok", f"seed {seed}: {r.reasons} {[(d.value, d.status, d.why) for d in r.dice]}"
    assert r.values == t.values
    assert [d.value for d in r.dice if math.dist(d.center, at) < 5] == [value]


@pytest.mark.slow
@pytest.mark.parametrize("seed, size, n, at, value", SCENES)
def test_a_black_die_taken_on_its_fine_square_is_tilt_gated(seed: int, size: tuple[int, int], n: int,
                                                            at: tuple[float, float], value: int,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reader, "FINE_GATE", -1.0)  # every score "in doubt"
    r, _ = _bench_like(seed, size, n)
    assert r.verdict == "reroll" and "cocked" in r.reasons
    assert [(d.status, d.why.endswith("faint pips")) for d in r.dice if math.dist(d.center, at) < 5] == [("cocked", True)]


def _face(value: int, x: float, y: float, a: float, yaw: float) -> Face:
    c, s = a * math.cos(math.radians(yaw)), a * math.sin(math.radians(yaw))
    fit = single(x, y, a) if value == 1 else Fit(value, x, y, (c, -s, s, c), 0.0)
    return Face(value, x, y, a, fit.angle, 0.4 * a, False, 0.0, tuple(range(len(LAYOUTS[value]))), fit)


def _drawn_two(yaw: float, a: float = 12.0) -> np.ndarray:
    img = _drawn_top(3.6, 3.6, yaw, a=a)
    cv2.circle(img, (120, 120), round(0.4 * a), 22, -1)  # no middle pip
    for u in (-1.0, 1.0):
        c, s = math.cos(math.radians(yaw)), math.sin(math.radians(yaw))
        cv2.circle(img, (round(120 + a * u * (c - s)), round(120 + a * u * (s + c))), round(0.4 * a), 200, -1)
    return img


def test_square_fine_sees_a_flat_top_and_not_a_side_face_or_bare_felt() -> None:
    a = 12.0
    for yaw in (0.0, 20.0, 45.0, 70.0):
        assert reader._square_fine(_drawn_top(3.6, 3.6, yaw), _face(1, 120, 120, a, 0.0), 1.0, a), yaw
    # a side face seen aslant: foreshortened to a rectangle
    assert not reader._square_fine(_drawn_top(3.6, 2.2, 30.0), _face(1, 120, 120, a, 0.0), 1.0, a)
    # the pip is not in the middle of the face (its middle may be 0.1 corner offsets aside, not 0.5)
    x, y = 120 + 0.5 * a * math.cos(math.radians(10)), 120 + 0.5 * a * math.sin(math.radians(10))
    assert not reader._square_fine(_drawn_top(3.6, 3.6, 10.0, (0.5, 0.0)), _face(1, x, y, a, 0.0), 1.0, a)
    # a speck on bare felt: no face ends around it
    felt = np.clip(np.full((240, 240), 40.0) + np.random.default_rng(1).normal(0, 1.0, (240, 240)), 0, 255).astype(np.uint8)
    cv2.circle(felt, (120, 120), 5, 200, -1)
    assert not reader._square_fine(felt, _face(1, 120, 120, a, 0.0), 1.0, a)
    # a face far bigger than a die's top
    assert not reader._square_fine(_drawn_top(5.4, 5.4, 0.0), _face(1, 120, 120, a, 0.0), 1.0, a)


def test_square_fine_passes_a_twos_pips_and_asks_their_yaw() -> None:
    a = 12.0
    for yaw in (0.0, 25.0, 60.0):
        img = _drawn_two(yaw, a)
        assert reader._square_fine(img, _face(2, 120, 120, a, yaw), 1.0, a), yaw
        # pips a quarter turn round are the same two; pips 30 degrees off the square's are not its
        assert reader._square_fine(img, _face(2, 120, 120, a, yaw + 90.0), 1.0, a), yaw
        assert not reader._square_fine(img, _face(2, 120, 120, a, yaw + 30.0), 1.0, a), yaw
