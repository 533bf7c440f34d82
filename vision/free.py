"""The calibration-free path: faces of dice in any top-down photo, unknown scale.

`free_dice(gray)` -> [(value, x, y)] in the photo's pixels. Used by `vision.reader.read`
when there is no calibration (the real photos of ../shared/data/dice-photos).
"""

from __future__ import annotations

import numpy as np

from vision.dice import Face, Limits, group
from vision.pips import find_pips, hats, odd as _odd, scaled as _scaled


def free_dice(gray: np.ndarray) -> list[tuple[int, float, float]]:
    """(value, x, y) of every die read in a grey photo of unknown scale."""
    faces, scale = free_faces(gray)
    return [(f.value, f.cx / scale, f.cy / scale) for f in faces]


def free_faces(gray: np.ndarray, min_r_frac: float = 1 / 160, one_r_frac: float | None = 1 / 110) -> tuple[list[Face], float]:
    """Faces in a photo of unknown scale (dice about 1/30 to 1/3 of the frame); (faces, working scale)."""
    h, w = gray.shape
    scale = min(1.0, 800.0 / max(h, w))
    work = _scaled(gray, scale)
    side = max(work.shape)
    kernel = _odd(0.1 * side)
    bh, th = hats(work, kernel)
    pips = find_pips(bh, th, min_r=max(1.2, side * min_r_frac), max_r=side * 0.06)
    g = group(pips, bh, th, Limits(max_err=0.12, min_aniso=0.55,
                                   one_min_r=None if one_r_frac is None else side * one_r_frac))
    return _consistent(list(g.faces)), scale


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
