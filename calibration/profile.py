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


class FloorNotFound(CalibrationError):
    """No tray floor found in the empty frame (the floor can still be given by hand)."""


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
            size = _size(d["image_size"])
            floor = _poly(d["floor"], size)
            keep = None if d.get("keep_zone") is None else _poly(d["keep_zone"], size)
            die = _pos(d.get("die_px"), max(size))
            if die is None and d.get("pip_a") is not None:  # a profile of the pip reader: its corner-pip offset
                die = _pos(d["pip_a"], max(size) / PIP_A_TO_DIE) * PIP_A_TO_DIE
            n = d.get("n_dice")
            png = d.get("empty_small_png")
            small = None if png is None else _png(png)
        except (KeyError, TypeError, ValueError) as e:
            what = f"missing {e}" if isinstance(e, KeyError) else str(e)
            raise CalibrationError(f"{where}: damaged calibration ({what}): calibrate again") from None
        if len(floor) < 3:
            raise CalibrationError(f"{where}: damaged calibration (a floor needs 3 or more corners): calibrate again")
        if n is not None and (type(n) is not int or not 1 <= n <= MAX_DICE):
            raise CalibrationError(f"{where}: damaged calibration (n_dice must be 1..{MAX_DICE}): calibrate again")
        return cls((size[0], size[1]), floor, keep, die, n, small)


# The bounds a profile's values must keep (a damaged or hand-edited file is refused, never guessed at).
IMAGE_SIDE = (32, 20000)  # pixels, each of the frame's width and height
POLY_CORNERS = 1000
POLY_REACH = 1.0  # a corner lies at most this many frame sides outside the frame
MAX_DICE = 20
MAX_PNG_BYTES = 2_000_000  # the empty tray at 320 px wide is some 100 kB


def _number(v: Any, what: str) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise ValueError(f"{what} must be a number, not {type(v).__name__}")
    f = float(v)
    if not math.isfinite(f):
        raise ValueError(f"{what} must be a finite number")
    return f


def _size(v: Any) -> tuple[int, int]:
    lo, hi = IMAGE_SIDE
    if not isinstance(v, list) or len(v) != 2 or not all(type(x) is int and lo <= x <= hi for x in v):
        raise ValueError(f"image_size must be [width, height], each {lo}..{hi}")
    return v[0], v[1]


def _poly(v: Any, size: tuple[int, int]) -> Poly:
    if not isinstance(v, list) or len(v) > POLY_CORNERS or not all(isinstance(p, list) and len(p) == 2 for p in v):
        raise ValueError(f"a polygon must be a list of at most {POLY_CORNERS} [x, y] corners")
    pts = tuple((_number(p[0], "a corner"), _number(p[1], "a corner")) for p in v)
    w, h = size
    if not all(-POLY_REACH * w <= x <= (1 + POLY_REACH) * w and -POLY_REACH * h <= y <= (1 + POLY_REACH) * h for x, y in pts):
        raise ValueError(f"a corner lies far outside the {w}x{h} frame")
    return pts


def _pos(v: Any, hi: float = math.inf) -> float | None:
    if v is None:
        return None
    f = _number(v, "a size")
    if not 0 < f <= hi:
        raise ValueError(f"a size of {f:g} px in a frame of at most {hi:g} px")
    return f


def _png(v: Any) -> bytes:
    if not isinstance(v, str) or len(v) > MAX_PNG_BYTES * 4 // 3 + 4:
        raise ValueError("empty_small_png must be a base64 string of a small PNG")
    data = base64.b64decode(v, validate=True)
    import cv2

    img = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR) if data.startswith(b"\x89PNG\r\n\x1a\n") else None
    if img is None or min(img.shape[:2]) < 8:
        raise ValueError("empty_small_png is not a PNG picture")
    return data


def save(cal: Calibration, path: str | os.PathLike) -> Path:
    """Write the profile atomically (a crash never leaves half a file)."""
    p = Path(path)
    tmp = p.with_name(p.name + ".tmp")
    tmp.write_text(json.dumps(cal.to_json(), indent=1) + "\n")
    os.replace(tmp, p)
    return p


MAX_FILE_BYTES = 4 * MAX_PNG_BYTES


def load(path: str | os.PathLike) -> Calibration:
    from vision.inputfile import read_text

    p = Path(path)
    try:
        text = read_text(p, MAX_FILE_BYTES)
    except FileNotFoundError:
        raise CalibrationError(f"{p}: no such calibration file") from None
    except (OSError, UnicodeDecodeError) as e:
        why = e.strerror if isinstance(e, OSError) and e.strerror else e.__class__.__name__
        raise CalibrationError(f"{p}: cannot read the calibration ({why})") from None
    try:
        d = json.loads(text)
    except json.JSONDecodeError as e:
        raise CalibrationError(f"{p}: not a calibration file (bad JSON at line {e.lineno})") from None
    except (RecursionError, ValueError) as e:  # (ValueError: an integer of over 4300 digits)
        why = "nested too deeply" if isinstance(e, RecursionError) else e
        raise CalibrationError(f"{p}: not a calibration file (JSON {why})") from None
    return Calibration.from_json(d, str(p))
