"""Contact sheets: many small pictures on one PNG, each with a line of text, for a person to look
at what a bench counted (`yatzycam bench --pictures DIR`)."""

from __future__ import annotations

import math
from pathlib import Path

import cv2
import numpy as np

TILE = 200  # pixels, each tile's side
COLS = 6


def tile(img: np.ndarray, text: str, side: int = TILE) -> np.ndarray:
    """`img` (grey or BGR) fitted into a side x side BGR tile (aspect kept, black around it), `text`
    in a bar at the top."""
    bgr = img if img.ndim == 3 else cv2.cvtColor(img, cv2.COLOR_GRAY2BGR)
    h, w = bgr.shape[:2]
    k = side / max(h, w, 1)
    small = cv2.resize(bgr, (max(1, round(w * k)), max(1, round(h * k))),
                       interpolation=cv2.INTER_AREA if k < 1 else cv2.INTER_LINEAR)
    out = np.zeros((side, side, 3), np.uint8)
    y0, x0 = (side - small.shape[0]) // 2, (side - small.shape[1]) // 2
    out[y0:y0 + small.shape[0], x0:x0 + small.shape[1]] = small
    if text:
        scale = side / 520
        (_, th), base = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, 1)
        cv2.rectangle(out, (0, 0), (side - 1, th + base + 6), (0, 0, 0), -1)
        cv2.putText(out, text, (3, th + 3), cv2.FONT_HERSHEY_SIMPLEX, scale, (255, 255, 255), 1, cv2.LINE_AA)
    return out


def around(img: np.ndarray, x: float, y: float, half: float) -> np.ndarray:
    """The square of half-side `half` around (x, y), black where it leaves the picture."""
    r = max(1, int(math.ceil(half)))
    cx, cy = int(round(x)), int(round(y))
    padded = cv2.copyMakeBorder(img, r, r, r, r, cv2.BORDER_CONSTANT, value=0)
    return padded[cy:cy + 2 * r, cx:cx + 2 * r]


def sheet(tiles: list[np.ndarray], cols: int = COLS) -> np.ndarray:
    """Tiles of one size in rows of `cols` (the last row filled with black)."""
    if not tiles:
        raise ValueError("no tiles")
    blank = np.zeros_like(tiles[0])
    rows = [tiles[i:i + cols] for i in range(0, len(tiles), cols)]
    rows[-1] = rows[-1] + [blank] * (len(rows[0]) - len(rows[-1]))
    return np.vstack([np.hstack(r) for r in rows])


def write(path: str | Path, tiles: list[np.ndarray], cols: int = COLS) -> Path | None:
    """The sheet of `tiles` as a PNG at `path` (its folder made); None (and no file) for no tiles."""
    if not tiles:
        return None
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    if not cv2.imwrite(str(p), sheet(tiles, cols)):
        raise OSError(f"{p}: could not write the picture")
    return p
