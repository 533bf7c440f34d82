"""Is the tray still? And do several readings agree? Pure functions of frames and times.

`Settler` is fed small frames with their timestamps (time is passed in, never
read from a clock) and says when the tray has been still for `still_s`
seconds. Each frame is shrunk, blurred, and every row is divided by its own
mean: mains flicker (100/120 Hz) changes the global gain, and with a rolling
shutter it rolls dark and light bands down the frame; both are a per-row gain,
so they cancel, while a die or a hand changes the structure and does not. A
frame counts as still when almost no pixel differs from the previous frame
and from the first frame of the still run (slow creep is motion too).

`agree(a, b)` / `consensus(readings)` require several still frames to say the
same thing; `same_dice(a, b)` tells a "read again" (same dice, same places: no
throw spent) from a new throw.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import cv2
import numpy as np

from vision.reader import DieReading, Reading


def normalise(frame: np.ndarray, width: int = 160) -> np.ndarray:
    """Small float32 frame with every row at mean 1 (flicker-free structure)."""
    if frame.ndim == 3:
        frame = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    h, w = frame.shape
    if w > width:
        frame = cv2.resize(frame, (width, max(1, round(h * width / w))), interpolation=cv2.INTER_AREA)
    f = cv2.GaussianBlur(frame.astype(np.float32), (3, 3), 0)
    rows = f.mean(axis=1, keepdims=True)
    return f / np.maximum(rows, 1.0)


def motion(a: np.ndarray, b: np.ndarray, rel: float = 0.15) -> float:
    """Fraction of pixels whose normalised level changed by more than `rel` between two normalised frames."""
    if a.shape != b.shape:
        return 1.0
    return float(np.count_nonzero(np.abs(a - b) > rel)) / a.size


@dataclass
class Settler:
    """Feed frames with timestamps (seconds); `feed` is True once the tray has been still for `still_s`."""

    still_s: float = 0.35
    max_motion: float = 0.002  # fraction of changed pixels still counted as "still"
    rel: float = 0.15  # relative level change that counts as a changed pixel (clipped highlights flicker too)
    width: int = 160
    _prev: np.ndarray | None = field(default=None, repr=False)
    _anchor: np.ndarray | None = field(default=None, repr=False)
    _since: float | None = None
    last_motion: float = 1.0

    def reset(self) -> None:
        self._prev = self._anchor = None
        self._since = None
        self.last_motion = 1.0

    def feed(self, frame: np.ndarray, t: float) -> bool:
        cur = normalise(frame, self.width)
        prev, anchor = self._prev, self._anchor
        self._prev = cur
        if prev is None:
            self._anchor, self._since = cur, t
            return False
        m = max(motion(prev, cur, self.rel), motion(anchor, cur, self.rel) if anchor is not None else 1.0)
        self.last_motion = m
        if m > self.max_motion:
            self._anchor, self._since = cur, t  # moving: the still run starts again here
            return False
        return self._since is not None and t - self._since >= self.still_s

    @property
    def still_since(self) -> float | None:
        return self._since


def _match(a: tuple[DieReading, ...], b: tuple[DieReading, ...], tol_px: float) -> bool:
    """Every die of `a` pairs with a die of `b` at most `tol_px` away, with the same value and status."""
    if len(a) != len(b):
        return False
    pairs = sorted((math.dist(da.center, db.center), i, j) for i, da in enumerate(a) for j, db in enumerate(b))
    used_a: set[int] = set()
    used_b: set[int] = set()
    for d, i, j in pairs:
        if i in used_a or j in used_b or d > tol_px:
            continue
        if (a[i].value, a[i].status) != (b[j].value, b[j].status):
            continue
        used_a.add(i)
        used_b.add(j)
    return len(used_a) == len(a)


def same_dice(a: Reading | None, b: Reading | None, tol_px: float = 12.0) -> bool:
    """The same dice in the same places (a "read again" of a throw, not a new throw)."""
    if a is None or b is None:
        return False
    return _match(a.dice, b.dice, tol_px)


def agree(a: Reading, b: Reading, tol_px: float = 6.0) -> bool:
    """Two readings of still frames say the same thing: verdict, reasons, and every die."""
    return a.verdict == b.verdict and a.reasons == b.reasons and _match(a.dice, b.dice, tol_px)


def consensus(readings: list[Reading], tol_px: float = 6.0) -> Reading:
    """The reading when all agree; otherwise a "reroll" (unreadable) with the last frame's dice."""
    if not readings:
        raise ValueError("no readings")
    last = readings[-1]
    if all(agree(r, last, tol_px) for r in readings[:-1]):
        return last
    dice = tuple(DieReading(None, d.center, "unreadable") if d.status == "ok" else d for d in last.dice)
    reasons = tuple(r for r in ("cocked", "off_tray", "missing", "extra", "unreadable")
                    if r in last.reasons or r == "unreadable")
    return Reading(dice, "reroll", reasons, sum(r.ms for r in readings))
