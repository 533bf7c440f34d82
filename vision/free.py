"""The calibration-free path: faces of dice in any top-down photo, unknown scale.

`free_dice(gray)` -> [(value, x, y)] in the photo's pixels. Used by `vision.reader.read`
when there is no calibration (the real photos of ../shared/data/dice-photos).

Round spots of either polarity come from three black-hat / top-hat pairs, found as
`vision.pips.find_pips` finds them (`_find_spots`): a wide kernel at full and at half
size (big pips that touch merge at full size) and a narrow one (on a die not much larger
than the wide kernel the whole die stands out and its pips drown). In the narrow pass a
blob that is no round spot at half its peak (a small six's pips blurred into columns,
light pips joined to the light rim round a recessed face) is cut again nearer its own
peak, up to three times; a spot found so is never a one and only counts in a face of
three or more pips.

The spots propose faces: every pair of like spots at a plausible distance is a face's
diagonal, the like spots inside its circle and of about its spots' size are the face's
pips, and the set must fit a canonical 1-6 layout (`fit_layout`; a four or five must be
square, so half a six is no four). Each proposal is then checked on the grey picture
itself, not on the hat response: between the pips the die must be one even tone, the
pips the only marks on it, all about as dark (or light) as each other, and the region
must lie inside the picture. On a face of three or more pips, marks that reach the
checked region's outline are let pass (the light rim round a recessed face with light
pips), but then every free place of the 3x3 pip grid must be plain (a missed pip may
reach the outline too). A lone pip must sit in the middle of a plain disc as wide as
the photo's other dice, so the corner pip of a two whose other pip was missed, a speck
on the table or one mark of a symbol die is not read as a one, and its spot must have an
edge (glare on a table fades out slowly).

Faces are taken most pips first. Two readings closer than their half widths (the
second's counted 1.15 times; a one is at least as wide as the photo's other dice) are
one die read twice: neither is read. A face of one to four pips with a spare like pip
close by (part of a bigger face?) is dropped, and dice in one photo have about one size.
Nothing checks for a die's body round a face: a round light or dark spot on a plain
table can still be read as a one.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from vision.dice import Face
from vision.pips import Fit, Pip, blob_patches, contour_shape, find_pips, fit_layout, hats, odd as _odd, scaled as _scaled, single

MAX_ERR = 0.15  # pip residual / corner offset
MIN_ANISO = 0.55  # smaller / larger axis of the fitted layout (a six's columns are closer than its rows)
MIN_ANISO_SQUARE = 0.85  # ... of a four or five, which are square (so half a six is no four)
R_OVER_A = (0.12, 0.62)  # pip radius / corner offset
FACE_HALF = 1.2  # the checked square, in units of the corner offset (the face edge is at ~1.75)
FACE_ROUND = 1.5  # ... cut to a disc of this radius (a recessed face is round)
ONE_DISC = 3.2  # the plain disc round a one's pip, in pip radii ...
ONE_REF = 1.45  # ... or this share of the corner offset of the photo's other dice, if larger
MIN_CONTRAST = 14.0  # grey levels between the face and its pips
SPOT_Z = 0.5  # a face pixel this far (as a share of the pip contrast) towards the pip tone is a mark
MAX_MARKS = 0.02  # share of the checked face that may be marks (noise, blur round the pips)
RIM_MIN_VALUE = 3  # a face of this many pips or more may have marks on its outline (a recessed face's rim)
EMPTY_Z = 0.5  # ... when no free place of its 3x3 pip grid is this far towards the pip tone
MAX_SOFT = 6.5  # a one's spot over a fifth of its contrast may be this many times its part over four fifths
MAX_GLARE = 0.06  # share that may be much lighter (or darker) than the face the other way: glare, an edge
RSPREAD = 2.2  # largest / smallest pip radius in one face (glare on some pips)
CLASH = 1.15  # two faces closer than their half widths (the second's times this) are one die read twice
ONE_HALF = 1.75  # a one's half width, in corner offsets of the photo's other dice (if larger than its disc)
MEMBER_R = 1.6  # a face's pips: the like spots in its diagonal's circle within this factor of its corner pips' size
NEAR = 2.6  # no spare pip of a face's kind within this many corner offsets of its centre
FINE_S = 0.5  # the narrow hat is taken at this size ...
FINE_K = 0.05  # ... with a kernel of this share of the side
SPLIT_DEPTH = 3  # a blob that is no round spot is cut again up to this many times ...
SPLIT_STEP = 0.4  # ... each time this share higher towards its own peak
SPLIT_MIN = 1.5  # ... when it is larger than this many smallest pips
SPLIT_FACE = 3  # a face with a spot found so must have at least this many pips
SPLIT_SPAN = 2.0  # blobs up to this many times as wide as `find_pips` looks at are looked into


@dataclass(frozen=True)
class Spot(Pip):
    split: bool = False  # found by cutting a blob higher than half its peak (`_split_blobs`)


def free_dice(gray: np.ndarray) -> list[tuple[int, float, float]]:
    """(value, x, y) of every die read in a grey photo of unknown scale."""
    faces, scale = free_faces(gray)
    return [(f.value, f.cx / scale, f.cy / scale) for f in faces]


def free_faces(gray: np.ndarray, min_r_frac: float = 1 / 160, one_r_frac: float | None = 1 / 110) -> tuple[list[Face], float]:
    """Faces in a photo of unknown scale (dice about 1/30 to 1/3 of the frame); (faces, working scale)."""
    h, w = gray.shape
    scale = min(1.0, 800.0 / max(h, w))
    work = _scaled(gray, scale)
    side = max(work.shape)
    min_r = max(1.2, side * min_r_frac)
    pips = _spots(work, 1.0, 0.1, min_r, 0.06 * side)  # the main pass
    pips = _merged(pips, _spots(work, 0.5, 0.1, side / 110, 0.08 * side))  # big pips that touch
    pips = _merged(pips, _spots(work, FINE_S, FINE_K, min_r, 0.4 * FINE_K * side, split=True))  # pips on small dice
    one_min_r = 0.0 if one_r_frac is None else side * one_r_frac
    faces = _select(work, pips, one_min_r)
    return _consistent(faces), scale


def _spots(work: np.ndarray, f: float, k: float, min_r: float, max_r: float, split: bool = False) -> list[Pip]:
    """`find_pips` on `work` scaled by `f`, hat kernel `k` x its side; radii and coordinates of `work`."""
    img = _scaled(work, f)
    f = img.shape[1] / work.shape[1]
    bh, th = hats(img, _odd(k * max(img.shape)))
    return [Spot((p.x + 0.5) / f - 0.5, (p.y + 0.5) / f - 0.5, p.r / f, p.dark, p.contrast, p.round, p.elong, p.split)
            for p in _find_spots(bh, th, min_r=max(1.2, min_r * f), max_r=max_r * f, split=split)]


def _find_spots(bh: np.ndarray, th: np.ndarray, min_r: float, max_r: float, t_low: float = 18.0,
                split: bool = True) -> list[Pip]:
    """Round spots of either polarity in a hat pair, like `find_pips`, but a blob that is no spot at half
    its peak (pips blurred into a column, or joined to a die's rim of like tone) is cut again higher up."""
    out: list[Pip] = []
    for resp, dark in ((bh, True), (th, False)):
        for p in _split_blobs(resp, dark, t_low, min_r, max_r, split=split):
            if not any(q.dark == p.dark and math.hypot(q.x - p.x, q.y - p.y) < 0.5 * max(p.r, q.r) for q in out):
                out.append(p)
    return out


def _split_blobs(resp: np.ndarray, dark: bool, t_low: float, min_r: float, max_r: float,
                 min_round: float = 0.72, min_elong: float = 0.45, split: bool = True) -> list[Pip]:
    out: list[Pip] = []

    def measure(c: np.ndarray) -> tuple[float, bool]:
        a = cv2.contourArea(c)
        r = math.sqrt(max(a, 1e-6) / math.pi)
        if r < min_r or len(c) < 5:
            return r, False
        if r > max_r:
            return r, False
        rnd, elong = contour_shape(c, a)
        return r, rnd >= min_round and elong >= min_elong

    def cut(patch: np.ndarray, own: np.ndarray, thr: float, x0: int, y0: int, depth: int) -> None:
        sub = ((patch > thr) & own).astype(np.uint8)
        cs, _ = cv2.findContours(sub, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
        for c in cs:
            r, ok = measure(c)
            if r < min_r:
                continue
            if ok:
                m = cv2.moments(c)
                if m["m00"] <= 0:
                    continue
                cm = np.zeros(patch.shape, np.uint8)
                cv2.drawContours(cm, [c], -1, 1, -1)
                rnd, elong = contour_shape(c, cv2.contourArea(c))
                out.append(Spot(x0 + m["m10"] / m["m00"], y0 + m["m01"] / m["m00"], r, dark,
                                float(patch[(cm > 0) & own].max()), rnd, elong, depth > 0))
            elif split and depth < SPLIT_DEPTH and r > SPLIT_MIN * min_r:
                cm = np.zeros(patch.shape, np.uint8)
                cv2.drawContours(cm, [c], -1, 1, -1)
                own2 = (cm > 0) & own
                peak = float(patch[own2].max())
                cut(patch, own2, thr + SPLIT_STEP * (peak - thr), x0, y0, depth + 1)

    for x0, y0, patch, lab, peak, t_low, wide in blob_patches(resp, t_low, min_r, max_r,
                                                               SPLIT_SPAN if split else 1.0):
        # depth 0 is `find_pips` itself: a blob too wide for a pip is only looked into, never read
        cut(patch, lab, max(t_low, 0.5 * peak), x0, y0, 1 if wide else 0)
    return out


def _merged(pips: list[Pip], more: list[Pip]) -> list[Pip]:
    """`pips` and those of `more` that are not already among them."""
    return pips + [q for q in more
                   if not any(o.dark == q.dark and math.hypot(o.x - q.x, o.y - q.y) < max(o.r, q.r) for o in pips)]


def _proposals(pips: list[Pip]) -> list[tuple[int, float, Fit, tuple[int, ...]]]:
    """Candidate faces, most pips and best fit first: (-pips, err, fit, members); every pip is also a one."""
    n = len(pips)
    out: list[tuple[int, float, Fit, tuple[int, ...]]] = []
    if n == 0:
        return out
    xy = np.array([[p.x, p.y] for p in pips])
    r = np.array([p.r for p in pips])
    dark = np.array([p.dark for p in pips])
    d = np.hypot(xy[:, None, 0] - xy[None, :, 0], xy[:, None, 1] - xy[None, :, 1])
    rmax, rmin = np.maximum(r[:, None], r[None, :]), np.minimum(r[:, None], r[None, :])
    ok = (dark[:, None] == dark[None, :]) & (rmax < RSPREAD * rmin) & (d > 3.5 * rmax) & (d < 13.0 * rmin)
    seen: set[tuple[int, ...]] = set()
    for i, j in zip(*np.nonzero(np.triu(ok, 1))):
        m = (xy[i] + xy[j]) / 2
        inside = np.nonzero((np.hypot(xy[:, 0] - m[0], xy[:, 1] - m[1]) < d[i, j] / 2 * 1.12) & (dark == dark[i])
                            & (r > rmin[i, j] / MEMBER_R) & (r < rmax[i, j] * MEMBER_R))[0]
        members = tuple(sorted(set(inside.tolist()) | {int(i), int(j)}))
        if len(members) > 6 or members in seen:
            continue
        seen.add(members)
        fit = fit_layout(xy[list(members)])
        if fit is None or fit.err > MAX_ERR or fit.aniso < (MIN_ANISO_SQUARE if fit.value in (4, 5) else MIN_ANISO):
            continue
        if len(members) < SPLIT_FACE and any(getattr(pips[k], "split", False) for k in members):
            continue
        rs = r[list(members)]
        if rs.max() > RSPREAD * rs.min() or not (R_OVER_A[0] <= rs.mean() / fit.a <= R_OVER_A[1]):
            continue
        out.append((-len(members), fit.err, fit, members))
    for k in range(n):
        if getattr(pips[k], "split", False):
            continue
        out.append((-1, 0.0, single(float(xy[k, 0]), float(xy[k, 1]), 2.2 * r[k]), (k,)))
    out.sort(key=lambda o: (o[0], o[1]))
    return out


def _face_mask(fit: Fit, pips: list[Pip], members: tuple[int, ...], shape: tuple[int, int], a_ref: float | None):
    """(x0, y0, mask) of the checked face region without the pips; None when it leaves the picture."""
    h, w = shape
    r = float(np.mean([pips[k].r for k in members]))
    rad = max(ONE_DISC * r, ONE_REF * a_ref) if a_ref else ONE_DISC * r
    if fit.value == 1:
        corners = np.array([[fit.cx - rad, fit.cy - rad], [fit.cx + rad, fit.cy + rad]])
    else:
        t = np.linspace(0, 2 * math.pi, 32, endpoint=False)
        rr = np.minimum(FACE_ROUND, FACE_HALF / np.maximum(np.abs(np.cos(t)), np.abs(np.sin(t))))
        corners = np.array([fit.to_image(u, v) for u, v in zip(rr * np.cos(t), rr * np.sin(t))])
    x0, y0 = np.floor(corners.min(0)).astype(int)
    x1, y1 = np.ceil(corners.max(0)).astype(int) + 1
    if x0 < 0 or y0 < 0 or x1 > w or y1 > h:
        return None  # cut by the picture's edge: do not guess
    face = np.zeros((y1 - y0, x1 - x0), np.uint8)
    if fit.value == 1:
        cv2.circle(face, (int(round(fit.cx - x0)), int(round(fit.cy - y0))), int(round(rad)), 1, -1)
    else:
        cv2.fillConvexPoly(face, np.round(corners - [x0, y0]).astype(np.int32), 1)
    # the outline's own band: marks there may be a recessed face's rim
    rim = face - cv2.erode(face, cv2.getStructuringElement(cv2.MORPH_RECT, (5, 5)), borderValue=0)
    for k in members:
        p = pips[k]
        cv2.circle(face, (int(round(p.x - x0)), int(round(p.y - y0))), int(math.ceil(1.6 * p.r + 1)), 0, -1)
    return x0, y0, face, rim


def features(gray: np.ndarray, fit: Fit, pips: list[Pip], members: tuple[int, ...],
             a_ref: float | None = None) -> dict | None:
    """How a proposed face looks on the grey picture: pip contrast (grey levels), the shares of the
    region that are marks (towards the pip tone) and glare (the other way), how even the pips are
    (weakest / strongest); None when the region leaves the picture."""
    m = _face_mask(fit, pips, members, gray.shape, a_ref)
    if m is None:
        return None
    x0, y0, face, rim = m
    patch = gray[y0:y0 + face.shape[0], x0:x0 + face.shape[1]].astype(np.float32)
    vals = patch[face > 0]
    if vals.size < 10:
        return None
    dark = pips[members[0]].dark
    sign = 1.0 if dark else -1.0
    level = float(np.median(vals))
    cores = []
    for k in members:
        p = pips[k]
        yy, xx = int(round(p.y - y0)), int(round(p.x - x0))
        rr = max(1, int(round(0.5 * p.r)))
        cores.append(float(np.median(patch[max(0, yy - rr):yy + rr + 1, max(0, xx - rr):xx + rr + 1])))
    pip_level = float(np.median(cores))
    contrast = sign * (level - pip_level)
    if contrast <= 0:
        return dict(contrast=contrast, marks=1.0, glare=1.0, even=0.0, level=level, pip=pip_level, inner=1.0,
                    value=fit.value, empty=1.0, soft=99.0)
    z = sign * (level - vals) / contrast
    zc = [sign * (level - c) / contrast for c in cores]
    marks = float(np.mean(z > SPOT_Z))
    inner = marks
    if marks > 0:
        zmap = np.zeros(face.shape, np.uint8)
        zmap[face > 0] = z > SPOT_Z
        n, lab = cv2.connectedComponents(zmap, connectivity=8)
        on_rim = np.unique(lab[(rim > 0) & (zmap > 0)])
        inner = float(np.count_nonzero(np.isin(lab, on_rim[on_rim > 0], invert=True) & (zmap > 0))) / vals.size
    # the free places of the 3x3 pip grid must be plain (a missed pip may touch the outline)
    empty = 0.0
    taken = [fit.to_face(pips[k].x, pips[k].y) for k in members]
    rr = max(1, int(round(0.5 * r_mean(pips, members))))
    for u in (-1, 0, 1):
        for v in (-1, 0, 1):
            if any(abs(u - tu) < 0.5 and abs(v - tv) < 0.5 for tu, tv in taken):
                continue
            x, y = fit.to_image(u, v)
            xx, yy = int(round(x - x0)), int(round(y - y0))
            core = patch[max(0, yy - rr):yy + rr + 1, max(0, xx - rr):xx + rr + 1]
            if core.size:
                empty = max(empty, sign * (level - float(np.median(core))) / contrast)
    soft = 0.0
    if fit.value == 1:  # how far the spot fades out: glare on a table fades slowly, a pip has an edge
        p = pips[members[0]]
        R = int(math.ceil(3 * p.r))
        x, y = int(round(p.x)), int(round(p.y))
        w = gray[max(0, y - R):y + R + 1, max(0, x - R):x + R + 1].astype(np.float32)
        yy, xx = np.mgrid[max(0, y - R) - y:min(gray.shape[0], y + R + 1) - y, max(0, x - R) - x:min(gray.shape[1], x + R + 1) - x]
        d = np.hypot(xx, yy)
        ring = w[(d > 2.2 * p.r) & (d <= 3 * p.r)]
        core = w[d <= 0.5 * p.r]
        if ring.size and core.size:
            lv, cv = float(np.median(ring)), float(np.median(core))
            zz = sign * (lv - w) / max(1.0, sign * (lv - cv))
            soft = np.count_nonzero((zz > 0.2) & (d <= 3 * p.r)) / max(1, np.count_nonzero((zz > 0.8) & (d <= 3 * p.r)))
    return dict(contrast=contrast, marks=marks, glare=float(np.mean(z < -SPOT_Z)), soft=float(soft),
                even=min(zc) / max(zc), level=level, pip=pip_level, inner=inner, value=fit.value, empty=empty)


def r_mean(pips: list[Pip], members: tuple[int, ...]) -> float:
    return float(np.mean([pips[k].r for k in members]))


def _good(f: dict | None) -> bool:
    if f is None:
        return False
    if f["soft"] > MAX_SOFT:
        return False
    rim = f["value"] >= RIM_MIN_VALUE
    if rim and f["empty"] > EMPTY_Z:
        return False
    return (f["contrast"] >= MIN_CONTRAST and (f["inner"] if rim else f["marks"]) <= MAX_MARKS
            and f["glare"] <= MAX_GLARE and f["even"] >= 0.5)


def _select(gray: np.ndarray, pips: list[Pip], one_min_r: float) -> list[Face]:
    """Verified faces, most pips first, no two on one die."""
    faces: list[Face] = []
    a_ref: float | None = None
    used: set[int] = set()
    doubt: set[int] = set()
    for _, _, fit, members in _proposals(pips):
        if used.intersection(members):
            continue
        if fit.value == 1 and a_ref is None and faces and faces[-1].value > 1:
            # the faces with more pips (all taken by now) give the dice's size: a one's plain disc is its face
            a_ref = float(np.median([f.a for f in faces]))
        r = float(np.mean([pips[k].r for k in members]))
        if fit.value == 1 and r < one_min_r:
            continue
        one_half = ONE_HALF * a_ref if a_ref else 0.0
        half = 1.75 * fit.a if fit.value > 1 else max(ONE_DISC * r, one_half)
        clash = [k for k, f in enumerate(faces)
                 if math.hypot(f.cx - fit.cx, f.cy - fit.cy)
                 < half + (1.75 * f.a if f.value > 1 else max(ONE_DISC * f.r, one_half)) * CLASH]
        if not _good(features(gray, fit, pips, members, a_ref)):
            continue
        if clash:  # another reading of that die fits as well: it is not one die's face, read neither
            doubt.update(clash)
            continue
        p = pips[members[0]]
        faces.append(Face(fit.value, fit.cx, fit.cy, fit.a, fit.angle, r, p.dark, fit.err, members, fit))
        used.update(members)
    faces = [f for k, f in enumerate(faces) if k not in doubt]
    # a face with a spare pip of its kind and size close by may be part of a bigger face: not read
    # (a five or six is part of none)
    taken = {k for f in faces for k in f.pips}
    return [f for f in faces
            if f.value > 4 or not any(pips[k].dark == f.dark and 0.6 * f.r < pips[k].r < f.r / 0.6
                       and math.hypot(pips[k].x - f.cx, pips[k].y - f.cy) < NEAR * (f.a if f.value > 1 else a_ref or 2.2 * f.r)
                       for k in range(len(pips)) if k not in taken)]


def _consistent(faces: list[Face]) -> list[Face]:
    """Dice in one view are about one size: drop twos and threes much smaller than the fours to sixes
    (or over twice their size), and ones with a pip under half the others' pip size."""
    big = [f.a for f in faces if f.value >= 4]
    multi = [f.r for f in faces if f.value > 1]
    ref_a = float(np.median(big)) if big else None
    ref_r = float(np.median(multi)) if multi else None
    out = []
    for f in faces:
        if f.value in (2, 3) and ref_a is not None and not (0.7 * ref_a <= f.a <= 2.0 * ref_a):
            continue
        if f.value == 1 and ref_r is not None and f.r < 0.5 * ref_r:
            continue
        out.append(f)
    return out
