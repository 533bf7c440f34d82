"""The reader's fast paths give what the plain numpy / OpenCV calls they replace give."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from vision.dice import _percentile
from vision.pips import LAYOUTS, _plateaus, brightest, darkest, fit_layout


def test_channel_extremes_are_numpy_min_and_max() -> None:
    img = np.random.default_rng(1).integers(0, 256, (37, 53, 3), dtype=np.uint8)
    assert np.array_equal(darkest(img), img.min(axis=2))
    assert np.array_equal(brightest(img), img.max(axis=2))
    view = img[3:30, 5:40]  # a crop of a bigger frame (not contiguous)
    assert np.array_equal(darkest(view), view.min(axis=2))


@pytest.mark.parametrize("n", [10, 11, 57, 400])
def test_percentile_is_numpys(n: int) -> None:
    vals = np.random.default_rng(n).integers(0, 256, n).astype(np.uint8)
    assert _percentile(vals, 97.0) == pytest.approx(float(np.percentile(vals, 97)), abs=1e-9)


def test_plateaus_are_the_components_of_the_mask() -> None:
    rng = np.random.default_rng(3)
    for _ in range(100):
        m = rng.random((40, 50)) < rng.uniform(0.01, 0.3)
        _, _, _, cents = cv2.connectedComponentsWithStats(m.astype(np.uint8), connectivity=8)
        mine = _plateaus(m)
        order = lambda c: c[np.lexsort((c[:, 0], c[:, 1]))]  # noqa: E731
        assert mine.shape == cents[1:].shape
        assert np.allclose(order(mine), order(cents[1:]))
    assert _plateaus(np.zeros((5, 5), bool)).shape == (0, 2)


def _lstsq_fit(pts: np.ndarray, tpl: np.ndarray) -> tuple[np.ndarray, float]:
    """The affine least-squares fit of `tpl` to `pts` (matched in order) and its max residual."""
    T1 = np.hstack([tpl, np.ones((len(tpl), 1))])
    M, *_ = np.linalg.lstsq(T1, pts, rcond=None)
    return M, float(np.linalg.norm(T1 @ M - pts, axis=1).max())


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_fit_layout_recovers_a_known_map(n: int) -> None:
    rng = np.random.default_rng(n)
    for _ in range(20):
        ang, a = rng.uniform(0, 2 * math.pi), rng.uniform(5, 20)
        squash = 1.0 if n < 4 else rng.uniform(0.85, 1.0)  # two and three are fitted as a similarity
        R = np.array([[math.cos(ang), -math.sin(ang)], [math.sin(ang), math.cos(ang)]])
        A = R @ np.diag([a, a * squash])
        c = rng.uniform(50, 100, 2)
        pts = LAYOUTS[n] @ A.T + c
        pts = pts[rng.permutation(n)] + rng.normal(0, 0.05, (n, 2))
        fit = fit_layout(pts)
        assert fit is not None and fit.value == n
        assert (fit.cx, fit.cy) == pytest.approx(tuple(c), abs=0.1)
        assert fit.a == pytest.approx(a * math.sqrt(squash), rel=0.02)
        assert fit.aniso == pytest.approx(squash, abs=0.02)
        assert fit.err < 0.05
        # the same fit as a plain least-squares solve on the assignment the fit implies
        back = np.array([fit.to_face(x, y) for x, y in pts])
        order = [int(np.argmin(np.linalg.norm(LAYOUTS[n] - b, axis=1))) for b in back]
        if n >= 4:
            M, worst = _lstsq_fit(pts, LAYOUTS[n][order])
            assert fit.err == pytest.approx(worst / fit.a, abs=1e-6)
            assert np.allclose(M[2], (fit.cx, fit.cy), atol=1e-6)


def test_fit_layout_rejects_what_is_no_layout() -> None:
    assert fit_layout(np.zeros((0, 2))) is None and fit_layout(np.zeros((7, 2))) is None
    bad = np.array([[0.0, 0.0], [10.0, 0.0], [20.0, 1.0], [0.0, 30.0]])  # no square
    fit = fit_layout(bad)
    assert fit is None or fit.err > 0.3 or fit.aniso < 0.8
