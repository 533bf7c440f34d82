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
from vision.reader import FrameError, _check_frame, body_map, detect, estimate_a, read, search_area


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
        pip_a, pip_r, pip_dark, kinds = _measure(reference_frame, floor, n_dice, small)
    return Calibration((w, h), floor, keep_zone, pip_a, pip_r, pip_dark, n_dice, empty_png, kinds)


def _measure(frame: np.ndarray, floor: Poly, n_dice: int | None, empty_small: np.ndarray | None = None
             ) -> tuple[float, float, bool, str]:
    """Die size (corner-pip offset, pip radius), the pips' usual polarity and which kinds of pip the
    set has ("dark" or "light" only when all `n_dice` dice were read and agree; else "both")."""
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
    return a, r, bool(dark), _pip_kinds(frame, floor, n_dice, empty_small, a, r, dark)


def _pip_kinds(frame: np.ndarray, floor: Poly, n_dice: int | None, empty_small: np.ndarray | None,
               a: float, r: float, dark: bool) -> str:
    """"dark" or "light" when the reader, looking for both, reads all `n_dice` dice of the reference
    flat and with one kind of pip; else "both". A die it missed might be the one of the other kind."""
    if n_dice is None or empty_small is None:
        return "both"
    ok, png = cv2.imencode(".png", empty_small)
    probe = Calibration((frame.shape[1], frame.shape[0]), floor, None, a, r, dark, n_dice,
                        png.tobytes() if ok else None, "both")
    seen = read(frame, probe, n_dice)
    kinds = {d.dark for d in seen.dice}
    if seen.verdict != "ok" or len(kinds) != 1 or None in kinds:
        return "both"
    return "dark" if kinds.pop() else "light"


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
