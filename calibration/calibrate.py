"""Make a calibration from frames: the empty tray, and optionally N dice lying flat.

- Empty frame -> the tray floor polygon (vision.tray.find_floor), the keep zone when one is
  marked beside the tray (or the one given), and a small copy of the empty tray (for the
  doctor's "is the tray still where it was" check).
- Reference frame of N flat dice, well apart -> the die size: the median top-face side of the
  dice the detector reads confidently (vision.reader.die_size). At least half of the N dice must
  read, at one size, or calibration fails with the reason. The floor is grown to take in the
  reference dice (they lie on it: the floor finder can stop short of a wall in deep shadow).
"""

from __future__ import annotations

import cv2
import numpy as np

from calibration.profile import Calibration, CalibrationError, FloorNotFound, Poly
from vision import reader, tray


def _frame(frame: np.ndarray, what: str) -> np.ndarray:
    try:
        return reader.check_frame(frame)
    except reader.FrameError as e:
        raise CalibrationError(f"{what}: {e}") from None


def calibrate(empty_frame: np.ndarray, reference_frame: np.ndarray | None = None, n_dice: int | None = None,
              keep_zone: Poly | None = None, auto_keep_zone: bool = True, floor: Poly | None = None) -> Calibration:
    """A Calibration from an empty-tray frame and, optionally, a frame of `n_dice` dice lying flat.
    `floor`: the floor given by hand (frame pixels), taken as it is instead of looked for."""
    _frame(empty_frame, "empty frame")
    if empty_frame.ndim == 2:
        empty_frame = cv2.cvtColor(empty_frame, cv2.COLOR_GRAY2BGR)
    h, w = empty_frame.shape[:2]
    given = floor is not None
    if given:
        floor = _given_floor(floor, (w, h))
    else:
        try:
            floor = tray.find_floor(empty_frame)
        except tray.TrayError as e:
            raise FloorNotFound(f"empty frame: {e}") from None
    if keep_zone is None and auto_keep_zone:
        keep_zone = tray.find_keep_zone(empty_frame, floor)
    small = cv2.resize(empty_frame, (320, max(8, round(h * 320 / w))), interpolation=cv2.INTER_AREA)
    ok, png = cv2.imencode(".png", small)
    empty_png = png.tobytes() if ok else None
    die = None
    if reference_frame is not None:
        gray = _frame(reference_frame, "reference frame")
        if gray.shape != (h, w):
            raise CalibrationError(f"reference frame is {gray.shape[1]}x{gray.shape[0]}, the empty frame {w}x{h}")
        probe = Calibration((w, h), floor, keep_zone)
        die = reader.die_size(gray, n_dice, roi=reader.region(probe, None))
        if die is None:
            raise CalibrationError("reference frame: fewer than half the dice read clearly, at one size"
                                   + (f" (of {n_dice})" if n_dice else "") + " (flat, apart, in the light?)")
        if not given:  # a floor given by hand is the player's word
            floor = _floor_with_reference(gray, Calibration((w, h), floor, keep_zone, die, n_dice), n_dice)
    cal = Calibration((w, h), floor, keep_zone, die, n_dice, empty_png)
    if empty_png is not None:  # the decoded image is the one it was made from (PNG is lossless)
        small.setflags(write=False)
        object.__setattr__(cal, "_empty_decoded", small)
    return cal


def _given_floor(floor: Poly, size: tuple[int, int]) -> Poly:
    """A floor given by hand, checked: three or more corners, inside the frame, not a sliver."""
    w, h = size
    pts = np.asarray(floor, np.float64).reshape(-1, 2)
    if len(pts) < 3:
        raise CalibrationError("--floor: a floor needs three or more corners")
    if pts[:, 0].min() < -0.5 or pts[:, 1].min() < -0.5 or pts[:, 0].max() > w - 0.5 or pts[:, 1].max() > h - 0.5:
        raise CalibrationError(f"--floor: a corner lies outside the {w}x{h} frame")
    if abs(cv2.contourArea(pts.astype(np.float32))) < 0.02 * w * h:
        raise CalibrationError("--floor: the polygon covers under 2% of the frame (corners in order?)")
    return tuple((float(x), float(y)) for x, y in pts)


def _floor_with_reference(gray: np.ndarray, cal: Calibration, n_dice: int | None) -> Poly:
    """The floor grown to take in every die of the reference throw, found at the measured size with
    the whole frame as the floor, when all `n_dice` dice are found (their faces need not read). A die
    in the keep zone, or far out (more than three dice: on the table, not a floor the finder missed),
    is left out."""
    if n_dice is None or cal.die_px is None:
        return cal.floor
    h, w = gray.shape[:2]
    whole = ((0.0, 0.0), (w - 1.0, 0.0), (w - 1.0, h - 1.0), (0.0, h - 1.0))
    seen = reader.read(gray, Calibration((w, h), whole, None, cal.die_px, n_dice), n_dice)
    if len(seen.dice) != n_dice:
        return cal.floor
    die, extra = cal.die_px, []
    for d in seen.dice:
        x, y = d.center
        if cal.keep_zone is not None and tray.inside(cal.keep_zone, x, y):
            continue
        if -3.0 * die < tray.distance(cal.floor, x, y) < 0.55 * die:
            extra += [(x + sx * 0.55 * die, y + sy * 0.55 * die) for sx in (-1, 1) for sy in (-1, 1)]
    if not extra:
        return cal.floor
    hull = cv2.convexHull(np.array(list(cal.floor) + extra, np.float32)).reshape(-1, 2)
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
