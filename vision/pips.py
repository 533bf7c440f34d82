"""Pips: find round spots of either polarity, and read a face from a pip layout.

`find_pips` works on a grayscale image: a black-hat (dark pips on a light face)
and a top-hat (light pips on a dark face) with a square kernel larger than a pip
turn every small spot into a bright blob whatever the lighting; each blob is cut
at half its own peak (so weak and strong pips both keep their true outline) and
kept when it is round and solid.

`fit_layout` decides whether a set of pip centres is a valid 1-6 face: it fits
the canonical layout of that many pips with a similarity transform (any yaw,
any scale) and reports the residual in units of the layout's half spacing.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np


@dataclass(frozen=True)
class Pip:
    x: float
    y: float
    r: float  # equivalent radius (from area), pixels
    dark: bool  # dark pip on a lighter face
    contrast: float  # peak of the hat response
    round: float  # 0..1, 1 = a perfect disc
    elong: float  # minor / major axis, 1 = circle


# Canonical layouts in units of `a`, the offset of a corner pip from the centre.
LAYOUTS: dict[int, np.ndarray] = {
    1: np.array([[0.0, 0.0]]),
    2: np.array([[-1.0, -1.0], [1.0, 1.0]]),
    3: np.array([[-1.0, -1.0], [0.0, 0.0], [1.0, 1.0]]),
    4: np.array([[-1.0, -1.0], [1.0, -1.0], [-1.0, 1.0], [1.0, 1.0]]),
    5: np.array([[-1.0, -1.0], [1.0, -1.0], [0.0, 0.0], [-1.0, 1.0], [1.0, 1.0]]),
    6: np.array([[-1.0, -1.0], [-1.0, 0.0], [-1.0, 1.0], [1.0, -1.0], [1.0, 0.0], [1.0, 1.0]]),
}


def odd(x: float) -> int:
    """The odd integer (at least 3) nearest `x`: a kernel size."""
    k = max(3, int(round(x)))
    return k if k % 2 else k + 1


def darkest(bgr: np.ndarray) -> np.ndarray:
    """The darkest channel of each pixel (white pips on a coloured die stand out in it):
    bgr.min(axis=2), thirty times faster."""
    b, g, r = cv2.split(bgr)
    return cv2.min(cv2.min(b, g), r)


def whiteness(bgr: np.ndarray) -> np.ndarray:
    """How white each pixel is: its darkest channel less half its chroma (max - min channel), in
    0..255. A white pip stays bright while a coloured face, even a light pink or sky-blue one under a
    bright lamp, drops well below it; on a black die it is the darkest channel."""
    b, g, r = cv2.split(bgr)
    lo, hi = cv2.min(cv2.min(b, g), r), cv2.max(cv2.max(b, g), r)
    return cv2.addWeighted(lo, 1.5, hi, -0.5, 0.0)


def brightest(bgr: np.ndarray) -> np.ndarray:
    """The brightest channel of each pixel: bgr.max(axis=2), thirty times faster."""
    b, g, r = cv2.split(bgr)
    return cv2.max(cv2.max(b, g), r)


def scaled(gray: np.ndarray, scale: float) -> np.ndarray:
    """`gray` resized by `scale` (area averaging when shrinking); itself when the scale is ~1."""
    if abs(scale - 1.0) < 0.02:
        return gray
    h, w = gray.shape[:2]
    interp = cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR
    return cv2.resize(gray, (max(8, round(w * scale)), max(8, round(h * scale))), interpolation=interp)


def hats(gray: np.ndarray, kernel: int) -> tuple[np.ndarray, np.ndarray]:
    """(black-hat, top-hat) of `gray` with a square kernel of side `kernel`."""
    k = cv2.getStructuringElement(cv2.MORPH_RECT, (kernel, kernel))
    closed = cv2.morphologyEx(gray, cv2.MORPH_CLOSE, k)
    opened = cv2.morphologyEx(gray, cv2.MORPH_OPEN, k)
    return cv2.subtract(closed, gray), cv2.subtract(gray, opened)


def blob_patches(resp: np.ndarray, t_low: float, min_r: float, max_r: float, span_factor: float = 1.0):
    """The blobs of a hat response that may hold pips: for each top-level blob over the threshold
    (raised above the surface's own texture: felt, wood grain, noise) and not too wide (`span_factor`
    times a pip cluster's span) or too small, yields (x0, y0, patch, lab, peak, t_low, wide): its
    bounding patch of `resp` (1 px margin), its pixels there, their peak, the threshold used, and
    whether it is wider than one pip cluster."""
    small = resp[::4, ::4]
    t_low = max(t_low, 4.0 * float(np.median(small)) + 2.0)
    mask = cv2.threshold(resp, t_low, 1, cv2.THRESH_BINARY)[1]
    if min_r >= 1.0:  # specks of texture smaller than any pip: gone before the per-spot work
        mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_RECT, (2, 2)))
    # CCOMP: a spot inside a ring (a die's outline) is a top-level contour of its own
    contours, hier = cv2.findContours(mask, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    if hier is None:
        return
    H, W = resp.shape
    span = 2.6 * max_r * 2
    min_a = math.pi * min_r * min_r
    for cont, h in zip(contours, hier[0]):
        if h[3] >= 0:
            continue
        x0, y0, bw, bh = cv2.boundingRect(cont)
        if max(bw, bh) > span_factor * span or bw * bh < min_a or min(bw, bh) < 2 * min_r - 1:
            continue
        x1, y1 = min(W, x0 + bw + 1), min(H, y0 + bh + 1)
        x0, y0 = max(0, x0 - 1), max(0, y0 - 1)
        patch = resp[y0:y1, x0:x1]
        lab_u8 = np.zeros(patch.shape, np.uint8)
        cv2.drawContours(lab_u8, [cont], -1, 1, -1, offset=(-x0, -y0))
        lab = (lab_u8 > 0) & (patch > t_low)
        if not lab.any():
            continue
        yield x0, y0, patch, lab, float(patch[lab].max()), t_low, max(bw, bh) > span


def contour_shape(c: np.ndarray, area: float) -> tuple[float, float]:
    """(roundness, elongation) of a contour of five or more points with that area: roundness is the
    hull's circularity times the solidity (1 for a disc), elongation the fitted ellipse's minor over
    major axis (1 for a circle)."""
    hull = cv2.convexHull(c)
    ha = cv2.contourArea(hull)
    hp = cv2.arcLength(hull, True)
    solidity = area / ha if ha > 0 else 0.0
    circ = 4 * math.pi * ha / (hp * hp) if hp > 0 else 0.0
    (_, _), (ma, mi), _ = cv2.fitEllipse(c)
    return min(1.0, circ) * solidity, min(ma, mi) / max(ma, mi, 1e-6)


def _blobs(resp: np.ndarray, dark: bool, t_low: float, min_r: float, max_r: float,
           min_round: float, min_elong: float = 0.45) -> list[Pip]:
    out: list[Pip] = []
    for x0, y0, patch, lab, peak, t_low, _ in blob_patches(resp, t_low, min_r, max_r):
        sub = ((patch > max(t_low, 0.5 * peak)) & lab).astype(np.uint8)
        cs, _ = cv2.findContours(sub, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
        for c in cs:
            a = cv2.contourArea(c)
            r = math.sqrt(max(a, 1e-6) / math.pi)
            if r < min_r or r > max_r or len(c) < 5:
                continue
            rnd, elong = contour_shape(c, a)
            if rnd < min_round or elong < min_elong:
                continue
            m = cv2.moments(c)
            if m["m00"] <= 0:
                continue
            out.append(Pip(x0 + m["m10"] / m["m00"], y0 + m["m01"] / m["m00"], r, dark,
                           float(patch[sub > 0].max()) if sub.any() else peak, rnd, elong))
    return out


def find_pips(bh: np.ndarray, th: np.ndarray, min_r: float, max_r: float,
              t_low: float = 18.0, min_round: float = 0.72, min_elong: float = 0.45) -> list[Pip]:
    """Round spots of either polarity with radius in [min_r, max_r] pixels, from `hats(gray, k)`.

    `min_elong` (minor / major axis) lets squashed spots in: the pips on a side face."""
    out: list[Pip] = []
    for p in (_blobs(bh, True, t_low, min_r, max_r, min_round, min_elong)
              + _blobs(th, False, t_low, min_r, max_r, min_round, min_elong)):
        if not any(q.dark == p.dark and math.hypot(q.x - p.x, q.y - p.y) < 0.5 * max(p.r, q.r) for q in out):
            out.append(p)
    return out


@dataclass(frozen=True)
class Fit:
    """A layout fitted to pip centres: image point = A @ template point + (cx, cy)."""

    value: int
    cx: float
    cy: float
    A: tuple[float, float, float, float]  # row-major 2x2; for a single pip: r-based guess
    err: float  # max residual / scale
    aniso: float = 1.0  # smaller / larger singular value of A (1 = square, as seen from above)

    @property
    def a(self) -> float:
        """Scale: the corner-pip offset in pixels (geometric mean of the axes)."""
        a00, a01, a10, a11 = self.A
        return math.sqrt(abs(a00 * a11 - a01 * a10))

    @property
    def angle(self) -> float:
        a00, _, a10, _ = self.A
        return math.atan2(a10, a00)

    def to_face(self, x: float, y: float) -> tuple[float, float]:
        """Image point -> template coordinates (corner pips at +-1)."""
        a00, a01, a10, a11 = self.A
        det = a00 * a11 - a01 * a10
        dx, dy = x - self.cx, y - self.cy
        return (a11 * dx - a01 * dy) / det, (-a10 * dx + a00 * dy) / det

    def to_image(self, u: float, v: float) -> tuple[float, float]:
        a00, a01, a10, a11 = self.A
        return self.cx + a00 * u + a01 * v, self.cy + a10 * u + a11 * v


def single(x: float, y: float, a: float) -> Fit:
    return Fit(1, x, y, (a, 0.0, 0.0, a), 0.0)


def _layout_tables() -> dict[int, tuple]:
    """Per layout size, fit_layout's constants as plain Python numbers: the template (complex), its
    diagonal pairs (one way round: every layout is symmetric under a half turn), the affine
    least-squares pseudo-inverse rows and the centred template of the similarity fit."""
    out = {}
    for n, tpl in LAYOUTS.items():
        if n < 2:
            continue
        tz = [complex(x, y) for x, y in tpl]
        td = np.linalg.norm(tpl[:, None, :] - tpl[None, :, :], axis=2)
        pairs = [(int(a), int(b)) for a, b in zip(*np.nonzero(td > td.max() - 1e-9)) if a < b]
        pinv = np.linalg.pinv(np.hstack([tpl, np.ones((n, 1))])).tolist()  # (3, n)
        mean = sum(tz) / n
        tc = [t - mean for t in tz]
        out[n] = (tz, pairs, pinv, tc, sum(abs(t) ** 2 for t in tc), mean)
    return out


_TABLES = _layout_tables()


def fit_layout(pts: np.ndarray, affine: bool = True) -> Fit | None:
    """Best fit of the canonical layout with len(pts) pips; None when n is not 1..6.

    With four or more pips the fit is affine when `affine` (so a stretched photo
    or a slightly oblique view still fits; `aniso` says how far from square it
    is); two or three pips are fitted with a similarity. (Plain Python: with at
    most six points numpy's per-call cost is most of the work.)
    """
    n = len(pts)
    if n < 1 or n > 6:
        return None
    if n == 1:
        return single(float(pts[0, 0]), float(pts[0, 1]), 1.0)
    tz, pairs, pinv, tc, tcc, tmean = _TABLES[n]
    pl = pts.tolist()
    pz = [complex(x, y) for x, y in pl]
    dmax, i, j = -1.0, 0, 0
    for a in range(n):  # the farthest pair (the first in (a, b) order: a < b)
        for b in range(a + 1, n):
            dd = abs(pz[a] - pz[b])
            if dd > dmax:
                dmax, i, j = dd, a, b
    best: Fit | None = None
    for ti, tj in pairs:
        s = (pz[j] - pz[i]) / (tz[tj] - tz[ti])
        b = pz[i] - s * tz[ti]
        before = None
        for _ in range(2):
            assign = []
            for t in tz:
                q = s * t + b
                ds = [abs(q - p) for p in pz]
                assign.append(ds.index(min(ds)))  # the nearest pip (the first of equals)
            if len(set(assign)) != n or assign == before:
                break  # (the same assignment again: the same fit again)
            before = assign
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


def spots_response(gray: np.ndarray, white: np.ndarray | None, a: float) -> tuple[np.ndarray, np.ndarray | None]:
    """(dark-spot, light-spot) responses for pips of a known layout scale `a` (corner offset, px).

    Centre minus surround (a difference of Gaussians): a pip stands out from the face
    around it, while shading, a die's edge against its shadow or a broad highlight,
    being wider than a pip, hardly respond. Dark pips from the grey image, light pips
    from `white` (the whiteness image, or the darkest channel: white pips on a coloured die stand out
    there); None for an image not given."""
    out: list[np.ndarray | None] = []
    for img, sign in ((gray, -1.0), (white, 1.0)):
        if img is None:
            out.append(None)
            continue
        centre, surround = gauss32(img, 0.2 * a), gauss32(img, 0.55 * a)
        d = cv2.subtract(surround, centre) if sign < 0 else cv2.subtract(centre, surround)
        # 1.5 d, negatives to 0, truncated to uint8 (OpenCV: a third of numpy's clip-and-cast time)
        d = cv2.threshold(d, 0.0, 0.0, cv2.THRESH_TOZERO)[1]
        out.append(cv2.convertScaleAbs(d, alpha=1.5, beta=-0.5))
    return out[0], out[1]


_GAUSS32: dict[float, np.ndarray] = {}


def gauss32(img: np.ndarray, sigma: float) -> np.ndarray:
    """The float32 Gaussian blur of `img` that cv2.GaussianBlur(img.astype(np.float32), (0, 0), sigma)
    makes (its kernel: cvRound(8 sigma + 1) | 1 float32 taps; its border), with a uint8 image read into
    the float sums as it is: no float copy, and OpenCV's 8-bit-to-float row filter, a third faster
    than its float one. Not bit for bit: the row sums are added in another order (the float filter
    pairs the taps of a symmetric kernel), so values differ in the last bits (up to ~3e-5 of 255)."""
    kern = _GAUSS32.get(sigma)
    if kern is None:
        kern = cv2.getGaussianKernel(int(round(8 * sigma + 1)) | 1, sigma, cv2.CV_32F)
        if len(_GAUSS32) >= 64:  # (two sigmas per calibrated size: kept bounded all the same)
            _GAUSS32.clear()
        _GAUSS32[sigma] = kern
    if len(kern) == 1:  # (GaussianBlur copies the image for a one-tap kernel)
        return img.astype(np.float32)
    return cv2.sepFilter2D(img, cv2.CV_32F, kern, kern)


_D3 = np.mgrid[-1:2, -1:2].reshape(2, 9)[::-1]  # (dx, dy) of a 3x3 neighbourhood
_RING_COS = np.cos(np.linspace(0, 2 * math.pi, 16, endpoint=False))
_RING_SIN = np.sin(np.linspace(0, 2 * math.pi, 16, endpoint=False))


def _median_u8(img: np.ndarray) -> float:
    """np.median of a uint8 image (a view, e.g. every fourth pixel), by a partial sort: a quarter of its time."""
    v = img.ravel()  # (a copy for a strided view)
    n = v.size
    if n % 2:
        return float(np.partition(v, n // 2)[n // 2])
    part = np.partition(v, (n // 2 - 1, n // 2))
    return (int(part[n // 2 - 1]) + int(part[n // 2])) / 2.0


_FIXED_KERNELS: dict[float, np.ndarray] = {}


def _fixed_kernel(sigma: float) -> np.ndarray:
    """The integer kernel (summing to 256) OpenCV's GaussianBlur uses for 8-bit images at `sigma`:
    cvRound(6 sigma + 1) | 1 taps of the normalised Gaussian times 256, rounded from the outer taps
    inward with each rounding's error carried to the next, the centre tap taking what is left."""
    kern = _FIXED_KERNELS.get(sigma)
    if kern is None:
        n = int(round(6 * sigma + 1)) | 1
        g = np.exp(-0.5 * (np.arange(n) - n // 2) ** 2 / (sigma * sigma))
        g = g / g.sum()
        kern = np.zeros(n, np.int64)
        err = 0.0
        for i in range(n // 2):
            v = g[i] * 256 + err
            kern[i] = kern[n - 1 - i] = round(v)
            err = v - kern[i]
        kern[n // 2] = 256 - 2 * int(kern[:n // 2].sum())
        if len(_FIXED_KERNELS) >= 64:  # (a few sigmas per calibration: kept bounded all the same)
            _FIXED_KERNELS.clear()
        _FIXED_KERNELS[sigma] = kern
    return kern


def blur_u8(img: np.ndarray, sigma: float) -> np.ndarray:
    """cv2.GaussianBlur(img, (0, 0), sigma) of a one-channel uint8 image, bit for bit, in half its
    time. OpenCV blurs 8-bit images in fixed point: the integer kernel of _fixed_kernel along the
    rows, then down the columns, the sum's 16 fractional bits rounded half up. Every partial sum is
    an integer under 2**24 (times 2**-16 down the columns, the column kernel being over 65536), so
    a float32 separable filter makes the same sums exactly; adding a half and truncating rounds."""
    kern = _fixed_kernel(sigma).astype(np.float32)
    out = cv2.sepFilter2D(img, cv2.CV_32F, kern, kern * np.float32(1 / 65536), delta=0.5)
    return out.astype(np.uint8)


_WINDOWS: dict[int, tuple[np.ndarray, np.ndarray]] = {}


def _window(h: int) -> tuple[np.ndarray, np.ndarray]:
    """np.mgrid[-h:h + 1, -h:h + 1], made once per size."""
    if h not in _WINDOWS:
        _WINDOWS[h] = tuple(np.mgrid[-h:h + 1, -h:h + 1])
    return _WINDOWS[h]


EVEN_SHARE = 0.6  # spots_at's t_even applies from this share of the threshold it lowers
EVEN_STEP = 35.0  # ... to a spot this much brighter (darker) than its wholly even ring
EVEN_ELONG = 0.8  # ... and is round (its outline's minor over major axis), as a one_sided spot must be
ONE_SIDED = 0.2  # spots_at's one_sided ring: each sample at least this share of the deepest one's gap
ONE_SIDED_MIN = 20.0  # ... and at least this many grey levels
#: spots_at_many's `squashed`: a picky spot (faint, or by a one-sided ring) that EVEN_ELONG refused is
#: reported there when its outline's minor over major axis is at least this (a glossy black die's lit
#: dimple of a one-pip measures 0.73-0.78 at the working scale: the reader looks again, reader._faint_one)
SQUASHED_MIN = 0.6


def spots_at(resp: np.ndarray, dark: bool, r: float, t_low: float = 14.0,
             where: np.ndarray | None = None, base: np.ndarray | None = None, ring: float = 0.0,
             ring_odd: int = 5, t_even: float | None = None, one_sided: bool = False) -> list[Pip]:
    """Spots of a known radius `r` in a hat response: one per local maximum.

    For a calibrated camera the pip size is known, so every local maximum of the
    response smoothed at that size is a candidate, however close its neighbours
    (a six's columns blur together at half their peak). Each is measured on a
    small window: its outline is cut at half its own peak, higher when that
    outline runs into a neighbour. `where` (bool mask, same shape) limits the
    search, e.g. to where the frame differs from the empty tray. With `base` (the
    image the response came from) and `ring` (a radius, px), a spot must sit on a
    plain face: the ring around it is even (a die's corner against its shadow, a
    crevice between dice or a pip on a narrow side face is not): at most `ring_odd` of its 16
    samples may differ from the rest. With `t_even` (and a ring) a weaker spot, from `t_even` up,
    is a pip too when its ring is wholly even, it stands out from it by EVEN_STEP grey levels and it
    is round (a low-contrast pip: a white pip with a darker rim on a glossy black die whose top
    shines grey; a pip on a steep side face is squashed). With `one_sided`
    a ring that is not even passes when every sample lies well on the far side of the spot's (each
    darker than the spot's brightest 3x3 pixel by at least ONE_SIDED of the deepest sample's
    difference, and by ONE_SIDED_MIN): a white pip
    near a black die's edge, whose flat top shines grey in the light, is brighter than both the
    face and the bevel, while a white die's corner against its shadow is not brighter than the die;
    such a spot must be round too."""
    return spots_at_many([(resp, dark, where, base, t_even, one_sided)], r, t_low, ring, ring_odd)[0]


def _groups8(xs: np.ndarray, ys: np.ndarray, width: int) -> tuple[np.ndarray, np.ndarray]:
    """The earlier union-find grouping's (tests: _touching) answer for pixels (x, y) of one image `width` wide given in raster order, none in
    its first or last column: (each 8-connected group's first pixel, each pixel's group), groups in
    the order of their first pixels. Each pixel is linked to its neighbours met before it (left,
    and the three above) found by a search in the sorted pixel indices; every pixel then takes the
    least index linked to it, and its root's, until nothing changes: each group's least index, its
    first pixel."""
    n = len(xs)
    lin = ys * width + xs  # ascending
    offs = np.array([1, width - 1, width, width + 1])
    q = (lin[None, :] - offs[:, None]).ravel()  # each pixel's neighbours met before it, if there
    at = lin.searchsorted(q)
    hit = at < n
    hit[hit] = lin[at[hit]] == q[hit]
    a, b = np.tile(np.arange(n), 4)[hit], at[hit]
    roots = np.arange(n)
    if len(a):
        while True:
            nxt = roots.copy()
            np.minimum.at(nxt, a, roots[b])
            np.minimum.at(nxt, b, roots[a])
            nxt = nxt[nxt]
            if np.array_equal(nxt, roots):
                break
            roots = nxt
    return np.unique(roots, return_inverse=True)


def _candidates(cand: np.ndarray, tops: np.ndarray, pad: int) -> tuple[np.ndarray, np.ndarray]:
    """The plateaus of spots_at_many's candidate mask of the stacked boxes (box j's pixels at rows
    tops[j] + pad on, columns pad on): (centroids in their box's coordinates, box of each), box by box
    and in each box in the raster order of each plateau's first pixel; every number as the box by box
    grouping gave it (_plateaus' on a box of more than 48 candidate pixels: its centroid in the
    bounding box of the box's candidates plus that box's corner; _touching's otherwise). One
    grouping of all the candidate pixels, on arrays, instead of a Python union-find over them (the
    mask is mostly empty: labelling all of it costs more)."""
    pts = cv2.findNonZero(cand)  # (x, y) in raster order: box by box
    if pts is None:
        return np.zeros((0, 2)), np.zeros(0, np.int64)
    pts = pts.reshape(-1, 2).astype(np.int64)
    xs, ys = pts[:, 0], pts[:, 1]
    first, group = _groups8(xs, ys, cand.shape[1])
    box = tops.searchsorted(ys, "right") - 1
    lx, ly = xs - pad, ys - (tops[box] + pad)  # box coordinates
    n = np.bincount(box, minlength=len(tops))
    count = np.bincount(group)
    gbox = box[first]
    big = n[gbox] > 48
    if big.any():
        # (_plateaus: a labelled bounding box's centroids, then its corner added)
        starts = np.concatenate(([0], np.cumsum(n)[:-1]))
        has = n > 0
        x0 = np.zeros(len(tops), np.int64)
        y0 = np.zeros(len(tops), np.int64)
        x0[has] = np.minimum.reduceat(lx, starts[has])
        y0[has] = ly[starts[has]]  # (raster order: the first pixel is on the top row)
        x0[n <= 48] = 0
        y0[n <= 48] = 0
        ox, oy = x0[box], y0[box]
        cx = np.bincount(group, lx - ox) / count + x0[gbox]
        cy = np.bincount(group, ly - oy) / count + y0[gbox]
        return np.stack([cx, cy], axis=1), gbox
    return np.stack([np.bincount(group, lx) / count, np.bincount(group, ly) / count], axis=1), gbox


def spots_at_many(jobs: list[tuple], r: float, t_low: float = 14.0, ring: float = 0.0,
                  ring_odd: int = 5, squashed: list | None = None) -> list[list[Pip]]:
    """spots_at's spots of many search boxes, in one pass: a job is (resp, dark, where, base) or
    (resp, dark, where, base, t_even, one_sided), and its spots are what
    spots_at(resp, dark, r, t_low, where, base, ring, ring_odd, t_even, one_sided) means (see there).
    Each search costs mostly its own overhead (the search boxes are small), so the boxes are
    stacked into one image, each padded by its own mirror image (what the smoothing and the
    local-maximum filter see past a box's edge), smoothed and filtered once; each box keeps its
    own threshold, plateau rule (_plateaus: more than 48 candidate pixels) and neighbours.
    `squashed` (a list), when given, gets (job index, spot) for each spot refused only by EVEN_ELONG
    whose elongation is SQUASHED_MIN or more (box coordinates, as the spots returned)."""
    jobs = [tuple(job) + (None, False)[len(job) - 4:] for job in jobs]  # (resp, dark, where, base, t_even, one_sided)
    n_jobs = len(jobs)
    out: list[list[Pip]] = [[] for _ in range(n_jobs)]
    if n_jobs == 0:
        return out
    sigma = max(0.7, 0.5 * r)
    k = odd(1.3 * r)
    # the 8-bit blur's kernel reaches cvRound(6 sigma + 1) // 2 px, the maximum filter k // 2 more
    pad = (int(round(6 * sigma + 1)) | 1) // 2 + k // 2 + 2
    shapes = [job[0].shape for job in jobs]
    wm = max(s[1] for s in shapes) + 2 * pad
    tops = np.cumsum([0] + [s[0] + 2 * pad for s in shapes])
    mos = np.zeros((int(tops[-1]), wm), np.uint8)
    bmos = np.zeros_like(mos)
    for j, (resp, _, _, base, _, _) in enumerate(jobs):
        h, w = shapes[j]
        y = int(tops[j])
        mos[y:y + h + 2 * pad, :w + 2 * pad] = cv2.copyMakeBorder(resp, pad, pad, pad, pad, cv2.BORDER_REFLECT_101)
        if base is not None:
            bmos[y + pad:y + pad + h, pad:pad + w] = base
    sm = blur_u8(mos, sigma)  # (cv2.GaussianBlur's, bit for bit)
    peak_map = cv2.compare(sm, cv2.dilate(sm, cv2.getStructuringElement(cv2.MORPH_RECT, (k, k))), cv2.CMP_GE)
    # candidates per box: local maxima over the box's threshold (and in its `where`), drawn into one
    # mask of the stacked boxes (boxes never touch: the padding parts them) and labelled once
    ts = np.zeros(n_jobs)  # each box's threshold (faint spots, from t_even, are under it)
    over = np.zeros_like(mos)
    for j, (resp, dark, where, base, t_even, _) in enumerate(jobs):
        h, w = shapes[j]
        y = int(tops[j]) + pad
        smj = sm[y:y + h, pad:pad + w]
        t = ts[j] = max(t_low, 4.0 * _median_u8(smj[::4, ::4]) + 2.0)
        if t_even is not None and base is not None and ring > 0:
            t = max(t_even, EVEN_SHARE * t)
        if where is not None:
            over[y:y + h, pad:pad + w] = cv2.bitwise_and(cv2.threshold(smj, t, 255, cv2.THRESH_BINARY)[1], where.view(np.uint8))
        else:
            over[y:y + h, pad:pad + w] = cv2.threshold(smj, t, 255, cv2.THRESH_BINARY)[1]
    cents, bids = _candidates(cv2.bitwise_and(peak_map, over), tops, pad)
    if len(cents) == 0:
        return out
    allc, bid = cents, bids
    order = np.argsort(bid, kind="stable")  # box by box, each box's plateaus in their own order
    allc, bid = allc[order], bid[order]
    Ws = np.array([s[1] for s in shapes])[bid]
    Hs = np.array([s[0] for s in shapes])[bid]
    oy = (tops[:-1] + pad)[bid]  # each candidate's box origin in the stacked image (x: pad)
    h = int(math.ceil(2.2 * r))
    ix, iy = allc[:, 0].round().astype(int), allc[:, 1].round().astype(int)
    keep = (ix - h >= 0) & (iy - h >= 0) & (ix + h < Ws) & (iy + h < Hs)
    picky = np.zeros(len(allc), bool)  # spots let in faint or by a one-sided ring: they must be round
    rival = np.ones(len(allc), bool)  # candidates that split a neighbour's outline (not a refused faint one)
    ringed = np.array([job[3] is not None and ring > 0 for job in jobs])[bid]
    if ringed.any():
        rg = np.nonzero(ringed)[0]
        c = allc[rg]
        Wr, Hr = (Ws[rg] - 1)[:, None], (Hs[rg] - 1)[:, None]
        # (np.clip and np.round without their Python wrappers: the same numbers)
        rx = np.minimum(np.maximum((c[:, :1] + ring * _RING_COS).round().astype(int), 0), Wr)
        ry = np.minimum(np.maximum((c[:, 1:] + ring * _RING_SIN).round().astype(int), 0), Hr)
        vals = np.sort(bmos[ry + oy[rg][:, None], rx + pad].astype(np.float32), axis=1)
        med = (vals[:, 7:8] + vals[:, 8:9]) * 0.5
        centre = bmos[np.minimum(np.maximum(iy[rg], 0), Hr[:, 0]) + oy[rg],
                      np.minimum(np.maximum(ix[rg], 0), Wr[:, 0]) + pad].astype(np.float32)[:, None]
        step = np.abs(centre - med)
        ring_ok = (np.abs(vals - med) > 0.35 * step + 4).sum(axis=1) <= ring_odd
        darks = np.array([job[1] for job in jobs])[bid[rg]]
        sided = np.array([job[5] for job in jobs])[bid[rg]]
        if sided.any():
            # a light spot's ring need not be even if every sample is well below it (dark: above);
            # measured from the spot's brightest (darkest) pixel of the 3x3 at its peak: a glossy
            # pip's centre pixel can fall on its shading, while the pip stands clear of the face
            cy3 = np.minimum(np.maximum(iy[rg][:, None] + _D3[1], 0), Hr) + oy[rg][:, None]
            cx3 = np.minimum(np.maximum(ix[rg][:, None] + _D3[0], 0), Wr) + pad
            near3 = bmos[cy3, cx3].astype(np.float32)
            top = np.where(darks, near3.min(axis=1), near3.max(axis=1))[:, None]
            gap = np.where(darks[:, None], vals - top, top - vals)
            sided &= ~ring_ok & (gap.min(axis=1) >= np.maximum(ONE_SIDED * gap.max(axis=1), ONE_SIDED_MIN))
            ring_ok |= sided
            picky[rg] |= sided
        keep[rg] &= ring_ok
        weak = np.array([job[4] is not None for job in jobs])[bid[rg]]
        if weak.any():
            # a spot under its box's threshold: only on a wholly even ring, clearly brighter (darker)
            low = weak & (sm[np.minimum(np.maximum(iy[rg], 0), Hr[:, 0]) + oy[rg],
                             np.minimum(np.maximum(ix[rg], 0), Wr[:, 0]) + pad] <= ts[bid[rg]])
            stands = np.where(darks, (med - centre)[:, 0], (centre - med)[:, 0])
            even = ((np.abs(vals - med) > 0.2 * step + 3).sum(axis=1) == 0) & (stands >= EVEN_STEP)
            keep[rg] &= ~low | even
            picky[rg] |= low
            rival[rg[low & ~even]] = False  # (only there because t_even lowered the box's threshold)
    sel = np.nonzero(keep)[0]
    if len(sel) == 0:
        return out
    picky = picky[sel]
    yy, xx = _window(h)
    side = 2 * h + 1
    xs, ys = ix[sel], iy[sel]
    cxs, cys = allc[sel, 0], allc[sel, 1]
    gxs, gys = xs + pad, ys + oy[sel]  # in the stacked image
    peaks = sm[gys, gxs].astype(np.float64)
    subs = mos[gys[:, None, None] + yy, gxs[:, None, None] + xx]
    dx = allc[None, :, 0] - cxs[:, None]
    dy = allc[None, :, 1] - cys[:, None]
    other = ((np.abs(dx) < 2 * h) & (np.abs(dy) < 2 * h) & ((dx != 0) | (dy != 0)) & (bid[None, :] == bid[sel][:, None])
             & rival[None, :])
    own = np.ones(subs.shape, bool)
    ps, pj = np.nonzero(other)
    if len(ps):
        gx = xx + (xs - cxs)[:, None, None]
        gy = yy + (ys - cys)[:, None, None]
        d_other = (gx[ps] - dx[ps, pj][:, None, None]) ** 2 + (gy[ps] - dy[ps, pj][:, None, None]) ** 2
        starts = np.flatnonzero(np.concatenate(([True], ps[1:] != ps[:-1])))
        has = ps[starts]
        own[has] = gx[has] * gx[has] + gy[has] * gy[has] <= np.minimum.reduceat(d_other, starts, axis=0)
    comp = np.zeros(subs.shape, bool)
    done = np.zeros(len(sel), bool)
    active = np.arange(len(sel))
    for level in (0.5, 0.65, 0.8):
        if len(active) == 0:
            break
        n = len(active)
        stack = np.zeros((n, side + 1, side), np.uint8)
        stack[:, :side] = (subs[active] > (level * peaks[active])[:, None, None]) & own[active]
        _, lab, st, _ = cv2.connectedComponentsWithStats(stack.reshape(-1, side), connectivity=4)
        lab = lab.reshape(n, side + 1, side)[:, :side]
        c = lab[:, h, h]
        x0, w, hh = st[c, 0], st[c, 2], st[c, 3]
        y0 = st[c, 1] - np.arange(n) * (side + 1)
        closed = (c > 0) & (x0 > 0) & (y0 > 0) & (x0 + w < side) & (y0 + hh < side)
        comp[active[closed]] = lab[closed] == c[closed][:, None, None]
        done[active[closed]] = True
        active = active[(c > 0) & ~closed]
    fin = np.nonzero(done)[0]
    if len(fin) == 0:
        return out
    cm = comp[fin]
    t = np.arange(side)
    colsum, rowsum = cm.sum(axis=1), cm.sum(axis=2)
    m00 = colsum.sum(axis=1)
    m10, m20 = colsum @ t, colsum @ (t * t)
    m01, m02 = rowsum @ t, rowsum @ (t * t)
    m11 = np.einsum("nyx,y,x->n", cm.astype(np.int64), t, t)
    sel_bid = bid[sel].tolist()
    for k, i in enumerate(fin.tolist()):
        area = float(m00[k])
        if area < 3:
            continue
        inv = 1.0 / area
        mcx, mcy = float(m10[k]) * inv, float(m01[k]) * inv
        mu20, mu11, mu02 = float(m20[k]) - float(m10[k]) * mcx, float(m11[k]) - float(m10[k]) * mcy, float(m02[k]) - float(m01[k]) * mcy
        mx, my = float(m10[k]) / area - h, float(m01[k]) / area - h
        cxx, cyy, cxy = mu20 / area, mu02 / area, mu11 / area
        tr, det = cxx + cyy, cxx * cyy - cxy * cxy
        disc = math.sqrt(max(0.0, tr * tr / 4 - det))
        l1, l2 = tr / 2 + disc, max(1e-6, tr / 2 - disc)
        elong = math.sqrt(l2 / l1)
        fill = min(1.0, area / (4 * math.pi * math.sqrt(l1 * l2)))
        j = sel_bid[i]
        if picky[i] and elong < EVEN_ELONG:
            if squashed is not None and elong >= SQUASHED_MIN:
                squashed.append((j, Pip(int(xs[i]) + mx, int(ys[i]) + my, math.sqrt(area / math.pi), jobs[j][1],
                                        float(peaks[i]), fill, elong)))
            continue  # a pip on a steep side face is squashed
        out[j].append(Pip(int(xs[i]) + mx, int(ys[i]) + my, math.sqrt(area / math.pi), jobs[j][1], float(peaks[i]), fill, elong))
    return out
