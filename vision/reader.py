"""Frame in, Reading out: every die's face, or a clear "throw again" with the reason.

`read(frame, calibration=None, n_dice=None)`:

1. The frame is checked: not an 8-bit picture, blank or black -> FrameError (one line).
2. A trained detector (vision.detector: a small CNN run by onnxruntime or OpenCV's dnn) finds every die's
   top-face centre and size, with a score: is a die here at all. With a calibration it sees only
   the tray's region (floor, keep zone and a margin), scaled so that a die has the net's size
   (searched over a pyramid when the calibration has no die size); without one it searches the
   whole frame over an image pyramid (a die found at several levels: each level's detection read
   by the face net, the surest read kept, `surest`).
3. Each detection whose score reaches the die threshold is cut out, at its size, and read by the
   face net (vision.faces: a second small CNN on a crop of the one die), which gives the
   probabilities of faces 1-6, "not readable" and "not a die".
4. Each such detection becomes a die, unless "not a die" is its most likely class (a pip, a hole,
   a symbol die: it is dropped):
   - "off_tray" (calibrated) when its centre lies outside the tray floor and outside the keep zone;
   - "cocked" when "not readable" is its most likely class (cocked, on an edge, hidden);
   - "unreadable" when its best face is less sure than the face threshold (`sureness`: the face
     net's probability, joined with the detector's heat when the thresholds give it a weight);
   - else "ok" with that face.
5. With a calibration that knows the die size and with `n_dice`, when the region holds fewer dice
   than the throw has, the rest of the frame is searched too (`beyond`): a die that rolled off the
   tray onto the table is then called "off_tray" rather than missing.
6. The verdict is "ok" only when every die is ok and the count matches `n_dice`.

The two thresholds are set on data the model was not trained on and ship beside it
(vision/model/thresholds.json: {"die": ..., "face": ...}). A wrong face reported as ok is the
worst failure, so every doubt becomes a reroll with its reason.
"""

from __future__ import annotations

import json
import math
import os
import statistics
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Protocol

import cv2
import numpy as np

from vision import detector, faces, tray
from vision.detector import PEAK, Detector, Die, ModelError
from vision.faces import FaceNet

STATUSES = ("ok", "cocked", "off_tray", "unreadable")
REASONS = ("cocked", "off_tray", "missing", "extra", "unreadable")
DIE_SCORE, FACE_PROB = 0.5, 0.9  # thresholds when the model comes without its thresholds.json
MARGIN = 1.5  # dice: how far around the floor and keep zone the calibrated reader looks
OFF_EDGE = 0.0  # dice: a die whose centre lies farther than this outside the floor is off it
KEEP_EDGE = 0.2  # dice: ... unless its centre lies inside the keep zone or less than this outside it
SIZE_SCALES = (0.85, 1.0, 1.18)  # die_size reads the reference throw at these scales and pools them
#: one die's detections at other pyramid levels estimate about its size (within a few tenths); a
#: detection over it that is more than this factor smaller or larger is another reading of the
#: place (a part of the die, a cluster of dice), not the die at another level
SAME_SIZE = 1.5
#: top-face side (net input pixels) the frame beyond the region is searched at (`beyond`): near the
#: smallest the detector was trained on (DIE_MIN), half the pixels of DIE_NET: it asks only whether a
#: die lies there, and only on a throw that is short
BEYOND_NET = 16.0


class Calibration(Protocol):
    """What the reader needs of a calibration (calibration.Calibration)."""

    image_size: tuple[int, int]  # (w, h) of the frames it was made from
    floor: tuple[tuple[float, float], ...]  # tray floor polygon, image pixels
    keep_zone: tuple[tuple[float, float], ...] | None
    die_px: float | None  # side of a flat die's top face, pixels


class FrameError(ValueError):
    """The frame cannot be read at all (blank, wrong size, not an image)."""

    user_error = True


@dataclass(frozen=True)
class DieReading:
    value: int | None
    center: tuple[float, float]
    status: str = "ok"
    why: str = ""  # what set the status (for diagnostics; not in the JSON)
    size: float = 0.0  # top-face side, pixels (not in the JSON)
    conf: float = 0.0  # probability of the face (or of "not readable") (not in the JSON)

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

    def seen(self) -> tuple[int | None, ...]:
        """The dice as the camera saw them, left to right in the picture: the face of each die read ok,
        None for each it did not read (cocked, off the tray, in doubt); a player finds the die in
        question by this pattern."""
        ds = sorted(self.dice, key=lambda d: (d.center[0], d.center[1]))
        return tuple(d.value if d.status == "ok" and d.value is not None else None for d in ds)

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


# ------------------------------------------------------------------ the model and its thresholds

@dataclass(frozen=True)
class Thresholds:
    die: float = DIE_SCORE  # least detector score of a die
    face: float = FACE_PROB  # least sureness (`sureness`) of a face reported ok
    mirror: bool = False  # each die read twice, its crop and the crop mirrored (vision.faces.FaceNet)
    heat: float = 0.0  # the weight of the detector's heat in a face's sureness (`sureness`)


def sureness(best, heat, weight: float):
    """How sure the reader is of a die's face: the face net's probability of it, its log-odds joined
    with `weight` times the log-odds of the detector's heat there (is a die here at all): two views of
    the same die, the face net's of a crop and the detector's of the picture around it. Weight 0: the
    face net's probability alone. Numbers or numpy arrays (vision.thresholds sets the cuts on arrays)."""
    if weight == 0.0:
        return best
    b, h = np.clip(best, 1e-9, 1.0 - 1e-9), np.clip(heat, 1e-9, 1.0 - 1e-9)
    z = np.log(b / (1.0 - b)) + weight * np.log(h / (1.0 - h))
    return np.exp(-np.logaddexp(0.0, -z))  # (the logistic function without overflow)


def load_thresholds(path: str | os.PathLike) -> Thresholds:
    """The thresholds file beside a model; the defaults when there is none; ModelError when it is damaged."""
    p = Path(path)
    if not p.is_file():
        return Thresholds()
    try:
        d = json.loads(p.read_text())
        out = Thresholds(float(d.get("die", DIE_SCORE)), float(d.get("face", FACE_PROB)), d.get("mirror", False),
                         float(d.get("heat_weight", 0.0)))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, AttributeError, TypeError, ValueError) as e:
        raise ModelError(f"{p}: damaged thresholds file ({e.__class__.__name__})") from None
    if not isinstance(out.mirror, bool):
        raise ModelError(f"{p}: \"mirror\" must be true or false")
    if not 0.0 <= out.heat <= 4.0:
        raise ModelError(f"{p}: \"heat_weight\" must lie between 0 and 4 ({out.heat})")
    if not (0.0 < out.die < 1.0 and 0.0 < out.face <= 1.0):
        raise ModelError(f"{p}: thresholds must lie between 0 and 1 (die {out.die}, face {out.face})")
    return out


@dataclass(frozen=True)
class Model:
    """The reader's trained parts: the detector, the face net beside it, their thresholds."""

    detector: Detector
    faces: FaceNet
    thresholds: Thresholds


_MODELS: dict[tuple[Path, bool | None], Model] = {}


def faces_path(detector_path: str | os.PathLike) -> Path:
    """The face net that goes with a detector file: NAME.onnx -> NAME.faces.onnx beside it."""
    p = Path(detector_path)
    return p.with_name(p.stem + ".faces.onnx")


def model(path: str | os.PathLike | None = None, mirror: bool | None = None) -> Model:
    """The detector, its face net and the thresholds beside them (loaded once per process and file);
    the face net reads mirrored too when the thresholds say so (`mirror`: whatever they say)."""
    p = Path(path if path is not None else detector.MODEL).resolve()
    if (p, mirror) not in _MODELS:
        th = load_thresholds(p.with_name("thresholds.json"))
        m = th.mirror if mirror is None else mirror
        _MODELS[(p, mirror)] = Model(Detector(p), FaceNet(faces_path(p), mirror=m), replace(th, mirror=m))
    return _MODELS[(p, mirror)]


def look(gray: np.ndarray, m: Model, die_px: float | None = None, roi: tuple[int, int, int, int] | None = None,
         least: float | None = None, peak: float = PEAK, window: tuple[int, int, int, int] | None = None,
         net_px: float = detector.DIE_NET) -> list[Die]:
    """The detections whose score reaches `least` (the die threshold by default), each with the face
    net's class probabilities (faces 1-6, not readable, not a die) as its probs. The crop is cut at
    the calibrated die size when there is one (the detector's own size estimate otherwise), and the
    detector sees that size as `net_px` pixels.
    `window` (x0, y0, w, h): `gray` is the part of a w x h frame whose corner is (x0, y0) (the
    calibrated reader converts only that part); the dice come back in the frame's pixels."""
    cut = m.thresholds.die if least is None else least
    if die_px is None:  # over the pyramid: every level's detection of a die read, the surest kept
        by_die = [_alike(g) for g in detector.groups(d for d in m.detector.candidates(gray, roi=roi, peak=peak)
                                                       if d.score >= cut)]
        found = [d for g in by_die for d in g]
    else:
        found = [d for d in m.detector.detect(gray, die_px=die_px, roi=roi, peak=peak, net_px=net_px) if d.score >= cut]
    x0, y0, w, h = window if window is not None else (0, 0, gray.shape[1], gray.shape[0])
    p = m.faces.probs(gray, [(d.x, d.y, die_px or d.size) for d in found],
                      centre=((w - 1) / 2.0 - x0, (h - 1) / 2.0 - y0))
    found = [replace(d, x=d.x + x0, y=d.y + y0, probs=tuple(float(v) for v in pi)) for d, pi in zip(found, p)]
    if die_px is None:
        read = iter(found)
        found = [_surest_of([next(read) for _ in g]) for g in by_die]
    return found


def _sureness(d: Die) -> tuple[int, float]:
    """How sure the face net is of a face on a detection: a face before any other class, then the
    best face's probability (the detector's score when no face is the most likely class)."""
    return (1, max(d.probs[:6])) if d.face is not None else (0, d.score)


def _alike(group: list[Die]) -> list[Die]:
    """A die's detections (detector.groups, the strongest first) whose size is within SAME_SIZE of the
    strongest's: the same die seen at other pyramid levels."""
    top = group[0].size
    return [d for d in group if max(d.size, top) <= SAME_SIZE * min(d.size, top)]


def _surest_of(group: list[Die]) -> Die:
    """One die's detections of about its size (`_alike`, the strongest first), read by the face net:
    the strongest's centre and score (where a die is and whether), the face read and size of the one
    the face net is surest of (of any size, a part of the die read as a face of its own, two rows of a
    six as a four, would overrule it)."""
    best = max(group, key=_sureness)
    return replace(best, x=group[0].x, y=group[0].y, score=group[0].score)


def surest(dice: list[Die]) -> list[Die]:
    """One detection per die of the pyramid's detections (read by the face net): a die is found at
    two or three neighbouring levels, at somewhat different sizes, and the strongest by the
    detector's score is not always the one whose crop the face net reads best. The detections are
    grouped by die as detector.suppress keeps them (detector.groups), and of each group's detections
    of about the strongest's size (_alike) the surest read is kept (_surest_of). `look` groups before reading, so that only a group's detections are
    read."""
    return [_surest_of(_alike(g)) for g in detector.groups(dice)]


# ------------------------------------------------------------------ frames

def check_frame(frame: np.ndarray) -> np.ndarray:
    """The frame's grey image; FrameError for a frame with nothing to read."""
    if not isinstance(frame, np.ndarray) or frame.dtype != np.uint8 or frame.ndim not in (2, 3) or min(frame.shape[:2]) < 32:
        raise FrameError("not an image frame (expected an 8-bit picture at least 32x32)")
    if frame.ndim == 3 and frame.shape[2] not in (3, 4):
        raise FrameError("not an image frame (expected grey, BGR or BGRA)")
    gray = detector.gray(frame)
    lo, hi = cv2.minMaxLoc(gray)[:2]
    if hi - lo < 40:  # (the small copy only then: a frame with contrast is never blank)
        small = cv2.resize(gray, (64, 48), interpolation=cv2.INTER_AREA)
        if float(small.std()) < 3.0:
            level = "black" if small.mean() < 40 else "blank"
            raise FrameError(f"{level} frame: nothing to read (lens covered, camera off or lights out?)")
    return gray


def load_image(path: str) -> np.ndarray:
    """A BGR frame from an image file; FrameError (one line) for a missing, empty, truncated, special,
    too large or non-image file (vision.imagefile: the size is read from the header first)."""
    from vision.imagefile import ImageFileError, load

    try:
        return load(path)
    except ImageFileError as e:
        raise FrameError(str(e)) from None


# ------------------------------------------------------------------ reading

def read(frame: np.ndarray, calibration: Calibration | None = None, n_dice: int | None = None,
         model_path: str | os.PathLike | None = None) -> Reading:
    """Read every die in the frame. Raises FrameError for a frame with nothing to read."""
    t0 = time.perf_counter()
    if calibration is None:
        m = model(model_path)
        found = look(check_frame(frame), m)
    else:
        w, h = calibration.image_size
        shape = frame.shape if isinstance(frame, np.ndarray) else ()
        if len(shape) in (2, 3) and (shape[1] != w or shape[0] != h):
            raise FrameError(f"frame is {shape[1]}x{shape[0]}, the calibration was made at {w}x{h}: "
                             "calibrate again at this size")
        die = calibration.die_px
        x0, y0, x1, y1 = region(calibration, die)
        gray = check_frame(frame[y0:y1, x0:x1] if len(shape) in (2, 3) else frame)  # only what is read
        m = model(model_path)
        found = look(gray, m, die_px=die, window=(x0, y0, w, h))
        if die is None:  # the pyramid: nothing as big as half the floor is a die lying in it
            span = np.ptp(np.array(calibration.floor, np.float64), axis=0).min()
            found = [d for d in found if d.size < 0.5 * span]
        elif n_dice is not None and sum(d.cls != faces.NOT_A_DIE for d in found) < n_dice:
            found += beyond(frame, m, die, (x0, y0, x1, y1), found)
    dice = tuple(judge(d, m.thresholds, calibration) for d in found if d.cls != faces.NOT_A_DIE)
    r = verdict_of(dice, n_dice)
    return Reading(r.dice, r.verdict, r.reasons, (time.perf_counter() - t0) * 1000.0)


def beyond(frame: np.ndarray, m: Model, die: float, box: tuple[int, int, int, int], found: list[Die]) -> list[Die]:
    """The dice of the frame that lie outside the calibrated reader's region `box` (x0, y0, x1, y1),
    none within half a die of one already `found`: asked for only when the region holds fewer dice
    than the throw has, so that a die that rolled off the tray onto the table is called off the tray
    rather than missing (the region reaches MARGIN dice around the floor: a die farther away is not
    looked for on a throw that has them all). The frame outside the region is read in up to four
    strips, each reaching a die into the region so that a die on its edge is seen whole."""
    h, w = frame.shape[:2]
    x0, y0, x1, y1 = box
    g = math.ceil(die)
    strips = ((0, 0, w, y0 + g), (0, y1 - g, w, h), (0, y0, x0 + g, y1), (x1 - g, y0, w, y1))
    out: list[Die] = []
    for sx0, sy0, sx1, sy1 in strips:
        sx0, sy0, sx1, sy1 = max(0, sx0), max(0, sy0), min(w, sx1), min(h, sy1)
        if sx1 - sx0 <= g or sy1 - sy0 <= g:  # the region reaches the frame's edge here
            continue
        for d in look(detector.gray(frame[sy0:sy1, sx0:sx1]), m, die_px=die, window=(sx0, sy0, w, h),
                      net_px=BEYOND_NET):
            if x0 <= d.x < x1 and y0 <= d.y < y1:
                continue
            if all(math.hypot(d.x - e.x, d.y - e.y) > 0.5 * die for e in found + out):
                out.append(d)
    return out


def judge(d: Die, th: Thresholds, cal: Calibration | None = None) -> DieReading:
    """One detection as a die reading: its status, and its face when that is ok."""
    centre = (d.x, d.y)
    if cal is not None and off_tray(cal, d.x, d.y, cal.die_px or d.size):
        return DieReading(None, centre, "off_tray", "outside the floor", d.size, d.conf)
    if d.cls == faces.NOT_READABLE:
        return DieReading(None, centre, "cocked", f"not readable {d.conf:.2f}", d.size, d.conf)
    if d.face is None:
        return DieReading(None, centre, "unreadable", f"not a die {d.conf:.2f}", d.size, d.conf)
    sure = float(sureness(d.conf, d.score, th.heat))
    if sure < th.face:
        return DieReading(None, centre, "unreadable", f"face {d.face} only {sure:.2f}", d.size, d.conf)
    return DieReading(d.face, centre, "ok", "", d.size, d.conf)


def off_tray(cal: Calibration, x: float, y: float, die: float) -> bool:
    """A die of top-face side `die` centred at (x, y) lies off the tray floor (on the rim or the
    table) and not in the keep zone. A die lying flat on the floor has its centre at least half a
    die inside the floor's edge, one on the rim at least half a die outside it: the cut lies
    between, so the floor polygon may be off by a few pixels either way."""
    if tray.distance(cal.floor, x, y) >= -OFF_EDGE * die:
        return False
    return cal.keep_zone is None or tray.distance(cal.keep_zone, x, y) <= -KEEP_EDGE * die


def region(cal: Calibration, die: float | None) -> tuple[int, int, int, int]:
    """The part of the frame (x0, y0, x1, y1) a calibrated read looks at: the floor and the keep
    zone and MARGIN dice around them (a die on the rim or just beside the tray is found, to be
    called off the tray)."""
    w, h = cal.image_size
    pts = np.array(list(cal.floor) + list(cal.keep_zone or ()), np.float64)
    x0, y0 = pts.min(axis=0)
    x1, y1 = pts.max(axis=0)
    m = MARGIN * die if die else 0.1 * max(x1 - x0, y1 - y0)
    return (max(0, math.floor(x0 - m)), max(0, math.floor(y0 - m)),
            min(w, math.ceil(x1 + m) + 1), min(h, math.ceil(y1 + m) + 1))


def die_size(frame: np.ndarray, n_dice: int | None = None, roi: tuple[int, int, int, int] | None = None,
             model_path: str | os.PathLike | None = None) -> float | None:
    """The top-face side (pixels) of the dice in a frame of dice lying flat: the median over the
    dice found lying flat (kept by the die cut, a face the most likely class; pyramid search), the
    picture read at each of SIZE_SCALES (one die's size, as the net estimates it, moves by 10-25%
    with where it falls on the net's grid; pooled over a few scales it moves less). None unless, at
    the median scale, at least half of `n_dice` (or one) are found so and agree on the size within
    a quarter."""
    gray = check_frame(frame)
    m = model(model_path)
    need = 1 if n_dice is None else max(1, (n_dice + 1) // 2)
    per_scale: list[list[float]] = []
    for f in SIZE_SCALES:
        g, r = gray, roi
        if f != 1.0:
            g = cv2.resize(gray, None, fx=f, fy=f, interpolation=cv2.INTER_AREA if f < 1.0 else cv2.INTER_LINEAR)
            r = None if roi is None else tuple(int(round(v * f)) for v in roi)
        per_scale.append([d.size / f for d in look(g, m, roi=r) if d.face is not None])  # flat dice (their size, not their face)
    sizes = [v for sc in per_scale for v in sc]
    if not sizes or statistics.median(len(sc) for sc in per_scale) < need:
        return None
    mid = statistics.median(sizes)
    agree = [[v for v in sc if abs(v - mid) <= 0.25 * mid] for sc in per_scale]
    if statistics.median(len(sc) for sc in agree) < need:
        return None
    return float(statistics.median([v for sc in agree for v in sc]))
