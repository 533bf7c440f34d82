"""Frame in, Reading out: every die's face, or a clear "throw again" with the reason.

`read(frame_bgr, calibration=None, n_dice=None)`:

1. Pips are found on a working copy of the frame: the black-hat of the grey
   image gives dark pips, the top-hat of the darkest colour channel light pips
   (white pips on coloured dice stand out there). With a calibration the copy
   is scaled so that the corner-pip offset of a die is WORK_A pixels; without
   one the photo's size sets the scale (vision.pips).
2. Pips are grouped into faces that must fit a 1-6 layout, hold no stray pip
   and show a plain face between the pips (vision.dice).
3. With a calibration: a face must sit on something that is not the empty
   tray; outside the tray floor and outside the keep zone it is `off_tray`; a
   four, five or six whose layout is foreshortened, or a face with pips of a
   side face beside it where perspective shows none, is `cocked`; two faces
   closer than one die, or pips that make no face, are `unreadable`.
4. The verdict is "ok" only when every die is ok and the count matches `n_dice`.

A wrong face reported as ok is the worst failure; every doubt becomes "reroll".
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import cv2
import numpy as np

from vision import tray
from vision.dice import Face, Limits, group
from vision.pips import Pip, find_pips, hats, odd as _odd, scaled as _scaled

if TYPE_CHECKING:  # pragma: no cover
    from calibration import Calibration

WORK_A = 11.0  # corner-pip offset on the working copy, pixels (pips 4-9 px wide)
DIE_OVER_A = 3.9  # die side / corner-pip offset
CAMERA_HEIGHT = 32.0  # camera height over the floor in die sides (a Pi camera ~0.5 m over 16 mm dice)
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
    small = cv2.resize(gray, (64, 48), interpolation=cv2.INTER_AREA)
    if float(small.std()) < 3.0 and int(gray.max()) - int(gray.min()) < 40:
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
    side: tuple[Pip, ...] = ()  # squashed spots: pips seen on a side face


def detect(frame: np.ndarray, a_px: float, known: bool) -> Detection:
    """Faces of dice whose corner-pip offset is about `a_px` frame pixels.

    The frame is scaled so that offset is WORK_A px; dark pips come from the
    black-hat of its grey, light pips from the top-hat of its darkest channel
    (white pips on a coloured die stand out there). With `known` the offset is
    enforced (a calibrated die size); otherwise it only sets the scale.
    """
    scale = float(np.clip(WORK_A / a_px, 0.2, 2.0))
    a = a_px * scale
    kernel = _odd(1.4 * a)  # wider than a pip, narrower than a die (its body must survive)
    if frame.ndim == 3:
        work_bgr = _scaled(frame, scale)
        dark, _ = hats(cv2.cvtColor(work_bgr, cv2.COLOR_BGR2GRAY), kernel)
        # white pips on a coloured die: the darkest channel makes the face dark and the pips bright
        _, light = hats(work_bgr.min(axis=2), kernel)
    else:
        dark, light = hats(_scaled(frame, scale), kernel)
    spots = find_pips(dark, light, min_r=max(1.0, 0.1 * a), max_r=0.7 * a, t_low=14.0, min_round=0.6, min_elong=0.3)
    # a top face is seen square-on (it is parallel to the sensor); squashed spots are on side faces
    pips = [p for p in spots if p.elong >= 0.6 and p.round >= 0.72 and p.r >= 0.12 * a]
    side = tuple(p for p in spots if p not in pips and p.r >= 0.1 * a)
    lim = Limits(max_err=0.15, min_aniso=0.8, a_hint=a if known else None)
    g = group(pips, dark, light, lim)
    faces = g.faces
    if not known:
        big = [f.a for f in faces if f.value >= 4] or [f.a for f in faces if f.value >= 2]
        a = float(np.median(big)) if big else None
    return Detection(faces, tuple(pips), g.leftover, scale, a, side)


def estimate_a(frame: np.ndarray, fractions: tuple[float, ...] = (0.007, 0.0095, 0.013, 0.0175, 0.0235)) -> float | None:
    """The corner-pip offset (frame pixels) of the dice in this frame: the size that explains most pips."""
    best: tuple[int, float] | None = None
    w = frame.shape[1]
    for f in fractions:
        det = detect(frame, f * w, True)
        faces = [x for x in det.faces if x.value >= 2]
        score = sum(x.value * x.value for x in faces)  # a four beats two twos made of its sides
        if faces and (best is None or score > best[0]):
            big = [x.a for x in faces if x.value >= 4] or [x.a for x in faces]
            best = (score, float(np.median(big)) / det.scale)
    return None if best is None else best[1]


def _read_calibrated(frame: np.ndarray, gray: np.ndarray, cal: "Calibration") -> tuple[list[DieReading], tuple[str, ...]]:
    a_px = cal.pip_a if cal.pip_a is not None else estimate_a(frame)  # no reference throw: measure this frame
    det = detect(frame, a_px if a_px else 0.0135 * gray.shape[1], a_px is not None)
    k = det.scale
    a = det.a if det.a else 7.0
    die = DIE_OVER_A * a / k  # top face side, frame pixels
    h, w = gray.shape
    nadir = ((w - 1) / 2 * k, (h - 1) / 2 * k)  # the camera looks straight down at the frame's centre
    face_pips = [det.pips[i] for f in det.faces for i in f.pips]
    ref_r = float(np.median([p.r for p in face_pips])) if face_pips else 0.35 * a
    ref_c = float(np.median([p.contrast for p in face_pips])) if face_pips else 40.0
    loose = [det.pips[i] for i in det.leftover
             if det.pips[i].r >= 0.6 * ref_r and det.pips[i].contrast >= 0.5 * ref_c]
    side = [p for p in det.side if p.contrast >= 0.25 * ref_c] + loose
    body = _body_map(frame, cal)
    dice: list[DieReading] = []
    for f in det.faces:
        x, y = f.cx / k, f.cy / k
        if body is not None and not _has_body(body, x, y, 1.1 * a / k):
            continue  # pips on bare felt (a pattern, a speck): no die there
        if f.value == 1 and body is not None and _off_centre(body, x, y, a / k) > 0.45 * a / k:
            dice.append(DieReading(None, (x, y), "unreadable"))  # a lone pip not in the middle of its die
            continue
        status = "ok"
        if _off_tray(cal, x, y, die):
            status = "off_tray"
        elif f.value >= 4 and f.fit.aniso < 0.93:
            status = "cocked"  # the top face is foreshortened: it is tilted
        elif any(_side_of(f, p, nadir, a) for p in side):
            status = "cocked"  # pips of a side face show where perspective cannot show one
        elif any(g is not f and math.hypot(g.cx - f.cx, g.cy - f.cy) < 3.6 * a for g in det.faces):
            status = "unreadable"  # two faces closer than one die: one of them is not what it seems
        dice.append(DieReading(f.value if status == "ok" else None, (x, y), status))
    # pips no face explains and no side face explains: a die that cannot be read
    loose = [p for p in loose if not any(math.hypot(p.x - f.cx, p.y - f.cy) < 3.2 * a for f in det.faces)]
    clusters: list[list[Pip]] = []
    for p in loose:
        for c in clusters:
            if any(math.hypot(p.x - q.x, p.y - q.y) < 3.0 * a for q in c):
                c.append(p)
                break
        else:
            clusters.append([p])
    for c in clusters:
        x = float(np.mean([q.x for q in c])) / k
        y = float(np.mean([q.y for q in c])) / k
        dice.append(DieReading(None, (x, y), "off_tray" if _off_tray(cal, x, y, die) else "unreadable"))
    return dice, ()


def _off_tray(cal: "Calibration", x: float, y: float, die: float) -> bool:
    """A die centred at (x, y) lies off the tray floor (on the rim or the table) and not in the keep zone."""
    if tray.distance(cal.floor, x, y) >= -0.2 * die:
        return False
    return cal.keep_zone is None or tray.distance(cal.keep_zone, x, y) <= -0.2 * die


def _body_map(frame: np.ndarray, cal: "Calibration") -> tuple[np.ndarray, float] | None:
    """How far each pixel differs from the empty tray (small scale), and that scale; None without one."""
    empty = cal.empty_image()
    if empty is None or frame.ndim != 3:
        return None
    small = cv2.resize(frame, (empty.shape[1], empty.shape[0]), interpolation=cv2.INTER_AREA)
    diff = cv2.absdiff(cv2.GaussianBlur(small, (3, 3), 0), cv2.GaussianBlur(empty, (3, 3), 0)).max(axis=2)
    return diff, empty.shape[1] / frame.shape[1]


def _has_body(body: tuple[np.ndarray, float], x: float, y: float, radius: float) -> bool:
    """A die lies at (x, y): the frame differs from the empty tray over most of a disc there."""
    diff, s = body
    h, w = diff.shape
    cx, cy, r = x * s, y * s, max(1.5, radius * s)
    x0, x1 = max(0, int(cx - r)), min(w, int(cx + r) + 1)
    y0, y1 = max(0, int(cy - r)), min(h, int(cy + r) + 1)
    if x1 <= x0 or y1 <= y0:
        return False
    yy, xx = np.mgrid[y0:y1, x0:x1]
    inside = (xx - cx) ** 2 + (yy - cy) ** 2 <= r * r
    vals = diff[y0:y1, x0:x1][inside]
    return vals.size > 0 and float(np.median(vals)) > 18.0


def _off_centre(body: tuple[np.ndarray, float], x: float, y: float, a: float) -> float:
    """How far (frame pixels) the middle of the die body around (x, y) lies from (x, y)."""
    diff, s = body
    h, w = diff.shape
    cx, cy, r = x * s, y * s, max(2.0, 2.2 * a * s)
    x0, x1 = max(0, int(cx - r)), min(w, int(cx + r) + 1)
    y0, y1 = max(0, int(cy - r)), min(h, int(cy + r) + 1)
    yy, xx = np.mgrid[y0:y1, x0:x1]
    m = ((xx - cx) ** 2 + (yy - cy) ** 2 <= r * r) & (diff[y0:y1, x0:x1] > 18)
    if not m.any():
        return float("inf")
    return math.hypot(float(xx[m].mean()) - cx, float(yy[m].mean()) - cy) / s


def _side_of(f: Face, p: Pip, nadir: tuple[float, float], a: float) -> bool:
    """Is spot `p` on a side face of the die whose top face is `f`, on a side that only a tilt shows?

    A flat die away from the frame's centre shows the side facing the centre
    (perspective); any other side showing means the die leans."""
    dx, dy = p.x - f.cx, p.y - f.cy
    d = math.hypot(dx, dy)
    if not (1.5 * a < d < 4.6 * a):
        return False
    u, v = f.fit.to_face(p.x, p.y)
    if max(abs(u), abs(v)) < 1.6:
        return False  # on the top face itself
    cx, cy = nadir[0] - f.cx, nadir[1] - f.cy
    dc = math.hypot(cx, cy)
    if dc > 4 * a and (dx * cx + dy * cy) / (d * dc) > 0.3:
        # toward the centre: perspective shows that side, as a band about dc / CAMERA_HEIGHT die wide
        side = DIE_OVER_A * a
        reveal = dc / CAMERA_HEIGHT
        along = (dx * cx + dy * cy) / dc
        return along > 0.5 * side + 0.5 * reveal + 0.25 * side
    return True


def _read_free(gray: np.ndarray) -> tuple[list[DieReading], tuple[str, ...]]:
    """No calibration: any top-down photo of dice on a contrasting surface (vision.free)."""
    from vision.free import free_dice

    return [DieReading(v, (x, y), "ok") for v, x, y in free_dice(gray)], ()
