"""Settle: still frames settle despite mains flicker; rolling dice and a moving hand never do."""

from __future__ import annotations

import math
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.reader import DieReading, Reading
from vision.settle import Settler, agree, consensus, same_dice

PHOTO = Path(__file__).resolve().parents[1] / "data" / "images" / "00000_jpg.rf.224ceed5655c91c2c5cabe3adc15ee68.jpg"
FPS = 30.0


@pytest.fixture(scope="module")
def tray() -> np.ndarray:
    img = cv2.imread(str(PHOTO))
    assert img is not None
    return cv2.resize(img, (320, 320), interpolation=cv2.INTER_AREA)


def flicker(frame: np.ndarray, t: float, hz: float = 100.0, depth: float = 0.12, rolling: bool = True) -> np.ndarray:
    """Mains flicker: a global gain, and with a rolling shutter dark/light bands that roll down the frame."""
    h = frame.shape[0]
    rows = np.arange(h, dtype=np.float32)[:, None, None]
    line_time = 1.0 / FPS / h  # each row is exposed a little later
    phase = 2 * math.pi * hz * (t + (rows * line_time if rolling else 0.0))
    gain = 1.0 + depth * np.sin(phase)
    return np.clip(frame.astype(np.float32) * gain, 0, 255).astype(np.uint8)


def noisy(frame: np.ndarray, rng: np.random.Generator, sigma: float = 2.0) -> np.ndarray:
    return np.clip(frame + rng.normal(0, sigma, frame.shape), 0, 255).astype(np.uint8)


def move_patch(frame: np.ndarray, k: int) -> np.ndarray:
    """A die-sized patch carried across the tray: k steps of 6 px."""
    out = frame.copy()
    patch = frame[40:80, 40:80].copy()
    x = 60 + 6 * k
    out[150:190, x:x + 40] = patch
    return out


@pytest.mark.parametrize("hz", [100.0, 120.0])
@pytest.mark.parametrize("rolling", [False, True])
def test_still_tray_settles_under_flicker(tray: np.ndarray, hz: float, rolling: bool) -> None:
    rng = np.random.default_rng(1)
    s = Settler(still_s=0.35)
    settled_at = None
    for i in range(30):
        t = i / FPS
        if s.feed(noisy(flicker(tray, t, hz, rolling=rolling), rng), t):
            settled_at = t
            break
    assert settled_at is not None, f"never settled (last motion {s.last_motion:.4f})"
    assert 0.35 <= settled_at <= 0.5


def test_raw_difference_would_fail_under_flicker(tray: np.ndarray) -> None:
    """The flicker in the test is strong enough that raw differences see "motion"."""
    a = flicker(tray, 0.0).astype(np.float32)
    b = flicker(tray, 1 / FPS + 0.0025).astype(np.float32)
    assert np.mean(np.abs(a - b) > 0.08 * 128) > 0.05


def test_rolling_die_never_settles(tray: np.ndarray) -> None:
    rng = np.random.default_rng(2)
    s = Settler(still_s=0.35)
    for i in range(30):
        t = i / FPS
        assert not s.feed(noisy(flicker(move_patch(tray, i), t), rng), t)
    assert s.last_motion > s.max_motion


def test_slow_creep_is_motion(tray: np.ndarray) -> None:
    """A hand drifting 1 px a frame never looks still, even if each step is small."""
    rng = np.random.default_rng(3)
    s = Settler(still_s=0.35)
    hand = np.zeros_like(tray)
    for i in range(40):
        t = i / FPS
        f = tray.copy()
        x = 20 + i
        cv2.ellipse(f, (x + 60, 250), (60, 25), 0, 0, 360, (150, 170, 200), -1)
        assert not s.feed(noisy(f, rng), t)
    del hand


def test_settles_after_motion_stops(tray: np.ndarray) -> None:
    rng = np.random.default_rng(4)
    s = Settler(still_s=0.35)
    results = []
    for i in range(40):
        t = i / FPS
        f = move_patch(tray, min(i, 10))  # moves for 10 frames, then lies still
        results.append(s.feed(noisy(flicker(f, t), rng), t))
    first = results.index(True)
    assert 10 / FPS + 0.35 <= first / FPS <= 10 / FPS + 0.5


def _r(dice: list[tuple[int | None, float, float, str]], verdict: str = "ok", reasons: tuple[str, ...] = ()) -> Reading:
    return Reading(tuple(DieReading(v, (x, y), s) for v, x, y, s in dice), verdict, reasons)


def test_agree_and_same_dice() -> None:
    a = _r([(3, 100, 100, "ok"), (5, 200, 120, "ok")])
    b = _r([(5, 202, 121, "ok"), (3, 99, 101, "ok")])  # other order, a pixel off
    c = _r([(5, 202, 121, "ok"), (4, 99, 101, "ok")])  # one face differs
    d = _r([(3, 130, 100, "ok"), (5, 200, 120, "ok")])  # a die moved
    assert agree(a, b) and same_dice(a, b)
    assert not agree(a, c) and not same_dice(a, c)
    assert not agree(a, d) and not same_dice(a, d)
    assert not same_dice(a, None)
    assert consensus([a, b]) is b
    bad = consensus([a, c])
    assert bad.verdict == "reroll" and "unreadable" in bad.reasons and bad.values == ()
