"""The trained dice detector: a small fully convolutional net (ONNX, run by vision.onnxnet: onnxruntime
where installed, else OpenCV's dnn) and its decoding.

The net sees a grey-scale picture (values 0-1) and answers, on a grid of STRIDE pixels:

- a heat map: how likely a die's top face is centred in that cell (a sigmoid of channel 0);
- class scores for faces 1-6 and "not readable" (a die that is cocked, on its edge or hidden);
- the die's top-face side (log, in grid cells) and the centre's offset inside the cell.

It was trained on dice whose top face is DIE_MIN to DIE_MAX pixels wide in its input; `detect`
scales a frame so that every die lands in that range: to DIE_NET when the die size is known (a
calibration), else over a pyramid of scales that covers dice from about 16 to 300 pixels.
Decoding (peaks, boxes, suppression of doubles) is numpy after the net, so the ONNX file holds
only plain convolutions that OpenCV 4.6's dnn and onnxruntime read.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

import cv2
import numpy as np

from vision.onnxnet import ModelError, OnnxNet

STRIDE = 4  # input pixels per output cell
ALIGN = 16  # the net's input sides are multiples of this (its deepest stride)
N_CLASSES = 7  # faces 1-6, then NOT_READABLE
NOT_READABLE = 6  # class index of a die that is not lying flat or cannot be read
DIE_NET = 22.0  # top-face side (input pixels) a known die size is scaled to: near the small end of
# the trained range, so the net runs on few pixels; on renders it finds as many dice there as at 28
DIE_MIN, DIE_MAX = 14.0, 60.0  # the top-face sides the net was trained on (input pixels)
PEAK = 0.25  # least heat for a candidate die (the reader decides what it trusts)
MODEL = Path(__file__).with_name("model") / "dice.onnx"


@dataclass(frozen=True)
class Die:
    """One detected die, in the pixels of the image given to `detect`."""

    x: float  # centre of the top face
    y: float
    size: float  # top-face side
    score: float  # heat at the peak: is a die here at all (0-1)
    probs: tuple[float, ...]  # class probabilities: faces 1-6, not readable (the reader's: then not a die)

    @property
    def cls(self) -> int:
        p = self.probs  # (the first of equal ones, as np.argmax; a tuple of 8 needs no array)
        return max(range(len(p)), key=p.__getitem__)

    @property
    def face(self) -> int | None:
        """The most likely face (1-6), or None when another class ("not readable", "not a die") is."""
        c = self.cls
        return None if c >= NOT_READABLE else c + 1

    @property
    def conf(self) -> float:
        """Probability of the most likely class."""
        return float(max(self.probs))


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-x))


def decode(out: np.ndarray, scale: float, ox: float = 0.0, oy: float = 0.0, peak: float = PEAK) -> list[Die]:
    """Dice from one net output (1, 4 + N_CLASSES, h, w) of an input that was the image scaled by
    `scale` after cropping at (ox, oy): coordinates come back in the image's pixels."""
    out = out[0]
    heat = _sigmoid(out[0].astype(np.float32))
    peaks = (heat >= peak) & (heat >= cv2.dilate(heat, np.ones((3, 3), np.uint8)))
    ys, xs = np.nonzero(peaks)
    if len(xs) == 0:
        return []
    logits = out[1:1 + N_CLASSES, ys, xs].T.astype(np.float64)
    logits -= logits.max(axis=1, keepdims=True)
    p = np.exp(logits)
    p /= p.sum(axis=1, keepdims=True)
    size = np.exp(np.clip(out[1 + N_CLASSES, ys, xs], -3, 6)) * STRIDE
    dx = _sigmoid(out[2 + N_CLASSES, ys, xs])
    dy = _sigmoid(out[3 + N_CLASSES, ys, xs])
    cx = (xs + dx) * STRIDE
    cy = (ys + dy) * STRIDE
    return [Die(float(ox + cx[i] / scale), float(oy + cy[i] / scale), float(size[i] / scale),
                float(heat[ys[i], xs[i]]), tuple(float(v) for v in p[i])) for i in range(len(xs))]


REACH = 0.6  # two detections whose centres lie within this share of the larger one's size are one die


def near(a: Die, b: Die, reach: float = REACH) -> bool:
    """Do two detections lie on one die (centres within `reach` of the larger one's size)?"""
    return math.hypot(a.x - b.x, a.y - b.y) <= reach * max(a.size, b.size, 1.0)


def groups(dice: Iterable[Die], reach: float = REACH) -> list[list[Die]]:
    """The detections by die: the strongest left stands for its die (first in its group) and every
    detection near it (`near`) goes; its group also holds those of them whose centre lies on both
    dice (within `reach` of the smaller one's size): the same die found at another pyramid level."""
    out: list[list[Die]] = []
    rest = sorted(dice, key=lambda d: -d.score)
    while rest:
        top = rest[0]
        out.append([d for d in rest if math.hypot(d.x - top.x, d.y - top.y) <= reach * min(d.size, top.size)])
        rest = [d for d in rest if not near(d, top, reach)]
    return out


def suppress(dice: Iterable[Die], reach: float = REACH) -> list[Die]:
    """Keep the strongest of dice whose centres lie within `reach` of the larger one's size of each other."""
    return [g[0] for g in groups(dice, reach)]


def gray(image: np.ndarray) -> np.ndarray:
    """A grey, BGR or BGRA 8-bit picture as grey."""
    if image.ndim == 2:
        return image
    return cv2.cvtColor(image, cv2.COLOR_BGR2GRAY if image.shape[2] == 3 else cv2.COLOR_BGRA2GRAY)


def pad_to(gray: np.ndarray, align: int = ALIGN) -> np.ndarray:
    """The picture padded at its right and bottom (edge pixels repeated) to sides that are multiples of align."""
    h, w = gray.shape[:2]
    H, W = -(-h // align) * align, -(-w // align) * align
    if (H, W) == (h, w):
        return gray
    return cv2.copyMakeBorder(gray, 0, H - h, 0, W - w, cv2.BORDER_REPLICATE)


def pyramid_scales(shape: tuple[int, int], smallest: float = 16.0, largest: float = 300.0,
                   longest_side: int = 2048) -> list[float]:
    """Scales at which dice from `smallest` to `largest` pixels each fall in the net's range once."""
    h, w = shape[:2]
    s = min(DIE_MIN * 1.05 / smallest, longest_side / max(h, w))
    out = []
    step = (DIE_MAX * 0.85) / (DIE_MIN * 1.05)  # consecutive levels overlap
    while True:
        out.append(s)
        if largest * s <= DIE_MAX * 0.85 or min(h, w) * s < 2 * ALIGN:
            break
        s /= step
    return out


class Detector:
    """The committed model (or another ONNX file of the same recipe), run by vision.onnxnet on one thread
    by default (the appliance reads one frame at a time; `threads` to change)."""

    def __init__(self, path: str | os.PathLike | None = None, threads: int | None = 1):
        self.path = Path(path) if path is not None else MODEL
        self.net = OnnxNet(self.path, "the reader's trained detector", threads)

    def run(self, gray: np.ndarray) -> np.ndarray:
        """The raw net output for one grey picture whose sides are multiples of ALIGN."""
        return self.net(cv2.dnn.blobFromImage(gray, 1.0 / 255.0))  # (1, 1, h, w) float32, in one pass

    def at_scale(self, image: np.ndarray, scale: float, roi: tuple[int, int, int, int] | None = None,
                 peak: float = PEAK) -> list[Die]:
        """Dice in `image` (or in its region roi = (x0, y0, x1, y1)) with the picture scaled by `scale`."""
        g = gray(image)
        x0, y0 = 0, 0
        if roi is not None:
            x0, y0, x1, y1 = (int(v) for v in roi)
            g = g[y0:y1, x0:x1]
        if scale != 1.0:
            interp = cv2.INTER_AREA if scale < 1.0 else cv2.INTER_LINEAR
            g = cv2.resize(g, (max(ALIGN, round(g.shape[1] * scale)), max(ALIGN, round(g.shape[0] * scale))),
                           interpolation=interp)
        sx = g.shape[1] / (image.shape[1] if roi is None else (roi[2] - roi[0]))
        return decode(self.run(pad_to(g)), sx, x0, y0, peak)

    def detect(self, image: np.ndarray, die_px: float | None = None,
               roi: tuple[int, int, int, int] | None = None, peak: float = PEAK, net_px: float = DIE_NET) -> list[Die]:
        """Every die in the picture: at one scale when the top-face side `die_px` is known (scaled to
        `net_px` input pixels), else over the pyramid. Coordinates in the picture's pixels; doubles
        suppressed."""
        if die_px is not None:
            return suppress(self.at_scale(image, net_px / die_px, roi, peak))
        return suppress(self.candidates(image, roi, peak))

    def candidates(self, image: np.ndarray, roi: tuple[int, int, int, int] | None = None,
                   peak: float = PEAK) -> list[Die]:
        """The detections of every level of the pyramid, each at a size the net was trained on at that
        level, doubles not suppressed: a die is found at two or three neighbouring levels, at
        somewhat different centres and sizes."""
        shape = image.shape if roi is None else (roi[3] - roi[1], roi[2] - roi[0])
        found: list[Die] = []
        for s in pyramid_scales(shape):
            found += [d for d in self.at_scale(image, s, roi, peak)
                      if DIE_MIN * 0.8 <= d.size * s <= DIE_MAX * 1.15]
        return found
