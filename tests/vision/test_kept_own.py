"""reader._kept_own: which light spots near a kept face _unread_spots leaves to it (its top square and
the side faces a flat die shows towards the camera's nadir), and the scene that needed it."""

from __future__ import annotations

import pytest

from vision.dice import Face
from vision.pips import Fit, Pip
from vision.reader import _kept_own

from tests.vision.test_hard_scenes import _bench_like


def _four(cx: float = 100.0, cy: float = 100.0, a: float = 8.0) -> Face:
    """A flat four, edges along the axes, corner offset `a` (working coordinates)."""
    fit = Fit(4, cx, cy, (a, 0.0, 0.0, a), 0.0, 1.0)
    return Face(4, cx, cy, a, 0.0, 0.35 * a, True, 0.0, (0, 1, 2, 3), fit)


def _spot(x: float, y: float) -> Pip:
    return Pip(x, y, 2.5, False, 60.0, 0.9, 0.9)


def test_kept_own_leaves_a_spot_beyond_a_side_turned_from_the_nadir_to_another_die() -> None:
    f, a = _four(), 8.0
    nadir = (300.0, 100.0)  # to the right of the die: its right side face may show, not its left
    # on its own top square: its own
    assert _kept_own(_spot(100.0 + 1.5 * a, 100.0), f, a, nadir)
    # its bevel and edge shadow (glints there) too, short of a touching die's nearest pip (2.9)
    assert _kept_own(_spot(100.0 - 2.6 * a, 100.0), f, a, nadir)
    # 3 corner offsets to the right (towards the nadir): maybe a pip of the side face it shows
    assert _kept_own(_spot(100.0 + 3.0 * a, 100.0), f, a, nadir)
    # 3 (over 2.9) corner offsets to the left, up or down (no side face shows there): another die's
    assert not _kept_own(_spot(100.0 - 3.0 * a, 100.0), f, a, nadir)
    assert not _kept_own(_spot(100.0, 100.0 + 3.0 * a), f, a, nadir)
    assert not _kept_own(_spot(100.0, 100.0 - 3.0 * a), f, a, nadir)
    # beyond the side towards the nadir, off its middle: maybe its own side face's pip
    assert _kept_own(_spot(100.0 + 2.95 * a, 100.0 + 0.95 * a), f, a, nadir)
    # from 3.2 corner offsets on: never its own
    assert not _kept_own(_spot(100.0 + 3.3 * a, 100.0), f, a, nadir)
    # a one's yaw is unknown: the whole disc stays its own
    one = Face(1, 100.0, 100.0, a, 0.0, 3.0, False, 0.0, (0,), Fit(1, 100.0, 100.0, (a, 0.0, 0.0, a), 0.0, 1.0))
    assert _kept_own(_spot(100.0 - 3.0 * a, 100.0), one, a, nadir)


@pytest.mark.slow
def test_a_black_three_touching_a_white_four_is_found_again() -> None:
    """Own seed 22,001,643 (the lead's mirror bench, idx 1643): a glossy black three touching a white
    four, detect found none of its faint white pips (ringed by glints), and the second look
    (_unread_spots) dropped its upper corner pip as within 3.2 corner offsets of the four's middle;
    the two spots left made no face and the frame was a die short. The corner pip lies beyond the
    four's side turned away from the nadir, where the four shows no side face: now it is the three's."""
    r, t = _bench_like(22001643, (640, 480), 8)
    assert r.verdict == "ok", f"{r.reasons} {[(d.value, d.status, d.why) for d in r.dice]}"
    assert r.values == t.values and r.values.count(3) == 2
