"""Frame in, Reading out: every die's face, or a clear "throw again" with the reason.

`read(frame_bgr, calibration=None, n_dice=None)`:

1. With a calibration, the frame is compared with the empty tray and only what
   changed is searched, on a copy scaled so that a die's corner-pip offset is
   WORK_A pixels. Pips have the calibrated size: local maxima of a
   centre-surround response (dark pips in the grey image, light pips in a
   whiteness image, vision.pips.whiteness; a wider one for a big one-pip),
   each on a plain face (vision.pips.spots_at), with a second, more tolerant
   look around pips no face took. Without one, black-hat / top-hat spots at
   the photo's scale (vision.free).
2. Pips are grouped into faces that must fit a 1-6 layout, hold no stray pip
   and show a plain face between the pips (vision.dice); a face's empty layout
   places must show the face's tone, a one must sit in a plain face.
3. With a calibration: a face must sit on something that is not the empty
   tray; two faces closer than a die leave the stronger, or make the die
   `unreadable` when they contradict each other; well outside the tray floor
   (or raised near its edge: inside the floor, at full resolution too) and outside the keep zone it is `off_tray`; a
   foreshortened four to six (on the working copy, or, when vision.tilt has a
   doubt, its pips measured at full resolution), or a die vision.tilt scores
   as cocked, is `cocked`; pips that make no face are `unreadable`, unless they are light
   pips on a flat die's grid whose nine places, measured in the frame, show which face it is (a
   glossy black die's faint white pips: `_completed`; with a die short, also light pips too faint to
   count as loose). With a die short, a faint light spot
   refused only as a little squashed may be a one in the middle of a plain square top
   (`_faint_one`). Still a die short, light spots are looked for again with no plain ring asked
   where nothing was read (`_unread_spots`: a six's or five's pips on a bright-shining top) and
   read from their grid or as a faint one, inferred faces like the others. Light spots or loose light
   pips that read no face from their own places are read from the die's top first (`_top_face`: a
   glossy black die's grey-shining top, whose corners answer the spot search more strongly than its
   faint pips; the top's edges give its middle and yaw, its grid's nine places the face). A face on
   no die body whose flat top the 16 rays of `_square_top` miss by a ray or two (a black die on black
   felt) may show it to a finer look (`_square_fine`), inferred too. Flat ones: a lone light pip
   kept from being a one only by a much fainter spot beside it is one when its grid is plain
   (`_faint_one`); a one's die body's middle may lie a little farther aside towards the camera's
   nadir (`_one_centred`); a glint a two's diagonal from a one's pip leaves the one in doubt only
   when no square top (a little small) shows around the pip; all three inferred. Loose pips within
   reach of a kept face's side face (towards the nadir, `_near_own`) are that die's.
4. The verdict is "ok" only when every die is ok and the count matches `n_dice`.

A wrong face reported as ok is the worst failure; every doubt becomes "reroll".
"""

from __future__ import annotations

import itertools
import math
import statistics
import time
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Callable

import cv2
import numpy as np

from vision import tray
from vision.dice import FEW_ROUND, MEASURED_GROWN, Face, Limits, group
from vision.tilt import cocked_reason, cocked_scores, grey
from vision.pips import LAYOUTS, Fit, Pip, single, brightest, darkest, whiteness, find_pips, hats, spots_at, spots_at_many, spots_response, odd as _odd, scaled as _scaled

if TYPE_CHECKING:  # pragma: no cover
    from calibration import Calibration

WORK_A = 8.0  # corner-pip offset on the working copy, pixels (pips ~6 px wide)
T_SPOT = 30.0  # least centre-surround response of a pip (grey levels x 1.5)
# ... of a round light pip on a wholly even face (white pips on a glossy black die whose top shines
# grey; pips.spots_at)
T_EVEN = 18.0
DIE_OVER_A = 3.9  # die side / corner-pip offset
BIG_PIP = 0.55  # a pip this many corner offsets in radius or more is a big one-pip (or no pip); others are ~0.4
STATUSES = ("ok", "cocked", "off_tray", "unreadable")
REASONS = ("cocked", "off_tray", "missing", "extra", "unreadable")


class FrameError(ValueError):
    """The frame cannot be read at all (blank, wrong size, not an image)."""

    user_error = True


@dataclass(frozen=True)
class DieReading:
    value: int | None
    center: tuple[float, float]
    status: str = "ok"
    why: str = ""  # which check set the status (for diagnostics; not in the JSON)
    dark: bool | None = None  # dark pips (else light), when the reader knows (not in the JSON)

    def to_json(self) -> dict:
        return {"value": self.value, "center": [round(self.center[0], 1), round(self.center[1], 1)],
                "status": self.status}


@dataclass(frozen=True)
class Reading:
    dice: tuple[DieReading, ...]
    verdict: str
    reasons: tuple[str, ...] = ()
    ms: float = 0.0
    values: tuple[int, ...] = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "values", tuple(sorted(d.value for d in self.dice
                                                        if d.status == "ok" and d.value is not None)))

    @property
    def ok(self) -> bool:
        return self.verdict == "ok"

    def to_json(self, image: str | None = None) -> dict:
        out: dict = {} if image is None else {"image": image}
        out.update(verdict=self.verdict, reasons=list(self.reasons), values=list(self.values),
                   dice=[d.to_json() for d in self.dice], ms=round(self.ms, 2))
        return out


def verdict_of(dice: tuple[DieReading, ...], n_dice: int | None, extra_reasons: tuple[str, ...] = ()) -> Reading:
    """The verdict and reasons that follow from the dice statuses and the expected count."""
    reasons = {d.status for d in dice if d.status != "ok"} | set(extra_reasons)
    if n_dice is not None:
        if len(dice) < n_dice:
            reasons.add("missing")
        elif len(dice) > n_dice:
            reasons.add("extra")
    ordered = tuple(r for r in REASONS if r in reasons)
    return Reading(dice, "reroll" if ordered else "ok", ordered)


def _check_frame(frame: np.ndarray) -> np.ndarray:
    if not isinstance(frame, np.ndarray) or frame.dtype != np.uint8 or frame.ndim not in (2, 3) or min(frame.shape[:2]) < 32:
        raise FrameError("not an image frame (expected an 8-bit picture at least 32x32)")
    gray = frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    lo, hi = cv2.minMaxLoc(gray)[:2]
    if hi - lo < 40:  # (the small copy only then: a frame with contrast is never blank)
        small = cv2.resize(gray, (64, 48), interpolation=cv2.INTER_AREA)
        if float(small.std()) < 3.0:
            level = "black" if small.mean() < 40 else "blank"
            raise FrameError(f"{level} frame: nothing to read (lens covered, camera off or lights out?)")
    return gray


def load_image(path: str) -> np.ndarray:
    """A BGR frame from an image file; FrameError (one line) for a missing, empty, truncated or non-image file."""
    import os

    if not os.path.exists(path):
        raise FrameError(f"{path}: no such file")
    if os.path.isdir(path):
        raise FrameError(f"{path}: is a folder, not an image")
    try:
        data = np.fromfile(path, np.uint8)
    except OSError as e:
        raise FrameError(f"{path}: cannot read ({e.strerror or e})") from None
    if data.size == 0:
        raise FrameError(f"{path}: empty file")
    head = data[:8].tobytes()
    if head.startswith(b"\xff\xd8") and b"\xff\xd9" not in data[-64:].tobytes():
        raise FrameError(f"{path}: truncated JPEG (the file ends early)")
    if head.startswith(b"\x89PNG") and b"IEND" not in data[-32:].tobytes():
        raise FrameError(f"{path}: truncated PNG (the file ends early)")
    img = cv2.imdecode(data, cv2.IMREAD_COLOR)
    if img is None:
        raise FrameError(f"{path}: not an image OpenCV can read")
    return img


def read(frame_bgr: np.ndarray, calibration: "Calibration | None" = None, n_dice: int | None = None) -> Reading:
    """Read every die in the frame. Raises FrameError for a frame with nothing to read."""
    t0 = time.perf_counter()
    gray = _check_frame(frame_bgr)
    if calibration is not None:
        w, h = calibration.image_size
        if gray.shape[1] != w or gray.shape[0] != h:
            raise FrameError(f"frame is {gray.shape[1]}x{gray.shape[0]}, the calibration was made at {w}x{h}: "
                             "calibrate again at this size")
        dice, extra = _read_calibrated(frame_bgr, gray, calibration)
    else:
        dice, extra = _read_free(gray)
    r = verdict_of(tuple(dice), n_dice, extra)
    return Reading(r.dice, r.verdict, r.reasons, (time.perf_counter() - t0) * 1000.0)


@dataclass(frozen=True)
class Detection:
    """Faces and pips found on a working copy of the frame (coordinates of the working copy)."""

    faces: tuple[Face, ...]
    pips: tuple[Pip, ...]
    leftover: tuple[int, ...]
    scale: float  # working copy = frame * scale
    a: float | None  # corner-pip offset in working pixels (known or measured)
    faint: tuple[Pip, ...] = ()  # light spots refused only as a little squashed (pips.SQUASHED_MIN)
    weak: tuple[tuple[float, float], ...] = ()  # where faint big spots a little squashed were taken (BIG_SQUASHED)


def detect(frame: np.ndarray, a_px: float, known: bool, rois: list[tuple[int, int, int, int]] | None = None,
           changed: np.ndarray | None = None, kinds: str = "both",
           accept: Callable[[Face, float], bool] | None = None, measured: bool = False) -> Detection:
    """Faces of dice whose corner-pip offset is about `a_px` frame pixels.

    The frame is scaled so that offset is WORK_A px. With `known` (a calibrated
    die size) pips are spots of that size, centre against surround, dark ones in
    the grey image and light ones in the whiteness image (white pips on a
    coloured die), each on a plain face; `rois` (frame pixels x0, y0, x1, y1)
    limits the search to where dice can be, and `changed` (a small bool map of
    where the frame differs from the empty tray) to the pixels of the dice; `kinds` ("dark", "light",
    "both": the calibration's pip_kinds) to the pips this set of dice has. Without `known`, black-hat and
    top-hat spots, and the offset only sets the scale. `accept(face, scale)`, with `known`: the
    caller's look at each face grouping would take (see dice.group). `measured`: `a_px` was measured
    on a reference throw (not estimated from this frame), so faces may look at most MEASURED_GROWN
    times its size.
    """
    scale = float(np.clip(WORK_A / a_px, 0.2, 2.0))
    a = a_px * scale
    if known:
        H, W = frame.shape[:2]
        wh, ww = max(8, round(H * scale)), max(8, round(W * scale))
        dark = np.zeros((wh, ww), np.uint8)
        light = np.zeros((wh, ww), np.uint8)
        spots: list[Pip] = []
        weak: list[tuple[float, float]] = []  # where weak spots were added (working coordinates)
        maps: list[tuple] = []  # per search box: its origin, responses, images and mask (for a second look)
        want_dark, want_light = kinds != "light", kinds != "dark"
        kb = cv2.getStructuringElement(cv2.MORPH_RECT, (_odd(1.1 * a), _odd(1.1 * a)))
        hats_at: list[tuple] = []  # per search box: its place and plain-face maps
        for x0, y0, x1, y1 in (rois if rois is not None else [(0, 0, W, H)]):
            X0, Y0 = int(x0 * scale), int(y0 * scale)
            X1, Y1 = min(ww, int(math.ceil(x1 * scale))), min(wh, int(math.ceil(y1 * scale)))
            if X1 - X0 < 8 or Y1 - Y0 < 8:
                continue
            crop = frame[int(Y0 / scale):min(H, int(math.ceil(Y1 / scale))), int(X0 / scale):min(W, int(math.ceil(X1 / scale)))]
            work = _shrink(crop, X1 - X0, Y1 - Y0) if scale < 1 else cv2.resize(
                crop, (X1 - X0, Y1 - Y0), interpolation=cv2.INTER_LINEAR)
            if work.ndim == 2:
                work = cv2.cvtColor(work, cv2.COLOR_GRAY2BGR)
            g = cv2.cvtColor(work, cv2.COLOR_BGR2GRAY) if want_dark else None  # (only dark pips look at it)
            mn = whiteness(work) if want_light else None
            d, l = spots_response(g, mn, a)
            # for the plain-face check: how far each pixel stands out from the face around it
            hats_at.append((X0, Y0, X1, Y1, cv2.morphologyEx(g, cv2.MORPH_BLACKHAT, kb) if want_dark else None,
                            cv2.morphologyEx(mn, cv2.MORPH_TOPHAT, kb) if want_light else None))
            where = None
            if changed is not None:
                ch, cw = changed.shape
                sx, sy = cw / ww, ch / wh
                sub = changed[int(Y0 * sy):max(int(Y0 * sy) + 1, int(math.ceil(Y1 * sy))),
                              int(X0 * sx):max(int(X0 * sx) + 1, int(math.ceil(X1 * sx)))]
                where = cv2.resize(sub.astype(np.uint8), (X1 - X0, Y1 - Y0), interpolation=cv2.INTER_NEAREST) > 0
            maps.append((X0, Y0, d, l, g, mn, where))
        # the spots of every box in one pass (vision.pips.spots_at_many: what a call per box gives)
        jobs, at = [], []
        for X0, Y0, d, l, g, mn, where in maps:
            if want_dark:
                jobs.append((d, True, where, g))
                at.append((X0, Y0))
            if want_light:
                # light pips: faint ones on a wholly even face, and ones by a dark bevel (pips.spots_at)
                jobs.append((l, False, where, mn, T_EVEN, True))
                at.append((X0, Y0))
        squashed: list[tuple[int, Pip]] = []
        first = iter(spots_at_many(jobs, 0.38 * a, T_SPOT, ring=0.6 * a, squashed=squashed))
        # light spots refused only as a little squashed (reader._faint_one may take one as a one-pip)
        faint = tuple(Pip(p.x + at[j][0], p.y + at[j][1], p.r, p.dark, p.contrast, p.round, p.elong)
                      for j, p in squashed if not p.dark)
        weak_big: list[tuple[int, Pip]] = []  # (box, spot): faint big spots a little squashed
        big = iter(_big_spots_many([g for _, _, _, _, g, _, _ in maps], a, weak_big) if want_dark else [])
        for b, (X0, Y0, X1, Y1, bh, th) in enumerate(hats_at):
            if want_dark:
                dark[Y0:Y1, X0:X1] = np.maximum(dark[Y0:Y1, X0:X1], bh)
            if want_light:
                light[Y0:Y1, X0:X1] = np.maximum(light[Y0:Y1, X0:X1], th)
            found = []
            if want_dark:
                found += next(first)
            if want_light:
                found += next(first)
            if want_dark:
                # a big coloured one-pip (twice a pip's size) answers a wider centre-surround
                found += [p for p in next(big)
                          if p.r >= 0.5 * a and not any(math.hypot(p.x - q.x, p.y - q.y) < 0.7 * a for q in found)]
            added = _add_spots(spots, found, X0, Y0, dark, light, 1.5)
            weak += [(q.x, q.y) for q in added for j, w in weak_big
                     if j == b and q.dark and abs(q.x - w.x - X0) < 1e-6 and abs(q.y - w.y - Y0) < 1e-6]
    else:
        kernel = _odd(1.4 * a)  # wider than a pip, narrower than a die (its body must survive)
        if frame.ndim == 3:
            work_bgr = _scaled(frame, scale)
            dark, _ = hats(cv2.cvtColor(work_bgr, cv2.COLOR_BGR2GRAY), kernel)
            # white pips on a coloured die: the darkest channel makes the face dark and the pips bright
            _, light = hats(darkest(work_bgr), kernel)
        else:
            dark, light = hats(_scaled(frame, scale), kernel)
        spots = find_pips(dark, light, min_r=max(1.0, 0.1 * a), max_r=0.7 * a, t_low=14.0, min_round=0.6, min_elong=0.3)
        faint = ()
        weak = []
    # a top face is seen square-on (it is parallel to the sensor); squashed spots are on side faces: not pips
    # (a known size: a six's blurred columns are cut apart, so its pips may look a little squashed)
    min_el, min_round = (0.5, 0.6) if known else (0.6, 0.72)
    pips = [p for p in spots if p.elong >= min_el and p.round >= min_round and p.r >= 0.12 * a]
    lim = Limits(max_err=0.15, min_aniso=0.8, a_hint=a if known else None,
                 max_grown=MEASURED_GROWN if known and measured else Limits.max_grown)
    ok = (lambda f: accept(f, scale)) if accept is not None and known else None
    memo: dict = {}  # (a second grouping below reuses the first's fits and checks)
    g = group(pips, dark, light, lim, ok, memo)
    if known and g.leftover:
        # pips no face took: often a face whose other pips were faint (a six's far column in shade, a
        # five's corners against a glossy die's dark bevel). Look again around them, lower and more
        # tolerant, and group again; the face checks are the same, so a speck makes no face.
        more = _second_look([pips[i] for i in g.leftover], spots, maps, a, dark, light)
        if more:
            added = [p for p in more if p.elong >= min_el and p.round >= min_round and p.r >= 0.12 * a]
            if added:
                pips = pips + added
                g = group(pips, dark, light, lim, ok, memo)
    faces = g.faces
    if not known:
        big = [f.a for f in faces if f.value >= 4] or [f.a for f in faces if f.value >= 2]
        a = float(np.median(big)) if big else None
    return Detection(faces, tuple(pips), g.leftover, scale, a, faint, tuple(weak))


def _big_spots(g: np.ndarray, a: float) -> list[Pip]:
    """Spots twice a pip's size (a big coloured one-pip) in the grey working copy `g`: the wider
    centre-surround, looked for on `g` halved (exactly, by area) where it is big enough, which
    costs a sixth as much; positions and sizes in `g`'s pixels. A faint one counts on an even ring
    (pips.spots_at's t_even: a glossy red pip's shaded middle answers the wide pass weakly)."""
    h, w = g.shape
    if h < 32 or w < 32:
        return spots_at(spots_response(g, None, 2.2 * a)[0], True, 0.8 * a, T_SPOT, base=g, ring=1.25 * a,
                        t_even=T_EVEN)
    half = cv2.resize(g[:h // 2 * 2, :w // 2 * 2], (w // 2, h // 2), interpolation=cv2.INTER_AREA)
    found = spots_at(spots_response(half, None, 1.1 * a)[0], True, 0.4 * a, T_SPOT, base=half, ring=0.625 * a,
                     t_even=T_EVEN)
    return [Pip(2 * p.x + 0.5, 2 * p.y + 0.5, 2 * p.r, p.dark, p.contrast, p.round, p.elong) for p in found]


#: _big_spots_many: a faint big spot (on a wholly even ring, pips.spots_at's t_even) refused only as not
#: round enough (pips.EVEN_ELONG) is still taken from this elongation, as a weak one: a face of it is
#: read only where the tilt model has no doubt (reader's FINE_GATE). A big red one-pip by the tray's
#: wall, measured on the halved working copy (a few pixels across), read 0.78 (own seed 27,000,191)
BIG_SQUASHED = 0.7


def _big_spots_many(gs: list[np.ndarray], a: float, weak: list[tuple[int, Pip]] | None = None) -> list[list[Pip]]:
    """[_big_spots(g, a) for g in gs], the halved boxes' spots in one pass (spots_at_many). With
    `weak` (a list), faint big spots refused only as a little squashed (BIG_SQUASHED) are added to
    their box's spots and reported there too, as (box index, spot)."""
    out: list[list[Pip] | None] = [None] * len(gs)
    jobs, at = [], []
    for i, g in enumerate(gs):
        h, w = g.shape
        if h < 32 or w < 32:
            out[i] = _big_spots(g, a)
            continue
        half = cv2.resize(g[:h // 2 * 2, :w // 2 * 2], (w // 2, h // 2), interpolation=cv2.INTER_AREA)
        jobs.append((spots_response(half, None, 1.1 * a)[0], True, None, half, T_EVEN, False))
        at.append(i)
    squashed: list[tuple[int, Pip]] = []
    for j, (i, found) in enumerate(zip(at, spots_at_many(jobs, 0.4 * a, T_SPOT, ring=0.625 * a,
                                                          squashed=squashed if weak is not None else None))):
        out[i] = [Pip(2 * p.x + 0.5, 2 * p.y + 0.5, 2 * p.r, p.dark, p.contrast, p.round, p.elong) for p in found]
    for j, p in squashed:
        if p.elong >= BIG_SQUASHED:
            q = Pip(2 * p.x + 0.5, 2 * p.y + 0.5, 2 * p.r, p.dark, p.contrast, p.round, p.elong)
            out[at[j]].append(q)  # type: ignore[union-attr]
            weak.append((at[j], q))  # type: ignore[union-attr]
    return out  # type: ignore[return-value]


T_SECOND = 20.0  # the second look's least response (T_SPOT for the first)
SECOND_ODD = 10  # and how many of a spot's 16 ring samples may be odd (5 for the first)


_D3Y = np.array([-1, -1, -1, 0, 0, 0, 1, 1, 1])  # a 3x3 neighbourhood's offsets
_D3X = np.array([-1, 0, 1, -1, 0, 1, -1, 0, 1])


def _add_spots(spots: list[Pip], found: list[Pip], X0: int, Y0: int, dark: np.ndarray, light: np.ndarray,
               apart: float) -> list[Pip]:
    """Add the spots `found` in a search box at (X0, Y0) to `spots` (working coordinates), each unless
    a like spot lies within `apart` px; the new ones' contrast is measured on the plain-face map (the
    scale the face check measures against). Returns the added ones."""
    added: list[Pip] = []
    if not found:
        return added
    # which like spots lie within `apart`: of those there already, and of the found ones (once added:
    # at p.x + X0, p.y + Y0); the same differences as spot by spot, all at once
    fx, fy = np.array([p.x for p in found]), np.array([p.y for p in found])
    fd = np.array([p.dark for p in found])
    near_old = np.zeros(len(found), bool)
    if spots:
        sx, sy = np.array([q.x for q in spots]), np.array([q.y for q in spots])
        sd = np.array([q.dark for q in spots])
        near_old = ((sd[None, :] == fd[:, None]) & (np.abs(sx[None, :] - fx[:, None] - X0) < apart)
                    & (np.abs(sy[None, :] - fy[:, None] - Y0) < apart)).any(axis=1)
    near_new = ((fd[None, :] == fd[:, None]) & (np.abs((fx + X0)[None, :] - fx[:, None] - X0) < apart)
                & (np.abs((fy + Y0)[None, :] - fy[:, None] - Y0) < apart))  # [i, j]: i near j added
    # for each j, the later spots i that j's being added keeps out
    later: dict[int, list[int]] = {}
    I, J = np.nonzero(np.tril(near_new, -1))
    for i, j in zip(I.tolist(), J.tolist()):
        later.setdefault(j, []).append(i)
    # each spot's contrast: the map's brightest pixel of the 3x3 around it (indices clipped at the
    # map's edges, as a slice stops there), for all found spots at once
    h, w = dark.shape
    px, py = np.round(fx + X0).astype(np.int64), np.round(fy + Y0).astype(np.int64)
    rows = np.minimum(np.maximum(py[:, None] + _D3Y, 0), h - 1)
    cols = np.minimum(np.maximum(px[:, None] + _D3X, 0), w - 1)
    cs = np.where(fd, dark[rows, cols].max(axis=1), light[rows, cols].max(axis=1)).tolist()
    out = near_old.tolist()  # spots not to add: beside a like one there already, or one added before
    for i, p in enumerate(found):
        if not out[i]:
            for k in later.get(i, ()):
                out[k] = True
            q = Pip(p.x + X0, p.y + Y0, p.r, p.dark, float(cs[i]), p.round, p.elong)
            spots.append(q)
            added.append(q)
    return added


def _second_look(loose: list[Pip], spots: list[Pip], maps: list[tuple], a: float, dark: np.ndarray,
                 light: np.ndarray) -> list[Pip]:
    """Fainter spots within a die's reach of the loose pips (working coordinates), other than the
    `spots` found already: responses down to T_SECOND, rings with up to SECOND_ODD odd samples of 16."""
    jobs, places = [], []
    for X0, Y0, d, l, g, mn, where in maps:
        h, w = (g if g is not None else mn).shape
        for is_dark, resp, base in ((True, d, g), (False, l, mn)):
            if resp is None:
                continue
            here = [p for p in loose if p.dark == is_dark and X0 <= p.x < X0 + w and Y0 <= p.y < Y0 + h]
            if not here:
                continue
            near = np.zeros((h, w), np.uint8)
            for p in here:
                cv2.circle(near, (int(round(p.x - X0)), int(round(p.y - Y0))), int(round(3.0 * a)), 1, -1)
            # (light pips: a one-sided ring too, see detect)
            jobs.append((resp, is_dark, near > 0 if where is None else (near > 0) & where, base, None, not is_dark))
            places.append((X0, Y0, here))
    # every box's search in one pass (spots_at_many), then added box by box as before
    have = list(spots)
    out: list[Pip] = []
    for (X0, Y0, here), found in zip(places, spots_at_many(jobs, 0.38 * a, T_SECOND, ring=0.6 * a, ring_odd=SECOND_ODD)):
        # clear on the plain-face map (a third of the loose pips' contrast), not a glint
        least = 0.3 * float(np.median([p.contrast for p in here]))
        out += [p for p in _add_spots(have, found, X0, Y0, dark, light, 0.5 * a) if p.contrast >= least]
    return out


def estimate_a(frame: np.ndarray, fractions: tuple[float, ...] = (0.007, 0.0095, 0.013, 0.0175, 0.0235),
               body: tuple[np.ndarray, float] | None = None) -> float | None:
    """The corner-pip offset (frame pixels) of the dice in this frame: the size that explains most pips.
    `body` (from `body_map` with the empty tray) limits the search to where dice can be."""
    best: tuple[int, float] | None = None
    w = frame.shape[1]
    for f in fractions:
        det = detect(frame, f * w, True, *search_area(body, f * w))
        faces = [x for x in det.faces if x.value >= 2]
        score = sum(x.value * x.value for x in faces)  # a four beats two twos made of its sides
        if faces and (best is None or score > best[0]):
            big = [x.a for x in faces if x.value >= 4] or [x.a for x in faces]
            best = (score, float(np.median(big)) / det.scale)
    return None if best is None else best[1]


def _read_calibrated(frame: np.ndarray, gray: np.ndarray, cal: "Calibration") -> tuple[list[DieReading], tuple[str, ...]]:
    a_px = cal.pip_a if cal.pip_a is not None else estimate_a(frame)  # no reference throw: measure this frame
    body = _body_map(frame, cal)
    rois, changed = search_area(body if a_px else None, a_px or 0.0)
    tops: dict[tuple, str | None] = {}  # what _face_ok's _top_seen said of each face (_top_key)
    det = detect(frame, a_px if a_px else 0.0135 * gray.shape[1], a_px is not None, rois, changed,
                 cal.pip_kinds if a_px is not None else "both",
                 accept=lambda f, k: _face_ok(f, k, frame, gray, body, k * a_px, tops), measured=cal.pip_a is not None)
    k = det.scale
    a = det.a if det.a else 7.0
    die = DIE_OVER_A * a / k  # top face side, frame pixels
    face_pips = [det.pips[i] for f in det.faces for i in f.pips]
    ref_r = float(np.median([p.r for p in face_pips])) if face_pips else 0.35 * a
    ref_c = float(np.median([p.contrast for p in face_pips])) if face_pips else 40.0
    loose = [det.pips[i] for i in det.leftover
             if det.pips[i].r >= 0.6 * ref_r and det.pips[i].contrast >= 0.5 * ref_c]
    # a face must sit on a die (with a known size, group() asked this of every face it took)
    cands = list(det.faces) if a_px else [f for f in det.faces if _face_ok(f, k, frame, gray, body, a)]
    # two faces closer than one die cannot both be top faces: the stronger stays (the other is a
    # side face's pips); a real die dropped here makes the count short, and the count asks again
    kept: list[Face] = []
    doubtful: set[int] = set()  # kept faces that another face contradicts
    nadir = ((gray.shape[1] - 1) / 2.0 * k, (gray.shape[0] - 1) / 2.0 * k)  # (vision.tilt's), working coordinates
    for f in sorted(cands, key=lambda f: _rank(f, a if a_px else None), reverse=True):
        near = [i for i, g in enumerate(kept) if math.hypot(g.cx - f.cx, g.cy - f.cy) < 3.5 * a]
        if not near:
            kept.append(f)
            continue
        if a_px and len(near) == 1 and near[0] not in doubtful and _side_face_of(kept[near[0]], f, det, nadir, a):
            kept[near[0]] = f  # the stronger face is the side face the weaker one's flat die shows
            continue
        for i in near:
            g = kept[i]
            if g.value >= 2:
                u, v = g.fit.to_face(f.cx, f.cy)
                if f.dark == g.dark and max(abs(u), abs(v)) < 1.6:
                    doubtful.add(i)  # a pip on g's own top face that is not one of its pips
                # (a light spot between dark pips is the face showing between them)
            elif f.value == 1 and f.dark == g.dark and _round_pip(det, f) and _round_pip(det, g) and 0.75 < f.r / g.r < 1.33:
                doubtful.add(i)  # two like round pips: maybe a two whose face check failed
    inferred: set[int] = set()  # kept faces read from faint evidence (_faint_one, _completed)
    # a face with a faint big spot a little squashed (_big_spots_many's weak ones)
    if det.weak:
        inferred.update(i for i, f in enumerate(kept) if any(
            abs(det.pips[j].x - x) < 1e-6 and abs(det.pips[j].y - y) < 1e-6 for j in f.pips for x, y in det.weak))
    if body is not None and a_px:
        # a two whose die body's middle lies aside, taken as the middle of a square top (_face_ok); a one
        # whose body's middle lies aside towards the nadir (_one_centred), unless on a square top
        inferred.update(i for i, f in enumerate(kept) if f.value == 2
                        and _off_centre(body, f.cx / k, f.cy / k, a / k) > TWO_OFF_CENTRE * a / k)
        inferred.update(i for i, f in enumerate(kept) if f.value == 1
                        and _off_centre(body, f.cx / k, f.cy / k, a / k) > ONE_OFF_CENTRE * a / k
                        and not _square_top(gray, f.cx / k, f.cy / k, a / k, f.r / k))
        # a face on no die body whose flat top showed only to the finer look (_square_fine)
        # (as _face_ok saw it when it took the face: tops)
        inferred.update(i for i, f in enumerate(kept) if (tops[_top_key(f)] if _top_key(f) in tops
                        else _top_seen(f, k, gray, body, k * a_px)) == "fine")
    if det.faint and a_px and cal.n_dice is not None and len(kept) < cal.n_dice:
        # a die short: maybe a glossy black die's one whose faint pip was refused as a little squashed
        for s in det.faint:
            f = _faint_one(s, det, kept, k, a, frame, gray, body, a_px)
            if f is not None:
                det = replace(det, pips=det.pips + (s,))
                inferred.add(len(kept))
                kept.append(f)
    # a one with a like pip a two's diagonal away on the same die (one no face took): a two whose
    # face check failed, or a one; no guess. Not for a big one-pip, nor a big spot (a shadow between
    # dice answers the wide one-pip pass): a two's pips are a pip's size, and round (dice.FEW_ROUND)
    taken = {j for f in kept for j in f.pips}
    for i, f in enumerate(kept):
        if f.value != 1 or f.r >= BIG_PIP * a:
            continue
        for j, p in enumerate(det.pips):
            if (j in taken or p.dark != f.dark or not 0.6 < p.r / f.r < 1.6 or p.r >= BIG_PIP * a
                    or p.contrast < 0.4 * det.pips[f.pips[0]].contrast or p.elong < FEW_ROUND):
                continue
            if 2.3 * a < math.hypot(p.x - f.cx, p.y - f.cy) < 3.4 * a and (
                    body is None or _has_body(body, (p.x + f.cx) / 2 / k, (p.y + f.cy) / 2 / k, 0.6 * a / k)):
                # (not when the one's pip is the middle of a flat die's square top: no two's pip is,
                # and a one's pip with a side face's pip beside it is a one; _one_in_two)
                if not _square_top(gray, f.cx / k, f.cy / k, a / k, f.r / k):
                    if _square_yaw(gray, f.cx / k, f.cy / k, a / k, f.r / k, FAINT_SQUARE) is None:
                        doubtful.add(i)
                    else:
                        # a square top a little small (a bevel's shading: a two's corner pip has the
                        # top's edge 0.95 corner offsets from it on two sides): a one whose die's corner
                        # glints, a two's diagonal from its pip (own seed 33,000,700); inferred
                        inferred.add(i)
                break
    # pips no face explains and no side face explains: a die that cannot be read
    # (within 3.2 corner offsets of a kept face's middle, or on its die's side face: a flat die shows a
    # sliver of side face towards the camera's nadir, as deep as its distance from the nadir makes it)
    loose = [p for p in loose if not any(_near_own(p.x, p.y, f, nadir, 3.2 * a, a) for f in kept)]
    clusters = _cluster(loose, a)
    if clusters and a_px:
        # light pips of a die that make no face: a glossy black die whose other pips are too faint
        # to be found; its grid's nine places may still show which face it is (_completed)
        rest = []
        for c in clusters:
            f = None
            if not any(q.dark for q in c):
                # with the fainter spots no face took beside them (the loose ones are the clearer)
                more = [q for q in (det.pips[i] for i in det.leftover) if not q.dark and q not in c
                        and any(math.hypot(q.x - p.x, q.y - p.y) < 3.0 * a for p in c)]
                f = _completed(c + more, det, k, a, frame, gray, body, a_px)
                if f is None:
                    # a bevel's glint beside the pips (the spot response rises where the shining
                    # top's corner meets the dark bevel) sits on no pip's place, and its contrast
                    # alike with the pips' kept group() from taking them: the pips alone may read
                    f = _completed_sub(c + more, det, k, a, frame, gray, body, a_px)
            if f is None and body is not None and cal.pip_kinds != "dark" and not any(q.dark for q in c):
                # its other pips may be too faint for detect's search (a glossy black three shining
                # grey: only its middle pip found): light spots looked for again around the pips,
                # with no ring asked (_unread_spots), read from their grid with them
                # (only the search boxes that hold them: spots farther than a die's reach are not asked)
                boxes = None if rois is None else [b for b in rois if any(
                    b[0] <= q.x / k < b[2] and b[1] <= q.y / k < b[3] for q in c)]
                more = _unread_spots(frame, det, k, a, boxes, changed, kept, [d for d in clusters if d is not c], c)
                spots = c + [q for g in more for q in g if not any(math.hypot(q.x - p.x, q.y - p.y) < 0.5 * a for p in c)]
                if len(spots) > len(c):
                    f = _completed(spots, det, k, a, frame, gray, body, a_px, UNREAD_SPOTTED)
                    if f is None:
                        f = _completed_sub(spots, det, k, a, frame, gray, body, a_px, UNREAD_SPOTTED)
            if f is None and len(c) == 1 and not c[0].dark:
                # a light one's pip that no face took as a faint spot lies near it (a glint on its top
                # or bevel, under FAINT_HOLES of its contrast, alike enough for group() to call the one
                # crowded: own seed 28,000,449): a one when the grid around it is plain (_faint_one)
                f = _faint_one(c[0], det, kept, k, a, frame, gray, body, a_px, FAINT_HOLES)
            if f is None and body is not None and cal.pip_kinds != "dark" and not any(q.dark for q in c):
                # light pips and a grey-shining top's corners (or a bevel's glints) that read as no
                # face from their places: the top first (_top_face)
                f = _top_face(c, det, kept, k, a, frame, gray, body, a_px)
            if f is None:
                rest.append(c)
            else:
                inferred.add(len(kept))
                kept.append(f)
        clusters = rest
    if a_px and cal.n_dice is not None and len(kept) + len(clusters) < cal.n_dice:
        # a die short: its light pips may all be too faint to count as loose (under half the faces'
        # contrast: a glossy black die's white pips on its grey-shining top); read from their grid
        # (_completed) they may still make a face
        quiet = _cluster([q for q in (det.pips[i] for i in det.leftover) if not (
            q.dark or any(math.hypot(q.x - f.cx, q.y - f.cy) < 3.2 * a for f in kept)
            or any(math.hypot(q.x - p.x, q.y - p.y) < 3.0 * a for c in clusters for p in c))], a)
        for c in quiet:
            if len(c) >= 2 and (f := _completed(c, det, k, a, frame, gray, body, a_px)) is not None:
                inferred.add(len(kept))
                kept.append(f)
    if a_px and body is not None and cal.n_dice is not None and len(kept) + len(clusters) < cal.n_dice \
            and cal.pip_kinds != "dark":
        # still a die short: a glossy black die whose white pips on its bright-shining top found no
        # plain ring (a six's columns) or stood under the box's threshold. Look again for light
        # spots, with no ring asked, where nothing was read, and read them from their grid
        # (_completed) or as a faint one (_faint_one): an inferred face, tilt-gated as the others
        for c in _unread_spots(frame, det, k, a, rois, changed, kept, clusters):
            f = _completed(c, det, k, a, frame, gray, body, a_px, UNREAD_SPOTTED) if len(c) >= 2 else None
            if f is None:
                # a bevel's glints found beside the pips: some of the spots may read as a face
                f = _completed_sub(c, det, k, a, frame, gray, body, a_px, UNREAD_SPOTTED)
            if f is None and len(c) <= FAINT_AMONG:
                # one spot of them a faint one (the others a bevel's glints beside it): only when
                # exactly one reads so. (A spot detect found too, that a face dropped for a stronger
                # one took, is itself no other spot near it)
                ones = [(q, g) for q in c if (g := _faint_one(q, replace(det, pips=tuple(
                    p for p in det.pips if math.hypot(p.x - q.x, p.y - q.y) >= 0.5 * a)),
                    kept, k, a, frame, gray, body, a_px)) is not None]
                if len(ones) == 1:
                    f = replace(ones[0][1], pips=(len(det.pips),))
                    det = replace(det, pips=det.pips + (ones[0][0],))
            if f is None:
                # the spots may be a grey-shining top's corners around faint pips: read it top first
                f = _top_face(c, det, kept, k, a, frame, gray, body, a_px)
            if f is not None:
                inferred.add(len(kept))
                kept.append(f)
                if len(kept) + len(clusters) >= cal.n_dice:
                    break
    # flat or cocked: a learned look at each die, normalised for the camera's perspective (vision.tilt)
    # (on the grey frame: the tilt model looks at grey patches, and the frame's grey is made already)
    tilt = cocked_scores(gray, [(f.cx / k, f.cy / k) for f in kept], 4.0 * a / k,
                         angles=[f.angle if f.value >= 2 else None for f in kept], floor=cal.floor)
    dice: list[DieReading] = []
    scales: dict[int, float | None] = {}  # fine_spacing's measures of the kept faces, when asked
    for i, (f, p_cocked) in enumerate(zip(kept, tilt)):
        x, y = f.cx / k, f.cy / k
        status, why = "ok", ""
        if i in doubtful:
            status, why = "unreadable", "contradicted"
        elif _off_tray(cal, x, y, die, f.a / a if f.value >= 2 else None, f.dark,
                       lambda: fine_spacing(frame, f, k, gray, kept, scales, any_kind=True)):
            status, why = "off_tray", "outside floor"
        elif f.value in (4, 5) and f.fit.aniso < 0.93:
            # the square top face is foreshortened: it is tilted. Not for a six, whose columns stand
            # closer than its rows on some dice (flat sixes of our renders go down to 0.91, and the
            # tilt model alone caught every cocked six this rule did: 32 of 39, seeds 3,000,000 up)
            status, why = "cocked", "aniso"
        elif tilt_why := cocked_reason(p_cocked, f.value, f.a / a,  # vision.tilt: score, or a shrunk two/three
                                       lambda: fine_spacing(frame, f, k, gray, kept, scales),
                                       lambda: _square_top(gray, x, y, a / k, f.r / k)):
            status, why = "cocked", tilt_why
        elif f.value >= 4 and p_cocked >= FINE_GATE and (q := fine_aniso(frame, f, k, gray)) is not None and q < (
                FINE_SQUARE if f.a / k >= FINE_MIN_A else FINE_SQUARE_SMALL):
            # the pips measured at full resolution are not square: a small lean the model doubted
            status, why = "cocked", f"fine aniso {q:.3f}"
        elif f.value in (2, 3) and p_cocked >= FINE_GATE and (q := fine_spacing(frame, f, k, gray, kept, scales)) is not None \
                and q < (FINE_SHRUNK if f.a / k >= FINE_MIN_A else FINE_SHRUNK_SMALL):
            # its pips, measured at full resolution, stand closer than the other dice's: a tilted face
            status, why = "cocked", f"fine shrunk {q:.3f}"
        elif i in inferred and p_cocked >= FINE_GATE:
            # a face read from faint evidence (its grid, or a faint one) is only taken where the tilt
            # model has no doubt: flat ones of own seeds score 0.001 or less; own-seed 60231, a black
            # three leaning 22 degrees whose loose pips the grid read, 0.014 (before the grid read its
            # loose pips left the die unreadable)
            status, why = "cocked", f"tilt {p_cocked:.3f}, faint pips"
        dice.append(DieReading(f.value if status == "ok" else None, (x, y), status, why, f.dark))
    for c in clusters:
        x = float(np.mean([q.x for q in c])) / k
        y = float(np.mean([q.y for q in c])) / k
        dice.append(DieReading(None, (x, y), "off_tray" if _off_tray(cal, x, y, die) else "unreadable", "loose pips"))
    return dice, ()


#: a face shrunk under this share of a flat die's spacing whose pips all lie where a flat face's die
#: shows its side face's may be that side face (the kept loop's swap)
SHRUNK_SIDE = 0.92

#: _near_own: a flat die shows a sliver of the side faces turned towards the camera's nadir, as deep as the
#: top's distance from the nadir times the die's height over the camera's above it (the camera is 26-38
#: dice above the floor in our renders; over 25: SLIVER 1/24 at most). A pip of such a side face lies, from
#: the top's middle, 1.95 corner offsets out along the side's normal (at any yaw: a one's is not known),
#: up to 1 along the side, and 1/2 -+ 1/3.9 of the way across the sliver (SIDE_ROWS: from a camera 38 dice
#: up, the sliver is 0.65 of SLIVER's). A loose pip within SIDE_TOL corner offsets of such a place is the
#: die's own. A cocked die shows a deeper side face, its pips farther out (own mirror seeds 22,000,027,
#: 344, 946, 1433, 1454, 1619, 1865, 1993: 0.45-0.65 corner offsets from any such place)
SLIVER = 1.0 / 24.0
SIDE_ROWS = (0.15, 0.76)
SIDE_TOL = 0.3
_SIDE_PHI = np.radians(np.arange(-90.0, 90.5, 2.0))[:, None, None]
_SIDE_L = np.linspace(-1.0, 1.0, 21)[None, :, None]
_SIDE_ALONG = 1.95 * np.cos(_SIDE_PHI) - _SIDE_L * np.sin(_SIDE_PHI)  # (yaw, place along the side, 1)
_SIDE_ACROSS = 1.95 * np.sin(_SIDE_PHI) + _SIDE_L * np.cos(_SIDE_PHI)
_SIDE_F = np.linspace(SIDE_ROWS[0], SIDE_ROWS[1], 13)[None, None, :]


def _near_own(x: float, y: float, f: Face, nadir: tuple[float, float], reach: float, a: float) -> bool:
    """Is (x, y) (working coordinates, `a` the corner offset) kept face `f`'s die's: within `reach` of its
    top's middle, or where a pip of the side face a flat die shows towards the camera's `nadir` may lie
    (SLIVER, SIDE_ROWS, SIDE_TOL: own mirror seed 22,000,691, a white one's side face's pips 3.5 corner
    offsets from its pip, towards the nadir)?"""
    dx, dy = x - f.cx, y - f.cy
    if dx * dx + dy * dy < reach * reach:
        return True
    vx, vy = SLIVER * (nadir[0] - f.cx), SLIVER * (nadir[1] - f.cy)
    v = math.hypot(vx, vy)
    if v == 0.0:
        return False
    along, across = (dx * vx + dy * vy) / v / a, (dy * vx - dx * vy) / v / a
    if along <= 0.0 or along > 2.2 + SIDE_ROWS[1] * v / a + SIDE_TOL:  # (beyond every such place)
        return False
    d2 = (_SIDE_ALONG + _SIDE_F * (v / a) - along) ** 2 + (_SIDE_ACROSS - across) ** 2
    return float(d2.min()) < SIDE_TOL * SIDE_TOL


def _side_face_of(g: Face, f: Face, det: Detection, nadir: tuple[float, float], a: float) -> bool:
    """Is kept face `g` (2-6, shrunk under SHRUNK_SIDE) the side face that face `f` (2-6, of a flat
    die's size within 5%) shows towards the nadir: are all g's pips where _near_own puts the pips
    of f's die's side face? (own seed 28,000,279: a flat blue two whose side face's three, 0.845,
    outranked it)"""
    return (f.value >= 2 and abs(f.a / a - 1.0) <= 0.05 and g.value >= 2 and g.a / a < SHRUNK_SIDE
            and all(_near_own(det.pips[j].x, det.pips[j].y, f, nadir, 0.0, a) for j in g.pips))


def _cluster(pips: list[Pip], a: float) -> list[list[Pip]]:
    """Pips grouped as one die's: each joins the first group holding a pip within 3 corner offsets
    `a` of it, or starts a group."""
    groups: list[list[Pip]] = []
    for p in pips:
        for c in groups:
            if any(math.hypot(p.x - q.x, p.y - q.y) < 3.0 * a for q in c):
                c.append(p)
                break
        else:
            groups.append([p])
    return groups


#: _completed: a place of the grid holds a pip when it stands out from the face's tone by at least
#: COMPLETE_PIP of the found pips' own step, and is empty under COMPLETE_HOLE of it; a place between
#: the two makes no face
COMPLETE_PIP = 0.55
COMPLETE_HOLE = 0.3
_GRID = [(u, v) for v in (-1, 0, 1) for u in (-1, 0, 1)]
_STEPS = [(1, 0), (1, 1), (2, 0), (2, 1), (2, -1), (2, 2)]  # grid steps between two pips of a face (up to a turn)
#: the grid places of each face, in any of its four turns
_PATTERNS = {n: {frozenset((round(x * cq - y * sq), round(x * sq + y * cq)) for x, y in LAYOUTS[n])
                 for cq, sq in ((1, 0), (0, 1), (-1, 0), (0, -1))} for n in LAYOUTS}


def _completed(c: list[Pip], det: Detection, k: float, a: float, frame: np.ndarray, gray: np.ndarray,
               body: tuple[np.ndarray, float] | None, a_px: float, spotted: float = COMPLETE_PIP) -> Face | None:
    """The face of light pips `c` (working coordinates: a die's pips that made no face, the others
    missed: a glossy black die's white pips that barely stand out of its grey-shining top), read from
    its grid: every way the pips sit on a 3x3 grid of a flat die's size (corner offset 0.9-1.12 of
    `a`), each of the nine places measured in the frame's whiteness (3x3 median) against the face's
    tone (the four places between the grid's middle and its corners) and the found pips' (the
    median): a pip from COMPLETE_PIP of that step, a hole under COMPLETE_HOLE. The places must make
    a face's layout, the same face for every way that reads; then a face's checks (_face_ok). None
    otherwise: the die stays unreadable. `spotted`: a place that holds one of the pips `c` is a pip
    from this share of the step (_unread_spots' spots: a pip's 3x3 median a pixel off a small
    pip's middle, or on a top shining brighter to one side, stands 0.35-0.45 of the way)."""
    if len(c) < 2 or len(c) > 6 or frame.ndim != 3:
        return None
    pts = [complex(q.x, q.y) for q in c]
    seen: list[tuple[complex, float]] = []
    reads: list[tuple] = []  # (value or None, middle, step, pattern, places) per way the places read
    h, w = frame.shape[:2]
    for j in range(1, len(pts)):
        d = pts[j] - pts[0]
        for du, dv in _STEPS:
            g = complex(du, dv)
            s = d / g  # grid step as a complex number (size and turn)
            if not 0.9 * a <= abs(s) <= 1.12 * a:
                continue
            for u0, v0 in _GRID:
                o = pts[0] - s * complex(u0, v0)  # the grid's middle
                uv = [(p - o) / s for p in pts]
                if any(abs(z.real) > 1.3 or abs(z.imag) > 1.3 or abs(z - complex(round(z.real), round(z.imag))) > 0.3
                       for z in uv):
                    continue
                places = {(round(z.real), round(z.imag)) for z in uv}
                if len(places) != len(pts):
                    continue
                turn = math.atan2(s.imag, s.real) % (math.pi / 2)
                if any(abs(o - o2) < 0.3 * a and min(abs(turn - t2), math.pi / 2 - abs(turn - t2)) < 0.2 for o2, t2 in seen):
                    continue  # the same grid (turned by a quarter)
                seen.append((o, turn))
                at = [o + s * complex(u, v) for u, v in _GRID] + [o + s * complex(u, v) for u, v in
                                                                    ((0.5, 0.5), (-0.5, 0.5), (0.5, -0.5), (-0.5, -0.5))]
                xs = [int(round(z.real / k)) for z in at]
                ys = [int(round(z.imag / k)) for z in at]
                if min(xs) < 1 or min(ys) < 1 or max(xs) >= w - 1 or max(ys) >= h - 1:
                    return None
                tones = _whiteness_at(frame, xs, ys)
                face_t = float(np.median(tones[9:]))
                pip_t = float(np.median([tones[_GRID.index(q)] for q in places]))
                span = pip_t - face_t
                if span < 20:
                    return None
                rel = (tones[:9] - face_t) / span
                if spotted < COMPLETE_PIP:
                    rel = np.where([(u, v) in places and r >= spotted for (u, v), r in zip(_GRID, rel)], COMPLETE_PIP, rel)
                if np.any((rel > COMPLETE_HOLE) & (rel < COMPLETE_PIP)) or np.any(rel < -0.5):
                    # a place neither pip nor face, or off the shining top (its bevel, the felt): no
                    # read this way
                    continue
                pattern = frozenset(_GRID[i] for i in range(9) if rel[i] >= COMPLETE_PIP)
                if not places <= pattern:
                    continue
                value = next((n for n, ps in _PATTERNS.items() if pattern in ps), None)
                reads.append((value, o, s, pattern, [(z.real, z.imag) for z in uv]))
    found = [r for r in reads if r[0] is not None]
    if not found or any(r[0] != found[0][0] or abs(r[1] - found[0][1]) > 0.3 * a for r in found):
        return None  # no grid reads as a face, or two read differently: no guess
    value, o, s, pattern, uv = found[0]
    if value < 2:
        return None
    if len(c) >= 3:
        # how square the found pips' own grid is (an affine fit to their places): a top tilted far
        # is not. (Only a coarse guard: three pips' centres at the working scale fit exactly, their
        # errors all in it; a flat five of own seed 14,600,123 measured 0.925. The face's fit is
        # the square grid's, and the tilt model and fine_aniso judge its lean.)
        M = np.array([[round(u), round(v), 1.0] for u, v in uv])
        if np.linalg.matrix_rank(M) == 3:
            sol = np.linalg.lstsq(M, np.array([[q.x, q.y] for q in c]), rcond=None)[0]
            sv = np.linalg.svd(sol[:2], compute_uv=False)
            if sv[1] < 0.8 * sv[0]:
                return None
    f = _grid_face(value, pattern, o, s, float(np.median([q.r for q in c])))
    if not _face_ok(f, k, frame, gray, body, k * a_px):
        return None
    return f


def _grid_face(value: int, pattern: frozenset, o: complex, s: complex, r: float) -> Face:
    """The face of `value` (2-6) whose pips sit at the grid places `pattern` of the grid centred at
    `o` with step `s` (a complex number: size and turn; working coordinates), pips of radius `r`:
    the layout's fit (a similarity: the grid is square), no pips of det's."""
    for cq, sq in ((1, 0), (0, 1), (-1, 0), (0, -1)):
        if frozenset((round(x * cq - y * sq), round(x * sq + y * cq)) for x, y in LAYOUTS[value]) == pattern:
            break
    turned = s * complex(cq, sq)
    fit = Fit(value, o.real, o.imag, (turned.real, -turned.imag, turned.imag, turned.real), 0.0, 1.0)
    return Face(value, o.real, o.imag, fit.a, fit.angle, r, False, 0.0, (), fit)


def _completed_sub(c: list[Pip], det: Detection, k: float, a: float, frame: np.ndarray, gray: np.ndarray,
                  body: tuple[np.ndarray, float] | None, a_px: float, spotted: float = COMPLETE_PIP) -> Face | None:
    """A face read (_completed) from some of 3 to 5 light spots `c` that do not read all together
    (a bevel's glint beside a die's pips): every subset of two or more that reads must read the same
    face (value and middle), or no guess."""
    if not 3 <= len(c) <= 5:
        return None
    reads = [g for m in range(len(c) - 1, 1, -1) for sub in itertools.combinations(c, m)
             if (g := _completed(list(sub), det, k, a, frame, gray, body, a_px, spotted)) is not None]
    if reads and all(g.value == reads[0].value and math.hypot(g.cx - reads[0].cx, g.cy - reads[0].cy) < 0.3 * a
                     for g in reads):
        return reads[0]
    return None


#: _unread_spots: the least light-spot response of the second search (T_SPOT for detect's)
T_UNREAD = 20.0
#: ... and a grid place holding one of its spots is a pip from this share of _completed's step (over
#: COMPLETE_HOLE: a place is still either a pip or a hole)
UNREAD_SPOTTED = 0.3
#: ... and its spots' largest radius, in corner offsets
UNREAD_MAX_R = 0.7
#: ... and of how many spots that make no face one may be read as a faint one (_faint_one; the others a
#: glossy black top's glints where it meets the bevel: at a one's four corners, 1.4-1.6 corner offsets
#: from its pip, as own seeds 29,000,067 and 29,000,651 by the tray's wall)
FAINT_AMONG = 5


def _unread_spots(frame: np.ndarray, det: Detection, k: float, a: float, rois: list | None,
                  changed: np.ndarray | None, kept: list[Face], clusters: list[list[Pip]],
                  around: list[Pip] | None = None) -> list[list[Pip]]:
    """Light spots (working coordinates) that detect's search did not find or no face took, found
    again with no plain ring asked and from T_UNREAD up, in the search boxes and where the frame
    differs from the empty tray, away from every kept face (its top and the side faces it may show
    within 3.2 corner offsets: _kept_own) and loose pip (3.0),
    grouped as loose pips are (3.0 corner offsets). Round spots of a pip's size only, as detect's (up to
    UNREAD_MAX_R: a glossy pip's lit dimple blurs wide). With `around` (a cluster of loose pips, not
    among `clusters`): only the spots within 3.0 corner offsets of its pips."""
    if frame.ndim != 3:
        return []
    H, W = frame.shape[:2]
    nadir = ((W - 1) / 2.0 * k, (H - 1) / 2.0 * k)  # the camera's nadir (vision.tilt's), working coordinates
    found: list[Pip] = []
    for x0, y0, x1, y1 in (rois if rois is not None else [(0, 0, W, H)]):
        X0, Y0 = int(x0 * k), int(y0 * k)
        X1, Y1 = int(math.ceil(x1 * k)), int(math.ceil(y1 * k))
        if X1 - X0 < 8 or Y1 - Y0 < 8:
            continue
        crop = frame[int(Y0 / k):min(H, int(math.ceil(Y1 / k))), int(X0 / k):min(W, int(math.ceil(X1 / k)))]
        work = cv2.resize(crop, (X1 - X0, Y1 - Y0), interpolation=cv2.INTER_AREA if k < 1 else cv2.INTER_LINEAR)
        _, l = spots_response(None, whiteness(work), a)
        where = None
        if changed is not None:
            ch, cw = changed.shape
            sx, sy = cw / (W * k), ch / (H * k)
            sub = changed[int(Y0 * sy):max(int(Y0 * sy) + 1, int(math.ceil(Y1 * sy))),
                          int(X0 * sx):max(int(X0 * sx) + 1, int(math.ceil(X1 * sx)))]
            where = cv2.resize(sub.astype(np.uint8), (X1 - X0, Y1 - Y0), interpolation=cv2.INTER_NEAREST) > 0
        for q in spots_at(l, False, 0.38 * a, T_UNREAD, where):
            q = replace(q, x=q.x + X0, y=q.y + Y0)
            if q.elong < 0.5 or q.round < 0.6 or q.r < 0.12 * a or q.r >= UNREAD_MAX_R * a:
                continue
            if any(_kept_own(q, f, a, nadir) for f in kept) or any(
                    math.hypot(q.x - p.x, q.y - p.y) < 3.0 * a for c in clusters for p in c):
                continue
            if around is not None and not any(math.hypot(q.x - p.x, q.y - p.y) < 3.0 * a for p in around):
                continue
            if any(math.hypot(q.x - p.x, q.y - p.y) < 0.5 * a for p in found):
                continue
            found.append(q)
    groups: list[list[Pip]] = []
    for q in found:
        near = [c for c in groups if any(math.hypot(q.x - p.x, q.y - p.y) < 3.0 * a for p in c)]
        for c in near[1:]:
            near[0].extend(c)
            groups.remove(c)
        if near:
            near[0].append(q)
        else:
            groups.append([q])
    return groups


#: _kept_own: a kept face's own square, in its template coordinates (corner pips at +-1): its die
#: (half side DIE_OVER_A / 2 = 1.95) with its bevel's glints and edge shadow (own seed 13,000,051: a
#: two's at 2.5-2.64), short of the nearest pip of a flat die touching that side (1.95 + 0.95)
KEPT_SQUARE = 2.9


def _kept_own(q: Pip, f: Face, a: float, nadir: tuple[float, float]) -> bool:
    """May spot `q` (working coordinates) be kept face `f`'s own: within 3.2 corner offsets of its
    middle, and (for a face of 2-6, whose square's yaw is known) on its die (KEPT_SQUARE) or
    beyond a side of it that faces the camera's nadir (a flat die shows only those side faces, a
    sliver beside its top). A spot beyond a side turned away from the nadir is another die's (own
    mirror seed 22,001,643: a glossy black three's corner pip 3.2 corner offsets from the middle of
    the white four it touches, 3.15 beyond its side)."""
    if math.hypot(q.x - f.cx, q.y - f.cy) >= 3.2 * a:
        return False
    if f.value < 2:
        return True  # a one's yaw is unknown
    u, v = f.fit.to_face(q.x, q.y)
    if max(abs(u), abs(v)) < KEPT_SQUARE:
        return True
    nu, nv = f.fit.to_face(*nadir)
    return (abs(u) >= KEPT_SQUARE and u * nu > 0) or (abs(v) >= KEPT_SQUARE and v * nv > 0)


#: _faint_one: each of the eight other places of the 3x3 grid around a faint one-pip shows at most
#: this share of the way from the face's tone to the pip's (a three's or five's faint corner pips
#: stand 30-60 grey levels over a glossy black die's grey top, about as much as its middle pip)
FAINT_HOLES = 0.35
#: ... and its flat top's half side is at least this many corner offsets (_square_yaw): a glossy black
#: die's grey-shining top ends at 1.45-1.55 (its bevel is wide and dark), under _square_top's 1.55
FAINT_SQUARE = 1.4


def _faint_one(s: Pip, det: Detection, kept: list[Face], k: float, a: float, frame: np.ndarray, gray: np.ndarray,
               body: tuple[np.ndarray, float] | None, a_px: float, fainter: float = 0.0) -> Face | None:
    """A one made of a faint light spot (working coordinates) that spots_at refused only as a little
    squashed (pips.SQUASHED_MIN to EVEN_ELONG: a glossy black die's lit dimple, a crescent at the
    working scale), when the frame is a die short. It must be alone (no face within 3.2 corner
    offsets, no other spot within 2.2), pass a one's face checks (_face_ok), sit in the middle of a
    flat square top of a die's size (_square_top) and leave the grid's eight other places of that
    square's yaw in the face's tone (FAINT_HOLES: a three or five whose faint corners were missed
    is no one). A side face's pip is foreshortened: no square top around it. `fainter`: `s` is one of
    det.pips (a loose pip), and spots near it standing out less than this share of its contrast do not
    count (the grid's places are measured)."""
    if any(math.hypot(f.cx - s.x, f.cy - s.y) < 3.2 * a for f in kept):
        return None
    if any(p is not s and math.hypot(p.x - s.x, p.y - s.y) < 2.2 * a and p.contrast >= fainter * s.contrast
           for p in det.pips):
        return None
    j = next((i for i, p in enumerate(det.pips) if p is s), len(det.pips))
    f = Face(1, s.x, s.y, a, 0.0, s.r, False, 0.0, (j,), single(s.x, s.y, a))
    if not _face_ok(f, k, frame, gray, body, k * a_px):
        return None
    x, y, ak = s.x / k, s.y / k, a / k
    yaw = _square_yaw(gray, x, y, ak, s.r / k, FAINT_SQUARE)
    if yaw is None or frame.ndim != 3:
        return None
    tones = _grid_whiteness(frame, x, y, ak, yaw, [(0.0, 0.0), (0.5, 0.5), (-0.5, 0.5), (0.5, -0.5), (-0.5, -0.5)] + [
        (float(u), float(v)) for u in (-1, 0, 1) for v in (-1, 0, 1) if u or v])
    if tones is None:
        return None
    pip_t, face_t = float(tones[0]), float(np.median(tones[1:5]))
    span = pip_t - face_t
    if span < 20:
        return None
    if any((t - face_t) / span >= FAINT_HOLES for t in tones[5:]):
        return None
    return f


def _top_face(c: list[Pip], det: Detection, kept: list[Face], k: float, a: float, frame: np.ndarray,
              gray: np.ndarray, body: tuple[np.ndarray, float] | None, a_px: float) -> Face | None:
    """The face of a glossy black die read from its top first: light spots `c` (working coordinates)
    that make no face from their own places (a grey-shining top's four corners answer the spot
    search more strongly than its faint pips: own seeds 35,000,780, 22,000,075) lie on a flat top
    whose middle the top's own edges give (_square_centre, from the spots' mean), with a flat
    square's yaw (_square_yaw, FAINT_SQUARE); the nine places of its 3x3 grid, measured in the
    frame's whiteness against the top's tone (the four places between the middle and the corners),
    must make a face's layout: a pip from COMPLETE_PIP of the brightest place's height over the
    tone (at least 20 grey levels), a hole under FAINT_HOLES. No face is within 3.2 corner offsets.
    Then a face's checks (_face_ok). None otherwise."""
    if frame.ndim != 3 or not c:
        return None
    r = float(np.median([q.r for q in c]))
    seeds = [(float(np.mean([q.x for q in c])), float(np.mean([q.y for q in c])))] + \
        ([(q.x, q.y) for q in c] if len(c) > 1 else [])
    found = [f for sx, sy in seeds if (f := _top_face_at(sx / k, sy / k, r, kept, k, a, frame, gray, body, a_px))]
    # every seed that reads must read the same face (its value, its middle within 0.3 a), or no guess
    if not found or any(f.value != found[0].value or math.hypot(f.cx - found[0].cx, f.cy - found[0].cy) > 0.3 * a
                        for f in found):
        return None
    return found[0]


def _top_face_at(x0: float, y0: float, r: float, kept: list[Face], k: float, a: float, frame: np.ndarray,
                 gray: np.ndarray, body: tuple[np.ndarray, float] | None, a_px: float) -> Face | None:
    """_top_face from one seed (x0, y0) (frame pixels); `r` the spots' radius (working pixels). The
    top's edges are looked for where it ends darker (a grey-shining top in its black bevel: its
    light pips do not end it), else where it ends either way (a black top on lighter felt)."""
    ak, rk = a / k, r / k
    for darker in (True, False):
        mid = _square_centre(gray, x0, y0, ak, rk, darker)
        if mid is None:
            continue
        x, y = mid
        yaw = _square_yaw(gray, x, y, ak, rk, FAINT_SQUARE, darker)
        if yaw is not None:
            break
    else:
        return None
    if any(math.hypot(f.cx / k - x, f.cy / k - y) < 3.2 * ak for f in kept):
        return None
    tones = _grid_whiteness(frame, x, y, ak, yaw, _GRID + [(0.5, 0.5), (-0.5, 0.5), (0.5, -0.5), (-0.5, -0.5)])
    if tones is None:
        return None
    face_t = float(np.median(tones[9:]))
    span = float(tones[:9].max()) - face_t
    if span < 20:
        return None
    rel = (tones[:9] - face_t) / span
    if np.any((rel >= FAINT_HOLES) & (rel < COMPLETE_PIP)) or np.any(rel < -0.5):
        return None  # a place neither pip nor face, or off the shining top
    pattern = frozenset(_GRID[i] for i in range(9) if rel[i] >= COMPLETE_PIP)
    value = next((n for n, ps in _PATTERNS.items() if pattern in ps), None)
    if value is None:
        return None
    # (working coordinates)
    f = Face(1, x * k, y * k, a, 0.0, r, False, 0.0, (), single(x * k, y * k, a)) if value == 1 else \
        _grid_face(value, pattern, complex(x * k, y * k), a * complex(math.cos(yaw), math.sin(yaw)), r)
    if not _face_ok(f, k, frame, gray, body, k * a_px):
        return None
    return f


def _face_ok(f: Face, k: float, frame: np.ndarray, gray: np.ndarray, body: tuple[np.ndarray, float] | None,
             a: float, tops: dict[tuple, str | None] | None = None) -> bool:
    """Is face `f` (working coordinates, working copy = frame * k; `a` the corner offset there) a die's
    top face as seen? Every check is one that a group of real pips can fail where its die is not
    what the pips suggest; group() asks it of each face it would take, so a face that fails leaves
    its pips to the next candidate (a touching die's pip paired with this die's). `tops` keeps what
    _top_seen said of each face asked (by _top_key: all it looks at)."""
    x, y = f.cx / k, f.cy / k
    top = _top_seen(f, k, gray, body, a)
    if tops is not None:
        tops[_top_key(f)] = top
    if top is None:
        return False
    if f.value == 2 and top != "fine" and body is not None and _off_centre(body, x, y, a / k) > TWO_OFF_CENTRE * a / k \
            and not _square_top(gray, x, y, a / k, f.r / k) and not _square_fine(gray, f, k, a):
        # a two's middle is its die's: not a one-pip paired with a spot on the bevel. Unless it is the
        # middle of a flat square top (_square_top, or measured finer in the pips' yaw: _square_fine):
        # a black die on dark felt, whose shadow the body map takes for die, puts the body's middle
        # aside (such a two is tilt-gated as inferred)
        return False
    if f.value == 2 and f.a < ONE_IN_TWO * a and _one_in_two(f, k, frame, gray, a):
        return False  # a one-pip paired with a pip of a side face beside it: the one comes next
    if f.value == 1 and not _lone_pip(frame, x, y, a / k, f.r / k, f.dark, gray):
        return False  # a corner pip of a two (or five, six) whose other pips were missed: no one
    if f.value >= 2 and not _holes_plain(frame, f, k, gray):
        return False  # a pip where the layout has none (a five read as a four): no face
    return True


def _top_key(f: Face) -> tuple:
    """All of face `f` that _top_seen looks at (within one frame's read)."""
    return f.value, f.cx, f.cy, f.r, f.fit.A, f.fit.cx, f.fit.cy


def _top_seen(f: Face, k: float, gray: np.ndarray, body: tuple[np.ndarray, float] | None, a: float) -> str | None:
    """What shows that face `f` (working coordinates; `a` the corner offset there) lies on a die's top:
    "body" (the body map, or none to ask), "square" (its own flat top around a one's pip: _square_top),
    "fine" (its flat top measured finer: _square_fine; the face is then read from weak evidence, and
    the reader takes it as inferred, tilt-gated) or None (nothing: no face)."""
    x, y = f.cx / k, f.cy / k
    # pips on bare felt (a pattern, a speck) have no die under them (a black die on black felt shows
    # only by its bevels and shadow, around its top face)
    on_die = body is None or _has_body(body, x, y, 1.1 * a / k) or _has_body(body, x, y, 2.0 * a / k, share=0.25)
    if f.value == 1 and body is not None and not (on_die and _one_centred(body, x, y, a / k, gray.shape)):
        # a lone spot not in the middle of a die (a pip on a side face, a speck), or on bare felt;
        # unless its own flat top shows around it: a black die on black felt hardly differs from
        # the empty tray, and the body map misses it or puts its middle aside
        if _square_top(gray, x, y, a / k, f.r / k):
            return "square"
        return "fine" if _square_fine(gray, f, k, a) else None
    if not on_die:
        # a face of two to six pips on no body: a black die on black felt, when its flat top shows
        # around the pips, in the square the pips' own yaw gives
        return "fine" if _square_fine(gray, f, k, a) else None
    return "body"


#: _face_ok: a two's middle at most this many corner offsets from its die body's (_off_centre), or in
#: the middle of a flat square top (_square_top)
TWO_OFF_CENTRE = 0.8


#: a two up to this share of a flat die's spacing (its `f.a` over the corner offset) may be a one's
#: pip paired with a pip of a side face that perspective shows beside it (_one_in_two), and the tilt
#: model, centred between them, calls the "two" cocked: the pair stands 2.3-2.6 corner offsets apart
#: (0.82-0.92 of a two's diagonal: own seeds 3,000,130 and 3,000,691, flat ones read as cocked twos),
#: or, by the frame's edge where the side face shows deep, a whole diagonal (own mirror seed
#: 22,001,096: a green one at 1.02; the limit was 0.95). A flat two's corner pips have no square top
#: around them, so checking every two up to 1.2 changed nothing else on the 2,000 mirror scenes.
ONE_IN_TWO = 1.2


def _one_in_two(f: Face, k: float, frame: np.ndarray, gray: np.ndarray, a: float) -> bool:
    """Is one of a two's pips a one's pip: in the middle of a plain top face (_lone_pip) of a flat
    die's size and shape (_square_yaw, from FAINT_SQUARE: a die with a wide bevel, whose even top
    ends at 1.45-1.55 corner offsets, own seed 40,000,581's yellow one paired with a dark spot on
    its bevel)? A flat two's corner pips are neither (the face ends 0.75 a from them on two sides);
    a one's pip paired with a side face's pip beside it is both."""
    for u in (-1.0, 1.0):
        px, py = f.fit.to_image(u, u)
        x, y, ak, rk = px / k, py / k, a / k, f.r / k
        if _lone_pip(frame, x, y, ak, rk, f.dark, gray) and _square_yaw(gray, x, y, ak, rk, FAINT_SQUARE) is not None:
            return True
    return False


_RING24 = np.linspace(0, 2 * math.pi, 24, endpoint=False)
_RING24_COS, _RING24_SIN = np.cos(_RING24), np.sin(_RING24)


#: a four to six the tilt model scores at least FINE_GATE is cocked when its pips, measured at the
#: frame's own resolution (fine_aniso), are less square than FINE_SQUARE, or FINE_SQUARE_SMALL where
#: the face's corner offset is under FINE_MIN_A frame pixels (a 640 px frame: pips measure coarser).
#: A cocked die leans 16 degrees or more (cos 16 = 0.96), a flat one under 2.5; the working copy's
#: pip centres (corner offset 8 px) are too coarse for that (flat fives down to 0.942 there, sixes
#: 0.91), while on 1,701 own-seed scenes (prefixes 0, 1, 3; 10,690 faces) flat fours to sixes measure
#: 0.977 or more at a >= 11 px (2,557 faces; 0.908-0.96 at the lowest under it). The gate (flat ones
#: score ~0: 34 of the 5,086 flat fours to sixes score 0.01 or more, the lowest of them measuring 0.972;
#: the cocked ones the tilt model missed score 0.095-0.15) makes it an AND of two independent looks.
#: It caught 3 of the 5 cocked dice read as flat in those scenes (a six 0.956, fives 0.945 and 0.964,
#: all at 1280 px, scored 0.10-0.15) and called no flat die cocked.
#: FINE_SQUARE_SMALL was 0.95 until own seed 35,000,769, a flat green six at 640 px touching a green
#: two, scored 0.01 or more and measured 0.934. With the tilt model of now, on the reader's faces of
#: 4,353 own scenes (the clean and cocked ones of seeds 22,000,000 up 2,000, 24,000,000 up 600,
#: 27,000,000 up 800, 28,000,000 up 800, 25,000,000 up 600 cocked, 25,100,000 up 600 clean) the cocked
#: fours to sixes this rule catches at 640 px measure 0.795-0.904 (7 dice), and no flat one is gated
#: under 0.95: 0.92 lies between.
FINE_GATE = 0.01
FINE_SQUARE = 0.97
FINE_SQUARE_SMALL = 0.92
FINE_MIN_A = 11.0


def fine_aniso(frame: np.ndarray, f: Face, k: float, gray: np.ndarray | None = None, rad: float = 0.5,
               level: float = 0.2) -> float | None:
    """How square face `f` (a four to six; working coordinates, working copy = frame * k) is, measured
    at the frame's own resolution (fine_centres): the smaller over the larger singular value of the
    layout's affine fit to its pips' centres. None when a pip's disc leaves the frame or shows no pip."""
    xy = fine_centres(frame, f, k, gray, rad, level)
    if xy is None:
        return None
    sv = np.linalg.svd((_LAYOUT_PINV[f.value] @ xy)[:2], compute_uv=False)
    return float(sv[1] / sv[0])


#: a two or a three the tilt model scores at least FINE_GATE is cocked when its pips, measured at
#: the frame's own resolution, stand closer than FINE_SHRUNK of the other dice's (fine_spacing), or
#: FINE_SHRUNK_SMALL where the face's corner offset is under FINE_MIN_A frame pixels (a 640 px frame):
#: a tilted face, or a one's pip paired with a pip of the side face a cocked die shows beside it. The
#: reader's SHRUNK cut (tilt.SHRUNK) measures the working copy's spacing against the calibrated size,
#: which misses by a few per cent both ways (own-seed 81107 and 60021, such a one-and-side-pip read
#: as a flat two at 0.920 and 0.930, scored 0.13 and 0.06). At full resolution the spacing against
#: the frame's other faces of the same pip kind is tight: on 1,700 own-seed scenes (prefixes 0, 1, 3)
#: 3,453 flat twos and threes read measure 0.961-1.26 (median 0.999): the 1,740 at a >= 11 px 0.986 or
#: more, the 1,713 under it 0.961 or more (18 under 0.98); the 27 of them scoring FINE_GATE or more
#: 0.993 or more (the gate makes it an AND of two looks, as for fine_aniso). 81107 and 60021 (640 px)
#: measure 0.931 and 0.952, and hold-out 81018 (a three leaning 17 degrees at 1280 px, scored 0.09,
#: read as flat at 0.983 on the working copy) 0.973.
FINE_SHRUNK = 0.98
FINE_SHRUNK_SMALL = 0.965


def fine_scale(frame: np.ndarray, f: Face, k: float, gray: np.ndarray | None = None) -> float | None:
    """Face `f`'s corner offset (frame pixels) measured at the frame's own resolution (fine_centres):
    a two's or a three's corner pips' distance over 2 sqrt 2; the larger singular value of a four's
    to six's affine fit (a tilt only shortens the other). None for a one, or when it cannot measure."""
    if f.value < 2:
        return None
    xy = fine_centres(frame, f, k, gray)
    if xy is None:
        return None
    if f.value <= 3:
        return float(math.hypot(*(xy[-1] - xy[0]))) / (2.0 * math.sqrt(2.0))
    return float(np.linalg.svd((_LAYOUT_PINV[f.value] @ xy)[:2], compute_uv=False)[0])


def fine_spacing(frame: np.ndarray, f: Face, k: float, gray: np.ndarray | None, faces: list[Face],
                 scales: dict[int, float | None] | None = None, any_kind: bool = False) -> float | None:
    """Face `f`'s fine_scale over the median of the other `faces`' with pips of its kind (dark or
    light: the centroids of light pips sit a few per cent off those of dark ones; with `any_kind`
    all of them: at full resolution light pips' centroids sit under 1% off, and a die of light pips
    may be the only one); None when it or none of them measures. `scales` keeps the measures by the
    faces' id for another call. (Each measure costs about 0.3-0.5 ms: the other faces are measured
    only for a die in doubt.)"""
    scales = {} if scales is None else scales
    def scale(g: Face) -> float | None:
        if id(g) not in scales:
            scales[id(g)] = fine_scale(frame, g, k, gray)
        return scales[id(g)]
    own = scale(f)
    if own is None:
        return None
    others = [s for g in faces if g is not f and (any_kind or g.dark == f.dark) and (s := scale(g)) is not None]
    return own / float(np.median(others)) if others else None


def fine_centres(frame: np.ndarray, f: Face, k: float, gray: np.ndarray | None = None, rad: float = 0.5,
                 level: float = 0.2) -> np.ndarray | None:
    """The centres of face `f`'s pips (in the order of its layout, frame pixels; working coordinates,
    working copy = frame * k), found again at the frame's own resolution: each as the centroid of its
    pip channel (grey for dark pips, whiteness for light) over `level` of the way from the face's tone
    (the median of a ring at 0.8-1.0 of the disc) to the pip's peak, in a disc of `rad` corner offsets
    around it (twice, re-centred). None when a pip's disc leaves the frame or shows no pip."""
    a = f.a / k
    R = max(2.0, rad * a)
    m = int(math.ceil(R)) + 1
    xy = (_LAYOUT_MAP[f.value] @ np.array(f.fit.A).reshape(2, 2).T + (f.fit.cx, f.fit.cy)) / k
    h, w = frame.shape[:2]
    X0, Y0 = int(math.floor(xy[:, 0].min())) - 2 * m, int(math.floor(xy[:, 1].min())) - 2 * m
    X1, Y1 = int(math.ceil(xy[:, 0].max())) + 2 * m + 1, int(math.ceil(xy[:, 1].max())) + 2 * m + 1
    if X0 < 0 or Y0 < 0 or X1 > w or Y1 > h:
        return None
    if f.dark:
        g = gray[Y0:Y1, X0:X1] if gray is not None else grey(frame[Y0:Y1, X0:X1])
        ch = 255.0 - g.astype(np.float32)
    else:
        ch = (whiteness(frame[Y0:Y1, X0:X1]) if frame.ndim == 3 else frame[Y0:Y1, X0:X1]).astype(np.float32)
    off = np.arange(-m, m + 1)
    xy = xy - (X0, Y0)
    for _ in range(2):
        ixy = np.round(xy).astype(np.int64)
        win = ch[ixy[:, 1, None, None] + off[None, :, None], ixy[:, 0, None, None] + off[None, None, :]]  # (n, s, s)
        dx = off[None, None, :] + (ixy[:, 0] - xy[:, 0])[:, None, None]
        dy = off[None, :, None] + (ixy[:, 1] - xy[:, 1])[:, None, None]
        d2 = dx * dx + dy * dy
        disc = d2 <= R * R
        inring = (disc & (d2 >= 0.64 * R * R)).reshape(len(xy), -1)
        ring = np.sort(np.where(inring, win.reshape(len(xy), -1), np.inf), axis=1)  # (the ring's values first)
        cnt = np.count_nonzero(inring, axis=1)
        rows = np.arange(len(xy))
        base = (0.5 * (ring[rows, (cnt - 1) // 2] + ring[rows, cnt // 2]))[:, None, None]  # the ring's median
        top = np.where(disc, win, -np.inf).max(axis=(1, 2))[:, None, None]
        wgt = np.where(disc, np.maximum(win - (base + level * (top - base)), 0.0), 0.0)
        tot = wgt.sum(axis=(1, 2))
        if not np.all(tot > 0):
            return None
        xy = np.stack([(wgt * dx).sum(axis=(1, 2)) / tot + xy[:, 0], (wgt * dy).sum(axis=(1, 2)) / tot + xy[:, 1]], axis=1)
    return xy + (X0, Y0)


_LAYOUT_MAP = {n: LAYOUTS[n].astype(np.float64) for n in LAYOUTS}
# per layout: the pseudo-inverse of its template with a column of ones (affine least squares)
_LAYOUT_PINV = {n: np.linalg.pinv(np.hstack([LAYOUTS[n].astype(np.float64), np.ones((len(LAYOUTS[n]), 1))]))
                for n in LAYOUTS}


def _lone_pip(frame: np.ndarray, x: float, y: float, a: float, r: float, dark: bool,
              gray: np.ndarray | None = None) -> bool:
    """A one's pip sits in the middle of a plain top face: rings from just outside the pip to 1.4
    corner offsets (inside the flat top at any yaw) are one even tone. A two's corner pip is a corner
    offset from two edges, so those rings run off the die; a five's or six's hold other pips.
    (`gray`: the frame's grey, when made already.)"""
    h, w = frame.shape[:2]
    r0 = max(1.1 * a, 1.6 * r)
    r1 = max(1.4 * a, r0 + 0.3 * a)  # the flat top ends before 1.8 a where its edge is rounded
    m = int(math.ceil(r1)) + 2
    x0, y0, x1, y1 = int(x) - m, int(y) - m, int(x) + m + 1, int(y) + m + 1
    if x0 < 0 or y0 < 0 or x1 > w or y1 > h:
        return False
    patch = frame[y0:y1, x0:x1]
    cx, cy = x - x0, y - y0
    rad = np.linspace(r0, r1, 3)[:, None]
    xs = np.clip(np.round(cx + rad * _RING24_COS).astype(int), 0, patch.shape[1] - 1).ravel()
    ys = np.clip(np.round(cy + rad * _RING24_SIN).astype(int), 0, patch.shape[0] - 1).ravel()
    # the ring samples and the centre: only these pixels are converted (grey and whiteness are per pixel)
    py, px = np.append(ys, int(round(cy))), np.append(xs, int(round(cx)))
    picked = patch[py, px]
    if patch.ndim == 2:
        img = picked
    elif dark:
        img = gray[y0 + py, x0 + px] if gray is not None else cv2.cvtColor(picked[None], cv2.COLOR_BGR2GRAY)[0]
    else:
        img = whiteness(picked[None])[0]
    img = img.astype(np.float32)
    vals = img[:-1]
    # (np.median's values by one sort: the middle two of an even count of whole grey levels, whose
    # mean is exact in float32 as in np.median; a fifth of its time)
    lo, hi = vals.size // 2 - 1, vals.size // 2
    mid = np.sort(vals)
    med = float(mid[hi]) if vals.size % 2 else (float(mid[lo]) + float(mid[hi])) / 2
    contrast = abs(float(img[-1]) - med)
    # in colour: a blue die on red felt can be one tone in the grey or whiteness image
    cols = (picked if picked.ndim == 2 else picked[:, None]).astype(np.float32)[:-1]
    mid = np.sort(cols, axis=0)
    dev = np.abs(cols - (mid[hi] if len(cols) % 2 else (mid[lo] + mid[hi]) * np.float32(0.5))).max(axis=1)
    odd = np.count_nonzero(dev > 0.35 * contrast + 6)
    return odd <= 0.1 * vals.size


def _holes_plain(frame: np.ndarray, f: Face, k: float, gray: np.ndarray | None = None) -> bool:
    """Where the face's layout has no pip (of the 3x3 grid), the face shows its own tone, not a pip's:
    a five whose middle pip was missed is no four, a three no two. (`gray`: the frame's grey, when
    made already.)"""
    holes = _HOLES[f.value]
    if not holes:
        return True
    # the tone (median of 3x3 pixels, in the face's pip channel) at the pips, between them, at the holes
    a00, a01, a10, a11 = f.fit.A
    cx, cy = f.fit.cx, f.fit.cy
    uv = _HOLE_PLACES[f.value]
    xs = [int(round((cx + a00 * u + a01 * v) / k)) for u, v in uv]
    ys = [int(round((cy + a10 * u + a11 * v) / k)) for u, v in uv]
    h, w = frame.shape[:2]
    if min(xs) < 1 or min(ys) < 1 or max(xs) >= w - 1 or max(ys) >= h - 1:
        return False  # a place off the frame: no verdict on it
    py, px = np.array(ys)[:, None] + _NINE_DY, np.array(xs)[:, None] + _NINE_DX  # each place's 3x3 pixels
    if frame.ndim == 2:
        nine = frame[py, px]
    elif f.dark and gray is not None:
        nine = gray[py, px]
    else:  # (grey and whiteness are per pixel: only the places' pixels are converted)
        picked = frame[py, px]
        nine = cv2.cvtColor(picked, cv2.COLOR_BGR2GRAY) if f.dark else whiteness(picked)
    tones = np.partition(nine, 4, axis=1)[:, 4].astype(np.float64).tolist()
    n = len(LAYOUTS[f.value])
    pip_t, face_t = statistics.median(tones[:n]), statistics.median(tones[n:n + 4])
    span = pip_t - face_t
    if abs(span) < 8:
        return False  # no clear pips after all
    return all((t - face_t) / span < 0.45 for t in tones[n + 4:])


# per layout: the grid places without a pip; the places _holes_plain samples (pips, between them, holes)
_HOLES = {n: [(u, v) for u in (-1, 0, 1) for v in (-1, 0, 1) if (u, v) not in {(round(x), round(y)) for x, y in LAYOUTS[n]}]
          for n in LAYOUTS}
_HOLE_PLACES = {n: [tuple(map(float, p)) for p in LAYOUTS[n]] + [(0.5, 0.5), (-0.5, 0.5), (0.5, -0.5), (-0.5, -0.5)]
                + [(float(u), float(v)) for u, v in _HOLES[n]] for n in LAYOUTS}
_NINE_DY = np.array([[dy for dy in (-1, 0, 1) for dx in (-1, 0, 1)]])
_NINE_DX = np.array([[dx for dy in (-1, 0, 1) for dx in (-1, 0, 1)]])


def _whiteness_at(frame: np.ndarray, xs: list[int], ys: list[int]) -> np.ndarray:
    """The whiteness (light pips' channel) at each place (frame pixels, a pixel inside the frame's
    edge): the median of its 3x3 pixels, only those pixels converted (whiteness is per pixel)."""
    py, px = np.array(ys)[:, None] + _NINE_DY, np.array(xs)[:, None] + _NINE_DX
    return np.partition(whiteness(frame[py, px]), 4, axis=1)[:, 4].astype(np.float64)


def _grid_whiteness(frame: np.ndarray, x: float, y: float, a: float, yaw: float,
                    places: list[tuple[float, float]]) -> np.ndarray | None:
    """_whiteness_at the `places` (grid units: corner offsets `a`, frame pixels) of a face's grid
    centred at (x, y) and turned by `yaw`; None when one lies on the frame's edge."""
    c, sn = math.cos(yaw), math.sin(yaw)
    xs = [int(round(x + a * (c * u - sn * v))) for u, v in places]
    ys = [int(round(y + a * (sn * u + c * v))) for u, v in places]
    h, w = frame.shape[:2]
    if min(xs) < 1 or min(ys) < 1 or max(xs) >= w - 1 or max(ys) >= h - 1:
        return None
    return _whiteness_at(frame, xs, ys)


def _round_pip(det: "Detection", f: Face) -> bool:
    """The pip of a one is round, as a top face's pips are (a side face's are squashed)."""
    return det.pips[f.pips[0]].elong >= 0.75


def _strength(f: Face) -> float:
    """How sure a face is a top face: more pips, tighter fit, stronger pips."""
    return f.value + (1.0 - min(1.0, 4 * f.err))


def _rank(f: Face, a: float | None) -> tuple[float, float]:
    """Which of two faces closer than a die is the top face (the larger first): the stronger; of
    equally strong ones (two twos: two pips always fit a two exactly), with a known size `a` the one
    nearer a flat die's size (a light "two" of a white die's corners against its shadow is bigger).
    The strength is rounded: two exact fits differ in the last bits of a float."""
    return round(_strength(f), 6), -abs(f.a / a - 1.0) if a and f.value >= 2 else 0.0


LIGHT_SLACK = 0.05  # _off_tray: how much bigger a flat face of light pips may measure than one of dark


#: _off_tray: a die on the tray floor (inside its polygon) that the working copy measures raised is on
#: the rim only when its pips, measured at the frame's own resolution, stand at least this share of
#: the other dice's spacing too (fine_spacing, any pip kind; a die on the rim looks 3-11% bigger). On
#: the reader's faces of the 2,000 own mirror scenes (22,000,000 up) every die the working copy
#: measured grown by 2% or more inside the floor or up to 0.8 die out was a flat one (at full
#: resolution 0.981-1.029) or a cocked one's (1.034-1.108); no off-tray die lay there. Two flat threes
#: of light pips 0.38 and 0.43 die inside the floor, measured 1.11 grown on the working copy, were
#: called off the tray (own seeds 34,000,232 and 24,000,589: at full resolution 1.000 and 1.007)
RAISED_FINE = 1.03


def _off_tray(cal: "Calibration", x: float, y: float, die: float, grown: float | None = None,
              dark: bool = True, fine: Callable[[], float | None] | None = None) -> bool:
    """A die whose top face is centred at (x, y) lies off the tray floor (on the rim or the table)
    and not in the keep zone. `grown`: its face's size over a flat die's on the floor (None: not
    known, a one); `dark`: its pips are dark (light pips measure less steadily: LIGHT_SLACK);
    `fine`: its spacing measured at full resolution (fine_spacing; asked only for a die inside the
    floor that only its working-copy size calls raised: RAISED_FINE).

    The floor found in the empty frame can stop short of a wall in its shadow (a dark
    felt), so a die half a die to 0.8 die outside it is off the tray only when it does not
    look lower than a die on the floor (one on the rim looks 3-11% bigger, one on the table
    the same); a die farther out is off anyway (on 150 off-tray scenes of our own seeds,
    3,500,000 up, no flat die lay more than 0.3 die outside the floor, and two off-tray dice
    0.97 die out, grown 1.016-1.018, were read ok under the old 1.0 die cut; with earlier floor
    finders, bench scenes had flat dice up to 1.4, then 0.73 die out).
    A die clearly raised within half a die inside the floor's edge is on the rim: the floor
    polygon took in part of the rim (no off-tray die of those scenes needed this, and it
    refuses a few flat dice against a wall whose pips sit wide; kept, as the floor takes in
    rim on about 2% of trays). A doubt is a reroll, never a silent score.
    Light pips' spacing is measured less steadily than dark ones': on 1,900 faces of flat dice in
    own-seed scenes (3,000,000 up), dark faces read at most 1.025 of the calibrated size, light
    ones up to 1.09 (99% under 1.045; on the bench, flat light faces against a wall up to 1.084,
    which the raised rule refused). Every size cut is LIGHT_SLACK higher for them; the dice on the
    rim or table of those scenes (1.05 median, up to 1.125) all lay 0.82 die or more outside."""
    d = tray.distance(cal.floor, x, y)
    g = None if grown is None else grown - (0.0 if dark else LIGHT_SLACK)
    raised = g is not None and g >= 1.05
    off = (d < -0.8 * die or (d < -0.5 * die and (g is None or g >= 1.02))
           or (d < -0.25 * die and g is not None and g >= 1.03))
    if not off and raised and d < 0.5 * die:
        # raised by its size alone: inside the floor only when full resolution says so too
        q = fine() if fine is not None and d >= 0.0 else None
        off = q is None or q >= RAISED_FINE
    if not off:
        return False
    return cal.keep_zone is None or tray.distance(cal.keep_zone, x, y) <= -0.2 * die


def _body_map(frame: np.ndarray, cal: "Calibration") -> tuple[np.ndarray, float] | None:
    """How far each pixel differs from the empty tray (small scale), and that scale; None without one."""
    kept = empty_blurred(cal)
    return None if kept is None else body_map(frame, kept[0], kept[1])


def empty_blurred(cal: "Calibration") -> tuple[np.ndarray, np.ndarray] | None:
    """The calibration's small empty tray and its blurred copy for body_map, made once per calibration
    (kept on it, like its decoded image; calibrate() makes it, so a first frame does not); None
    without one."""
    empty = cal.empty_image()
    if empty is None:
        return None
    kept = cal.__dict__.get("_empty_blurred")
    if kept is None or kept[0] is not empty:
        kept = (empty, cv2.GaussianBlur(empty, (3, 3), 0))
        object.__setattr__(cal, "_empty_blurred", kept)
    return kept


def body_map(frame: np.ndarray, empty_small: np.ndarray,
             empty_blurred: np.ndarray | None = None) -> tuple[np.ndarray, float] | None:
    """How far each pixel of `frame` differs from the small empty-tray image, at its scale; and that
    scale. (`empty_blurred`: the empty image's 3x3 Gaussian blur, when made already.)"""
    if frame.ndim != 3:
        return None
    small = _shrink(frame, empty_small.shape[1], empty_small.shape[0])
    if empty_blurred is None:
        empty_blurred = cv2.GaussianBlur(empty_small, (3, 3), 0)
    diff = brightest(cv2.absdiff(cv2.GaussianBlur(small, (3, 3), 0), empty_blurred))
    return diff, empty_small.shape[1] / frame.shape[1]


def _shrink(img: np.ndarray, w: int, h: int) -> np.ndarray:
    """`img` shrunk to w x h by area averaging. While it is still twice as big it is halved exactly
    (OpenCV halves in a fraction of the time a fractional or 4x area shrink takes), and the last
    step after a halving (under 2x) is bilinear."""
    halved = False
    while img.shape[1] >= 2 * w and img.shape[0] >= 2 * h:
        if img.shape[1] % 2 or img.shape[0] % 2:  # (a last odd row or column goes)
            img = img[:img.shape[0] // 2 * 2, :img.shape[1] // 2 * 2]
        img = cv2.resize(img, (img.shape[1] // 2, img.shape[0] // 2), interpolation=cv2.INTER_AREA)
        halved = True
    if img.shape[1] == w and img.shape[0] == h:
        return img
    if not halved and (img.shape[1] > w or img.shape[0] > h):
        # under 2x: bilinear to twice the size, then halved exactly (an area shrink by a fraction is
        # OpenCV's slow path: a 300 px crop 0.54 -> 0.1 ms)
        img = cv2.resize(img, (2 * w, 2 * h), interpolation=cv2.INTER_LINEAR)
        return cv2.resize(img, (w, h), interpolation=cv2.INTER_AREA)
    return cv2.resize(img, (w, h), interpolation=cv2.INTER_LINEAR if halved else cv2.INTER_AREA)


def search_area(body: tuple[np.ndarray, float] | None, a_px: float) -> tuple[list | None, np.ndarray | None]:
    """(rois, changed) for `detect` from a body map: where dice can be, for dice of offset `a_px`."""
    if body is None:
        return None, None
    changed = cv2.dilate((body[0] > 18).astype(np.uint8), np.ones((3, 3), np.uint8)) > 0
    return _rois(body, 4.0 * a_px), changed


def _rois(body: tuple[np.ndarray, float], die: float) -> list[tuple[int, int, int, int]]:
    """Boxes (frame pixels) around everything that is not the empty tray, a die's width to spare."""
    diff, s = body
    m = (diff > 18).astype(np.uint8)
    # (BBDT: the labels and stats of the default, Spaghetti, in a third of the time on this OpenCV)
    n, _, stats, _ = cv2.connectedComponentsWithStatsWithAlgorithm(m, 8, cv2.CV_32S, cv2.CCL_GRANA)
    pad = 0.7 * die * s
    big = stats[1:][stats[1:, cv2.CC_STAT_AREA] >= 0.08 * (die * s) ** 2].tolist()  # (specks of noise: many)
    boxes = [[x - pad, y - pad, x + w + pad, y + h + pad] for x, y, w, h, area in big]
    merged = True
    while merged:  # overlapping boxes become one
        merged = False
        for i in range(len(boxes)):
            for j in range(i + 1, len(boxes)):
                A, B = boxes[i], boxes[j]
                if A[0] <= B[2] and B[0] <= A[2] and A[1] <= B[3] and B[1] <= A[3]:
                    boxes[i] = [min(A[0], B[0]), min(A[1], B[1]), max(A[2], B[2]), max(A[3], B[3])]
                    del boxes[j]
                    merged = True
                    break
            if merged:
                break
    h, w = diff.shape
    return [(max(0, int(b[0] / s)), max(0, int(b[1] / s)), int(math.ceil(min(w, b[2]) / s)), int(math.ceil(min(h, b[3]) / s)))
            for b in boxes]


def _has_body(body: tuple[np.ndarray, float], x: float, y: float, radius: float, share: float = 0.5) -> bool:
    """A die lies at (x, y): the frame differs from the empty tray over more than `share` of a disc there."""
    diff, s = body
    h, w = diff.shape
    cx, cy, r = x * s, y * s, max(1.5, radius * s)
    x0, x1 = max(0, int(cx - r)), min(w, int(cx + r) + 1)
    y0, y1 = max(0, int(cy - r)), min(h, int(cy + r) + 1)
    if x1 <= x0 or y1 <= y0:
        return False
    inside = (np.arange(x0, x1)[None, :] - cx) ** 2 + (np.arange(y0, y1)[:, None] - cy) ** 2 <= r * r
    vals = diff[y0:y1, x0:x1][inside]
    return vals.size > 0 and np.count_nonzero(vals > 18) > share * vals.size


SQUARE_RAYS = 12  # of _square_top's 16 rays, how many must end where the square does
_RAYS = np.linspace(0, 2 * math.pi, 16, endpoint=False)
_RAY_COS, _RAY_SIN = np.cos(_RAYS), np.sin(_RAYS)
_YAWS = np.radians(np.arange(0, 90, 3))
# for each yaw (rows) and ray (columns): a unit square's edge distance along the ray, over its half side
_SQUARE = 1.0 / np.maximum(np.abs(np.cos(_RAYS[None, :] - _YAWS[:, None])), np.abs(np.sin(_RAYS[None, :] - _YAWS[:, None])))


def _square_top(gray: np.ndarray, x: float, y: float, a: float, r: float) -> bool:
    """Is (x, y) the middle of a flat top face of a die's size? (_square_yaw, see there)"""
    return _square_yaw(gray, x, y, a, r) is not None


def _square_yaw(gray: np.ndarray, x: float, y: float, a: float, r: float, least: float = 1.55,
                darker: bool = False) -> float | None:
    """Is (x, y) (frame pixels; `a` the corner offset, `r` the pip's radius there) the middle of a
    flat top face of a die's size? Along 16 rays from the pip the face's own even tone ends (at its
    bevel, its shadow or the felt) where a square of the flat top's size (half side 1.55-2.05 a),
    centred on the pip at some yaw, ends: SQUARE_RAYS of the 16 within 0.3 a of it. For a black die
    on black felt, where the frame hardly differs from the empty tray and the body map cannot place
    the die; a pip on a side face (foreshortened: no square) or off a face's middle, or a speck on
    bare felt (no edge), fails. The square's yaw (radians, 0 to 90 degrees), or None when it fails.
    `least`: the smallest half side, in corner offsets; `darker`: see _ray_ends."""
    d = _ray_ends(gray, x, y, a, r, darker)
    if d is None:
        return None
    found = np.isfinite(d)
    if found.sum() < SQUARE_RAYS:
        return None  # rays run on in the face's tone: bare felt, no die
    half = np.median(np.where(found, d, 3.0 * a)[None, :] / _SQUARE, axis=1)  # the square's half side, per yaw
    near = (np.abs(d[None, :] - half[:, None] * _SQUARE) <= 0.3 * a).sum(axis=1)
    best = int(near.argmax())
    return float(_YAWS[best]) if near[best] >= SQUARE_RAYS and least * a <= half[best] <= 2.05 * a else None


def _ray_ends(gray: np.ndarray, x: float, y: float, a: float, r: float, darker: bool = False) -> np.ndarray | None:
    """Along 16 rays from (x, y) (frame pixels; `a` the corner offset, `r` a pip's radius there), how
    far (frame pixels) the even tone around the pip (the top face's, sampled from 1.1 a or just past
    the pip) runs before it ends: two samples in a row off it (by 10 grey levels, or 4 times its
    noise); inf where it runs on to 2.9 a. None where the rays leave the frame. With `darker` only
    samples darker than the tone end it (a top shining brighter than its bevel: its light pips do
    not). (_square_yaw, _square_centre)"""
    h, w = gray.shape[:2]
    r0, r1 = max(1.1 * a, 1.6 * r), 2.9 * a
    m = int(math.ceil(r1)) + 2
    if x - m < 0 or y - m < 0 or x + m >= w or y + m >= h:
        return None
    steps = np.arange(r0, r1, 0.1 * a)
    xs = np.round(x + steps[None, :] * _RAY_COS[:, None]).astype(int)
    ys = np.round(y + steps[None, :] * _RAY_SIN[:, None]).astype(int)
    v = gray[ys, xs].astype(np.float32)  # rays x steps
    inner = v[:, :3]
    tone = float(np.median(inner))
    noise = float(np.median(np.abs(inner - tone)))
    off = (tone - v if darker else np.abs(v - tone)) > max(10.0, 4.0 * noise)
    edge = off[:, :-1] & off[:, 1:]  # two samples in a row: not noise
    return np.where(edge.any(axis=1), steps[edge.argmax(axis=1)], np.inf)


_PAIRS = np.stack([_RAY_COS[:8], _RAY_SIN[:8]], axis=1)  # the first ray of each opposite pair


def _square_centre(gray: np.ndarray, x: float, y: float, a: float, r: float,
                   darker: bool = False) -> tuple[float, float] | None:
    """The middle of the even top around (x, y) (frame pixels): each pair of opposite rays
    (_ray_ends) ends at a chord whose middle lies off (x, y) along them; the least-squares shift
    that explains those (at least 6 of the 8 pairs ending both ways), applied twice. None where the
    tone does not end (no top) or the frame's edge is near."""
    for _ in range(2):
        d = _ray_ends(gray, x, y, a, r, darker)
        if d is None:
            return None
        both = np.isfinite(d[:8]) & np.isfinite(d[8:])
        if both.sum() < 6:
            return None
        m = (d[:8][both] - d[8:][both]) / 2.0
        U = _PAIRS[both]
        s = np.linalg.lstsq(U, m, rcond=None)[0]
        x, y = x + float(s[0]), y + float(s[1])
    return x, y


#: _square_fine: _square_top's look, measured finer where a face lies on no die body (a black die on
#: black felt, where the frame hardly differs from the empty tray): SQUARE_FINE_RAYS rays at sub-pixel
#: places (bilinear), the square's middle up to SQUARE_FINE_SHIFT corner offsets from the face's (the
#: top's even tone ends at a dark bevel on one side and at a glint or the side face towards the nadir on
#: the other, and a pip's middle is found on the working copy, a corner offset of 8 px), rays past the
#: face's pips, and the same share of them as _square_top's (SQUARE_RAYS of 16). A face of two to six
#: pips: the square's yaw within SQUARE_FINE_YAW of the pips' own. Sixteen whole-pixel rays are coarse
#: where the bevels are faint: on own seeds 35,000,196 (a black one) and 22,000,800 (a black two), flat
#: on black felt, the count moves 11-13 of 16 as the middle moves 0.1 corner offsets (8-13 within 0.3),
#: and the middle the face gives counts 11; at 32 sub-pixel rays the best of the nine middles counts
#: 0.84 (the one) and 0.78 (the two, its own pips passed). A face taken so is inferred (tilt-gated:
#: FINE_GATE). On 1,000 own scenes with every die black on black felt (41,000,000 up, the bench's mix)
#: it read 50 clean scenes more (432 -> 482 of 548) and no cocked, off-tray or missing one ok (each
#: still a reroll; no die the truth calls cocked or off the tray read ok, no value wrong); on 600 on
#: dark green felt (42,000,000 up) no verdict changed (two rerolls' reasons did), and on the bench-like
#: own sets (22M, 24M, 27M, 28M, 34M, 35M) only those two clean scenes' verdicts did.
SQUARE_FINE_RAYS = 32
SQUARE_FINE_SHIFT = 0.1
SQUARE_FINE_YAW = math.radians(10.0)
_FINE_RAYS = np.linspace(0, 2 * math.pi, SQUARE_FINE_RAYS, endpoint=False)
_FINE_COS, _FINE_SIN = np.cos(_FINE_RAYS), np.sin(_FINE_RAYS)
_FINE_YAWS = np.radians(np.arange(0, 90, 1.5))
_FINE_SHIFTS = np.array([(dx, dy) for dy in (-1.0, 0.0, 1.0) for dx in (-1.0, 0.0, 1.0)])
_FINE_SQUARE = 1.0 / np.maximum(np.abs(np.cos(_FINE_RAYS[None, :] - _FINE_YAWS[:, None])),
                                np.abs(np.sin(_FINE_RAYS[None, :] - _FINE_YAWS[:, None])))


def _square_fine(gray: np.ndarray, f: Face, k: float, a: float) -> bool:
    """Is face `f` (working coordinates, `a` the corner offset there) the middle of a flat top face of a
    die's size, measured finer than _square_top (SQUARE_FINE_RAYS, see there)? Along each ray the
    face's own pips are passed (a ray within a pip's radius and 0.3 corner offsets of one of the
    layout's places looks for the edge only beyond it); the square's half side is 1.55-2.05 corner
    offsets, as _square_top's."""
    x, y, ak, r = f.cx / k, f.cy / k, a / k, f.r / k
    h, w = gray.shape[:2]
    r0, r1 = max(1.1 * ak, 1.6 * r), 2.9 * ak
    m = int(math.ceil(r1 + SQUARE_FINE_SHIFT * ak)) + 2
    if x - m < 0 or y - m < 0 or x + m >= w or y + m >= h:
        return False
    x0, y0 = int(x) - m, int(y) - m
    patch = gray[y0:int(y) + m + 1, x0:int(x) + m + 1].astype(np.float32)
    steps = np.arange(r0, r1, 0.1 * ak)
    places = [] if f.value == 1 else [f.fit.to_image(float(u), float(v)) for u, v in LAYOUTS[f.value]]
    if f.value == 1:
        yaws = np.ones(len(_FINE_YAWS), bool)
    else:  # the pips' yaw: the face's first axis, a quarter turn either way the same square
        turn = (_FINE_YAWS - f.fit.angle) % (math.pi / 2)
        yaws = np.minimum(turn, math.pi / 2 - turn) <= SQUARE_FINE_YAW
    least = SQUARE_RAYS / len(_RAYS) * SQUARE_FINE_RAYS
    # the nine middles (the face's, and SQUARE_FINE_SHIFT aside) at once: middles x rays x steps
    cx = (x - x0 + _FINE_SHIFTS[:, 0] * SQUARE_FINE_SHIFT * ak)[:, None, None]
    cy = (y - y0 + _FINE_SHIFTS[:, 1] * SQUARE_FINE_SHIFT * ak)[:, None, None]
    xs = (cx + steps * _FINE_COS[:, None]).astype(np.float32)
    ys = (cy + steps * _FINE_SIN[:, None]).astype(np.float32)
    n, rays, length = xs.shape
    v = cv2.remap(patch, xs.reshape(n * rays, length), ys.reshape(n * rays, length),
                  cv2.INTER_LINEAR).reshape(n, rays, length)
    skip = np.zeros(v.shape, bool)
    for px, py in places:
        ddx, ddy = px / k - x0 - cx[:, :, 0], py / k - y0 - cy[:, :, 0]  # middles x 1
        along = ddx * _FINE_COS + ddy * _FINE_SIN  # middles x rays
        across = np.abs(ddy * _FINE_COS - ddx * _FINE_SIN)
        skip |= (across < r + 0.3 * ak)[:, :, None] & (steps < (along + r + 0.3 * ak)[:, :, None])
    tone, noise = np.empty(n), np.empty(n)
    for i in range(n):  # each middle's tone: its rays' first samples, off the pips
        inner = v[i, :, :3][~skip[i, :, :3]]
        if inner.size == 0:
            return False  # (every ray's start on a pip: no face's tone to measure)
        tone[i] = np.median(inner)
        noise[i] = np.median(np.abs(inner - tone[i]))
    off = (np.abs(v - tone[:, None, None]) > np.maximum(10.0, 4.0 * noise)[:, None, None]) & ~skip
    edge = off[:, :, :-1] & off[:, :, 1:]  # two samples in a row: not noise
    found = edge.any(axis=2)  # middles x rays
    d = np.where(found, steps[edge.argmax(axis=2)], np.inf)
    half = np.median(np.where(found, d, 3.0 * ak)[:, None, :] / _FINE_SQUARE, axis=2)  # middles x yaws
    near = (np.abs(d[:, None, :] - half[:, :, None] * _FINE_SQUARE) <= 0.3 * ak).sum(axis=2)
    fits = yaws & (near >= least) & (half >= 1.55 * ak) & (half <= 2.05 * ak)
    # (rays that run on in the face's tone: bare felt, no die)
    return bool(np.any(fits & (found.sum(axis=1) >= least)[:, None]))


#: _one_centred: a one's die body's middle lies at most ONE_OFF_CENTRE corner offsets from its pip; or,
#: towards the camera's nadir, up to ONE_TO_NADIR (an ellipse): where the body map misses part of the top
#: (a white die on a white table, a black one by a dark rim) the side face a flat die shows towards the
#: nadir, and its shadow, pull the middle that way (own seeds 22,001,395: 0.44 towards the nadir, 0.20
#: across; 25,100,246: 0.44 and 0.11)
ONE_OFF_CENTRE = 0.45
ONE_TO_NADIR = 0.7


def _one_centred(body: tuple[np.ndarray, float], x: float, y: float, a: float, shape: tuple[int, ...]) -> bool:
    """Is a one's pip at (x, y) (frame pixels, `a` the corner offset) in the middle of its die's body
    (ONE_OFF_CENTRE, ONE_TO_NADIR)? `shape`: the frame's (the nadir is taken at its middle)."""
    v = _off_centre_vec(body, x, y, a)
    if v is None:
        return False
    dx, dy = v[0] / a, v[1] / a
    if dx * dx + dy * dy <= ONE_OFF_CENTRE * ONE_OFF_CENTRE:
        return True
    nx, ny = (shape[1] - 1) / 2.0 - x, (shape[0] - 1) / 2.0 - y
    dn = math.hypot(nx, ny)
    if dn == 0.0:
        return False
    along, across = (dx * nx + dy * ny) / dn, (dy * nx - dx * ny) / dn
    return along > 0.0 and (along / ONE_TO_NADIR) ** 2 + (across / ONE_OFF_CENTRE) ** 2 <= 1.0


def _off_centre(body: tuple[np.ndarray, float], x: float, y: float, a: float) -> float:
    """How far (frame pixels) the middle of the die body around (x, y) lies from (x, y)."""
    v = _off_centre_vec(body, x, y, a)
    return float("inf") if v is None else math.hypot(*v)


def _off_centre_vec(body: tuple[np.ndarray, float], x: float, y: float, a: float) -> tuple[float, float] | None:
    """Where (frame pixels, from (x, y)) the middle of the die body around (x, y) lies; None if nowhere."""
    diff, s = body
    h, w = diff.shape
    cx, cy, r = x * s, y * s, max(2.0, 2.2 * a * s)
    x0, x1 = max(0, int(cx - r)), min(w, int(cx + r) + 1)
    y0, y1 = max(0, int(cy - r)), min(h, int(cy + r) + 1)
    m = (((np.arange(x0, x1)[None, :] - cx) ** 2 + (np.arange(y0, y1)[:, None] - cy) ** 2 <= r * r)
         & (diff[y0:y1, x0:x1] > 18))
    iy, ix = np.nonzero(m)  # (the pixels in raster order, as the grid's mask picked them)
    if len(ix) == 0:
        return None
    return (float((ix + x0).mean()) - cx) / s, (float((iy + y0).mean()) - cy) / s


def _read_free(gray: np.ndarray) -> tuple[list[DieReading], tuple[str, ...]]:
    """No calibration: any top-down photo of dice on a contrasting surface (vision.free)."""
    from vision.free import free_dice

    return [DieReading(v, (x, y), "ok") for v, x, y in free_dice(gray)], ()
