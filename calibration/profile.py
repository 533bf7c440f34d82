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
PIP_A_TO_DIE = 3.9  # top-face side over corner-pip offset (older profiles hold the offset, "pip_a")


class CalibrationError(ValueError):
    """A calibration that cannot be made or used."""

    user_error = True


@dataclass(frozen=True)
class Calibration:
    image_size: tuple[int, int]  # (w, h) of the frames it was made from
    floor: Poly  # tray floor polygon, image pixels
    keep_zone: Poly | None = None  # where set-aside dice may lie outside the tray
    die_px: float | None = None  # side of a flat die's top face, pixels (from the reference throw)
    n_dice: int | None = None
    empty_small: bytes | None = None  # PNG of the empty tray at 320 px wide (for check_frame)

    def empty_image(self) -> np.ndarray | None:
        """The empty tray, small (decoded once per profile)."""
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
            "die_px": None if self.die_px is None else round(self.die_px, 3),
            "n_dice": self.n_dice,
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
            die = _pos(d.get("die_px"))
            if die is None and d.get("pip_a") is not None:  # a profile of the pip reader: its corner-pip offset
                die = _pos(d["pip_a"]) * PIP_A_TO_DIE
            n = d.get("n_dice")
            png = d.get("empty_small_png")
            small = None if png is None else base64.b64decode(png, validate=True)
        except (KeyError, TypeError, ValueError) as e:
            raise CalibrationError(f"{where}: damaged calibration ({e.__class__.__name__}: {e})") from None
        if len(size) != 2 or min(size) < 32 or len(floor) < 3:
            raise CalibrationError(f"{where}: damaged calibration (image size or floor)")
        if n is not None and (not isinstance(n, int) or n < 1):
            raise CalibrationError(f"{where}: damaged calibration (n_dice)")
        return cls((size[0], size[1]), floor, keep, die, n, small)


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
