"""Is a die lying flat or cocked? A learned look at the die, normalised for the camera's geometry.

`cocked_scores(frame, centers, die_px, nadir, angles, floor=...)` gives each die (found by the
reader from its pips: the top face's centre and, for 2-6, its yaw; the calibration's tray floor)
a probability that it is cocked; the reader calls a die cocked when
`cocked_reason(score, value, grown, fine, square)` gives a reason: the
score is >= THRESHOLD (or a lower cut for some faces, BY_VALUE), or a two's or three's face is
shrunk; each of the last two is checked by a look at the frame's own resolution (SHRUNK_FINE_FLAT,
TWO_SQUARE_FLAT).

How: every die is cut out of the frame as a small grey patch (PATCH x PATCH pixels, the die's top
face DIE pixels wide: shrunk by a whole factor by area averaging, then turned and scaled by one
affine warp), turned so the face's edges run along the patch axes and the direction to the
camera's nadir points (within 45 degrees) down the patch. A flat die then always looks the same:
a square with, below it, the perspective sliver of the side facing the nadir, as wide as its
distance from the nadir allows; a cocked die shows a side face elsewhere (or no sliver where one
belongs), a foreshortened or displaced top face, a larger silhouette. Features: signed
gradient-orientation histograms per quarter-die cell (HOG-like, locally contrast-normalised), a
coarse contrast-normalised thumbnail, full-resolution grey profiles through the middle (down and
across: where the top face ends, how wide a side face shows), the geometry (distance from the
nadir in die sides, the angle left to it, whether the yaw came from the pips), the die's
neighbour map: on the thumbnail's grid, where the other dice the reader found lie in the patch
(discs around their top faces' centres), and its floor map: on the same grid, how much of each
cell lies off the tray floor (the calibration's polygon). A flat die touching another shows that
die's edges where a cocked die shows its own side face; without the neighbour map the model called
such flat twos and fours cocked (then the largest kind of clean scene refused). A flat die against
the wall shows the wall's edge and shadow there; without the floor map the model called such dice
cocked now and then (the 5 of the validation's 10,428 flat dice it called cocked all lay within
1.2 die sides of the floor's edge, as 73% of its cocked dice do), with it it knows where the wall is. Without a
yaw (a one) the patch's own 4-fold gradient orientation gives it. An average of six
one-hidden-layer networks of 64 tanh units (numpy, weights in tilt_model.npz next to this file,
the first layer's as float16, ~860 KB) turns them into a probability. Trained on vision.synthetic
renders (with extra ones of the hardest kind: a die leaning towards the nadir, whose sliver of
side face there disappears, and patches centred on the upturned side face of a cocked die; flat
dice with another die within 1.4 die sides weigh twice; the floor given shifted by 3% of a die,
as the calibration's is off by that much) by `python -m vision.train_tilt`, which also measures
it on held-out renders (`--evaluate`: of 700 scenes' dice, 2 of 3953 flat ones called cocked,
4 of 477 cocked ones missed, 0 of 370 upturned side faces of cocked dice (the reader now and then
reads one as a flat die) scored under THRESHOLD (the model before, without the floor map: 1, 5
and 1); of its ones, 0 of 620 flat called cocked, 1 of 73 cocked missed; ~0.2 ms a die).

The angle convention is the reader's (vision.pips.Fit.angle): image coordinates, x right, y down,
radians, the direction of one of the face's edges (only its value modulo 90 degrees matters).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Callable, Sequence

import cv2
import numpy as np

from vision import tray

MODEL_PATH = Path(__file__).with_name("tilt_model.npz")
FEATURE_VERSION = 6
DIE = 20.0  # top face side in patch pixels
PATCH = 50  # patch side (2.5 die sides)
CELL = 5  # HOG cell (a quarter die)
BINS = 8  # signed orientation bins (which side of an edge is brighter tells top face from side face)
SIGNED = True
THUMB = 10  # thumbnail side
STRIP = 8  # half width of the profiles' strip
NEAR_R = 0.6  # the other dice marked in a die's neighbour map: discs of this radius (in die sides)
NEAR_SKIP = 0.3  # another centre this close (in die sides) is the same die, not a neighbour

#: the operating point: a die is cocked when its score is >= THRESHOLD. Chosen by train_tilt on
#: validation renders (at most 1 flat die in 2000 over it); stored with the model too.
THRESHOLD = 0.41906

#: faces where the one THRESHOLD serves badly: the score from which the reader calls a die that
#: read as this face cocked. For this model (the one with the floor map) only twos, as for the
#: models before: a cocked die read as a two (a steep face's diagonal pips, an upturned side face)
#: can score low. Chosen on the reader's faces of 4,353 own scenes (the clean and cocked scenes of
#: seeds 22,000,000 up 2,000, 24,000,000 up 600, 27,000,000 up 800 and 28,000,000 up 800 of the
#: bench's mix, 25,000,000 up 600 cocked and 25,100,000 up 600 clean; captured once, replayed
#: exactly under other cuts, and the scenes a cut changed read again by the reader, whose
#: TWO_SQUARE_FLAT the replay leaves out): with no cut 2897 of 2910 clean and 1437 of 1443 cocked
#: scenes read right; with the twos' cut of 0.15 the reader refuses one clean scene more (27,000,455,
#: a flat two at 0.25 with no square top; the square top frees the three others the cut would
#: refuse: 0.15, 0.31, 0.34) and catches one cocked scene more (27,000,362, a two at 0.18, else a
#: silent wrong): a reroll for a wrong score, as the cut was kept before. A ones' cut of 0.6 (the
#: previous model's) caught one cocked scene fewer; fives' cuts of 0.15 or 0.25 nothing more. The
#: previous model also needed those because it scored cocked ones low (three cocked ones read flat
#: at 0.36-0.42, which this model scores 0.45, 0.94 and 0.94).
BY_VALUE = {2: 0.15}
#: a two or a three (its pips on a diagonal, so the reader's anisotropy check cannot see a tilted
#: face) whose pips sit closer than this share of a flat die's spacing (the reader's `f.a / a`) is
#: foreshortened: a tilted top face, or often the steep side face of a cocked die read in its place,
#: which the model, centred there, takes for a flat die. On ~2,200 flat twos and as many threes read
#: by vision.reader (renders of seeds 4,000,000 up) flat threes read at 0.947 or more and flat twos
#: at 0.917 or more but for five at 0.81-0.90 (three called cocked by their score anyway, one read
#: as off the tray, one a one misread as a two); cocked ones mostly at 0.80-0.94. With this model
#: (the model of then, which called the flat twos at 0.917-0.918 cocked by their score anyway) the twos' cut is 0.92:
#: on 3,600 scenes (seeds 4,000,000 up and 7,000,000 up) the lowest flat two it scores under its
#: cut reads at 0.928, and the cut catches 2 more cocked scenes (twos at 0.902 and 0.91).
#: Checked on 600 fresh reader scenes (seeds 8,000,000 up) against the previous model and cuts:
#: 2 of 300 cocked scenes read ok (was 5; two of the three caught are twos read at 0.919), and in
#: 300 clean scenes 1 correctly read flat die called cocked (a four scored 0.43; was 1 too).
SHRUNK = {2: 0.92, 3: 0.94}
#: ... unless the face's pips measured at the frame's own resolution (the reader's fine_spacing,
#: against the other dice of its pip kind) stand at least this share of the others' spacing: the
#: working copy's spacing against the calibrated size misses by a few per cent both ways (own seeds
#: 27,000,162 and 27,000,627: a flat two and a flat three read at 0.917 and 0.925, scored 0.000,
#: measure 0.997 and 0.994 at full resolution). On the reader's faces of 4,600 own scenes (the
#: clean and cocked ones of seeds 22,000,000 up 2,000, 24,000,000 up 600 and 27,000,000 up 800 of
#: the bench's mix, and 25,000,000 up 600 cocked and 25,100,000 up 600 clean) the 22 cocked dice
#: under SHRUNK that nothing else catches measure 0.82-0.963, and the only flat dice SHRUNK alone
#: called cocked were those two. (This measure alone cannot free flat twos from the twos' score cut, BY_VALUE:
#: cocked twos scored 0.15-0.48 there measure up to 1.2, as high as flat ones; with a flat square top
#: around the two it can: TWO_SQUARE_FLAT.)
SHRUNK_FINE_FLAT = 0.985
#: the faces whose cut (BY_VALUE) lies under THRESHOLD that a flat square top frees from it: a two
#: scored BY_VALUE[2] to THRESHOLD is flat when the reader finds a flat square top of a die's size
#: around its middle (its _square_top: the face's even tone ends where a square of the flat top's
#: size ends, along 12 of 16 rays) and its pips measure SHRUNK_FINE_FLAT or more of the other dice's
#: spacing at full resolution (fine_spacing). On the reader's faces of 4,200 own scenes (clean and
#: cocked: seeds 22,000,000 up 2,000, 24,000,000 up 600, 25,000,000 up 600 cocked, 25,100,000 up 600
#: clean, 27,000,000 up 800, 28,000,000 up 800) 26 twos scored in that band. None of the 21 cocked
#: ones (mostly an upturned side face, or a steep top, read as a two) shows the square top, nor a
#: flat one misread as a two (25,000,431); of the 4 flat twos, 2 do (22,001,900 and 25,100,358:
#: scored 0.16 and 0.41, measuring 0.994 and 0.999; 28,000,230 and 28,000,737, a blue die showing
#: its side face and a glossy black one, do not).
#: (Fives: the one flat five seen over its cut, 24,000,431, scored over THRESHOLD.) Those figures are
#: the previous model's; with this one (the same twos' cut) it frees 3 flat twos the cut would refuse
#: on those scenes and no cocked one (see BY_VALUE).
TWO_SQUARE_FLAT = (2,)

_model: dict | None = None


def _load() -> dict:
    global _model
    if _model is None:
        _model = load_model(MODEL_PATH)
    return _model


def load_model(path: str | Path) -> dict:
    with np.load(str(path)) as z:
        m = {k: (z[k].astype(np.float32) if z[k].dtype == np.float16 else z[k]) for k in z.files}  # W1 is kept as float16
    if int(m.get("version", -1)) != FEATURE_VERSION:
        raise ValueError(f"{path}: tilt model for feature version {m.get('version')}, this code has {FEATURE_VERSION}")
    return m


def cocked_scores(frame_bgr: np.ndarray, centers: Sequence[tuple[float, float]], die_px: float,
                  nadir: tuple[float, float] | None = None,
                  angles: Sequence[float | None] | None = None,
                  others: Sequence[Sequence[tuple[float, float]]] | None = None,
                  floor: Sequence[tuple[float, float]] | None = None) -> np.ndarray:
    """One probability (0..1) per die that it is cocked; (0,) for no dice.

    frame_bgr: the frame (BGR or grey); centers: each die's top-face centre in frame pixels;
    die_px: a flat die's top-face side in frame pixels (calibration); nadir: the point straight
    below the camera (default: the frame centre); angles: each top face's edge direction in
    radians (image coordinates; None when unknown, e.g. for a one); others: per die, the top-face
    centres of the other dice around it (default: the other dice of `centers`), marked in the
    die's neighbour map so that a neighbour's edges are not taken for the die's own side face;
    floor: the tray floor's polygon in frame pixels (the calibration's), marked in the die's floor
    map so that the tray's wall is not taken for its side face (None: no tray known, no wall)."""
    if len(centers) == 0:
        return np.zeros(0, np.float64)
    X = features(frame_bgr, centers, die_px, nadir, angles, others, floor)
    return predict(_load(), X).astype(np.float64)


def threshold_for(value: int | None) -> float:
    """The score from which a die read as `value` is cocked (THRESHOLD unless BY_VALUE says)."""
    return BY_VALUE.get(value, THRESHOLD) if value is not None else THRESHOLD


def cocked_reason(score: float, value: int | None, grown: float | None = None,
                  fine: Callable[[], float | None] | None = None,
                  square: Callable[[], bool] | None = None) -> str:
    """Why a die is cocked ("" when it lies flat, as far as this can tell): its score (from
    cocked_scores) at least threshold_for(value), or, for a two or a three, its face shrunk
    (grown: the face's pip spacing over a flat die's, None when unknown) under SHRUNK, unless
    `fine` (asked only then: the same spacing measured at the frame's own resolution, the
    reader's fine_spacing; None when it cannot measure) says it is not: SHRUNK_FINE_FLAT or more.
    A two the twos' cut alone calls cocked (its score under THRESHOLD) is flat when `square` (the
    reader's look for a flat square top of a die's size around its middle) says so and `fine`
    measures it SHRUNK_FINE_FLAT or more (TWO_SQUARE_FLAT; each asked only then)."""
    if score >= threshold_for(value):
        if not (value in TWO_SQUARE_FLAT and score < THRESHOLD and square is not None and fine is not None
                and square() and (q := fine()) is not None and q >= SHRUNK_FINE_FLAT):
            return f"tilt {score:.2f}"
    if grown is not None and value in SHRUNK and grown < SHRUNK[value]:
        q = fine() if fine is not None else None
        if q is None or q < SHRUNK_FINE_FLAT:
            return f"shrunk {grown:.2f}"
    return ""


def predict(model: dict, X: np.ndarray) -> np.ndarray:
    """Probabilities from feature rows: the mean of the model's networks (W1 (E, f, h) or (f, h))."""
    Z = ((X - model["mu"]) / model["sd"]).astype(np.float32)
    W1, b1, W2, b2 = (np.asarray(model[k]) for k in ("W1", "b1", "W2", "b2"))
    if W1.ndim == 2:
        W1, b1, W2, b2 = W1[None], b1[None], W2[None], np.reshape(b2, (1,))
    p = np.zeros(len(Z), np.float64)
    for k in range(len(W1)):
        z = np.tanh(Z @ W1[k] + b1[k]) @ W2[k] + b2[k]
        p += 1.0 / (1.0 + np.exp(-np.clip(z, -40, 40)))
    return p / len(W1)


# --------------------------------------------------------------------------- patches
def grey(frame: np.ndarray) -> np.ndarray:
    """A frame's grey image (itself when it is grey already)."""
    if frame.ndim == 2:
        return frame
    return cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)


def _yaw_from_patch(g: np.ndarray, cx: float, cy: float, die_px: float) -> float:
    """The dominant edge direction (mod 90 degrees) around (cx, cy) of a grey image where the die's
    face is die_px wide, from 4-fold gradient moments (weighted by |gradient|^2)."""
    r = int(math.ceil(0.75 * die_px))
    x0, y0 = int(round(cx)) - r, int(round(cy)) - r
    h, w = g.shape
    xa, ya, xb, yb = max(0, x0), max(0, y0), min(w, x0 + 2 * r + 1), min(h, y0 + 2 * r + 1)
    if xb - xa < 5 or yb - ya < 5:
        return 0.0
    crop = g[ya:yb, xa:xb].astype(np.float32)
    gx = cv2.Sobel(crop, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(crop, cv2.CV_32F, 0, 1, ksize=3)
    a = gx * gx - gy * gy  # (gx + i gy)^2 = a + i b; its square holds 4 x the gradient angle
    b = 2.0 * gx * gy
    w = 1.0 / np.sqrt(a * a + b * b + 1e-6)  # weight the unit 4-fold vectors by |gradient|^2
    return float(math.atan2(float(np.sum(2.0 * a * b * w)), float(np.sum((a * a - b * b) * w)))) / 4.0


def patches(frame_bgr: np.ndarray, centers: Sequence[tuple[float, float]], die_px: float,
            nadir: tuple[float, float] | None = None,
            angles: Sequence[float | None] | None = None,
            others: Sequence[Sequence[tuple[float, float]]] | None = None,
            floor: Sequence[tuple[float, float]] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(n, PATCH, PATCH) float32 grey patches and (n, 4 + 2 * THUMB * THUMB) geometry: distance to the
    nadir in die sides, cos and sin of the angle left between the nadir direction and patch-down,
    yaw given; then the die's neighbour map: on the thumbnail's grid, how much of each cell the
    other dice's top faces (discs of NEAR_R die sides around `others[i]`, by default the other
    entries of `centers`) cover, in the patch's own turned frame; then its floor map: how much of
    each cell lies off the tray floor `floor` (a polygon in frame pixels; None: all of it on it)."""
    h, w = frame_bgr.shape[:2]
    if nadir is None:
        nadir = ((w - 1) / 2.0, (h - 1) / 2.0)
    n = len(centers)
    out = np.empty((n, PATCH, PATCH), np.float32)
    geo = np.zeros((n, 4 + 2 * THUMB * THUMB), np.float32)
    turn = np.zeros(n, np.float64)  # each patch's turn (theta below)
    if others is None:
        skip = (NEAR_SKIP * die_px) ** 2
        others = [[c for c in centers if (c[0] - x) ** 2 + (c[1] - y) ** 2 > skip] for x, y in centers]
    k = die_px / DIE  # frame pixels per patch pixel
    m = max(1, int(round(k)))  # shrink by this whole factor first (area averaging: anti-aliased, fast)
    r = int(math.ceil(0.75 * PATCH * k)) + 2  # crop radius in frame pixels (covers the turned patch)
    side = m * int(math.ceil((2 * r + 1) / m))
    small = side // m
    f = 1.0 / m  # crop pixels -> shrunk crop pixels
    o = (PATCH - 1) / 2.0
    for i, (cx, cy) in enumerate(centers):
        x0, y0 = int(math.floor(cx)) - r, int(math.floor(cy)) - r
        xa, ya, xb, yb = max(0, x0), max(0, y0), min(w, x0 + side), min(h, y0 + side)
        if xb - xa < 2 or yb - ya < 2:  # (almost) wholly off the frame
            out[i] = 0.0
            geo[i, :4] = (0.0, 1.0, 0.0, 0.0)
            continue
        crop = grey(frame_bgr[ya:yb, xa:xb])
        if xa > x0 or ya > y0 or xb < x0 + side or yb < y0 + side:  # past the frame's edge: replicate
            crop = cv2.copyMakeBorder(crop, ya - y0, y0 + side - yb, xa - x0, x0 + side - xb, cv2.BORDER_REPLICATE)
        if m > 1:  # shrink by area first, then turn (and scale by 0.75-1.5) into the patch
            crop = cv2.resize(crop, (small, small), interpolation=cv2.INTER_AREA)
        lx, ly = (cx - x0 + 0.5) * f - 0.5, (cy - y0 + 0.5) * f - 0.5  # die centre in crop pixels
        a = angles[i] if angles is not None and i < len(angles) else None
        given = a is not None and math.isfinite(a)
        if not given:
            a = _yaw_from_patch(crop, lx, ly, DIE * (small / side) * k)
        phi = math.atan2(nadir[1] - cy, nadir[0] - cx)
        dist = math.hypot(nadir[0] - cx, nadir[1] - cy) / die_px
        # theta: the edge direction (a + j * 90 deg) that maps to patch-x with the nadir nearest patch-down
        j = round((phi - math.pi / 2 - a) / (math.pi / 2))
        theta = a + j * math.pi / 2
        res = math.remainder(phi - theta - math.pi / 2, 2 * math.pi)
        z = 1.0 / (k * f)  # shrunk crop pixels -> patch pixels
        c, s = math.cos(theta) * z, math.sin(theta) * z
        M = np.array([[c, s, o - c * lx - s * ly], [-s, c, o + s * lx - c * ly]], np.float64)
        out[i] = cv2.warpAffine(crop, M, (PATCH, PATCH), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        geo[i, :4] = (dist, math.cos(res), math.sin(res), 1.0 if given else 0.0)
        turn[i] = theta
    geo[:, 4:4 + THUMB * THUMB] = _near_maps(centers, others, turn, k)
    if floor is not None and len(floor) >= 3:
        geo[:, 4 + THUMB * THUMB:] = _floor_maps(centers, turn, k, floor)
    return out, geo


_GRID = (np.arange(THUMB, dtype=np.float32) + 0.5) * (PATCH / THUMB) - 0.5  # thumbnail cell centres (patch px)


def _near_maps(centers: Sequence[tuple[float, float]], others: Sequence[Sequence[tuple[float, float]]],
               turn: np.ndarray, k: float) -> np.ndarray:
    """(n, THUMB * THUMB) neighbour maps (row-major) of dice at `centers` whose patches are turned
    by `turn` at k frame pixels per patch pixel: per thumbnail cell, the largest cover (0..1, with
    a soft edge one cell wide) by a disc of NEAR_R die sides around any of the die's `others`."""
    n = len(centers)
    out = np.zeros((n, THUMB * THUMB), np.float32)
    owner = np.repeat(np.arange(n), [len(o) for o in others])
    if len(owner) == 0:
        return out
    pts = np.asarray([p for o in others for p in o], np.float64).reshape(-1, 2)
    d = pts - np.asarray(centers, np.float64).reshape(-1, 2)[owner]
    c, s = np.cos(turn[owner]) / k, np.sin(turn[owner]) / k
    o = (PATCH - 1) / 2.0
    px = (o + c * d[:, 0] + s * d[:, 1]).astype(np.float32)
    py = (o - s * d[:, 0] + c * d[:, 1]).astype(np.float32)
    near = (np.abs(px - o) < PATCH) & (np.abs(py - o) < PATCH)  # (others farther away cover no cell)
    if not near.any():
        return out
    owner, px, py = owner[near], px[near], py[near]
    dist = np.sqrt((_GRID[None, :, None] - py[:, None, None]) ** 2 + (_GRID[None, None, :] - px[:, None, None]) ** 2)
    cell = PATCH / THUMB
    cover = np.clip((NEAR_R * DIE + 0.5 * cell - dist) / cell, 0.0, 1.0).reshape(len(owner), -1)
    np.maximum.at(out, owner, cover)
    return out


def _floor_maps(centers: Sequence[tuple[float, float]], turn: np.ndarray, k: float,
                floor: Sequence[tuple[float, float]]) -> np.ndarray:
    """(n, THUMB * THUMB) floor maps (row-major) of dice at `centers` whose patches are turned by
    `turn` at k frame pixels per patch pixel: per thumbnail cell, how much of it lies off the
    polygon `floor` (0 well inside, 1 well outside, a soft edge one cell wide, by the cell
    centre's signed distance to the polygon's boundary). A die whose whole patch lies well inside
    (most of them) is not looked at cell by cell."""
    n = len(centers)
    out = np.zeros((n, THUMB * THUMB), np.float32)
    V = np.asarray(floor, np.float64).reshape(-1, 2)
    cen = np.asarray(centers, np.float64).reshape(-1, 2)
    reach = k * (PATCH / 2.0) * math.sqrt(2.0) + k * PATCH / THUMB  # the patch's corner, and a cell
    near = tray.distances(V, cen[:, 0], cen[:, 1]) < reach
    if not near.any():
        return out
    o = (PATCH - 1) / 2.0
    u = np.tile(_GRID - o, THUMB).astype(np.float64)  # cell centres, row-major: x varies fastest
    v = np.repeat(_GRID - o, THUMB).astype(np.float64)
    c, s = np.cos(turn[near])[:, None], np.sin(turn[near])[:, None]
    px = (cen[near, :1] + k * (c * u - s * v)).ravel()  # the cells' centres in frame pixels
    py = (cen[near, 1:] + k * (s * u + c * v)).ravel()
    sd = tray.distances(V, px, py) / (k * PATCH / THUMB)  # in cells, positive on the floor
    out[near] = np.clip(0.5 - sd, 0.0, 1.0).reshape(-1, THUMB * THUMB)
    return out


def mirror(P: np.ndarray, geo: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The same dice seen in a mirror (patch x flipped): physically valid, for training."""
    g = geo.copy()
    g[:, 2] = -g[:, 2]
    g[:, 4:] = geo[:, 4:].reshape(len(geo), -1, THUMB, THUMB)[:, :, :, ::-1].reshape(len(geo), -1)
    return P[:, :, ::-1].copy(), g


# --------------------------------------------------------------------------- features
def describe(P: np.ndarray, geo: np.ndarray) -> np.ndarray:
    """Feature rows from patches and geometry."""
    n = len(P)
    if n == 0:
        return np.zeros((0, _n_features()), np.float32)
    gx = np.zeros_like(P)
    gy = np.zeros_like(P)
    np.subtract(P[:, :, 2:], P[:, :, :-2], out=gx[:, :, 1:-1])
    np.subtract(P[:, 2:, :], P[:, :-2, :], out=gy[:, 1:-1, :])
    mag, ang = cv2.cartToPolar(gx.reshape(-1, PATCH), gy.reshape(-1, PATCH))  # ang in [0, 2 pi)
    span = 2 * np.pi if SIGNED else np.pi
    fb = (ang % span if not SIGNED else ang) * np.float32(BINS / span) - np.float32(0.5)
    b0 = np.floor(fb)
    w1 = fb - b0
    b0 = b0.astype(np.int64)  # -1 .. BINS - 1 (ang is under 2 pi)
    # wrapped by a mask (BINS is a power of two: -1 & (BINS - 1) is BINS - 1), and b1 = b0 + 1 the
    # same way: what adding BINS to the negative ones and zeroing b1 == BINS gives, without the
    # boolean indexing's cost
    np.bitwise_and(b0, BINS - 1, out=b0)
    b1 = b0 + 1
    np.bitwise_and(b1, BINS - 1, out=b1)
    nc = PATCH // CELL
    cid = _cell_ids(n)
    size = n * nc * nc * BINS
    mw = mag * w1
    hist = np.bincount((cid + b0).ravel(), (mag - mw).ravel(), size)
    hist += np.bincount((cid + b1).ravel(), mw.ravel(), size)
    hist = hist.reshape(n, nc, nc, BINS).astype(np.float32)
    # local contrast normalisation: each cell by the gradient energy of its 3x3 neighbourhood
    e = hist.sum(axis=3)
    ep = np.zeros((n, nc + 2, nc + 2), e.dtype)  # (np.pad's zeros, without its overhead)
    ep[:, 1:-1, 1:-1] = e
    nb = sum(ep[:, i:i + nc, j:j + nc] for i in range(3) for j in range(3))
    tot = e.sum(axis=(1, 2)) / (nc * nc)
    hog = np.sqrt(hist / (nb[..., None] / 9.0 + 0.1 * tot[:, None, None, None] + 1.0))
    # thumbnail: mean grey per THUMB cell, normalised by the patch's middle (the top face)
    t = P.reshape(n, THUMB, PATCH // THUMB, THUMB, PATCH // THUMB).mean(axis=(2, 4))
    q = PATCH // 2
    mid = P[:, q - 6:q + 6, q - 6:q + 6]
    sd = P.reshape(n, -1).std(axis=1) + 4.0
    thumb = (t - mid.mean(axis=(1, 2))[:, None, None]) / sd[:, None, None]
    # profiles at full resolution through the middle, down (towards the nadir) and across:
    # where the top face ends and how wide a side face shows beyond it
    m0 = mid.mean(axis=(1, 2))[:, None]
    vp = (P[:, :, q - STRIP:q + STRIP].mean(axis=2) - m0) / sd[:, None]
    hp = (P[:, q - STRIP:q + STRIP, :].mean(axis=1) - m0) / sd[:, None]
    d = geo[:, :1]
    geof = np.concatenate([d, d * geo[:, 1:3], geo[:, 1:4]], axis=1)
    return np.concatenate([hog.reshape(n, -1), thumb.reshape(n, -1), vp, hp, geof, geo[:, 4:]], axis=1).astype(np.float32)


_CELLS: dict[int, np.ndarray] = {}
assert BINS & (BINS - 1) == 0  # (describe wraps the bins by a mask)


def _cell_ids(n: int) -> np.ndarray:
    """(n * PATCH, PATCH) index of each pixel's cell times BINS, each patch's cells after the one
    before's (made once per n)."""
    cid = _CELLS.get(n)
    if cid is None:
        c = np.arange(PATCH) // CELL
        nc = PATCH // CELL
        one = (c[:, None] * nc + c[None, :]) * BINS
        cid = (one[None] + (np.arange(n) * (nc * nc * BINS))[:, None, None]).reshape(-1, PATCH)
        if len(_CELLS) >= 64:
            _CELLS.clear()
        _CELLS[n] = cid
    return cid


def _n_features() -> int:
    return (PATCH // CELL) ** 2 * BINS + 3 * THUMB * THUMB + 2 * PATCH + 6


def features(frame_bgr: np.ndarray, centers: Sequence[tuple[float, float]], die_px: float,
             nadir: tuple[float, float] | None = None,
             angles: Sequence[float | None] | None = None,
             others: Sequence[Sequence[tuple[float, float]]] | None = None,
             floor: Sequence[tuple[float, float]] | None = None) -> np.ndarray:
    P, geo = patches(frame_bgr, centers, die_px, nadir, angles, others, floor)
    return describe(P, geo)
