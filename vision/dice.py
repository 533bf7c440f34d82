"""Dice from pips: group the pips into faces, split touching dice, verify each face.

A face is accepted only when (1) its pips fit a canonical 1-6 layout (with a known size, at
0.8 to `Limits.max_grown` times it: 1.25, or MEASURED_GROWN for a size measured on a
reference throw), (2) no
other pip of the same kind lies inside the face it implies (a 6 is never read
as a 4, two touching 2s never as a 4), and (3) the face between the pips is
plain: no crevice, edge or stray spot (the hat response there is low), (4) its
pips are alike in contrast (ALIKE), and with a known size a two's or three's pips are each round
(FEW_ROUND: a squashed spot is a side face's pip or a highlight on an edge), and (5) the caller's own look at it (`accept`:
the reader asks whether a die lies under it) passes. Larger faces come first, and
among faces of as many pips the better fit, counting the distance from the known
size. A group that fails is not read at all, and its pips stay for the next
candidate; the reader turns "pips here, but no valid face" into "unreadable".
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from typing import Callable

import cv2
import numpy as np

from vision.pips import Fit, Pip, fit_layout, single

# Geometry of a die face in units of `a` (centre to corner-pip offset).
FACE_HALF = 1.75  # half the face side
R_OVER_A = (0.12, 0.62)  # pip radius / a


@dataclass(frozen=True)
class Limits:
    """How far a pip group may be from a perfect, square, top-down layout."""

    max_err: float = 0.2  # max pip residual / a
    min_aniso: float = 0.55  # smaller / larger axis (a stretched photo, a 6 with close columns)
    a_hint: float | None = None  # known corner offset (calibrated), pixels
    max_grown: float = 1.25  # the largest a face may look over a_hint (MEASURED_GROWN when a_hint is measured)
    one_min_r: float | None = None  # smallest radius of a one's pip


@dataclass(frozen=True)
class Face:
    value: int
    cx: float
    cy: float
    a: float  # corner offset (pixels); for a one: estimated from the pip
    angle: float
    r: float  # mean pip radius
    dark: bool
    err: float
    pips: tuple[int, ...]  # indices into the pip list
    fit: Fit


@dataclass(frozen=True)
class Grouping:
    faces: tuple[Face, ...]
    leftover: tuple[int, ...]  # pips no valid face explains


ALIKE = 4.0  # one face's pips: the strongest at most this many times the faintest (in contrast)


def alike(c1: float, c2: float) -> bool:
    """Two pips' contrasts could be one face's: neither is ALIKE times the other. A faint speck
    (a felt fibre, a bevel's shading) beside a real pip is not its partner, and does not stop a
    lone pip from being a one."""
    return max(c1, c2) <= ALIKE * min(c1, c2)


def _inside(fit: Fit, x: float, y: float, half: float) -> bool:
    u, v = fit.to_face(x, y)
    return abs(u) < half and abs(v) < half


PLAIN_HALF = 1.35  # the plain check's square, in corner offsets from the centre (the face's edge is at
# 1.8; a rounded or bevelled edge catches the light a little inside it)
PLAIN_DISC = 1.65  # ... and within this many corner offsets of the centre (the square's corners reach 1.9)
#: ... for a face of light pips. Its map is the whiteness image's top-hat, in which a glossy black die's
#: top, shining grey against its dark bevel, is itself bright: where the flat top narrows into a corner
#: under the kernel's width (1.1 a, a square on the image's axes) the top-hat keeps the face's own tone.
#: With the face's diagonal along an image axis (a yaw near 45 degrees) that corner reaches to about
#: 1.6 corner offsets from the centre, and the plain check refused a flat black two and three whose
#: pips were all found (own seeds 3,000,564 and 3,000,765: 40-87 levels in the disc's last pixels
#: along the diagonal, 0.4 x the pips' 87 and 91 allowed at most 35 and 36).
PLAIN_DISC_LIGHT = 1.45
#: ... only for a face of a calibrated size up to this many times it: a face that looks bigger is
#: nearer the camera, the top of a cocked die (own seed 13,500,231, dev idx 60231: a cocked black die's
#: tilted three, 1.084, read as a flat three with the narrower disc, silent; the flat light faces it
#: read were 1.006-1.04)
PLAIN_LIGHT_GROWN = 1.06


def _plain(resp: np.ndarray, pips: list[Pip], members: list[int], fit: Fit, contrast: float,
           narrow: bool = False) -> bool:
    """The face between the pips shows no other spot or edge in the hat response. `narrow`: a face
    of light pips looked at within PLAIN_DISC_LIGHT (see there)."""
    h, w = resp.shape
    if fit.value == 1:  # yaw unknown: the disc that fits inside the face at any yaw
        rad = 1.3 * fit.a
        corners = [[fit.cx - rad, fit.cy - rad], [fit.cx + rad, fit.cy + rad]]
    else:
        corners = [fit.to_image(u * PLAIN_HALF, v * PLAIN_HALF) for u, v in ((-1, -1), (1, -1), (1, 1), (-1, 1))]
    corners = np.array(corners, np.float32).tolist()  # (the corners as float32, in plain Python)
    xs, ys = [c[0] for c in corners], [c[1] for c in corners]
    x0, y0 = math.floor(min(xs)), math.floor(min(ys))
    x1, y1 = math.ceil(max(xs)) + 1, math.ceil(max(ys)) + 1
    if x0 < 0 or y0 < 0 or x1 > w or y1 > h:
        return False  # face cut by the image edge: do not guess
    mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    if fit.value == 1:
        cv2.circle(mask, (int(round(fit.cx - x0)), int(round(fit.cy - y0))), int(round(1.3 * fit.a)), 1, -1)
    else:  # the square without its corners: a die's rounded corners catch the light there
        cv2.fillConvexPoly(mask, np.array([[round(x - x0), round(y - y0)] for x, y in corners], np.int32), 1)
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


def _percentile(vals: np.ndarray, q: float) -> float:
    """np.percentile(vals, q) (linear interpolation) by a partial sort: a tenth of its time."""
    n = vals.size
    idx = q / 100.0 * (n - 1)
    lo = int(idx)
    hi = min(lo + 1, n - 1)
    part = np.partition(vals.ravel(), (lo, hi))
    v0, v1 = float(part[lo]), float(part[hi])
    return v0 + (idx - lo) * (v1 - v0)


FEW_ROUND = 0.6  # with a known size, the least elongation of a two's or three's pips (flat ones: 0.67 and up,
# 1% under 0.74, on 600 own-seed scenes, seeds 3,000,000 up; a glossy three's corner pip by its bevel 0.64,
# own seed 5,000,472; the spots that made false twos with a one-pip 0.53 and 0.58)


#: the largest a face may look over a calibrated size measured on a reference throw: a die on the
#: rim looks up to ~11% bigger (a tilted face smaller), and two pips farther apart are two dice's (a
#: one-pip with a touching die's pip, or with a light patch of a white die's face beside it). On
#: 600 own-seed scenes (seeds 3,000,000 up, 400 of them cocked) 1.15 instead of 1.25 left three
#: fewer cocked scenes read as ok (3,000,092, 3,000,473, 3,000,518) and read as many clean ones.
#: A size only estimated from the frame (calibration measuring its reference throw, a profile
#: without one) keeps Limits' 1.25: on bench case 562 the cap made calibration measure small
#: dice 27% too small.
MEASURED_GROWN = 1.15


def _valid(fit: Fit | None, pips: list[Pip], members: list[int], lim: Limits) -> bool:
    if fit is None or fit.err > lim.max_err or fit.aniso < lim.min_aniso:
        return False
    if lim.a_hint and fit.value > 1 and not (0.8 * lim.a_hint < fit.a < lim.max_grown * lim.a_hint):
        return False
    rs = [pips[k].r for k in members]
    if max(rs) > 1.6 * min(rs):
        return False
    if fit.value > 1:
        ratio = sum(rs) / len(rs) / fit.a  # (np.mean's value for up to six numbers)
        if not (R_OVER_A[0] <= ratio <= R_OVER_A[1]):
            return False
    return True


def _one_reach(r: float, r_other: float, lim: Limits) -> float:
    """How far from a lone pip another pip makes it "part of a bigger face" rather than a one."""
    return 2.1 * lim.a_hint if lim.a_hint else 11.0 * min(r, r_other)


def _verify(fit: Fit, members: list[int], pips: list[Pip], resp: np.ndarray, lim: Limits,
            arr: tuple[np.ndarray, ...] | None = None, memo: dict | None = None,
            pips_ok: bool | None = None) -> Face | None:
    """The face `fit` of pips `members`, checked (see the module docstring); None when it fails.
    `arr`: the pips' x, y, r, dark and contrast as arrays (group makes them once); `pips_ok`: what
    the checks against the other pips give (_pip_checks, for all candidates at once), when known."""
    p = pips[members[0]]
    r = sum(pips[k].r for k in members) / len(members)
    if fit.value == 1:
        if lim.one_min_r is not None and r < lim.one_min_r:
            return None
        fit = single(fit.cx, fit.cy, lim.a_hint if lim.a_hint else 2.2 * r)
    if pips_ok is None:
        pips_ok = _pip_checks([(fit, members)], pips, arr if arr is not None else _arrays(pips), lim)[0]
    if not pips_ok:
        return None
    if lim.a_hint and fit.value in (2, 3) and min(pips[k].elong for k in members) < FEW_ROUND:
        return None  # a two's or three's pips lie apart, each seen round: a squashed spot (a side
        # face's pip, a highlight on a die's edge) paired with a one-pip makes no two
    cs = [pips[k].contrast for k in members]
    if not alike(min(cs), max(cs)):
        return None  # one face's pips are about alike: not a pip paired with a faint speck
    contrast = statistics.median(cs)
    narrow = not p.dark and bool(lim.a_hint) and fit.a <= PLAIN_LIGHT_GROWN * lim.a_hint
    key = ("plain", tuple(members), fit, contrast, narrow)
    plain = memo.get(key) if memo is not None else None
    if plain is None:
        plain = _plain(resp, pips, members, fit, contrast, narrow)
        if memo is not None:
            memo[key] = plain
    if not plain:
        return None
    return Face(fit.value, fit.cx, fit.cy, fit.a, fit.angle, r, p.dark, fit.err, tuple(members), fit)


def _pip_checks(cands: list[tuple[Fit, tuple[int, ...] | list[int]]], pips: list[Pip], arr: tuple[np.ndarray, ...],
                lim: Limits) -> list[bool]:
    """For each candidate face (fit, members): no pip of its kind and alike in contrast (with its first
    pip) lies on it, other than its own (Fit.to_face within 1.45), and, for a one, none lies within
    reach; all candidates against all pips at once (a one's fit is the single one _verify makes)."""
    if not cands:
        return []
    X, Y, R, D, C = arr
    first = [m[0] for _, m in cands]
    # (a lone pip's mean radius is its own; a one's map is single()'s, (a, 0, 0, a): no Fit made for it)
    rs = [pips[m[0]].r if len(m) == 1 else sum(pips[k].r for k in m) / len(m) for _, m in cands]
    maps = [f.A if f.value != 1 else (a, 0.0, 0.0, a) for (f, _), a in
            zip(cands, [lim.a_hint if lim.a_hint else 2.2 * r for r in rs])]
    A = np.array(maps)
    a00, a01, a10, a11 = (A[:, i:i + 1] for i in range(4))
    det = a00 * a11 - a01 * a10
    dx = X[None, :] - np.array([f.cx for f, _ in cands])[:, None]
    dy = Y[None, :] - np.array([f.cy for f, _ in cands])[:, None]
    pd, pc = D[first][:, None], C[first][:, None]
    like = (D[None, :] == pd) & (np.maximum(C[None, :], pc) <= ALIKE * np.minimum(C[None, :], pc))
    rows = [i for i, (_, m) in enumerate(cands) for _ in m]
    own = np.zeros(like.shape, bool)
    own[rows, [k for _, m in cands for k in m]] = True
    on = like & ~own & (np.abs((a11 * dx - a01 * dy) / det) < 1.45) & (np.abs((-a10 * dx + a00 * dy) / det) < 1.45)
    ok = (~on.any(axis=1)).tolist()
    ones = [i for i, (f, _) in enumerate(cands) if f.value == 1 and ok[i]]
    if ones:
        # a lone pip with others near it is a face whose other pips did not group: every one against
        # every pip at once (np.hypot is math.hypot; the reach is _one_reach's)
        r1 = np.array([rs[i] for i in ones])[:, None]
        f1 = [first[i] for i in ones]
        reach = 2.1 * lim.a_hint if lim.a_hint else 11.0 * np.minimum(r1, R[None, :])
        near = (like[ones] & ~own[ones] & (R[None, :] > 0.6 * r1)
                & (np.hypot(X[None, :] - X[f1][:, None], Y[None, :] - Y[f1][:, None]) < reach))
        for i, crowded in zip(ones, near.any(axis=1).tolist()):
            if crowded:
                ok[i] = False
    return ok


def _arrays(pips: list[Pip]) -> tuple[np.ndarray, ...]:
    """The pips' x, y, r, dark and contrast, each as an array."""
    return (np.array([p.x for p in pips], np.float64), np.array([p.y for p in pips], np.float64),
            np.array([p.r for p in pips], np.float64), np.array([p.dark for p in pips], bool),
            np.array([p.contrast for p in pips], np.float64))


def _options(pips: list[Pip], xy: np.ndarray, lim: Limits, memo: dict | None = None) -> list[tuple[int, float, Fit, tuple[int, ...]]]:
    """Candidate faces, best first: (-pips, err, fit, members).

    Every layout's farthest pair is a diagonal and every other pip of the face
    lies inside the circle on that diagonal, so each pair of like pips at a
    plausible distance proposes one candidate: the pips inside that circle.
    Single pips are candidate ones.
    """
    n = len(pips)
    out: list[tuple[int, float, Fit, tuple[int, ...]]] = []
    if n == 0:
        return out
    r = np.array([p.r for p in pips])
    dark = np.array([p.dark for p in pips])
    c = np.array([p.contrast for p in pips])
    d = np.hypot(xy[:, None, 0] - xy[None, :, 0], xy[:, None, 1] - xy[None, :, 1])
    rmax, rmin = np.maximum(r[:, None], r[None, :]), np.minimum(r[:, None], r[None, :])
    ok = (dark[:, None] == dark[None, :]) & (rmax < 1.6 * rmin) & (np.maximum(c[:, None], c[None, :]) <= ALIKE * np.minimum(c[:, None], c[None, :]))
    if lim.a_hint:  # every layout's farthest pair is a diagonal, 2.83 a
        ok &= (d > 2.1 * lim.a_hint) & (d < 3.5 * lim.a_hint)
    else:
        ok &= (d > 3.5 * rmax) & (d < 11.0 * rmin)
    seen: set[tuple[int, ...]] = set()
    I, J = np.nonzero(np.triu(ok, 1))
    if len(I):
        # every pair's circle at once: the pips of its kind, and of a contrast alike with the pair's, inside it
        m = (xy[I] + xy[J]) / 2
        rad = d[I, J] / 2 * 1.12
        lo = np.maximum(c[I], c[J]) / ALIKE
        hi = np.minimum(c[I], c[J]) * ALIKE
        inside = ((np.hypot(xy[None, :, 0] - m[:, :1], xy[None, :, 1] - m[:, 1:]) < rad[:, None])
                  & (dark[None, :] == dark[I][:, None]) & (c[None, :] >= lo[:, None]) & (c[None, :] <= hi[:, None]))
        rs = r.tolist()
        rows, cols = np.nonzero(inside)
        ends = np.searchsorted(rows, np.arange(1, len(I) + 1)).tolist()
        cols = cols.tolist()
        for q, (i, j) in enumerate(zip(I.tolist(), J.tolist())):
            members = tuple(sorted(set(cols[ends[q - 1] if q else 0:ends[q]]) | {i, j}))
            if len(members) > 6 or members in seen:
                continue
            seen.add(members)
            mr = [rs[k] for k in members]
            if max(mr) > 1.6 * min(mr):
                continue  # _valid would refuse it whatever the fit
            if memo is not None and ("fit", members) in memo:
                fit = memo["fit", members]
            else:
                fit = fit_layout(xy[list(members)])
                if memo is not None:
                    memo["fit", members] = fit
            if _valid(fit, pips, list(members), lim):
                # with a known size, how far the face is from it counts too: two pips always fit a two
                # exactly, and of two pairings that share a pip the one of the right size is the die's
                dev = abs(fit.a / lim.a_hint - 1.0) if lim.a_hint else 0.0
                out.append((-len(members), fit.err + dev, fit, members))
    for k in range(n):
        out.append((-1, 0.0, single(float(xy[k, 0]), float(xy[k, 1]), 1.0), (k,)))
    out.sort(key=lambda o: (o[0], o[1]))
    return out


def group(pips: list[Pip], hat_dark: np.ndarray, hat_light: np.ndarray, lim: Limits = Limits(),
          accept: Callable[[Face], bool] | None = None, memo: dict | None = None) -> Grouping:
    """Partition the pips into verified faces: the largest, best-fitting layouts first. `accept`: the
    caller's own look at a face (is there a die under it?) before it is taken; a face it refuses
    leaves its pips to the next candidate. `memo`: a dict the caller keeps between groupings of the
    same pips (a later list may add pips at the end; the same maps, limits and `accept`): the fits,
    plain-face checks and `accept`'s answers made already are taken from it."""
    xy = np.array([[p.x, p.y] for p in pips]) if pips else np.zeros((0, 2))
    faces: list[Face] = []
    used: set[int] = set()
    arr = _arrays(pips)
    options = _options(pips, xy, lim, memo)
    pips_ok = _pip_checks([(fit, members) for _, _, fit, members in options], pips, arr, lim)
    for (_, _, fit, members), ok_here in zip(options, pips_ok):
        if used.intersection(members):
            continue
        face = _verify(fit, list(members), pips, hat_dark if pips[members[0]].dark else hat_light, lim, arr, memo,
                       ok_here)
        if face is None:
            continue
        if accept is not None and memo is not None:
            if ("accept", face) not in memo:
                memo["accept", face] = accept(face)
            ok = memo["accept", face]
        else:
            ok = accept is None or accept(face)
        if ok:
            faces.append(face)
            used.update(members)
    leftover = tuple(k for k in range(len(pips)) if k not in used)
    # a face with an unexplained pip of its kind close by may be part of a bigger face: drop it
    kept = []
    for f in faces:
        if f.value == 6 and lim.a_hint:
            kept.append(f)  # no bigger face
            continue
        # with a known size a pip of the same face lies within 1.42 a of its centre; farther ones
        # belong to a side face (perspective) or a neighbour
        reach = _one_reach(f.r, f.r, lim) if f.value == 1 else (1.6 if lim.a_hint else 2.3) * f.a
        fc = statistics.median(pips[j].contrast for j in f.pips)
        if any(pips[k].dark == f.dark and pips[k].r > 0.4 * f.r and alike(pips[k].contrast, fc)
               and math.hypot(pips[k].x - f.cx, pips[k].y - f.cy) < reach for k in leftover):
            continue
        kept.append(f)
    leftover = tuple(k for k in range(len(pips)) if not any(k in f.pips for f in kept))
    return Grouping(tuple(kept), leftover)
