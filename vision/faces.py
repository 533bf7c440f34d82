"""The face reader: a small CNN that reads one die from a crop around it (ONNX, run by vision.onnxnet).

The detector (vision.detector) finds where the dice are and how large; its cells are a quarter of
a die wide, too coarse to count pips safely. This net sees each die on its own: a CROP x CROP grey
crop centred on the die, CONTEXT top-face sides wide (the top face at about 25 pixels, and what lies
around it: a cocked die's side faces, the rim, a neighbour), each crop normalised to zero mean and
unit spread. It answers eight classes: faces 1-6, NOT_READABLE (cocked, on an edge, an odd face)
and NOT_A_DIE (a pip, a screw hole, a symbol die, a side face, a shadow, a window half off a die).

Each crop is turned so that the picture's centre lies straight up from the die (`toward_centre`).
A camera above the tray sees a flat die's side faces on the side facing the point below it (near
the picture's centre), more of them the farther out the die lies; a cocked die shows a side face
wherever it leans. Turned so, a flat die far out always shows its sides at the top of the crop,
and the net can tell it from a cocked one.

The same `crop` serves training (vision.train.faces cuts its bank with it) and reading, so the net
sees at reading time what it learnt on.
"""

from __future__ import annotations

import math
import os
from pathlib import Path

import cv2
import numpy as np

from vision.onnxnet import OnnxNet

CROP = 40  # crop side, net input pixels
CONTEXT = 1.6  # crop side in top-face sides
N_CLASSES = 8  # faces 1-6, then NOT_READABLE, NOT_A_DIE
NOT_READABLE = 6
NOT_A_DIE = 7
MODEL = Path(__file__).with_name("model") / "faces.onnx"


def crop(gray: np.ndarray, x: float, y: float, side: float, angle: float = 0.0, out: int = CROP,
         context: float = CONTEXT) -> np.ndarray:
    """The CROP x CROP view of a die of top-face side `side` centred at (x, y), turned by `angle`
    degrees: a window CONTEXT sides wide, area-resampled first when it shrinks (no aliasing of
    pips), the picture's edge repeated where the window leaves it. Float32 (0-255), resampled in
    floats: rounding to 8 bits at each step differs between OpenCV versions by a grey level here
    and there, which moved a doubtful die's probability by more than 0.01 (Pi's 4.6 against 5.x)."""
    win = context * max(float(side), 1.0)
    s = out / win
    r = 0.75 * win + 2.0  # half the window that holds the crop at any turn
    x0, y0 = int(math.floor(x - r)), int(math.floor(y - r))
    x1, y1 = int(math.ceil(x + r)), int(math.ceil(y + r))
    h, w = gray.shape[:2]
    sub = gray[max(0, y0):min(h, y1), max(0, x0):min(w, x1)]
    if sub.size == 0:
        return np.full((out, out), float(np.median(gray[::8, ::8])), np.float32)
    top, left = max(0, -y0), max(0, -x0)
    bottom, right = max(0, y1 - h), max(0, x1 - w)
    if top or left or bottom or right:
        sub = cv2.copyMakeBorder(sub, top, bottom, left, right, cv2.BORDER_REPLICATE)
    sub = sub.astype(np.float32)
    cx, cy = x - x0, y - y0
    if s < 1.0:
        sw, sh = max(1, round(sub.shape[1] * s)), max(1, round(sub.shape[0] * s))
        kx, ky = sw / sub.shape[1], sh / sub.shape[0]
        sub = cv2.resize(sub, (sw, sh), interpolation=cv2.INTER_AREA)
        cx, cy, s = cx * kx, cy * ky, s / math.sqrt(kx * ky)
    M = cv2.getRotationMatrix2D((cx, cy), angle, s)
    M[:, 2] += ((out - 1) / 2.0 - cx, (out - 1) / 2.0 - cy)  # the die at the crop's middle: turns are exact
    return _bilinear(sub, cv2.invertAffineTransform(M), out)


def _bilinear(img: np.ndarray, inv: np.ndarray, out: int) -> np.ndarray:
    """img (float32) sampled at inv @ (u, v, 1) for every pixel (u, v) of an out x out picture,
    bilinearly, the edge repeated: cv2.warpAffine's job in numpy, because warpAffine's result differs
    between OpenCV versions (4.6 against 5.x: by up to two grey levels)."""
    v, u = _grid(out)
    x = inv[0, 0] * u + inv[0, 1] * v + inv[0, 2]
    y = inv[1, 0] * u + inv[1, 1] * v + inv[1, 2]
    h, w = img.shape
    x = np.clip(x, 0.0, w - 1.0)
    y = np.clip(y, 0.0, h - 1.0)
    x0 = np.minimum(np.floor(x).astype(np.int64), w - 2) if w > 1 else np.zeros(x.shape, np.int64)
    y0 = np.minimum(np.floor(y).astype(np.int64), h - 2) if h > 1 else np.zeros(y.shape, np.int64)
    fx, fy = (x - x0).astype(np.float32), (y - y0).astype(np.float32)
    dx, dy = (x0 + 1 < w).astype(np.int64), np.where(y0 + 1 < h, w, 0)  # the next pixel, or this one at an edge
    flat = img.ravel()
    i = y0 * w + x0  # the four neighbours taken by flat index (a third of fancy 2-D indexing's time)
    top = flat.take(i) * (1 - fx) + flat.take(i + dx) * fx
    bottom = flat.take(i + dy) * (1 - fx) + flat.take(i + dy + dx) * fx
    return (top * (1 - fy) + bottom * fy).astype(np.float32)


_GRIDS: dict[int, tuple[np.ndarray, np.ndarray]] = {}


def _grid(out: int) -> tuple[np.ndarray, np.ndarray]:
    """(v, u): every pixel's row and column of an out x out picture, float64 (made once a size)."""
    if out not in _GRIDS:
        v, u = np.mgrid[0:out, 0:out].astype(np.float64)
        v.flags.writeable = u.flags.writeable = False
        _GRIDS[out] = (v, u)
    return _GRIDS[out]


def toward_centre(x: float, y: float, width: int, height: int) -> float:
    """The turn (degrees, as `crop` takes it) that puts the picture's centre straight up from a die at
    (x, y) in the crop; 0 for a die at the centre."""
    return toward(x, y, ((width - 1) / 2.0, (height - 1) / 2.0))


def toward(x: float, y: float, point: tuple[float, float]) -> float:
    """The turn (degrees, as `crop` takes it) that puts `point` straight up from a die at (x, y)."""
    vx, vy = point[0] - x, point[1] - y
    if vx * vx + vy * vy < 1e-6:
        return 0.0
    return math.degrees(math.atan2(vx, -vy))


def normalise(crops: np.ndarray) -> np.ndarray:
    """(N, CROP, CROP) crops (0-255) as the net's input (N, 1, CROP, CROP): each crop to zero mean and
    unit spread (the spread floored, so a flat crop stays flat rather than all noise)."""
    f = crops.astype(np.float32)
    m = f.mean(axis=(1, 2), keepdims=True)
    sd = np.maximum(f.std(axis=(1, 2), keepdims=True), 8.0)
    return ((f - m) / sd)[:, None]


def softmax(logits: np.ndarray) -> np.ndarray:
    z = logits - logits.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


class FaceNet:
    """The committed face model (or another ONNX file of the same recipe), run by vision.onnxnet."""

    def __init__(self, path: str | os.PathLike | None = None, size: int = CROP, context: float = CONTEXT,
                 mirror: bool = False):
        self.path = Path(path) if path is not None else MODEL
        self.net = OnnxNet(self.path, "the reader's face model")
        self.size, self.context, self.mirror = size, context, mirror

    def logits(self, crops: np.ndarray) -> np.ndarray:
        """(N, N_CLASSES) raw outputs for (N, CROP, CROP) crops (0-255, uint8 or float)."""
        if len(crops) == 0:
            return np.zeros((0, N_CLASSES), np.float32)
        return self.net(normalise(crops)).reshape(len(crops), N_CLASSES)

    def probs(self, gray: np.ndarray, dice: list[tuple[float, float, float]],
              centre: tuple[float, float] | None = None) -> np.ndarray:
        """(N, N_CLASSES) class probabilities of the dice (x, y, top-face side) in a grey picture, each
        read from its crop turned toward the picture's centre (or toward `centre`, in the picture's
        pixels: the whole frame's centre when the picture is a part of it). With `mirror`, each die is
        read twice, from its crop and from the crop's mirror image across its upright axis (a face
        mirrored is the same face, and the side faces stay on top), the two reads' logits averaged: a
        mistake the net is sure of seldom survives both."""
        if not dice:
            return np.zeros((0, N_CLASSES), np.float64)
        h, w = gray.shape[:2]
        c = ((w - 1) / 2.0, (h - 1) / 2.0) if centre is None else centre
        crops = np.stack([crop(gray, x, y, s, toward(x, y, c), out=self.size, context=self.context)
                          for x, y, s in dice])
        if not self.mirror:
            return softmax(self.logits(crops).astype(np.float64))
        both = self.logits(np.concatenate([crops, crops[:, :, ::-1]])).astype(np.float64)
        return softmax(0.5 * (both[: len(crops)] + both[len(crops):]))
