"""The tray: find its floor in an empty frame; where a point lies (floor, keep zone, off the tray).

`find_floor(empty_bgr)` works on any felt colour and on rectangular, rounded, round, hexagonal and
octagonal trays, cut by the frame or not. Trays are convex, so every outline is a convex hull.

1. Rough outlines, on the frame shrunk to `work_width`:
   - the flood: the region around the frame's centre that no strong edge of an edge map (log-chroma
     and log-brightness) crosses, grown a little through soft wall shadows, closed, its hull. A
     cascade of edge thresholds guards against its two failures: a lower threshold is taken when
     it finds a clearly smaller floor (the flood ran over a faint wall foot onto the rim), unless
     the ring it loses is the felt in a wall's shade (felt's chroma, not brighter); higher ones are
     taken while the ring they add is felt (a flood held back by noise in a dark felt's shadows),
     with more chroma allowed for darker ring pixels on a dark floor (shade shifts a black felt's
     chroma);
   - the rays: 360 rays from the centre, each ending at the first colour step that stands out from
     the floor's own steps on that ray and its neighbours (medians over ~12 px, so a paper's grid or
     thin lines drop out); stray radii are replaced by their neighbours' median. A ray does not stop
     in a wall's soft shade the way the flood can.
2. Refinement (at up to 640 px wide, run twice, the second from the first's outline): every 2 px
   along an outline a profile is taken along its outward normal; the colour step vectors along it
   are averaged along the outline (a wall's foot keeps its direction from one normal to the next,
   the floor's grain does not), and the point moves to the first step that stands out from the
   floor's own steps near it and reaches 30% of the profile's strongest (beyond the foot come the
   wall's top and the rim's outer edge). Chroma steps are taken between means over half a JPEG
   chroma block, so JPEG's smeared chroma makes no step of its own. The offsets are median-filtered,
   opened (a short stretch that jumped to the wall's top comes back) and closed (a short stretch
   that stopped in a shadow goes out), corners the opening cut are given back, and the second pass
   holds a foot the first found rather than climb to the wall's top. With no clear steps the rough
   outline is kept.
3. Of the flood's and the rays' refined floors, when they differ, the smaller is taken when a clear
   colour step (twice the floor's own) runs along its outline where it lies inside the bigger, else
   the bigger (the smaller stopped in the felt's shade).
4. A check by a learnt floor (`vision.floornet`, a small CNN trained on renders whose true floor is
   known): its floor, snapped to the nearest colour step within a few pixels, is seldom far off
   where 1.-3. can be, but its outline is a few pixels less precise. So the net is asked only where
   it is sure: the colour finder's floor is kept unless the cells where the net is sure of the
   contrary (sure it is no floor inside it, sure it is floor outside it) exceed DISAGREE of its
   area, or unless the colour finder saw no rim where the net's floor leaves parts of the frame's
   border out (a big tray whose walls cut the corners); else the net's floor is taken. On a frame
   where the net is unsure of much of the picture (more than on any render it was checked on) its
   floor is not used.

A floor region that fills more than WHOLE_FRAC of the frame and lies along nearly all of its
border (WHOLE_BORDER) means no rim is in view: the floor is the whole frame less a margin
(`whole_frame`). A region under MIN_FRAC of the frame is refused (TrayError, one line for the user).
"""

from __future__ import annotations

import cv2
import numpy as np

Poly = tuple[tuple[float, float], ...]


class TrayError(ValueError):
    user_error = True


def _edges(bgr: np.ndarray) -> np.ndarray:
    """Edge strength that ignores soft shading: chroma (log-ratio) edges plus log-brightness edges."""
    lg = np.log(bgr.astype(np.float32) + 10.0)
    lg = cv2.GaussianBlur(lg, (0, 0), 1.4)
    b, g, r = lg[:, :, 0], lg[:, :, 1], lg[:, :, 2]
    mag = np.zeros(b.shape, np.float32)
    for ch, w in ((r - g, 3.0), (b - g, 3.0), ((b + g + r) / 3.0, 1.0)):
        gx = cv2.Sobel(ch, cv2.CV_32F, 1, 0, ksize=3)
        gy = cv2.Sobel(ch, cv2.CV_32F, 0, 1, ksize=3)
        mag += w * w * (gx * gx + gy * gy)
    return np.sqrt(mag)


MIN_FRAC = 0.08  # a floor region under this share of the frame is no floor
WHOLE_FRAC = 0.9  # a floor region filling more than this share of the frame ...
MARGIN = 0.01  # the whole frame less this share of its size at each edge
EDGE_PX = 2  # working pixels from a frame edge that count as touching it


def whole_frame(size: tuple[int, int], margin: float = MARGIN) -> Poly:
    """The whole frame less `margin` of its width and height at each edge: the floor when no rim shows."""
    w, h = size
    mx, my = margin * (w - 1), margin * (h - 1)
    return ((mx, my), (w - 1 - mx, my), (w - 1 - mx, h - 1 - my), (mx, h - 1 - my))


def _sides_touched(pts: np.ndarray, w: int, h: int) -> int:
    """How many of the frame's four edges the points reach (within EDGE_PX)."""
    x, y = pts[:, 0], pts[:, 1]
    return int(x.min() <= EDGE_PX) + int(y.min() <= EDGE_PX) + int(x.max() >= w - 1 - EDGE_PX) + int(y.max() >= h - 1 - EDGE_PX)


WHOLE_BORDER = 0.98  # ... and lying along this share of the frame's border: no rim in view, the whole frame is the floor
# (a region that reaches three or four frame edges but not the corners is a big tray whose walls cut the corners)


def _border_share(region: np.ndarray) -> float:
    """The share of the frame's border pixels (EDGE_PX deep) in the region."""
    m = np.ones(region.shape, bool)
    m[EDGE_PX + 1: -EDGE_PX - 1, EDGE_PX + 1: -EDGE_PX - 1] = False
    return float(np.count_nonzero(region[m]) / np.count_nonzero(m))


def _clip(poly: Poly, size: tuple[int, int]) -> Poly:
    w, h = size
    return tuple((float(min(max(x, 0.0), w - 1.0)), float(min(max(y, 0.0), h - 1.0))) for x, y in poly)


#: the colour finder's floor is kept unless the frame's cells where the floor net is sure of the
#: contrary (floornet.sure_against) amount to more than this share of its area
DISAGREE = 0.03
SNAP_PX = 4.0  # the net's outline moves at most this far (px of a frame 640 wide) to the colour step


def find_floor(empty_bgr: np.ndarray, work_width: int = 320, grow_px: int = 6) -> Poly:
    """The tray floor polygon (image pixels) from a frame of the empty tray. A floor that runs off the
    frame is cut at its edges; one that lies along the whole border (no rim in view) is the whole
    frame less a margin (`whole_frame`). The colour finder's floor, checked by the floor net (step 4
    of this module's docstring); without the net's model file, the colour finder alone."""
    from vision import floornet

    h, w = empty_bgr.shape[:2]
    err: TrayError | None = None
    try:
        found: Poly | None = _colour_floor(empty_bgr, work_width, grow_px)
    except TrayError as e:
        found, err = None, e
    p = floornet.probability(empty_bgr) if floornet.available() else None
    net = _net_floor(empty_bgr, p) if p is not None else None
    if net is None:
        if found is None:
            raise err if err is not None else TrayError("no tray floor found in the empty frame")
        return found
    rimless = whole_frame((w, h))
    if found is not None and floornet.sure_against(mask(found, (w, h)) > 0, p) <= DISAGREE \
            and (found != rimless or net == rimless):
        return found
    return net


def _net_floor(empty_bgr: np.ndarray, p: np.ndarray) -> Poly | None:
    """The floor net's floor from its probability map `p`, snapped to the colour step; the whole frame
    less the margin when the net's floor fills more than WHOLE_FRAC of it and lies along its border
    (WHOLE_BORDER); None when it finds no floor or one under MIN_FRAC, or when the net is unsure of
    more of the frame than floornet.SURE_MAX."""
    from vision import floornet

    h, w = empty_bgr.shape[:2]
    if floornet.unsure_share(p) > floornet.SURE_MAX:
        return None  # a frame unlike the renders it learnt from: the colour finder alone
    r = floornet.floor_region(empty_bgr, p=p)
    if r is None:
        return None
    share = cv2.contourArea(r.astype(np.float32)) / float(w * h)
    if share > WHOLE_FRAC and _border_share(p >= floornet.FLOOR_P) >= WHOLE_BORDER:
        return whole_frame((w, h))
    if share < MIN_FRAC:
        return None
    return _clip(_snap(empty_bgr, tuple((float(x), float(y)) for x, y in r)), (w, h))


def _snap(bgr: np.ndarray, poly: Poly, fine_width: int = 640) -> Poly:
    """Each point of an outline moved along its normal to the strongest colour step within SNAP_PX
    (offsets median-filtered along the outline, as in _refine)."""
    feat, s = _colour_steps(bgr, fine_width, 0.7)
    P = np.asarray(poly, np.float64) * s
    pts, nrm = _outward_normals(P)
    band = SNAP_PX * fine_width / 640.0
    d = 4  # samples (2 px) either side of a step
    t = np.arange(-band - d * 0.5, band + d * 0.5 + 1e-9, 0.5)
    mx = (pts[:, None, 0] + nrm[:, None, 0] * t[None, :]).astype(np.float32)
    my = (pts[:, None, 1] + nrm[:, None, 1] * t[None, :]).astype(np.float32)
    prof = cv2.remap(feat, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    dd = np.zeros_like(prof)
    dd[:, d:-d] = prof[:, 2 * d:] - prof[:, :-2 * d]
    strength = _csmooth(np.sqrt((dd ** 2).sum(2)), TANG)[:, d:-d]
    off = t[d:-d][strength.argmax(1)]
    med = _circ_median(off, MEDW)
    off = np.where(np.abs(off - med) > 2.0, med, off)
    q = (pts + nrm * off[:, None]) / s
    approx = cv2.approxPolyDP(q.astype(np.float32).reshape(-1, 1, 2), 0.5 / s, True)[:, 0, :]
    return tuple((float(x), float(y)) for x, y in approx)


def _colour_floor(empty_bgr: np.ndarray, work_width: int = 320, grow_px: int = 6) -> Poly:
    """The colour finder (this module's docstring): the flood's and the rays' floors, refined, arbitrated."""
    h, w = empty_bgr.shape[:2]
    flood = _flood_floor(empty_bgr, work_width, grow_px)
    rays = _ray_rough(empty_bgr)
    if rays is None:
        return flood
    out = rays
    for i in range(PASSES):
        out = _refine(empty_bgr, out, hold=i > 0)
    out = _clip(out, (w, h))
    best = _arbitrate(empty_bgr, flood, out, work_width)
    if flood == whole_frame((w, h)) and best is not flood and np.count_nonzero(mask(best, (w, h))) >= np.count_nonzero(mask(flood, (w, h))):
        return flood  # no rim in view and the rays found none either: the whole frame less the margin
    return best


def _arbitrate(bgr: np.ndarray, a: Poly, b: Poly, work_width: int) -> Poly:
    """Of two floors found, the bigger when the ring between them is felt, else the smaller."""
    size = (bgr.shape[1], bgr.shape[0])
    ma, mb = np.count_nonzero(mask(a, size)), np.count_nonzero(mask(b, size))
    small, big = (a, b) if ma <= mb else (b, a)
    if iou(a, b, size) >= ARB_SAME:
        return a
    e = _edge_evidence(bgr, small, big)
    if e is None:
        return a
    return small if e >= ARB_EDGE else big


ARB_EDGE = 2.0  # the smaller floor is taken when the step across its outline is this x the floor's own
ARB_GAP = 6.0  # px (of a frame 640 wide): the part of the smaller outline that lies this far inside the bigger one
ARB_EPS = 0.02  # the floor's own contrast is taken as at least this (a floor blown out to white has none)


def _colour_steps(bgr: np.ndarray, width: int, sigma: float) -> tuple[np.ndarray, float]:
    """The frame at most `width` wide as three log-colour planes (red-green, blue-green, brightness),
    blurred by `sigma`, where a wall's foot is a step; and the scale it was shrunk by."""
    h, w = bgr.shape[:2]
    s = min(1.0, width / w)
    sm = cv2.resize(bgr, (round(w * s), round(h * s)), interpolation=cv2.INTER_AREA) if s < 1 else bgr
    lg = cv2.GaussianBlur(np.log(sm.astype(np.float32) + LOGOFF), (0, 0), sigma)
    b, g, r = cv2.split(lg)
    return np.dstack([CW * (r - g), CW * (b - g), (b + g + r) / 3.0]).astype(np.float32), s


def _outward_normals(P: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """An outline resampled every 2 px, and each point's unit normal pointing out of it."""
    pts = _resample(P, 2.0)
    sp = _csmooth(pts, SMOOTH)
    tan = np.roll(sp, -1, 0) - np.roll(sp, 1, 0)
    nrm = np.stack([tan[:, 1], -tan[:, 0]], 1)
    nrm /= np.maximum(np.linalg.norm(nrm, axis=1, keepdims=True), 1e-9)
    if np.mean(np.sum((pts - P.mean(0)) * nrm, 1)) < 0:
        nrm = -nrm
    return pts, nrm


def _edge_evidence(bgr: np.ndarray, small: Poly, big: Poly) -> float | None:
    """Where the smaller outline lies inside the bigger one: how far the colour step across it (medians of
    bands 2-8 px either side) stands above the floor's own (the same step between two bands inside); median
    over those outline points. None when they do not differ anywhere."""
    feat, s = _colour_steps(bgr, RAY_WIDTH, 1.0)
    k = feat.shape[1] / RAY_WIDTH
    P = np.asarray(small, np.float64) * s
    pts, nrm = _outward_normals(P)
    gap = distances(np.asarray(big, np.float64) * s, pts[:, 0], pts[:, 1])
    far = gap >= ARB_GAP * k
    if far.sum() < max(8, 0.05 * len(pts)):
        return None
    pts, nrm = pts[far], nrm[far]
    t = np.arange(-26.0, 9.0, 1.0) * k
    mx = (pts[:, None, 0] + nrm[:, None, 0] * t[None, :]).astype(np.float32)
    my = (pts[:, None, 1] + nrm[:, None, 1] * t[None, :]).astype(np.float32)
    prof = cv2.remap(feat, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    def band(a0, a1):
        sel = (t >= a0 * k) & (t <= a1 * k)
        return np.median(prof[:, sel], axis=1)
    inn, out, deep = band(-8, -2), band(2, 8), band(-20, -14)
    edge = float(np.median(np.linalg.norm(out - inn, axis=1)))
    own = float(np.median(np.linalg.norm(inn - deep, axis=1)))
    return edge / max(own, ARB_EPS)


def _flood_floor(empty_bgr: np.ndarray, work_width: int, grow_px: int) -> Poly:
    h, w = empty_bgr.shape[:2]
    rough, higher = _rough_cascade(empty_bgr, work_width, grow_px)
    if rough == whole_frame((w, h)):
        return rough
    if _sides_touched(np.asarray(rough), w, h) > 0:
        # a tray cut by the frame: refined where it meets a wall, cut at the frame's edges
        out = _refine(empty_bgr, rough)
        for _ in range(PASSES - 1):
            out = _refine(empty_bgr, out, hold=True)
        return _clip(out, (w, h))
    out = _refine(empty_bgr, rough)
    if out is rough and higher is not None and _shade_ring(empty_bgr, rough, higher, work_width):
        # no wall foot anywhere near the lower threshold's outline, and what the higher one adds is the felt's
        # shade: the lower flood stopped in the felt (grey felt in a grey tray), not at a faint foot the higher
        # one flooded over. Its outline unrefined: refined, it climbed the wall (1.4-2 die out on two of six)
        return higher
    for _ in range(PASSES - 1):
        out = _refine(empty_bgr, out, hold=True)
    return out


# the rough outline from rays (in px of the frame shrunk to RAY_WIDTH wide)
RAY_WIDTH = 640  # the px lengths below are for a frame this wide
RAY_WORK = 320  # the rays are cast on the frame shrunk to this width
RAY_N = 360  # rays from the frame's centre
RAY_HW = 12  # a step: between the medians of RAY_HW px either side (thin lines, a paper's grid, drop out)
RAY_TK = 3.0  # ... that stands out: over RAY_TK x the 95th percentile of the steps on the ray's inner part
RAY_IN = (0.05, 0.35)  # ... (this share of the way from the centre to the frame's edge), pooled over RAY_POOL rays
RAY_POOL = 15
RAY_SAMPLES = 64  # the inner part is sampled at this many points along each ray
RAY_REL = 0.2  # ... and reaches this share of the ray's strongest step
RAY_END = 0.3  # a ray with no step: the floor runs off the frame when its last RAY_ENDPX px are this close to the
RAY_ENDPX = 12  # floor's colour (the median on its inner part; log units, chroma x CW)
RAY_MED = 15  # radii further than 3 px from the median of this many rays' are replaced by it
ARB_SAME = 0.99  # two floors this alike (IoU): the flood's is taken


def _ray_rough(bgr: np.ndarray) -> Poly | None:
    """The rough outline from rays cast from the frame's centre: on each the first colour step (log-chroma and
    log-brightness, medians either side) that stands out from the floor's own texture on that ray; a ray with
    none ends at the frame's edge when its end looks like the floor, and is filled in from its neighbours when
    not. The convex hull of the ends. None when too few rays find anything."""
    h, w = bgr.shape[:2]
    k = round(w * min(1.0, RAY_WORK / w)) / RAY_WIDTH  # px lengths below are for a frame RAY_WIDTH wide
    feat, s = _colour_steps(bgr, RAY_WORK, max(0.5, 1.0 * k))
    sh, sw = feat.shape[:2]
    n = RAY_N
    c = np.array([(sw - 1) / 2.0, (sh - 1) / 2.0])
    th = 2 * np.pi * np.arange(n) / n
    d = np.stack([np.cos(th), np.sin(th)], 1)
    with np.errstate(divide="ignore"):
        tx = np.where(d[:, 0] > 0, (sw - 1 - c[0]) / d[:, 0], np.where(d[:, 0] < 0, -c[0] / d[:, 0], np.inf))
        ty = np.where(d[:, 1] > 0, (sh - 1 - c[1]) / d[:, 1], np.where(d[:, 1] < 0, -c[1] / d[:, 1], np.inf))
    rmax = np.minimum(tx, ty)
    R = int(np.ceil(rmax.max())) + 1
    rr = np.arange(R, dtype=np.float32)
    mx = (c[0] + d[:, 0:1] * rr[None]).astype(np.float32)
    my = (c[1] + d[:, 1:2] * rr[None]).astype(np.float32)
    prof = cv2.remap(feat, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    hw = max(2, int(round(RAY_HW * k)))
    pad = np.concatenate([np.repeat(prof[:, :1], hw, 1), prof, np.repeat(prof[:, -1:], hw + 1, 1)], 1)
    med = np.sort(np.lib.stride_tricks.sliding_window_view(pad, hw, axis=1), axis=3)[..., hw // 2]  # med[j]: prof[j-hw:j]
    step = np.linalg.norm(med[:, hw + 1: hw + 1 + R] - med[:, :R], axis=2)
    ri = np.floor(rmax).astype(int)
    valid = rr[None, :] <= (ri[:, None] - hw - 1)
    step = np.where(valid, step, 0.0)
    lo = (RAY_IN[0] * rmax).astype(int)
    hi = np.maximum((RAY_IN[1] * rmax).astype(int), lo + 4)
    rows = np.arange(n)[:, None]
    inner = (lo[:, None] + (hi - lo)[:, None] * np.linspace(0.0, 1.0, RAY_SAMPLES, endpoint=False)[None]).astype(int)
    p95 = np.percentile(step[rows, inner], 95, axis=1)
    idx = (np.arange(n)[:, None] + np.arange(-RAY_POOL, RAY_POOL + 1)[None]) % n
    t = RAY_TK * np.median(p95[idx], 1)
    search = valid & (rr[None, :] > lo[:, None])
    top = np.where(search, step, 0).max(1)
    above = search & (step > np.maximum(t, RAY_REL * top)[:, None])
    has = above.any(1)
    k0 = above.argmax(1)
    # climb from the first crossing to its peak
    fall = (step[:, 1:] < step[:, :-1]) & (np.arange(R - 1)[None, :] >= k0[:, None])
    peak = np.where(fall.any(1), fall.argmax(1), R - 1)
    rad = np.where(has, peak, rmax).astype(np.float64)
    # a ray with no step: off the frame when its end is the floor's colour, else unknown (from its neighbours)
    e = max(2, int(round(RAY_ENDPX * k)))
    ends = prof[rows, np.maximum(ri[:, None] - np.arange(e + 1)[None], 0)].mean(1)
    base = np.median(prof[rows, inner], axis=1)
    known = has | (np.linalg.norm(ends - base, axis=1) <= RAY_END)
    if known.sum() < n // 4:
        return None
    j = np.arange(n)
    rad = np.interp(j, j[known], rad[known], period=n)
    m = _circ_median(rad, RAY_MED)
    rad = np.where(np.abs(rad - m) > 3.0 * k, m, rad)
    pts = (c[None] + d * rad[:, None]) / s
    hull = cv2.convexHull(pts.astype(np.float32).reshape(-1, 1, 2))[:, 0, :]
    if cv2.contourArea(hull) < MIN_FRAC * w * h:
        return None
    return tuple((float(x), float(y)) for x, y in hull)


def _rough_cascade(empty_bgr: np.ndarray, work_width: int, grow_px: int) -> tuple[Poly, Poly | None]:
    """The rough outline at the usual edge threshold; lower thresholds when that finds no floor or when a
    lower one gives a much smaller floor (the flood ran over a faint wall foot onto the rim); then higher ones
    while what they add is felt (the flood was held back by noise in dark shadows). And the outline a lower
    threshold last replaced (None when there is none, or when a higher one was taken since)."""
    cur = None
    err = None
    higher = None  # the floor a lower threshold replaced (the flood over a faint foot, or not)
    for k in LEAK_KS:
        try:
            r = _rough_floor(empty_bgr, work_width, grow_px, k)
        except TrayError as e:
            if cur is None:
                err = e
                continue
            break
        if cur is None:
            cur = r
            continue
        a0 = cv2.contourArea(np.asarray(cur, np.float32))
        a1 = cv2.contourArea(np.asarray(r, np.float32))
        if a1 < LEAK_RATIO * a0:
            cur, higher = r, cur
        else:
            break
    if cur is None:
        raise err
    # a flood held back by noise in dark shadows (log-space noise grows as the felt darkens; JPEG blocks):
    # higher thresholds, while the floor grows by less than a rim's band; each one whose gain is felt is taken
    a0 = cv2.contourArea(np.asarray(cur, np.float32))
    for k in UP_KS:
        try:
            r = _rough_floor(empty_bgr, work_width, grow_px, k)
        except TrayError:
            break
        a1 = cv2.contourArea(np.asarray(r, np.float32))
        if a1 > UP_RATIO * a0:
            break
        if _felt_like(empty_bgr, cur, r, work_width):
            cur, a0, higher = r, a1, None
        # else the next threshold is still tried: a ring of a shaded corner's felt the test doubts may be
        # part of a wider ring that passes it (what the ring gains is judged against the floor taken so far)
    return cur, higher


def _ring(bgr: np.ndarray, inner: Poly, outer: Poly, work_width: int):
    """The ring between two rough outlines against the inner floor, on the frame shrunk to work_width:
    (log-chroma image, log-brightness image, the floor's core mask, the ring's mask, the core's median
    chroma, the core's 95th-percentile chroma spread about it); None when the ring or core is too small."""
    h, w = bgr.shape[:2]
    s = work_width / w
    small = cv2.resize(bgr, (work_width, max(8, round(h * s))), interpolation=cv2.INTER_AREA)
    lg = cv2.GaussianBlur(np.log(small.astype(np.float32) + 10.0), (0, 0), 2.0)
    ch = np.dstack([lg[:, :, 2] - lg[:, :, 1], lg[:, :, 0] - lg[:, :, 1]])
    lum = lg.mean(2)
    mi = mask(inner, (small.shape[1], small.shape[0]), s)
    mo = mask(outer, (small.shape[1], small.shape[0]), s)
    core = cv2.erode(mi, np.ones((9, 9), np.uint8)) > 0
    ring = (mo > 0) & (cv2.dilate(mi, np.ones((3, 3), np.uint8)) == 0)
    if ring.sum() < 10 or core.sum() < 10:
        return None
    ref = np.median(ch[core], axis=0)
    spread = np.percentile(np.linalg.norm(ch[core] - ref, axis=1), 95)
    return ch, lum, core, ring, ref, spread


def _felt_like(bgr: np.ndarray, inner: Poly, outer: Poly, work_width: int) -> bool:
    """Is the ring between two rough outlines felt: UP_FRAC of it within UP_CT x the inner floor's own chroma
    spread of its chroma (more for ring pixels darker than the floor's median, by their brightness ratio up to
    UP_SHADE x), and its median brightness no more than UP_DARK (log) below the floor's darkest 5%?
    A wall or rim is the rim's colour (a maker picks one the felt can be told from), or far darker in shade."""
    st = _ring(bgr, inner, outer, work_width)
    if st is None:
        return True
    ch, lum, core, ring, ref, spread = st
    dr = np.linalg.norm(ch[ring] - ref, axis=1)
    # log-chroma's noise, JPEG's chroma blocks and the ambient light's own tint grow as the felt darkens into a
    # wall's shade: on a dark floor only (a grey felt's shade shifts its chroma too, and that shift is what tells
    # it from a grey rim in shade), a ring pixel darker than the floor's median is allowed up to UP_SHADE x the
    # tolerance
    tol = max(UP_CT * spread, 0.06)
    mid = float(np.median(lum[core]))
    if mid < UP_SHADE_LUM:
        tol = tol * np.clip(np.exp(mid - lum[ring]), 1.0, UP_SHADE)
    ok = dr < tol
    return bool(ok.mean() > UP_FRAC and np.median(lum[ring]) > np.percentile(lum[core], 5) - UP_DARK)


def _shade_ring(bgr: np.ndarray, inner: Poly, outer: Poly, work_width: int) -> bool:
    """Is the ring between two rough outlines the felt in a wall's shade: its median log-chroma within
    max(UP_CT x the inner floor's chroma spread, 0.06) of the floor's, and its median brightness no higher
    than the floor's? A rim or wall top in the light is brighter, or another colour (a copper rim around
    black felt: 0.28 off and brighter; grey felts' shade: 0.014-0.036 off, darker)."""
    st = _ring(bgr, inner, outer, work_width)
    if st is None:
        return False
    ch, lum, core, ring, ref, spread = st
    dr = float(np.median(np.linalg.norm(ch[ring] - ref, axis=1)))
    return dr <= max(UP_CT * spread, 0.06) and float(np.median(lum[ring])) <= float(np.median(lum[core]))


def _rough_floor(empty_bgr: np.ndarray, work_width: int = 320, grow_px: int = 6, k_t: float = 1.0) -> Poly:
    h, w = empty_bgr.shape[:2]
    s = work_width / w
    small = cv2.resize(empty_bgr, (work_width, max(8, round(h * s))), interpolation=cv2.INTER_AREA)
    sh, sw = small.shape[:2]
    mag = _edges(small)
    cy, cx = sh // 2, sw // 2
    core = mag[cy - sh // 10: cy + sh // 10, cx - sw // 10: cx + sw // 10]
    # an edge is far above the felt's own texture and shading
    t = k_t * max(6.0 * float(np.median(core)), float(np.percentile(core, 99)) * 1.5, 0.15)
    free = (mag < t).astype(np.uint8)
    free = cv2.morphologyEx(free, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3)))
    n, labels = cv2.connectedComponents(free, connectivity=4)
    # the component holding most of the frame's middle
    mid = labels[cy - 3: cy + 4, cx - 3: cx + 4].ravel()
    mid = mid[mid > 0]
    if mid.size == 0:
        raise TrayError("no tray floor in the middle of the frame (is the camera over the tray?)")
    lab = int(np.bincount(mid).argmax())
    region = (labels == lab).astype(np.uint8)
    # second pass: grow through soft wall shadows (weaker edges) but only a little way
    near = cv2.dilate(region, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * grow_px + 1, 2 * grow_px + 1)))
    free2 = ((mag < 1.8 * t) & (near > 0)).astype(np.uint8)
    n2, labels2 = cv2.connectedComponents(free2, connectivity=4)
    keep = np.unique(labels2[region > 0])
    region = np.isin(labels2, keep[keep > 0]).astype(np.uint8) | region
    # third pass: felt in a wall's shadow keeps the felt's chroma (coloured felts only)
    lg = cv2.GaussianBlur(np.log(small.astype(np.float32) + 10.0), (0, 0), 2.0)
    chroma = np.dstack([lg[:, :, 2] - lg[:, :, 1], lg[:, :, 0] - lg[:, :, 1]])
    ref = np.median(chroma[region > 0], axis=0)
    spread = np.percentile(np.linalg.norm(chroma[region > 0] - ref, axis=1), 95)
    if float(np.linalg.norm(ref)) > 4 * spread and float(np.linalg.norm(ref)) > 0.12:
        felt = (np.linalg.norm(chroma - ref, axis=2) < max(2.0 * spread, 0.05)).astype(np.uint8)
        near = cv2.dilate(region, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (4 * grow_px + 1, 4 * grow_px + 1)))
        n3, labels3 = cv2.connectedComponents(felt & near, connectivity=4)
        keep = np.unique(labels3[region > 0])
        region = np.isin(labels3, keep[keep > 0]).astype(np.uint8) | region
    region = cv2.morphologyEx(region, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (9, 9)))
    cs, _ = cv2.findContours(region, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    c = max(cs, key=cv2.contourArea)
    hull = cv2.convexHull(c)
    frac = cv2.contourArea(hull) / float(sw * sh)
    touches = hull[:, 0, 0].min() <= 1 or hull[:, 0, 1].min() <= 1 or hull[:, 0, 0].max() >= sw - 2 or hull[:, 0, 1].max() >= sh - 2
    if frac < MIN_FRAC:
        raise TrayError(f"no clear tray floor in the empty frame (found {frac:.0%} of the frame)")
    if frac > WHOLE_FRAC and _border_share(region) >= WHOLE_BORDER:
        return whole_frame((w, h))  # no rim in view: the floor runs off the frame
    # the edge band eats ~1.5 px of the small frame; give it back
    hull = hull.astype(np.float32)
    m = cv2.moments(hull)
    ctr = np.array([m["m10"] / m["m00"], m["m01"] / m["m00"]], np.float32)
    v = hull[:, 0, :] - ctr
    grow = 1.5 / np.maximum(np.linalg.norm(v, axis=1, keepdims=True), 1.0)
    pts = (hull[:, 0, :] + v * grow) / s
    approx = cv2.approxPolyDP(pts.astype(np.float32).reshape(-1, 1, 2), 1.0 / s, True)[:, 0, :]
    return tuple((float(x), float(y)) for x, y in approx)


# refinement (chosen on a tuning set of rendered empty trays; lengths in outline samples, 2 px apart)
PASSES = 2  # refinement passes (the second starts from the first's outline: better normals, deeper corners)
LEAK_KS = (1.0, 0.6, 0.4)  # rough outline's edge threshold factors, tried in turn
LEAK_RATIO = 0.75  # a lower threshold's floor this much smaller: the higher one leaked
UP_KS = (1.5, 2.0, 3.0)  # then higher threshold factors, each tried (see _felt_like)
UP_RATIO = 1.3  # ... each taken only while the floor grows less than this
UP_CT = 2.0
UP_FRAC = 0.8
UP_DARK = 0.5
UP_SHADE = 2.0  # ... and a ring pixel darker than the floor's median by a brightness ratio r is allowed min(r, UP_SHADE)
# x the chroma tolerance: on black felt the shade by a wall is ~0.07 off the lit felt's log-chroma (without the
# allowance the floor stopped 1.5-2 die short of a corner); a rim is >= 0.2 off
UP_SHADE_LUM = 4.2  # ... on a dark floor only: the floor's median log(bgr + 10) below this (~57 of 255; rendered
# black felts 3.4-4.0, grey 4.5-5.0: on grey the allowance let a grey rim in shade in)
TK = 3.0  # a step stands out: above TK x the 95th percentile of the profiles' inner third near it
NOISE_POOL = 80  # ... (per profile, averaged over this many outline samples either side: a tray's side, about)
NOISE_G = 0.5  # ... no higher than TK x the 95th percentile over the whole outline, no lower than this share of it
TANG_VEC = 3.0  # step vectors averaged along the outline (gaussian sigma, samples) before their strength
HOLD_PX = 3.0  # a later pass: a peak within this many px (of a frame 640 wide) of the outline it starts from
HOLD = 0.5  # ... over this share of the limit holds the point there, when the first crossing lies further out
LOGOFF = 10.0  # log(bgr + LOGOFF): dark felts' noise is not blown up
CW = 3.0  # weight of the two log-chroma channels against log-brightness
REL = 0.3  # ... and reaches REL of its profile's strongest step (steps across 2 px; at 0.45 fewer tuning renders reached the foot)
CBOX = 8.0  # chroma steps: between the means over CBOX px of the frame either side (half a JPEG chroma block)
SMOOTH = 5.0  # outline smoothing for the normals
TANG = 3.0  # the strongest step's strength smoothed along the outline
MEDW = 15  # median filter of the offsets
OPEN = 81  # outward stretches narrower than this come back in
CLOSE = 41  # inward stretches narrower than this go out
CORNERS = True  # give back the corners the opening cut off
LONG = 0.25  # a straight side: longer than LONG x sqrt(rough floor area)
TOL = 1.0  # px a corner point may lie outside a side's line
IN_SPAN = 0.12  # profile length inwards, x sqrt(rough floor area)
OUT_SPAN = 0.1  # and outwards


def _resample(P: np.ndarray, step: float) -> np.ndarray:
    Q = np.vstack([P, P[:1]])
    seg = np.linalg.norm(np.diff(Q, axis=0), axis=1)
    cum = np.concatenate([[0.0], np.cumsum(seg)])
    n = max(16, int(cum[-1] / step))
    t = np.arange(n) * (cum[-1] / n)
    return np.stack([np.interp(t, cum, Q[:, 0]), np.interp(t, cum, Q[:, 1])], 1)


def _csmooth(v: np.ndarray, sigma: float) -> np.ndarray:
    """Circular gaussian smoothing along axis 0."""
    k = max(1, int(3 * sigma))
    x = np.arange(-k, k + 1)
    g = np.exp(-0.5 * (x / sigma) ** 2)
    g /= g.sum()
    pad = np.concatenate([v[-k:], v, v[:k]], 0)
    out = np.zeros_like(v, dtype=np.float64)
    for i, gi in enumerate(g):
        out += gi * pad[i:i + len(v)]
    return out


def _refine(bgr: np.ndarray, rough: Poly, fine_width: int = 640, hold: bool = False) -> Poly:
    """Move each point of the rough outline along its normal to the first sharp colour step (the wall's foot)."""
    feat, s = _colour_steps(bgr, fine_width, 0.7)
    P = np.asarray(rough, np.float64) * s
    pts, nrm = _outward_normals(P)
    span = float(np.sqrt(cv2.contourArea(P.astype(np.float32))))
    t = np.arange(-IN_SPAN * span, OUT_SPAN * span, 0.5)
    mx = (pts[:, None, 0] + nrm[:, None, 0] * t[None, :]).astype(np.float32)
    my = (pts[:, None, 1] + nrm[:, None, 1] * t[None, :]).astype(np.float32)
    prof = cv2.remap(feat, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    d = 4  # samples (2 px) either side
    dd = np.zeros_like(prof)
    dd[:, d:-d] = prof[:, 2 * d:] - prof[:, :-2 * d]
    # the strongest step the profile's fine steps make: what the foot's must reach a share of
    top = _csmooth(np.sqrt((dd ** 2).sum(2)), TANG)[:, d:-d].max(1)
    wc = int(round(2 * CBOX * s))
    if wc > d:  # chroma: the step between the means of wc samples either side
        dd[:, :, :2] = _boxstep(prof[:, :, :2], wc)
    # the step vectors (not their strength) averaged along the outline: a foot's step keeps its direction from
    # one normal to the next and adds up, the floor's grain and noise cancel
    S = np.sqrt((_csmooth(dd, TANG_VEC) ** 2).sum(2))
    inner = S[:, 2 * d: len(t) // 3]
    # the floor's own steps near each point (NOISE_POOL normals either side): a grainy or shaded side does not
    # raise the bar on a quiet one. Never above the whole outline's bar (where the rough outline ran onto the
    # rim, the profiles' inner part is wall and rim, not floor), nor under NOISE_G of it
    p95 = np.percentile(inner, 95, axis=1)
    tg = TK * float(np.percentile(inner, 95))
    T = np.maximum(np.minimum(TK * _circ_mean(p95, 2 * NOISE_POOL + 1), tg), max(0.05, NOISE_G * tg))
    core = S[:, d:-d]
    lim = np.maximum(T, REL * top)
    above = core > lim[:, None]
    k0 = above.argmax(1)
    # climb from the first crossing to its peak (the first place the strength falls)
    cand = (core[:, 1:] < core[:, :-1]) & (np.arange(core.shape[1] - 1)[None, :] >= k0[:, None])
    k = d + np.where(cand.any(1), cand.argmax(1), core.shape[1] - 1)
    if hold and HOLD_PX > 0:
        # a later pass starts on the foot the first found: a peak within HOLD_PX of the outline over HOLD x the
        # limit holds it there, where the first crossing lies further out (the wall's top)
        hp = HOLD_PX * feat.shape[1] / 640.0
        z0 = int(np.searchsorted(t, -hp)) - d
        z1 = int(np.searchsorted(t, hp)) - d
        z0, z1 = max(z0, 1), min(z1, core.shape[1] - 1)
        win = core[:, z0:z1]
        pk = (win >= core[:, z0 - 1:z1 - 1]) & (win >= core[:, z0 + 1:z1 + 1]) & (win > HOLD * lim[:, None])
        hk = d + z0 + np.where(pk, win, -1.0).argmax(1)
        use = pk.any(1) & (hk < k)
        above = above | use[:, None]
        k = np.where(use, hk, k)
    rows = np.arange(len(S))
    a_, b_, c_ = S[rows, k - 1], S[rows, k], S[rows, k + 1]
    den = a_ - 2 * b_ + c_
    with np.errstate(divide="ignore", invalid="ignore"):
        o = np.where(den < 0, 0.5 * (a_ - c_) / den, 0.0)
    off = np.where(above.any(1), t[k] + 0.5 * np.clip(o, -1, 1), np.nan)
    ok = np.isfinite(off)
    if ok.sum() < len(pts) // 2:
        return rough
    idx = np.arange(len(pts))
    off = np.interp(idx, idx[ok], off[ok], period=len(pts))
    med = _circ_median(off, MEDW)
    off = np.where(np.abs(off - med) > 2.0, med, off)
    raw = off
    if OPEN > 1:  # a stretch that jumped out to the wall's top while its neighbours hold the foot
        off = _circ_max(_circ_min(off, OPEN), OPEN)
    if CLOSE > 1:  # a short stretch that stopped short (noise in a dark shadow)
        off = _circ_min(_circ_max(off, CLOSE), CLOSE)
    q = pts + nrm * off[:, None]
    if CORNERS:
        q = _corners(q, pts + nrm * raw[:, None], raw > off + 0.5, LONG * span)
    out = q / s
    approx = cv2.approxPolyDP(out.astype(np.float32).reshape(-1, 1, 2), 0.5 / s, True)[:, 0, :]
    return tuple((float(x), float(y)) for x, y in approx)


def _boxstep(prof: np.ndarray, w: int) -> np.ndarray:
    """Along axis 1: the mean of the w samples after each sample minus the mean of the w before it (ends
    replicated)."""
    n = prof.shape[1]
    pad = np.concatenate([np.repeat(prof[:, :1], w + 1, 1), prof, np.repeat(prof[:, -1:], w + 1, 1)], 1)
    cs = np.concatenate([np.zeros_like(pad[:, :1]), np.cumsum(pad, 1, dtype=np.float64)], 1)
    j = np.arange(n) + w + 1  # sample j's index in pad
    return ((cs[:, j + w + 1] - cs[:, j + 1]) - (cs[:, j] - cs[:, j - w])) / w


def _corners(q: np.ndarray, raw: np.ndarray, cand: np.ndarray, long: float) -> np.ndarray:
    """Give back the corners the opening cut off: a raw point further out is kept when it lies inside every
    long straight side's line (a corner's foot does; a stretch on the wall's top lies outside its own side)."""
    if not cand.any():
        return q
    ap = cv2.approxPolyDP(q.astype(np.float32).reshape(-1, 1, 2), 1.5, True)[:, 0, :].astype(np.float64)
    ctr = q.mean(0)
    lines = []
    for i in range(len(ap)):
        a, b = ap[i], ap[(i + 1) % len(ap)]
        e = b - a
        L = float(np.hypot(*e))
        if L < long:
            continue
        n = np.array([e[1], -e[0]]) / L
        if np.dot(ctr - a, n) > 0:
            n = -n  # outward
        lines.append((a, n))
    if not lines:
        return q
    ok = cand.copy()
    for a, n in lines:
        ok &= (raw - a) @ n <= TOL
    out = q.copy()
    out[ok] = raw[ok]
    return out


def _circ_min(v: np.ndarray, k: int) -> np.ndarray:
    n = len(v)
    idx = (np.arange(n)[:, None] + np.arange(-(k // 2), k // 2 + 1)[None, :]) % n
    return v[idx].min(axis=1)


def _circ_max(v: np.ndarray, k: int) -> np.ndarray:
    n = len(v)
    idx = (np.arange(n)[:, None] + np.arange(-(k // 2), k // 2 + 1)[None, :]) % n
    return v[idx].max(axis=1)


def _circ_mean(v: np.ndarray, k: int) -> np.ndarray:
    n = len(v)
    k = min(k, n - (1 - n % 2))
    idx = (np.arange(n)[:, None] + np.arange(-(k // 2), k // 2 + 1)[None, :]) % n
    return v[idx].mean(axis=1)


def _circ_median(v: np.ndarray, k: int) -> np.ndarray:
    n = len(v)
    idx = (np.arange(n)[:, None] + np.arange(-(k // 2), k // 2 + 1)[None, :]) % n
    return np.median(v[idx], axis=1)


def _ray_radius(P: np.ndarray, c: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Distance from c along each unit direction u to the polygon P's boundary (furthest crossing)."""
    a = P - c
    b = np.roll(P, -1, 0) - c
    e = b - a
    # solve t*u = a + s*e  ->  cross products
    cr = lambda x, y: x[..., 0] * y[..., 1] - x[..., 1] * y[..., 0]
    den = cr(u[:, None, :], e[None, :, :])
    with np.errstate(divide="ignore", invalid="ignore"):
        t = cr(a[None, :, :], e[None, :, :]) / den
        sp = cr(a[None, :, :], u[:, None, :]) / den
    good = (sp >= 0) & (sp <= 1) & (t > 0) & np.isfinite(t)
    t = np.where(good, t, 0)
    return t.max(axis=1)


ZONE_INSET = 4.0  # working pixels between a keep zone's outline and the free region found inside it
#: edge thresholds tried in turn, as fractions of the first. 0.3 (a cream sheet on a beige table: at 0.4 its
#: outline does not close, at 0.25 the table's grain eats into it) found no false zone on 4,520 rendered empty
#: trays (901 zones)
ZONE_EDGE_STEPS = (1.0, 0.6, 0.4, 0.3)
#: when none of those closes: the edge strength averaged along ZONE_LINE px straight segments, thresholds
#: ZONE_LINE_STEPS of its own first one, necks of the free region narrower than ZONE_LINE_OPEN px cut, regions of
#: ZONE_LOOSE_FILL or more of their rectangle taken as hypotheses, each kept only when its outline is found all
#: round (_outline_fit). For a cream or pale sheet on a pale table
ZONE_LINE = 15
ZONE_LINE_STEPS = (0.4, 0.3, 0.25, 0.2, 0.15)
ZONE_LINE_OPEN = 5
ZONE_LOOSE_FILL = 0.7
ZONE_SEARCH = 12.0  # _outline_fit: a side's peak looked for up to this far (working px) outside the region
ZONE_PEAK = 3.5  # ... over this x the grain's median edge strength (on renders the outlines' peaks 4.2-22 x,
# the grain's bumps beside them 3.1-3.3 x; a rim's edge beyond the zone's own can be the strongest)
ZONE_TURN = 4.0  # ... the sides' common angle within this many degrees of the region's rectangle
ZONE_STAND = 1.5  # ... and ZONE_SUPPORT of the outline's points stand this much over the line strength inside
ZONE_SUPPORT = 0.9


def find_keep_zone(empty_bgr: np.ndarray, floor: Poly, work_width: int = 320) -> Poly | None:
    """A marked zone beside the tray for set-aside dice: a plain, clearly outlined, roughly
    rectangular region away from the tray and the frame's border, at least a fifth of the floor's
    width across. None when there is none. An outline fainter than the table's texture in places
    (a pale zone on a pale table) is looked for again at lower edge thresholds, and then by its
    straight sides: edge strength averaged along straight segments, and the outline found all round
    the region it encloses."""
    h, w = empty_bgr.shape[:2]
    s = work_width / w
    small = cv2.resize(empty_bgr, (work_width, max(8, round(h * s))), interpolation=cv2.INTER_AREA)
    sh, sw = small.shape[:2]
    mag = _edges(small)
    t = max(6.0 * float(np.median(mag)), float(np.percentile(mag, 60)) * 3.0, 0.15)
    tray_zone = cv2.dilate(mask(floor, (sw, sh), s), cv2.getStructuringElement(cv2.MORPH_RECT, (25, 25)))
    floor_side = min(cv2.minAreaRect(np.asarray(floor, np.float32) * s)[1])
    rect, grow = None, 2 * ZONE_INSET  # the free region stops short of the outline by about ZONE_INSET each side
    for f in ZONE_EDGE_STEPS:
        rect = _zone_rect(mag >= f * t, tray_zone, floor_side)
        if rect is not None:
            break
    if rect is None and ZONE_LINE_STEPS:
        # a faint outline, broken by the table's grain: its edge strength averaged along straight segments,
        # lower thresholds, necks of the free region cut; a region the grain ate into is taken when its
        # rectangle's outline stands out from the grain inside it all round
        line = _line_mean(mag, ZONE_LINE)
        t = max(6.0 * float(np.median(line)), float(np.percentile(line, 60)) * 3.0, 0.15)
        def fit(r):
            o = _outline_fit(mag, line, r)
            if o is None or (mask(tuple(map(tuple, cv2.boxPoints(o))), (sw, sh)) & tray_zone).any():
                return None  # no outline, or one that reaches the tray
            return o
        for f in ZONE_LINE_STEPS:
            rect = _zone_rect(line >= f * t, tray_zone, floor_side, ZONE_LINE_OPEN, ZONE_LOOSE_FILL, fit)
            if rect is not None:
                grow = 0.0  # the outline itself
                break
    if rect is None:
        return None
    (cx, cy), (bw, bh), ang = rect
    box = cv2.boxPoints(((cx, cy), (bw + grow, bh + grow), ang)) / s
    return tuple((float(x), float(y)) for x, y in box)


def _outline_fit(mag: np.ndarray, line: np.ndarray, rect):
    """The outline around a free region's rectangle (working pixels), or None. Each side is moved to the
    strongest peak of the mean edge strength `mag` along it over ZONE_PEAK x the grain's (the median inside),
    from 2 px inside to ZONE_SEARCH px outside (the four sides sharing one angle within ZONE_TURN degrees of the
    rectangle's; the angle whose four peaks are strongest); None when, at any angle tried, a side has another
    such peak inside its strongest. The outline so found is taken when
    ZONE_SUPPORT of its points (every px along the sides, their ends left out) have a `line` strength (within a
    px) over ZONE_STAND x its 95th percentile inside the outline (clear of the outline's own spread)."""
    (cx, cy), (bw, bh), ang = rect
    if min(bw, bh) < 12:
        return None
    h, w = line.shape
    c = np.array([cx, cy], np.float64)
    off = np.arange(-4.0, ZONE_SEARCH + 0.25, 0.5)
    grain = float(np.median(mag[mask(tuple(map(tuple, cv2.boxPoints(((cx, cy), (bw - 8, bh - 8), ang)))), (w, h)) > 0]))
    best = None
    for da in np.arange(-ZONE_TURN, ZONE_TURN + 0.5, 1.0):
        a = np.deg2rad(ang + da)
        ux, uy = np.array([np.cos(a), np.sin(a)]), np.array([-np.sin(a), np.cos(a)])
        sides = []
        for nrm, tan, d, half in ((ux, uy, bw / 2, bh / 2), (-ux, uy, bw / 2, bh / 2),
                                  (uy, ux, bh / 2, bw / 2), (-uy, ux, bh / 2, bw / 2)):
            q = np.arange(-0.85 * half, 0.85 * half, 1.0)
            base = c[None, :] + d * nrm[None, :] + q[:, None] * tan[None, :]
            mx = (base[:, None, 0] + nrm[0] * off[None, :]).astype(np.float32)
            my = (base[:, None, 1] + nrm[1] * off[None, :]).astype(np.float32)
            raw = cv2.remap(mag, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0).mean(0)
            # the strongest peak that stands out from the grain, from 2 px inside the region (its free pixels
            # stop short of the outline) out; another one inside it, at any angle tried, is a faint outline
            # inside a stronger edge (a tray's rim beside the zone): no outline is taken (it could take in the
            # table between them)
            peak = (raw[1:-1] >= raw[:-2]) & (raw[1:-1] >= raw[2:]) & (raw[1:-1] > ZONE_PEAK * grain) & (off[1:-1] >= -2.0)
            if not peak.any():
                break
            k = 1 + int(np.where(peak, raw[1:-1], -1.0).argmax())
            if peak[:k - 1].any():
                return None
            prof = cv2.remap(line, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
            sides.append((float(raw[k]), d + off[k], prof[:, max(0, k - 2): k + 3].max(1)))
        if len(sides) < 4:
            continue
        score = sum(sd[0] for sd in sides)
        if best is None or score > best[0]:
            best = (score, a, ux, uy, sides)
    if best is None:
        return None
    _, a, ux, uy, sides = best
    (_, d1, v1), (_, d2, v2), (_, d3, v3), (_, d4, v4) = sides
    ctr = c + (d1 - d2) / 2 * ux + (d3 - d4) / 2 * uy
    out = ((float(ctr[0]), float(ctr[1])), (float(d1 + d2), float(d3 + d4)), float(np.rad2deg(a)))
    e = 2 * (ZONE_LINE // 2 + 2)  # inside, clear of the outline's own spread in `line`
    inner = mask(tuple(map(tuple, cv2.boxPoints((out[0], (out[1][0] - e, out[1][1] - e), out[2])))), (w, h)) > 0
    if inner.sum() < 50:
        return None
    ref = float(np.percentile(line[inner], 95))
    vals = np.concatenate([v1, v2, v3, v4])
    if float(np.mean(vals > ZONE_STAND * ref)) < ZONE_SUPPORT:
        return None
    return out


def _line_mean(mag: np.ndarray, length: int, n: int = 12) -> np.ndarray:
    """Each pixel's edge strength averaged along the best of n straight segments `length` px long through it:
    a long straight outline keeps its strength, a table's grain (short, curly edges) is averaged away."""
    out = np.zeros_like(mag)
    c = length // 2
    tt = np.linspace(-c, c, 4 * length)
    for i in range(n):
        a = np.pi * i / n
        k = np.zeros((length, length), np.float32)
        k[np.round(c + tt * np.sin(a)).astype(int), np.round(c + tt * np.cos(a)).astype(int)] = 1.0
        k /= k.sum()
        np.maximum(out, cv2.filter2D(mag, -1, k, borderType=cv2.BORDER_REPLICATE), out=out)
    return out


def _zone_rect(edges: np.ndarray, tray_zone: np.ndarray, floor_side: float, open_px: int = 0,
               min_fill: float = 0.85, check=None):
    """The biggest plain, nearly rectangular region the `edges` map encloses away from the tray
    (cv2.minAreaRect of it, working pixels), or None. With `check`: of the regions check(rect) does not
    refuse (None), the biggest one's check(rect)."""
    sh, sw = edges.shape
    # the outline is a thin line: thicken what is found by a pixel each way so that a gap of a few
    # pixels in it does not join the zone to the table
    free = (cv2.dilate(edges.astype(np.uint8), np.ones((3, 3), np.uint8)) == 0).astype(np.uint8)
    free[tray_zone > 0] = 0
    if open_px:  # cut necks narrower than open_px (a short gap in a faint outline)
        free = cv2.morphologyEx(free, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (open_px, open_px)))
    n, labels, stats, _ = cv2.connectedComponentsWithStats(free, connectivity=4)
    best = None
    for i in range(1, n):
        x, y, bw, bh, area = (int(v) for v in stats[i])
        if x <= 1 or y <= 1 or x + bw >= sw - 1 or y + bh >= sh - 1:
            continue  # the table runs off the frame; a zone is drawn inside it
        if not (0.015 * sw * sh <= area <= 0.25 * sw * sh):
            continue
        comp = (labels == i).astype(np.uint8)
        cs, _ = cv2.findContours(comp, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        c = max(cs, key=cv2.contourArea)
        rect = cv2.minAreaRect(c)
        fill = area / max(1.0, rect[1][0] * rect[1][1])
        if fill < min_fill:
            continue
        if min(rect[1]) < 0.2 * floor_side:
            continue  # a strip (of the rim, between two of its edges) holds no set-aside dice
        if best is not None and area <= best[0]:
            continue
        if check is None:
            best = (area, rect)
        else:
            g = check(rect)
            if g is not None:
                best = (area, g)
    return None if best is None else best[1]


def inside(poly: Poly, x: float, y: float, margin: float = 0.0) -> bool:
    """True when (x, y) lies inside `poly` by at least `margin` pixels (negative: within that much outside)."""
    cnt = np.asarray(poly, np.float32).reshape(-1, 1, 2)
    return cv2.pointPolygonTest(cnt, (float(x), float(y)), True) >= margin


def distance(poly: Poly, x: float, y: float) -> float:
    """Signed distance to the polygon's edge: positive inside."""
    cnt = np.asarray(poly, np.float32).reshape(-1, 1, 2)
    return float(cv2.pointPolygonTest(cnt, (float(x), float(y)), True))


def distances(poly: Poly | np.ndarray, px: np.ndarray, py: np.ndarray) -> np.ndarray:
    """`distance` for many points at once (vectorised; float64): each point's distance to the
    polygon's edge, positive inside (even-odd rule)."""
    V = np.asarray(poly, np.float64).reshape(-1, 2)
    px, py = np.asarray(px, np.float64).ravel(), np.asarray(py, np.float64).ravel()
    ax, ay = V[:, 0], V[:, 1]
    ex, ey = np.roll(ax, -1) - ax, np.roll(ay, -1) - ay
    dx, dy = px[:, None] - ax, py[:, None] - ay
    t = np.clip((dx * ex + dy * ey) / np.maximum(ex * ex + ey * ey, 1e-9), 0.0, 1.0)
    dist = np.sqrt(np.min((dx - t * ex) ** 2 + (dy - t * ey) ** 2, axis=1))
    cross = ((ay > py[:, None]) != (ay + ey > py[:, None])) & (
        px[:, None] < ax + (py[:, None] - ay) * ex / np.where(ey == 0, 1e-9, ey))
    return np.where(np.count_nonzero(cross, axis=1) % 2 == 1, dist, -dist)


def mask(poly: Poly, size: tuple[int, int], scale: float = 1.0) -> np.ndarray:
    """uint8 mask (h, w) of the polygon, drawn at `scale`."""
    w, h = size
    m = np.zeros((h, w), np.uint8)
    cv2.fillPoly(m, [np.round(np.asarray(poly) * scale).astype(np.int32)], 1)
    return m


def iou(a: Poly, b: Poly, size: tuple[int, int]) -> float:
    ma, mb = mask(a, size), mask(b, size)
    inter = np.count_nonzero(ma & mb)
    return inter / max(1, np.count_nonzero(ma | mb))


def scale_poly(p: Poly, k: float) -> Poly:
    return tuple((x * k, y * k) for x, y in p)
