"""The reader's fast paths give what the plain numpy / OpenCV calls they replace give."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from vision.dice import _percentile
from vision.pips import LAYOUTS, _groups8, blur_u8, brightest, darkest, fit_layout


# the reader's earlier groupings of spot pixels, kept here as the references its array grouping
# (pips._groups8, spots_at_many) must agree with
def _plateaus(mask: np.ndarray) -> np.ndarray:
    """Centroids (x, y) of the 8-connected pixel groups of a sparse bool (or 0/nonzero uint8) mask, in
    the raster order of each group's first pixel: what cv2.connectedComponentsWithStats gives (in its
    own order). The mask of local maxima has a few dozen pixels: grouping them beats labelling the image."""
    pts = cv2.findNonZero(mask.view(np.uint8))  # (x, y) in raster order
    if pts is None:
        return np.zeros((0, 2))
    pts = pts.reshape(-1, 2).astype(np.int64)
    xs, ys = pts[:, 0], pts[:, 1]
    n = len(xs)
    if n > 48:  # broad plateaus (a smooth wide response): label the box around them instead
        y0, x0 = int(ys.min()), int(xs.min())
        box = (mask[y0:int(ys.max()) + 1, x0:int(xs.max()) + 1] != 0).astype(np.uint8)
        # (BBDT: the labels and centroids of the default, Spaghetti, in half the time on this OpenCV)
        _, lab, _, cents = cv2.connectedComponentsWithStatsWithAlgorithm(box, 8, cv2.CV_32S, cv2.CCL_GRANA)
        _, first = np.unique(lab[ys - y0, xs - x0], return_index=True)  # each label's first pixel
        order = np.argsort(first, kind="stable") + 1  # labels by the raster order of their first pixel
        return cents[order] + (x0, y0)
    # each pixel takes the least index among its neighbours until nothing changes: then every
    # group's pixels hold its first pixel's index
    near = (np.abs(xs[:, None] - xs[None, :]) <= 1) & (np.abs(ys[:, None] - ys[None, :]) <= 1)
    roots = np.arange(n)
    if np.count_nonzero(near) > n:  # some pixels touch
        while True:
            nxt = np.where(near, roots[None, :], n).min(axis=1)
            if np.array_equal(nxt, roots):
                break
            roots = nxt
    first, group = np.unique(roots, return_inverse=True)  # roots ascend with raster order
    count = np.bincount(group)
    return np.stack([np.bincount(group, xs) / count, np.bincount(group, ys) / count], axis=1)


def _touching(xs: list[int], ys: list[int], box: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """Groups of 8-connected pixels (x, y) of the same box, the pixels given box by box in raster
    order: (each group's first pixel, each pixel's group), groups in the order of their first
    pixels (np.unique of the least pixel index in each pixel's group, as spots_at_many's plateaus
    were). A union-find over the pixels met already (left, and the three above), all the same
    groups as comparing every pair of pixels: a tenth of the time for a hundred pixels."""
    n = len(xs)
    parent = list(range(n))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = i = parent[parent[i]]
        return i

    seen: dict[tuple[int, int, int], int] = {}
    for i in range(n):
        x, y, b = xs[i], ys[i], box[i]
        for key in ((b, x - 1, y), (b, x - 1, y - 1), (b, x, y - 1), (b, x + 1, y - 1)):
            j = seen.get(key)
            if j is not None:
                ri, rj = root(i), root(j)
                if ri != rj:  # the later root joins the earlier: a group's root is its first pixel
                    parent[max(ri, rj)] = min(ri, rj)
        seen[b, x, y] = i
    roots = [root(i) for i in range(n)]
    first = sorted(set(roots))
    rank = {r: k for k, r in enumerate(first)}
    return np.array(first, np.int64), np.array([rank[r] for r in roots], np.int64)



def test_channel_extremes_are_numpy_min_and_max() -> None:
    img = np.random.default_rng(1).integers(0, 256, (37, 53, 3), dtype=np.uint8)
    assert np.array_equal(darkest(img), img.min(axis=2))
    assert np.array_equal(brightest(img), img.max(axis=2))
    view = img[3:30, 5:40]  # a crop of a bigger frame (not contiguous)
    assert np.array_equal(darkest(view), view.min(axis=2))


@pytest.mark.parametrize("sigma", [0.7, 1.14, 1.52, 1.6, 2.3, 3.3])
def test_blur_u8_is_opencvs_gaussian_blur(sigma: float) -> None:
    rng = np.random.default_rng(int(sigma * 100))
    for shape in [(5, 7), (40, 33), (301, 290)]:
        img = rng.integers(0, 256, shape, dtype=np.uint8)
        for im in (img, np.full(shape, 255, np.uint8), (img > 128).astype(np.uint8) * 255):
            assert np.array_equal(blur_u8(im, sigma), cv2.GaussianBlur(im, (0, 0), sigma))


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


def test_touching_is_every_pair_compared() -> None:
    """_touching's groups are those of comparing every pair of pixels and taking, until nothing
    changes, the least index among each pixel's neighbours (spots_at_many's first version)."""
    rng = np.random.default_rng(5)
    for _ in range(300):
        boxes = []
        for b in range(int(rng.integers(1, 4))):
            m = rng.random((int(rng.integers(1, 12)), int(rng.integers(1, 12)))) < rng.uniform(0.05, 0.6)
            ys, xs = np.nonzero(m)  # raster order
            boxes.append((xs, ys, np.full(len(xs), b)))
        xs, ys, box = (np.concatenate([t[i] for t in boxes]).astype(np.int64) for i in range(3))
        n = len(xs)
        if n == 0:
            continue
        near = (np.abs(xs[:, None] - xs[None, :]) <= 1) & (np.abs(ys[:, None] - ys[None, :]) <= 1) & (box[:, None] == box[None, :])
        roots = np.arange(n)
        while True:
            nxt = np.where(near, roots[None, :], n).min(axis=1)
            if np.array_equal(nxt, roots):
                break
            roots = nxt
        first, group = np.unique(roots, return_inverse=True)
        mine = _touching(xs.tolist(), ys.tolist(), box.tolist())
        assert np.array_equal(mine[0], first) and np.array_equal(mine[1], group)


def test_groups8_is_touching() -> None:
    """_groups8 (spots_at_many's grouping of the stacked boxes' candidate pixels, on arrays) gives
    _touching's groups: boxes stacked with empty rows between them, no pixel in the first or last
    column, pixels in raster order."""
    rng = np.random.default_rng(7)
    for _ in range(300):
        width, top, xs, ys, box = int(rng.integers(4, 40)), 0, [], [], []
        for b in range(int(rng.integers(1, 5))):
            h = int(rng.integers(1, 12))
            m = rng.random((h, width - 2)) < rng.uniform(0.05, 0.7)
            y, x = np.nonzero(m)  # raster order
            xs += (x + 1).tolist()
            ys += (y + top).tolist()
            box += [b] * len(x)
            top += h + int(rng.integers(1, 4))
        if not xs:
            continue
        mine = _groups8(np.array(xs, np.int64), np.array(ys, np.int64), width)
        first, group = _touching(xs, ys, box)
        assert np.array_equal(mine[0], first) and np.array_equal(mine[1], group)


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
    ref = synthetic.reference_scene(rng, n, like=scene)
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


def _spots_at_loop(resp, dark, r, t_low=14.0, where=None, base=None, ring=0.0, ring_odd=5, t_even=None,
                   one_sided=False):
    """vision.pips.spots_at as it was written first: one window, one labelling per spot (with the
    faint and one-sided spots' rules written plainly)."""
    from vision.pips import EVEN_ELONG, EVEN_SHARE, EVEN_STEP, ONE_SIDED, ONE_SIDED_MIN, Pip, _median_u8, _window, odd

    sm = cv2.GaussianBlur(resp, (0, 0), max(0.7, 0.5 * r))
    k = odd(1.3 * r)
    dil = cv2.dilate(sm, cv2.getStructuringElement(cv2.MORPH_RECT, (k, k)))
    t = max(t_low, 4.0 * _median_u8(sm[::4, ::4]) + 2.0)
    weak = t_even is not None and base is not None and ring > 0
    cand = (sm >= dil) & (sm > (max(t_even, EVEN_SHARE * t) if weak else t))
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
    picky = np.zeros(len(allc), bool)
    rival = np.ones(len(allc), bool)  # a faint candidate refused does not split its neighbours' outlines
    if base is not None and ring > 0:
        for i in range(len(allc)):
            v, m, c = vals[i], float(med[i, 0]), float(centre[i, 0])
            ok = np.count_nonzero(np.abs(v - m) > 0.35 * abs(c - m) + 4) <= ring_odd
            if not ok and one_sided:
                near3 = base[np.clip(iy[i] + np.arange(-1, 2)[:, None], 0, H - 1), np.clip(ix[i] + np.arange(-1, 2), 0, W - 1)]
                top = float(near3.min() if dark else near3.max())
                gap = v - top if dark else top - v
                if gap.min() >= max(ONE_SIDED * gap.max(), ONE_SIDED_MIN):
                    ok = picky[i] = True
            if weak and sm[iy[i], ix[i]] <= t:
                picky[i] = True
                even = np.count_nonzero(np.abs(v - m) > 0.2 * abs(c - m) + 3) == 0 and (
                    (m - c) if dark else (c - m)) >= EVEN_STEP
                ok = ok and even
                rival[i] = even
            keep[i] &= ok
    yy, xx = _window(h)
    side = 2 * h + 1
    for i in np.nonzero(keep)[0]:
        cx, cy = allc[i]
        x, y = int(ix[i]), int(iy[i])
        sub = resp[y - h:y + h + 1, x - h:x + h + 1]
        peak = float(sm[y, x])
        own = None
        near = allc[(np.abs(allc[:, 0] - cx) < 2 * h) & (np.abs(allc[:, 1] - cy) < 2 * h) & (rival | (np.arange(len(allc)) == i))]
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
        if picky[i] and elong < EVEN_ELONG:
            continue
        fill = min(1.0, area / (4 * math.pi * math.sqrt(l1 * l2)))
        out.append(Pip(x + mx, y + my, math.sqrt(area / math.pi), dark, peak, fill, elong))
    return out


def test_spots_at_is_the_one_spot_at_a_time_loop(monkeypatch, scenes) -> None:
    """All spots' windows labelled at once give what labelling each spot's window alone gave,
    on every search the reader makes on rendered scenes (and with touching spots: a six). (The reader
    searches its boxes together, spots_at_many: each box's search is taken as spots_at's.)"""
    from vision import pips

    calls = _recorded(monkeypatch, pips, "spots_at", scenes)
    for args, kwargs in _recorded(monkeypatch, pips, "spots_at_many", scenes):
        jobs, r, *rest = args
        # (the reader's `squashed` list is spots_at_many's own side output: no spots_at argument)
        opts = {**dict(zip(["t_low", "ring", "ring_odd"], rest)), **{k: v for k, v in kwargs.items() if k != "squashed"}}
        calls += [((job[0], job[1], r), dict(opts, where=job[2], base=job[3], **dict(zip(["t_even", "one_sided"], job[4:]))))
                  for job in jobs]
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


# ------------------------------------------------------------------ grouping pips into faces

def _fit_layout_first(pts: np.ndarray, affine: bool = True):
    """vision.pips.fit_layout as it was written first (all ordered pairs, a lambda per assignment)."""
    from vision.pips import _TABLES, Fit, single

    n = len(pts)
    if n < 1 or n > 6:
        return None
    if n == 1:
        return single(float(pts[0, 0]), float(pts[0, 1]), 1.0)
    tz, pairs, pinv, tc, tcc, tmean = _TABLES[n]
    pl = pts.tolist()
    pz = [complex(x, y) for x, y in pl]
    dmax, i, j = -1.0, 0, 0
    for a in range(n):
        for b in range(n):
            dd = abs(pz[a] - pz[b])
            if dd > dmax:
                dmax, i, j = dd, a, b
    best: Fit | None = None
    rng = range(n)
    for ti, tj in pairs:
        s = (pz[j] - pz[i]) / (tz[tj] - tz[ti])
        b = pz[i] - s * tz[ti]
        for _ in range(2):
            assign = []
            for t in tz:
                q = s * t + b
                assign.append(min(rng, key=lambda m: abs(q - pz[m])))
            if len(set(assign)) != n:
                break
            Pz = [pz[m] for m in assign]
            if affine and n >= 4:
                # the least-squares affine map, template -> image: pinv @ P
                r0 = sum(w * p for w, p in zip(pinv[0], Pz))
                r1 = sum(w * p for w, p in zip(pinv[1], Pz))
                r2 = sum(w * p for w, p in zip(pinv[2], Pz))
                a00, a01, a10, a11 = r0.real, r1.real, r0.imag, r1.imag
                c0, c1 = r2.real, r2.imag
            else:
                pc = sum(Pz) / n
                s2 = sum(t.conjugate() * (p - pc) for t, p in zip(tc, Pz)) / tcc
                b2 = pc - s2 * tmean
                a00, a01, a10, a11 = s2.real, -s2.imag, s2.imag, s2.real
                c0, c1 = b2.real, b2.imag
            det = abs(a00 * a11 - a01 * a10)
            if det <= 1e-9:
                break
            worst = 0.0
            for t, p in zip(tz, Pz):
                rx = t.real * a00 + t.imag * a01 + c0 - p.real
                ry = t.real * a10 + t.imag * a11 + c1 - p.imag
                worst = max(worst, rx * rx + ry * ry)
            err = math.sqrt(worst / det)
            # singular values of the 2x2 map: s1^2 + s2^2 = |A|_F^2, s1 * s2 = |det A|
            fro = a00 * a00 + a01 * a01 + a10 * a10 + a11 * a11
            big = math.sqrt(max(0.0, (fro + math.sqrt(max(0.0, fro * fro - 4 * det * det))) / 2))
            fit = Fit(n, c0, c1, (a00, a01, a10, a11), err, (det / big) / big if big > 0 else 1.0)
            if best is None or fit.err < best.err:
                best = fit
            # iterate the assignment with the refined transform
            s = complex(a00, a10)
            b = complex(c0, c1)
    return best


def _options_first(pips, xy, lim, *_):
    """vision.dice._options as it was written first (one numpy circle test per pair, every fit made)."""
    from vision.dice import ALIKE, _valid
    from vision.pips import single

    n = len(pips)
    out = []
    if n == 0:
        return out
    r = np.array([p.r for p in pips])
    dark = np.array([p.dark for p in pips])
    c = np.array([p.contrast for p in pips])
    d = np.hypot(xy[:, None, 0] - xy[None, :, 0], xy[:, None, 1] - xy[None, :, 1])
    rmax, rmin = np.maximum(r[:, None], r[None, :]), np.minimum(r[:, None], r[None, :])
    ok = (dark[:, None] == dark[None, :]) & (rmax < 1.6 * rmin) & (np.maximum(c[:, None], c[None, :]) <= ALIKE * np.minimum(c[:, None], c[None, :]))
    if lim.a_hint:
        ok &= (d > 2.1 * lim.a_hint) & (d < 3.5 * lim.a_hint)
    else:
        ok &= (d > 3.5 * rmax) & (d < 11.0 * rmin)
    seen = set()
    for i, j in zip(*np.nonzero(np.triu(ok, 1))):
        m = (xy[i] + xy[j]) / 2
        rad = d[i, j] / 2 * 1.12
        lo, hi = max(c[i], c[j]) / ALIKE, min(c[i], c[j]) * ALIKE
        inside = np.nonzero((np.hypot(xy[:, 0] - m[0], xy[:, 1] - m[1]) < rad) & (dark == dark[i]) & (c >= lo) & (c <= hi))[0]
        members = tuple(sorted(set(inside.tolist()) | {int(i), int(j)}))
        if len(members) > 6 or members in seen:
            continue
        seen.add(members)
        fit = _fit_layout_first(xy[list(members)])
        if _valid(fit, pips, list(members), lim):
            dev = abs(fit.a / lim.a_hint - 1.0) if lim.a_hint else 0.0
            out.append((-len(members), fit.err + dev, fit, members))
    for k in range(n):
        out.append((-1, 0.0, single(float(xy[k, 0]), float(xy[k, 1]), 1.0), (k,)))
    out.sort(key=lambda o: (o[0], o[1]))
    return out


def test_grouping_is_the_first_version(monkeypatch, scenes) -> None:
    """The faces (every fit, to the bit) and leftovers of every grouping the reader makes on rendered
    scenes are what the first _options and fit_layout gave; and fit_layout is the first one on
    random and on exactly symmetric layouts (ties)."""
    from vision import dice

    calls = _recorded(monkeypatch, dice, "group", scenes)
    assert len(calls) >= 2
    for args, kwargs in calls:
        fast = dice.group(*args, **kwargs)
        with monkeypatch.context() as m:
            m.setattr(dice, "_options", _options_first)
            slow = dice.group(*args, **kwargs)
        assert fast == slow and len(fast.faces) >= 4
    rng = np.random.default_rng(5)
    for n in range(1, 7):
        for _ in range(200):
            pts = rng.normal(0, 10, (n, 2)) if rng.random() < 0.5 else (LAYOUTS[n] * rng.integers(1, 9)).astype(float)
            assert fit_layout(pts) == _fit_layout_first(pts)


# ------------------------------------------------------------------ one pass over all search boxes

def _boxes(rng, n: int):
    """Search-box jobs like the reader's (response, dark, where, base) of varied sizes: smooth spots on a
    textured face, some boxes smaller than the smoothing kernel, some with broad flat plateaus (more
    than 48 candidate pixels: _plateaus labels those), some without `where` or `base`."""
    jobs = []
    for i in range(n):
        h, w = int(rng.integers(8, 90)), int(rng.integers(8, 120))
        img = rng.normal(0, 6, (h, w))
        yy, xx = np.mgrid[:h, :w]
        for _ in range(int(rng.integers(0, 12))):
            cx, cy, s = rng.uniform(0, w), rng.uniform(0, h), rng.uniform(1.5, 3.5)
            img += rng.uniform(30, 120) * np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * s * s))
        if i % 5 == 3:
            img[h // 4:h // 2, w // 4:w // 2] = 80.0  # a flat plateau
        resp = np.clip(img, 0, 255).astype(np.uint8)
        where = (rng.random((h, w)) < 0.9) if i % 3 else None
        base = np.clip(rng.normal(150, 30, (h, w)), 0, 255).astype(np.uint8) if i % 4 else None
        jobs.append((resp, bool(i % 2), where, base))
    return jobs


def test_spots_at_many_is_spots_at_box_by_box(monkeypatch, scenes) -> None:
    """Every box's spots from the one pass over all boxes are what the first spots_at (one box, one
    spot at a time) gives for that box alone (every field, to the bit): on every batch the reader
    makes on rendered scenes, and on random boxes (small ones, broad plateaus, without `where` or
    `base`, faint and one-sided rules on some). spots_at itself is a batch of one."""
    from vision import pips

    calls = _recorded(monkeypatch, pips, "spots_at_many", scenes)
    assert len(calls) >= 2
    found = 0
    for args, kwargs in calls:
        jobs, r, *rest = args
        one = [_one_box(job, r, rest, kwargs) for job in jobs]
        assert pips.spots_at_many(*args, **kwargs) == one
        found += sum(map(len, one))
    assert found >= 40
    rng = np.random.default_rng(11)
    plateaus = 0
    for trial in range(40):
        jobs = _boxes(rng, int(rng.integers(1, 7)))
        jobs = [job + ((12.0, bool(i % 2)) if trial % 3 == 0 else ()) for i, job in enumerate(jobs)]
        r, ring = float(rng.uniform(2.0, 4.0)), float(rng.choice([0.0, 4.5]))
        many = pips.spots_at_many(jobs, r, 14.0, ring=ring, ring_odd=5)
        assert many == [_one_box(job, r, [14.0, ring, 5], {}) for job in jobs]
        plateaus += sum(len(x) for x in many)
    assert plateaus >= 50


def _one_box(job, r, rest, kwargs):
    """The first spots_at for one job of a spots_at_many call (its t_low, ring and ring_odd, by
    position or name; the job's own t_even and one_sided)."""
    opts = dict(zip(["t_low", "ring", "ring_odd"], rest))
    opts.update(kwargs)
    resp, dark, where, base, *extra = job
    return _spots_at_loop(resp, dark, r, opts.get("t_low", 14.0), where, base, opts.get("ring", 0.0),
                          opts.get("ring_odd", 5), *extra)


# ------------------------------------------------------------------ the face checks, pip by pip

def _plain_first(resp, pips, members, fit, contrast, narrow=False) -> bool:
    """vision.dice._plain as it was written first (the corners as a float32 array)."""
    from vision.dice import PLAIN_DISC, PLAIN_DISC_LIGHT, PLAIN_HALF

    h, w = resp.shape
    if fit.value == 1:
        rad = 1.3 * fit.a
        corners = np.array([[fit.cx - rad, fit.cy - rad], [fit.cx + rad, fit.cy + rad]], np.float32)
    else:
        corners = np.array([fit.to_image(u * PLAIN_HALF, v * PLAIN_HALF) for u, v in ((-1, -1), (1, -1), (1, 1), (-1, 1))],
                           np.float32)
    x0, y0 = np.floor(corners.min(0)).astype(int)
    x1, y1 = np.ceil(corners.max(0)).astype(int) + 1
    if x0 < 0 or y0 < 0 or x1 > w or y1 > h:
        return False
    mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    if fit.value == 1:
        cv2.circle(mask, (int(round(fit.cx - x0)), int(round(fit.cy - y0))), int(round(1.3 * fit.a)), 1, -1)
    else:
        cv2.fillConvexPoly(mask, np.round(corners - [x0, y0]).astype(np.int32), 1)
        disc = np.zeros_like(mask)
        reach = PLAIN_DISC_LIGHT if narrow and not pips[members[0]].dark else PLAIN_DISC
        cv2.circle(disc, (int(round(fit.cx - x0)), int(round(fit.cy - y0))), int(round(reach * fit.a)), 1, -1)
        mask &= disc
    for k in members:
        p = pips[k]
        cv2.circle(mask, (int(round(p.x - x0)), int(round(p.y - y0))), int(math.ceil(p.r * 2.3 + 1)), 0, -1)
    vals = resp[y0:y1, x0:x1][mask > 0]
    if vals.size < 10:
        return True
    return _percentile(vals, 97.0) < 0.4 * contrast


def _verify_first(fit, members, pips, resp, lim, *_):
    """vision.dice._verify as it was written first (the other pips one by one, Fit.to_face each)."""
    import statistics

    from vision.dice import Face, _inside, _one_reach, alike
    from vision.pips import single

    p = pips[members[0]]
    r = sum(pips[k].r for k in members) / len(members)
    if fit.value == 1:
        if lim.one_min_r is not None and r < lim.one_min_r:
            return None
        fit = single(fit.cx, fit.cy, lim.a_hint if lim.a_hint else 2.2 * r)
    if fit.value == 1 and any(k != members[0] and pips[k].dark == p.dark and pips[k].r > 0.6 * r
                              and alike(pips[k].contrast, p.contrast)
                              and math.hypot(pips[k].x - p.x, pips[k].y - p.y) < _one_reach(r, pips[k].r, lim)
                              for k in range(len(pips))):
        return None
    if any(k not in members and pips[k].dark == p.dark and alike(pips[k].contrast, p.contrast)
           and _inside(fit, pips[k].x, pips[k].y, 1.45) for k in range(len(pips))):
        return None
    cs = [pips[k].contrast for k in members]
    if not alike(min(cs), max(cs)):
        return None
    from vision.dice import PLAIN_LIGHT_GROWN

    narrow = not p.dark and bool(lim.a_hint) and fit.a <= PLAIN_LIGHT_GROWN * lim.a_hint
    if not _plain_first(resp, pips, members, fit, statistics.median(cs), narrow):
        return None
    return Face(fit.value, fit.cx, fit.cy, fit.a, fit.angle, r, p.dark, fit.err, tuple(members), fit)


def _valid_first(fit, pips, members, lim) -> bool:
    """vision.dice._valid as it was written first (np.mean of the radii)."""
    from vision.dice import R_OVER_A

    if fit is None or fit.err > lim.max_err or fit.aniso < lim.min_aniso:
        return False
    if lim.a_hint and fit.value > 1 and not (0.8 * lim.a_hint < fit.a < 1.25 * lim.a_hint):
        return False
    rs = [pips[k].r for k in members]
    if max(rs) > 1.6 * min(rs):
        return False
    if fit.value > 1 and not (R_OVER_A[0] <= float(np.mean(rs)) / fit.a <= R_OVER_A[1]):
        return False
    return True


def test_face_checks_are_the_pip_by_pip_version(monkeypatch, scenes) -> None:
    """Every grouping the reader makes on rendered scenes gives the same faces (every fit, to the bit) and
    leftovers with the face checks on arrays and with them pip by pip as first written; with the memo the
    reader kept between a frame's two groupings (every fit, plain check and face check of both made
    already) and without one."""
    from vision import dice

    calls = _recorded(monkeypatch, dice, "group", scenes)
    assert len(calls) >= 2
    for args, kwargs in calls:
        pips, hat_dark, hat_light, lim, accept, memo = args
        assert memo  # the reader's memo, filled by its groupings
        fast = dice.group(*args, **kwargs)
        fresh = dice.group(pips, hat_dark, hat_light, lim, accept)
        with monkeypatch.context() as m:
            m.setattr(dice, "_verify", _verify_first)
            m.setattr(dice, "_valid", _valid_first)
            m.setattr(dice, "_options", _options_first)
            slow = dice.group(pips, hat_dark, hat_light, lim, accept)
        assert fast == fresh == slow and len(fast.faces) >= 4


def _add_spots_first(spots, found, X0, Y0, dark, light, apart):
    """vision.reader._add_spots as it was written first (each found spot against every spot)."""
    from vision.pips import Pip

    added = []
    for p in found:
        if not any(q.dark == p.dark and abs(q.x - p.x - X0) < apart and abs(q.y - p.y - Y0) < apart for q in spots):
            pm = dark if p.dark else light
            px, py = int(round(p.x + X0)), int(round(p.y + Y0))
            c = float(pm[max(0, py - 1):py + 2, max(0, px - 1):px + 2].max())
            q = Pip(p.x + X0, p.y + Y0, p.r, p.dark, c, p.round, p.elong)
            spots.append(q)
            added.append(q)
    return added


def test_add_spots_is_the_spot_by_spot_loop() -> None:
    """Spots found in a box are added (or not, beside a like one) as comparing each with every spot did:
    near twins within the box, twins of spots there already, the other kind at the same place."""
    from vision.pips import Pip
    from vision.reader import _add_spots

    rng = np.random.default_rng(8)
    dark = rng.integers(0, 256, (120, 160)).astype(np.uint8)
    light = rng.integers(0, 256, (120, 160)).astype(np.uint8)
    skipped = 0
    for _ in range(200):
        def spot(x, y):
            return Pip(float(x), float(y), 2.0, bool(rng.random() < 0.6), 30.0, 0.9, 0.9)
        X0, Y0 = int(rng.integers(0, 60)), int(rng.integers(0, 40))
        spots = [spot(rng.uniform(X0, X0 + 60), rng.uniform(Y0, Y0 + 60)) for _ in range(int(rng.integers(0, 15)))]
        found = [spot(rng.uniform(0, 60), rng.uniform(0, 60)) for _ in range(int(rng.integers(0, 15)))]
        found += [spot(q.x - X0 + rng.normal(0, 1.0), q.y - Y0 + rng.normal(0, 1.0)) for q in spots[:3]]
        found += [spot(p.x + rng.normal(0, 1.0), p.y + rng.normal(0, 1.0)) for p in found[:3]]
        a, b = list(spots), list(spots)
        added = _add_spots(a, found, X0, Y0, dark, light, 1.5)
        assert added == _add_spots_first(b, found, X0, Y0, dark, light, 1.5) and a == b
        skipped += len(found) - len(added)
    assert skipped >= 100


def test_verify_is_the_pip_by_pip_version() -> None:
    """On random pip sets (faces with strays, twins and faint specks about them) every candidate face is
    taken or refused as checking the other pips one by one did."""
    from vision import dice
    from vision.pips import Pip

    rng = np.random.default_rng(12)
    resp = rng.integers(0, 40, (240, 240)).astype(np.uint8)
    refused = taken = 0
    for _ in range(60):
        pips = []
        for _ in range(int(rng.integers(2, 7))):  # faces of a = 8 px, any yaw, some pips jittered
            n, ang, c = int(rng.integers(1, 7)), rng.uniform(0, math.pi), rng.uniform(40, 200, 2)
            R = 8.0 * np.array([[math.cos(ang), -math.sin(ang)], [math.sin(ang), math.cos(ang)]])
            dark, contrast = bool(rng.random() < 0.7), rng.uniform(30, 90)
            for x, y in LAYOUTS[n] @ R.T + c + rng.normal(0, 0.3, (n, 2)):
                pips.append(Pip(float(x), float(y), rng.uniform(2.5, 3.5), dark, contrast * rng.uniform(0.8, 1.2), 0.9, 0.9))
            if rng.random() < 0.5:  # a like pip about the face's edge (on it up to 1.45 a)
                u, v = rng.choice([-1, 1]) * rng.uniform(1.0, 1.7), rng.uniform(-1.7, 1.7)
                if rng.random() < 0.5:  # by a corner: beyond the circle on its diagonal (no member then)
                    v = rng.choice([-1, 1]) * rng.uniform(1.25, 1.6)
                x, y = R @ (rng.permutation([u, v])) + c
                pips.append(Pip(float(x), float(y), rng.uniform(2.5, 3.5), dark, contrast, 0.9, 0.9))
        for _ in range(int(rng.integers(0, 8))):  # strays: pips, faint specks, the other kind
            x, y = rng.uniform(30, 210, 2)
            pips.append(Pip(float(x), float(y), rng.uniform(2.0, 3.6), bool(rng.random() < 0.5),
                            rng.choice([10.0, 60.0]) * rng.uniform(0.8, 1.2), 0.9, 0.9))
        xy = np.array([[p.x, p.y] for p in pips])
        for hint in (8.0, None):
            lim = dice.Limits(max_err=0.15, min_aniso=0.8, a_hint=hint)
            arr = dice._arrays(pips)
            for _, _, fit, members in dice._options(pips, xy, lim):
                fast = dice._verify(fit, list(members), pips, resp, lim, arr)
                assert fast == _verify_first(fit, list(members), pips, resp, lim)
                taken += fast is not None
                refused += fast is None
    assert taken >= 100 and refused >= 100


def _lone_pip_first(frame, x, y, a, r, dark, gray=None) -> bool:
    """vision.reader._lone_pip as it was written first (the whole patch converted, then sampled)."""
    from vision.pips import whiteness

    h, w = frame.shape[:2]
    r0 = max(1.1 * a, 1.6 * r)
    r1 = max(1.4 * a, r0 + 0.3 * a)
    m = int(math.ceil(r1)) + 2
    x0, y0, x1, y1 = int(x) - m, int(y) - m, int(x) + m + 1, int(y) + m + 1
    if x0 < 0 or y0 < 0 or x1 > w or y1 > h:
        return False
    patch = frame[y0:y1, x0:x1]
    if patch.ndim == 2:
        img = patch
    elif dark:
        img = cv2.cvtColor(patch, cv2.COLOR_BGR2GRAY)
    else:
        img = whiteness(patch)
    img = img.astype(np.float32)
    col = (patch if patch.ndim == 3 else patch[:, :, None]).astype(np.float32)
    cx, cy = x - x0, y - y0
    angs = np.linspace(0, 2 * math.pi, 24, endpoint=False)
    rad = np.linspace(r0, r1, 3)[:, None]
    xs = np.clip(np.round(cx + rad * np.cos(angs)).astype(int), 0, img.shape[1] - 1).ravel()
    ys = np.clip(np.round(cy + rad * np.sin(angs)).astype(int), 0, img.shape[0] - 1).ravel()
    vals = img[ys, xs]
    med = float(np.median(vals))
    contrast = abs(float(img[int(round(cy)), int(round(cx))]) - med)
    cols = col[ys, xs]
    dev = np.abs(cols - np.median(cols, axis=0)).max(axis=1)
    return np.count_nonzero(dev > 0.35 * contrast + 6) <= 0.1 * vals.size


def test_lone_pip_is_the_whole_patch_version(monkeypatch, scenes) -> None:
    """A one's ring check converting only its samples gives what converting the whole patch gave: on the
    reader's calls, on their grey frames, for the other kind of pip, and at random places and sizes."""
    from vision import reader

    calls = _recorded(monkeypatch, reader, "_lone_pip", scenes)
    assert len(calls) >= 2
    frame = scenes[0][0]
    rng = np.random.default_rng(9)
    cases = [args for args, _ in calls]
    cases += [(frame, *rng.uniform(10, 470, 2), rng.uniform(5, 12), rng.uniform(2, 5), bool(rng.random() < 0.5))
              for _ in range(150)]
    verdicts = set()
    for fr, x, y, a, r, dark, *_ in cases:
        for img in (fr, cv2.cvtColor(fr, cv2.COLOR_BGR2GRAY)):
            for d in (dark, not dark):
                v = reader._lone_pip(img, x, y, a, r, d)
                assert v == _lone_pip_first(img, x, y, a, r, d)
                if img.ndim == 3 and d:
                    assert reader._lone_pip(img, x, y, a, r, d, cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)) == v
                verdicts.add(v)
    assert verdicts == {True, False}


def test_shrink_under_twice_is_close_to_an_area_shrink(scenes) -> None:
    """A search box shrunk by under 2x (bilinear to twice the size, then halved exactly: not OpenCV's
    slow fractional area shrink) stays within a few grey levels of the area shrink on a rendered
    frame, at the sizes the reader asks for; sizes it halves exactly or keeps are unchanged."""
    from vision.reader import _shrink

    frame = scenes[0][0]
    crop = frame[100:400, 150:550]  # 300 x 400, BGR
    for f in (0.52, 0.6, 0.75, 0.9, 0.97):
        w, h = int(400 * f), int(300 * f)
        mine = _shrink(crop, w, h).astype(int)
        area = cv2.resize(crop, (w, h), interpolation=cv2.INTER_AREA).astype(int)
        assert mine.shape == area.shape
        d = np.abs(mine - area)
        assert np.percentile(d, 99) <= 6 and d.mean() < 1.0
    assert np.array_equal(_shrink(crop, 200, 150), cv2.resize(crop, (200, 150), interpolation=cv2.INTER_AREA))
    assert _shrink(crop, 400, 300) is crop


def test_calibration_keeps_the_empty_tray_its_png_decodes_to(scenes) -> None:
    """calibrate() keeps the small empty tray as the calibration's decoded image: what decoding its PNG
    gives, and its blurred copy for the body map (made by calibrate(), not by the first read); and the
    reader's body map from the blurred copy it keeps on the calibration is the plain one."""
    from calibration.profile import Calibration
    from vision.reader import _body_map, body_map

    for frame, cal in scenes:
        kept = cal.empty_image()
        fresh = Calibration(cal.image_size, cal.floor, cal.keep_zone, cal.pip_a, cal.pip_r, cal.pip_dark,
                            cal.n_dice, cal.empty_small, cal.pip_kinds)  # as loaded from a profile: no image yet
        decoded = fresh.empty_image()
        assert kept is not decoded and np.array_equal(kept, decoded)
        assert cal.__dict__["_empty_blurred"][0] is kept
        for c in (cal, fresh):
            for _ in range(2):  # (the second time from the kept blur)
                got, want = _body_map(frame, c), body_map(frame, c.empty_image())
                assert np.array_equal(got[0], want[0]) and got[1] == want[1]


def _describe_hog_bins(P: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """tilt.describe's orientation bins as it first made them (boolean-indexed wrap, cell ids per
    call): (b0, b1, cid), the reference the masked wrap and the cached cell ids must give."""
    from vision.tilt import BINS, CELL, PATCH

    n = len(P)
    gx = np.zeros_like(P)
    gy = np.zeros_like(P)
    np.subtract(P[:, :, 2:], P[:, :, :-2], out=gx[:, :, 1:-1])
    np.subtract(P[:, 2:, :], P[:, :-2, :], out=gy[:, 1:-1, :])
    _, ang = cv2.cartToPolar(gx.reshape(-1, PATCH), gy.reshape(-1, PATCH))
    fb = ang * np.float32(BINS / (2 * np.pi)) - np.float32(0.5)
    b0 = np.floor(fb).astype(np.int64)
    b0[b0 < 0] += BINS
    b1 = b0 + 1
    b1[b1 == BINS] = 0
    nc = PATCH // CELL
    c = np.arange(PATCH) // CELL
    cid = ((c[:, None] * nc + c[None, :]) * BINS)[None] + (np.arange(n) * (nc * nc * BINS))[:, None, None]
    return b0, b1, cid.reshape(-1, PATCH)


def test_describe_bins_are_the_boolean_indexed_wrap() -> None:
    """tilt.describe wraps its orientation bins by a mask and keeps each patch count's cell ids:
    the same bins and cells (so the same features) as the boolean-indexed wrap; patches with flat
    parts (angle 0: bin -1 wrapped) and whole grey levels (gradients on the bins' edges)."""
    from vision import tilt

    rng = np.random.default_rng(7)
    for t in range(60):
        n = int(rng.integers(1, 10))
        P = rng.uniform(0, 255, (n, tilt.PATCH, tilt.PATCH)).astype(np.float32)
        if t % 3 == 0:
            P = np.round(P)
        if t % 4 == 0:
            P[:, :, : tilt.PATCH // 2] = 100.0
        b0, b1, cid = _describe_hog_bins(P)
        assert np.array_equal(tilt._cell_ids(n), cid)
        seen: dict = {}
        real = np.bincount

        def spy(idx, weights, size):
            seen.setdefault("idx", []).append(idx.copy())
            return real(idx, weights, size)

        geo = rng.uniform(-1, 3, (n, 4 + tilt.THUMB * tilt.THUMB)).astype(np.float32)
        try:
            tilt.np.bincount = spy  # (tilt's np is numpy itself: restored below)
            tilt.describe(P, geo)
        finally:
            tilt.np.bincount = real
        assert np.array_equal(seen["idx"][0], (cid + b0).ravel())
        assert np.array_equal(seen["idx"][1], (cid + b1).ravel())


def _spots_response_float_copy(gray, white, a):
    """vision.pips.spots_response as it was: each image copied to float32, then cv2.GaussianBlur."""
    out = []
    for img, sign in ((gray, -1.0), (white, 1.0)):
        if img is None:
            out.append(None)
            continue
        f = img.astype(np.float32)
        centre, surround = cv2.GaussianBlur(f, (0, 0), 0.2 * a), cv2.GaussianBlur(f, (0, 0), 0.55 * a)
        d = cv2.subtract(surround, centre) if sign < 0 else cv2.subtract(centre, surround)
        d = cv2.threshold(d, 0.0, 0.0, cv2.THRESH_TOZERO)[1]
        out.append(cv2.convertScaleAbs(d, alpha=1.5, beta=-0.5))
    return out[0], out[1]


def test_gauss32_is_the_float_copys_blur_to_the_last_bits(monkeypatch) -> None:
    """pips.gauss32 blurs a uint8 image straight into float32 sums: within 1e-4 of
    cv2.GaussianBlur of its float copy (exactly that for a float image), and every spot response
    the reader makes on own-seed scenes (22,200,004: 8 dice at 1280x960; 22,200,011: 640x480,
    cocked) is the float copy's, pixel for pixel (the responses are whole grey levels)."""
    from vision import pips, reader

    rng = np.random.default_rng(5)
    for sigma in (0.7, 1.6, 4.4, 3.2, 8.8):
        img = rng.integers(0, 256, (57, 83), dtype=np.uint8)
        ref = cv2.GaussianBlur(img.astype(np.float32), (0, 0), sigma)
        assert np.abs(pips.gauss32(img, sigma) - ref).max() < 1e-4
        f = img.astype(np.float32)
        assert np.array_equal(pips.gauss32(f, sigma), cv2.GaussianBlur(f, (0, 0), sigma))
    scenes = [_calibrated_scene(22_200_004, 8, (1280, 960)), _calibrated_scene(22_200_011, 8, (640, 480), "cocked")]
    calls = _recorded(monkeypatch, reader, "spots_response", scenes)
    assert len(calls) >= 4
    for (gray, white, a), _ in calls:
        for mine, ref in zip(pips.spots_response(gray, white, a), _spots_response_float_copy(gray, white, a)):
            assert (mine is None and ref is None) or np.array_equal(mine, ref)
