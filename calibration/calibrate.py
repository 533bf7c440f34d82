"""Make a calibration from frames: the empty tray, and optionally N dice lying flat.

- Empty frame -> the tray floor polygon (vision.tray.find_floor) and a small copy
  of the empty tray (for the doctor's "is the tray still where it was" check).
- Reference frame of N flat dice, well apart -> the die size (corner-pip offset
  and pip radius, in pixels) and the pip polarity. At least half of the N dice
  must read on the floor, at one size, or calibration fails with the reason
  (`yatzycam calibrate-live` then checks that the reference throw reads whole).
- Keep zone: given (a polygon), or None.
"""

from __future__ import annotations

import cv2
import numpy as np

from calibration.profile import Calibration, CalibrationError, Poly
from vision import tray
from vision.reader import DIE_OVER_A, FrameError, Reading, _check_frame, body_map, detect, empty_blurred, estimate_a, read, search_area


def _frame(frame: np.ndarray, what: str) -> np.ndarray:
    try:
        return _check_frame(frame)
    except FrameError as e:
        raise CalibrationError(f"{what}: {e}") from None


def calibrate(empty_frame: np.ndarray, reference_frame: np.ndarray | None = None, n_dice: int | None = None,
              keep_zone: Poly | None = None, auto_keep_zone: bool = True) -> Calibration:
    """A Calibration from an empty-tray frame and, optionally, a frame of `n_dice` dice lying flat."""
    _frame(empty_frame, "empty frame")
    if empty_frame.ndim == 2:
        empty_frame = cv2.cvtColor(empty_frame, cv2.COLOR_GRAY2BGR)
    h, w = empty_frame.shape[:2]
    try:
        floor = tray.find_floor(empty_frame)
    except tray.TrayError as e:
        raise CalibrationError(f"empty frame: {e}") from None
    if keep_zone is None and auto_keep_zone:
        keep_zone = tray.find_keep_zone(empty_frame, floor)
    small = cv2.resize(empty_frame, (320, max(8, round(h * 320 / w))), interpolation=cv2.INTER_AREA)
    ok, png = cv2.imencode(".png", small)
    empty_png = png.tobytes() if ok else None
    pip_a = pip_r = None
    pip_dark = None
    kinds = "both"
    if reference_frame is not None:
        gray = _frame(reference_frame, "reference frame")
        if gray.shape != (h, w):
            raise CalibrationError(f"reference frame is {gray.shape[1]}x{gray.shape[0]}, the empty frame {w}x{h}")
        pip_a, pip_r, pip_dark = _measure(reference_frame, floor, n_dice, small)
        seen = _reference_read(reference_frame, n_dice, empty_png, pip_a, pip_r, pip_dark)
        if seen is not None:
            kinds = _pip_kinds(seen)
            floor = _floor_with_reference(floor, keep_zone, seen, DIE_OVER_A * pip_a)
    return _with_empty(Calibration((w, h), floor, keep_zone, pip_a, pip_r, pip_dark, n_dice, empty_png, kinds), small)


def _with_empty(cal: Calibration, small: np.ndarray) -> Calibration:
    """`cal` holding `small`, the empty tray its PNG was made from, as its decoded image (what
    Calibration.empty_image would decode: PNG is lossless), so the first frame read with a new
    calibration does not decode the PNG it was just made from (~2 ms); and its blurred copy for the
    reader's body map (vision.reader.empty_blurred)."""
    if cal.empty_small is not None and small.ndim == 3 and small.dtype == np.uint8:
        kept = small.copy()
        kept.setflags(write=False)
        object.__setattr__(cal, "_empty_decoded", kept)
        empty_blurred(cal)
    return cal


def _measure(frame: np.ndarray, floor: Poly, n_dice: int | None, empty_small: np.ndarray | None = None
             ) -> tuple[float, float, bool]:
    """Die size (corner-pip offset, pip radius) and the pips' usual polarity from flat dice on the floor."""
    body = None if empty_small is None or frame.ndim != 3 else body_map(frame, empty_small)
    a_px = estimate_a(frame, body=body)
    if a_px is None:
        raise CalibrationError("reference frame: no die with two or more pips found (dice flat, apart, in the light?)")
    det = detect(frame, a_px, True, *search_area(body, a_px))
    k = det.scale
    faces = [f for f in det.faces if tray.distance(floor, f.cx / k, f.cy / k) > 0]
    multi = [f for f in faces if f.value >= 2]
    need = 1 if n_dice is None else max(1, (n_dice + 1) // 2)
    if len(faces) < need or not multi:
        raise CalibrationError(f"reference frame: only {len(faces)} dice read on the tray floor"
                               + (f" of {n_dice}" if n_dice else "") + " (flat, apart, in the light, not all ones?)")
    spread = np.ptp([f.a for f in multi]) / np.median([f.a for f in multi])
    if spread > 0.25:
        raise CalibrationError("reference frame: the dice read at different sizes (all flat, all the same set?)")
    a = float(np.median([f.a for f in multi])) / k
    r = float(np.median([f.r for f in multi])) / k
    dark = sum(f.dark for f in faces) * 2 >= len(faces)
    return a, r, bool(dark)


def _reference_read(frame: np.ndarray, n_dice: int | None, empty_png: bytes | None, a: float, r: float,
                    dark: bool) -> Reading | None:
    """The reader's reading of the reference throw at the measured size, looking for both kinds of
    pip and with the whole frame as the floor (so dice the floor finder left out read too); None
    unless it reads all `n_dice` dice flat."""
    if n_dice is None or empty_png is None:
        return None
    h, w = frame.shape[:2]
    whole = ((0.0, 0.0), (w - 1.0, 0.0), (w - 1.0, h - 1.0), (0.0, h - 1.0))
    seen = read(frame, Calibration((w, h), whole, None, a, r, dark, n_dice, empty_png, "both"), n_dice)
    return seen if seen.verdict == "ok" else None


def _pip_kinds(seen: Reading) -> str:
    """"dark" or "light" when all dice of the reference throw have that kind of pip; else "both"."""
    kinds = {d.dark for d in seen.dice}
    if len(kinds) != 1 or None in kinds:
        return "both"
    return "dark" if kinds.pop() else "light"


def _floor_with_reference(floor: Poly, keep_zone: Poly | None, seen: Reading, die: float) -> Poly:
    """The floor grown to take in every die of the reference throw (they lie flat on it): the floor
    finder can stop short of a wall in deep shadow. A die in the keep zone, or far out (more than
    three dice: on the table, not a floor the finder missed), is left out."""
    extra = []
    for d in seen.dice:
        x, y = d.center
        if keep_zone is not None and tray.inside(keep_zone, x, y):
            continue
        if -3.0 * die < tray.distance(floor, x, y) < 0.55 * die:
            extra += [(x + sx * 0.55 * die, y + sy * 0.55 * die) for sx in (-1, 1) for sy in (-1, 1)]
    if not extra:
        return floor
    pts = np.array(list(floor) + extra, np.float32)
    hull = cv2.convexHull(pts).reshape(-1, 2)
    return tuple((float(x), float(y)) for x, y in hull)


def check_frame(frame: np.ndarray, cal: Calibration) -> str | None:
    """None when the live frame still shows the calibrated tray; else one line saying what changed."""
    h, w = frame.shape[:2]
    if (w, h) != tuple(cal.image_size):
        return f"frame is {w}x{h}, the calibration was made at {cal.image_size[0]}x{cal.image_size[1]}"
    ref = cal.empty_image()
    if ref is None:
        return None
    small = cv2.resize(frame if frame.ndim == 3 else cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR),
                       (ref.shape[1], ref.shape[0]), interpolation=cv2.INTER_AREA)
    try:
        floor = tray.find_floor(small, work_width=ref.shape[1])
    except tray.TrayError as e:
        return str(e)
    k = ref.shape[1] / w
    iou = tray.iou(floor, tray.scale_poly(cal.floor, k), (ref.shape[1], ref.shape[0]))
    if iou < 0.85:
        return f"the tray floor overlaps the calibrated one by only {iou:.0%} (camera or tray moved?)"
    return None
