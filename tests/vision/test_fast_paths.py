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


# ------------------------------------------------------------------ the reader's own inputs

def _calibrated_scene(seed: int, n: int, size: tuple[int, int], condition: str = "clean"):
    """(frame, calibration) of a rendered tray scene, calibrated as the appliance is."""
    synthetic = pytest.importorskip("vision.synthetic")
    from calibration import calibrate

    rng = np.random.default_rng(seed)
    scene = synthetic.random_scene(rng, n, size, condition)
    ref = synthetic.reference_scene(rng, n, size, tray=scene.tray, lighting=scene.lighting,
                                    die_size=scene.dice[0].size_px, camera_height=scene.camera_height,
                                    style=tuple(d.style for d in scene.dice), noise=scene.noise, blur=scene.blur,
                                    jpeg_quality=scene.jpeg_quality)
    return synthetic.render(scene), calibrate(synthetic.render_empty(scene), synthetic.render(ref), n)


def _recorded(monkeypatch, module, name: str, scenes) -> list[tuple[tuple, dict]]:
    """The arguments of every call the reader makes to module.name while reading `scenes`."""
    from vision import reader

    calls: list[tuple[tuple, dict]] = []
    fn = getattr(module, name)

    def record(*args, **kwargs):
        calls.append((args, kwargs))
        return fn(*args, **kwargs)

    monkeypatch.setattr(module, name, record)
    if module is not reader and hasattr(reader, name):
        monkeypatch.setattr(reader, name, record)
    for frame, cal in scenes:
        reader.read(frame, cal, 8)
    monkeypatch.undo()
    return calls


@pytest.fixture(scope="module")
def scenes():
    return [_calibrated_scene(7_000_001, 8, (640, 480)), _calibrated_scene(7_000_002, 8, (640, 480), "cocked")]


def _spots_at_loop(resp, dark, r, t_low=14.0, where=None, base=None, ring=0.0, ring_odd=5):
    """vision.pips.spots_at as it was written first: one window, one labelling per spot."""
    from vision.pips import Pip, _median_u8, _window, odd

    sm = cv2.GaussianBlur(resp, (0, 0), max(0.7, 0.5 * r))
    k = odd(1.3 * r)
    dil = cv2.dilate(sm, cv2.getStructuringElement(cv2.MORPH_RECT, (k, k)))
    t = max(t_low, 4.0 * _median_u8(sm[::4, ::4]) + 2.0)
    cand = (sm >= dil) & (sm > t)
    if where is not None:
        cand &= where
    out = []
    allc = _plateaus(cand)
    if len(allc) == 0:
        return out
    H, W = resp.shape
    h = int(math.ceil(2.2 * r))
    ix, iy = np.round(allc[:, 0]).astype(int), np.round(allc[:, 1]).astype(int)
    keep = (ix - h >= 0) & (iy - h >= 0) & (ix + h < W) & (iy + h < H)
    if base is not None and ring > 0:
        ang = np.linspace(0, 2 * math.pi, 16, endpoint=False)
        rx = np.clip(np.round(allc[:, :1] + ring * np.cos(ang)).astype(int), 0, W - 1)
        ry = np.clip(np.round(allc[:, 1:] + ring * np.sin(ang)).astype(int), 0, H - 1)
        vals = np.sort(base[ry, rx].astype(np.float32), axis=1)
        med = (vals[:, 7:8] + vals[:, 8:9]) * 0.5
        centre = base[np.clip(iy, 0, H - 1), np.clip(ix, 0, W - 1)].astype(np.float32)[:, None]
        keep &= np.count_nonzero(np.abs(vals - med) > 0.35 * np.abs(centre - med) + 4, axis=1) <= ring_odd
    yy, xx = _window(h)
    side = 2 * h + 1
    for i in np.nonzero(keep)[0]:
        cx, cy = allc[i]
        x, y = int(ix[i]), int(iy[i])
        sub = resp[y - h:y + h + 1, x - h:x + h + 1]
        peak = float(sm[y, x])
        own = None
        near = allc[(np.abs(allc[:, 0] - cx) < 2 * h) & (np.abs(allc[:, 1] - cy) < 2 * h)]
        if len(near) > 1:
            gx, gy = xx + (x - cx), yy + (y - cy)
            others = near[(near[:, 0] != cx) | (near[:, 1] != cy)] - (cx, cy)
            d_other = (gx - others[:, :1, None]) ** 2 + (gy - others[:, 1:, None]) ** 2
            own = gx * gx + gy * gy <= d_other.min(axis=0)
        c = 0
        for level in (0.5, 0.65, 0.8):
            m = sub > level * peak
            if own is not None:
                m &= own
            _, lab, st, _ = cv2.connectedComponentsWithStats(m.view(np.uint8), connectivity=4)
            c = lab[h, h]
            if c == 0:
                break
            x0, y0, w, hh = st[c, :4]
            if x0 > 0 and y0 > 0 and x0 + w < side and y0 + hh < side:
                break
        else:
            continue
        if c == 0:
            continue
        mo = cv2.moments((lab == c).view(np.uint8), binaryImage=True)
        area = mo["m00"]
        if area < 3:
            continue
        mx, my = mo["m10"] / area - h, mo["m01"] / area - h
        cxx, cyy, cxy = mo["mu20"] / area, mo["mu02"] / area, mo["mu11"] / area
        tr, det = cxx + cyy, cxx * cyy - cxy * cxy
        disc = math.sqrt(max(0.0, tr * tr / 4 - det))
        l1, l2 = tr / 2 + disc, max(1e-6, tr / 2 - disc)
        elong = math.sqrt(l2 / l1)
        fill = min(1.0, area / (4 * math.pi * math.sqrt(l1 * l2)))
        out.append(Pip(x + mx, y + my, math.sqrt(area / math.pi), dark, peak, fill, elong))
    return out


def test_spots_at_is_the_one_spot_at_a_time_loop(monkeypatch, scenes) -> None:
    """All spots' windows labelled at once give what labelling each spot's window alone gave,
    on every search the reader makes on rendered scenes (and with touching spots: a six)."""
    from vision import pips

    calls = _recorded(monkeypatch, pips, "spots_at", scenes)
    assert len(calls) >= 4
    found = 0
    for args, kwargs in calls:
        fast, slow = pips.spots_at(*args, **kwargs), _spots_at_loop(*args, **kwargs)
        assert fast == slow  # every field of every spot, to the bit
        found += len(fast)
    assert found >= 40


def _holes_plain_numpy(frame, f, k) -> bool:
    """vision.reader._holes_plain as it was written first (numpy medians, a 9-row sort)."""
    from vision.pips import whiteness

    taken = {(round(u), round(v)) for u, v in LAYOUTS[f.value]}
    holes = [(u, v) for u in (-1, 0, 1) for v in (-1, 0, 1) if (u, v) not in taken]
    if not holes:
        return True
    uv = list(LAYOUTS[f.value]) + [(0.5, 0.5), (-0.5, 0.5), (0.5, -0.5), (-0.5, -0.5)] + holes
    xy = [f.fit.to_image(u, v) for u, v in uv]
    xs = np.array([int(round(px / k)) for px, _ in xy])
    ys = np.array([int(round(py / k)) for _, py in xy])
    h, w = frame.shape[:2]
    if xs.min() < 1 or ys.min() < 1 or xs.max() >= w - 1 or ys.max() >= h - 1:
        return False
    x0, y0 = int(xs.min()) - 1, int(ys.min()) - 1
    patch = frame[y0:int(ys.max()) + 2, x0:int(xs.max()) + 2]
    img = patch if patch.ndim == 2 else (cv2.cvtColor(patch, cv2.COLOR_BGR2GRAY) if f.dark else whiteness(patch))
    xs, ys = xs - x0, ys - y0
    nine = np.stack([img[ys + dy, xs + dx] for dy in (-1, 0, 1) for dx in (-1, 0, 1)])
    tones = np.sort(nine, axis=0)[4].astype(np.float64)
    n = len(LAYOUTS[f.value])
    pip_t, face_t = float(np.median(tones[:n])), float(np.median(tones[n:n + 4]))
    span = pip_t - face_t
    if abs(span) < 8:
        return False
    return bool(np.all((tones[n + 4:] - face_t) / span < 0.45))


def test_holes_plain_is_the_numpy_version(monkeypatch, scenes) -> None:
    from vision import reader

    calls = _recorded(monkeypatch, reader, "_holes_plain", scenes)
    assert len(calls) >= 8
    verdicts = []
    for args, kwargs in calls:
        frame, f, k = args[:3]
        verdicts.append(reader._holes_plain(*args, **kwargs))
        assert verdicts[-1] == _holes_plain_numpy(frame, f, k)
        assert reader._holes_plain(frame, f, k) == verdicts[-1]  # without the grey made already
        assert reader._holes_plain(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), f, k) == _holes_plain_numpy(
            cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), f, k)
    assert True in verdicts
