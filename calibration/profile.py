"""The calibration profile: a frozen value, saved as versioned JSON.

A file that is not JSON, not ours, of another version, or of the wrong shape
raises `CalibrationError` (user_error: one clear line, exit 2). Nothing is
guessed from a damaged file.
"""

from __future__ import annotations

import base64
import json
import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

KIND = "yatzycam-calibration"
VERSION = 1

Poly = tuple[tuple[float, float], ...]
PIP_KINDS = ("dark", "light", "both")


class CalibrationError(ValueError):
    """A calibration that cannot be made or used."""

    user_error = True


@dataclass(frozen=True)
class Calibration:
    image_size: tuple[int, int]  # (w, h) of the frames it was made from
    floor: Poly  # tray floor polygon, image pixels
    keep_zone: Poly | None = None  # where set-aside dice may lie outside the tray
    pip_a: float | None = None  # corner-pip offset of a flat die's top face, pixels (from the reference)
    pip_r: float | None = None  # pip radius, pixels
    pip_dark: bool | None = None  # dark pips on light dice (else light pips)
    n_dice: int | None = None
    empty_small: bytes | None = None  # PNG of the empty tray at 320 px wide (for check_frame and hands)
    #: which pips the whole set has, seen on the reference throw: "dark", "light" or "both" (also when
    #: unknown: no reference, a die not read on it, or a file from before this field). The reader looks
    #: only for these, which saves a third of its time; "both" always works.
    pip_kinds: str = "both"

    @property
    def die_px(self) -> float | None:
        """Approximate side of a die's top face in pixels."""
        return None if self.pip_a is None else self.pip_a * 3.6

    def empty_image(self) -> np.ndarray | None:
        """The empty tray, small (decoded once per profile: the reader asks on every frame)."""
        if not self.empty_small:
            return None
        cached = self.__dict__.get("_empty_decoded")
        if cached is None:
            import cv2

            cached = cv2.imdecode(np.frombuffer(self.empty_small, np.uint8), cv2.IMREAD_COLOR)
            cached.setflags(write=False)
            object.__setattr__(self, "_empty_decoded", cached)
        return cached

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": KIND,
            "version": VERSION,
            "image_size": list(self.image_size),
            "floor": [[round(x, 2), round(y, 2)] for x, y in self.floor],
            "keep_zone": None if self.keep_zone is None else [[round(x, 2), round(y, 2)] for x, y in self.keep_zone],
            "pip_a": self.pip_a,
            "pip_r": self.pip_r,
            "pip_dark": self.pip_dark,
            "n_dice": self.n_dice,
            "pip_kinds": self.pip_kinds,
            "empty_small_png": None if self.empty_small is None else base64.b64encode(self.empty_small).decode(),
        }

    @classmethod
    def from_json(cls, d: Any, where: str = "calibration") -> "Calibration":
        if not isinstance(d, dict) or d.get("kind") != KIND:
            raise CalibrationError(f"{where}: not a yatzycam calibration file")
        v = d.get("version")
        if v != VERSION:
            raise CalibrationError(f"{where}: calibration version {v!r}, this yatzycam reads version {VERSION}: calibrate again")
        try:
            size = tuple(int(x) for x in d["image_size"])
            floor = _poly(d["floor"])
            keep = None if d.get("keep_zone") is None else _poly(d["keep_zone"])
            pip_a = _pos(d.get("pip_a"))
            pip_r = _pos(d.get("pip_r"))
            pip_dark = d.get("pip_dark")
            n = d.get("n_dice")
            kinds = d.get("pip_kinds", "both")
            png = d.get("empty_small_png")
            small = None if png is None else base64.b64decode(png, validate=True)
        except (KeyError, TypeError, ValueError) as e:
            raise CalibrationError(f"{where}: damaged calibration ({e.__class__.__name__}: {e})") from None
        if len(size) != 2 or min(size) < 32 or len(floor) < 3:
            raise CalibrationError(f"{where}: damaged calibration (image size or floor)")
        if pip_dark is not None and not isinstance(pip_dark, bool):
            raise CalibrationError(f"{where}: damaged calibration (pip_dark)")
        if n is not None and (not isinstance(n, int) or n < 1):
            raise CalibrationError(f"{where}: damaged calibration (n_dice)")
        if kinds not in PIP_KINDS:
            raise CalibrationError(f"{where}: damaged calibration (pip_kinds)")
        return cls((size[0], size[1]), floor, keep, pip_a, pip_r, pip_dark, n, small, kinds)


def _poly(v: Any) -> Poly:
    pts = tuple((float(p[0]), float(p[1])) for p in v)
    if any(len(p) != 2 for p in v) or not all(math.isfinite(c) for p in pts for c in p):
        raise ValueError("bad polygon")
    return pts


def _pos(v: Any) -> float | None:
    if v is None:
        return None
    f = float(v)
    if not math.isfinite(f) or f <= 0:
        raise ValueError(f"bad size {v!r}")
    return f


def save(cal: Calibration, path: str | os.PathLike) -> Path:
    """Write the profile atomically (a crash never leaves half a file)."""
    p = Path(path)
    tmp = p.with_name(p.name + ".tmp")
    tmp.write_text(json.dumps(cal.to_json(), indent=1) + "\n")
    os.replace(tmp, p)
    return p


def load(path: str | os.PathLike) -> Calibration:
    p = Path(path)
    try:
        text = p.read_text()
    except FileNotFoundError:
        raise CalibrationError(f"{p}: no such calibration file") from None
    except (OSError, UnicodeDecodeError) as e:
        raise CalibrationError(f"{p}: cannot read the calibration ({e.__class__.__name__})") from None
    try:
        d = json.loads(text)
    except json.JSONDecodeError as e:
        raise CalibrationError(f"{p}: not a calibration file (bad JSON at line {e.lineno})") from None
    return Calibration.from_json(d, str(p))
