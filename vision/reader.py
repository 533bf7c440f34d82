"""Frame in, Reading out: every die's face, or a clear "throw again" with the reason.

`read(frame_bgr, calibration=None, n_dice=None)`:

1. Pips of both kinds (dark on light dice, light on dark dice) are found with a
   black-hat / top-hat (vision.pips) on a working copy scaled so that pips are a
   few pixels wide (from the calibrated die size, or from the frame size).
2. Pips are grouped into faces that must fit a 1-6 layout, hold no stray pip
   and show a plain face between the pips (vision.dice).
3. With a calibration the dice bodies are measured too (vision.tray): a face
   outside the tray floor and outside the keep zone is `off_tray`; a face whose
   pip spacing is off the flat die's, whose pips are squashed, or whose body is
   larger than a flat die's top face (a side face shows) is `cocked`; pips or a
   body with no valid face is `unreadable`; glare and blur are `unreadable`.
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

from vision.dice import Face, Limits, group
from vision.pips import find_pips, hats

if TYPE_CHECKING:  # pragma: no cover
    from calibration import Calibration

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


def _odd(x: float) -> int:
    k = max(3, int(round(x)))
    return k if k % 2 else k + 1


def read(frame_bgr: np.ndarray, calibration: "Calibration | None" = None, n_dice: int | None = None) -> Reading:
    t0 = time.perf_counter()
    gray = _check_frame(frame_bgr)
    if calibration is not None:
        from vision.tray import read_calibrated

        dice, extra = read_calibrated(frame_bgr, gray, calibration)
    else:
        dice, extra = _read_free(gray)
    r = verdict_of(tuple(dice), n_dice, extra)
    return Reading(r.dice, r.verdict, r.reasons, (time.perf_counter() - t0) * 1000.0)


def _read_free(gray: np.ndarray) -> tuple[list[DieReading], tuple[str, ...]]:
    """No calibration: any top-down photo of dice on a contrasting surface."""
    h, w = gray.shape
    scale = min(1.0, 800.0 / max(h, w))
    work = cv2.resize(gray, (round(w * scale), round(h * scale)), interpolation=cv2.INTER_AREA) if scale < 1 else gray
    side = max(work.shape)
    kernel = _odd(0.1 * side)
    bh, th = hats(work, kernel)
    pips = find_pips(bh, th, min_r=max(2.0, side / 160), max_r=side * 0.06)
    g = group(pips, bh, th, Limits(max_err=0.12, min_aniso=0.55, one_min_r=side / 110))
    faces = _consistent(list(g.faces))
    dice = [DieReading(f.value, (f.cx / scale, f.cy / scale), "ok") for f in faces]
    return dice, ()


def _consistent(faces: list[Face]) -> list[Face]:
    """Dice in one view are one size: drop twos, threes and ones that do not fit the others."""
    big = [f.a for f in faces if f.value >= 4]
    multi = [f.r for f in faces if f.value > 1]
    ref_a = float(np.median(big)) if big else None
    ref_r = float(np.median(multi)) if multi else None
    out = []
    for f in faces:
        if f.value in (2, 3) and ref_a is not None and not (0.7 * ref_a <= f.a <= 1.5 * ref_a):
            continue
        if f.value == 1 and ref_r is not None and f.r < 0.5 * ref_r:
            continue
        out.append(f)
    return out


def faces_to_dice(faces: list[Face], scale: float) -> list[DieReading]:
    return [DieReading(f.value, (f.cx / scale, f.cy / scale), "ok") for f in faces]


def angle_deg(f: Face) -> float:
    return math.degrees(f.angle) % 90.0
