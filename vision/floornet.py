"""The floor net: where a frame of the empty tray shows the tray's floor.

A small encoder-decoder CNN (`vision/train/model.py` FloorNet, trained by `python -m vision.train.floor`
on renders whose true floor the renderer knows) run by vision.onnxnet: the frame, shrunk to
IN_W x IN_H, in; the floor's probability per cell of 2 x 2 input pixels out. `floor_region` turns it
into the floor's outline in the frame's pixels (vision.tray uses it as the rough floor).
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from vision.onnxnet import OnnxNet

IN_W, IN_H = 320, 240
MODEL = Path(__file__).with_name("model") / "floor.onnx"
#: a cell is floor when its probability reaches this
FLOOR_P = 0.5
#: a probability between this and 1 - this is a cell the net is unsure of; a frame with more than
#: SURE_MAX of them (more than on any of the tuning renders it was checked on, at most 0.084 there:
#: it has not seen the like) is one where its floor is not used (vision.tray.find_floor)
UNSURE, SURE_MAX = 0.1, 0.085
#: a probability under this (or over 1 - this) is a cell the net is sure of (sure_against)
SURE = 0.02

_NETS: dict[str, OnnxNet] = {}


def available(path: str | Path | None = None) -> bool:
    return Path(path or MODEL).is_file()


def _net(path: str | Path | None) -> OnnxNet:
    key = str(path or MODEL)
    if key not in _NETS:
        _NETS[key] = OnnxNet(key, "the calibration's floor net")
    return _NETS[key]


def probability(bgr: np.ndarray, path: str | Path | None = None) -> np.ndarray:
    """The floor's probability (float32, the frame's size) in a BGR (or grey) frame."""
    img = bgr if bgr.ndim == 3 else cv2.cvtColor(bgr, cv2.COLOR_GRAY2BGR)
    h, w = img.shape[:2]
    small = cv2.resize(img[:, :, :3], (IN_W, IN_H), interpolation=cv2.INTER_AREA)
    net = _net(path)
    logit = net(cv2.dnn.blobFromImage(small, 1.0 / 255.0))[0, 0].astype(np.float32)
    p = 1.0 / (1.0 + np.exp(-np.clip(logit, -30, 30)))
    return cv2.resize(p, (w, h), interpolation=cv2.INTER_LINEAR)


def unsure_share(p: np.ndarray) -> float:
    """The share of the frame where the net is unsure (a probability between UNSURE and 1 - UNSURE)."""
    return float(np.count_nonzero((p > UNSURE) & (p < 1.0 - UNSURE))) / float(p.size)


def sure_against(floor: np.ndarray, p: np.ndarray) -> float:
    """How much of a floor mask (bool, the frame's size) the net is sure is wrong: its cells the net is
    sure are no floor plus the cells outside it the net is sure are floor, as a share of its area."""
    wrong = np.count_nonzero(floor & (p < SURE)) + np.count_nonzero(~floor & (p > 1.0 - SURE))
    return float(wrong) / float(max(np.count_nonzero(floor), 1))


def floor_region(bgr: np.ndarray, path: str | Path | None = None, p: np.ndarray | None = None) -> np.ndarray | None:
    """The floor's outline (N, 2) in the frame's pixels: the convex hull of the connected part of the
    floor mask that holds the most floor probability; None when no cell is floor. `p`: the
    probability map when it is already there."""
    p = probability(bgr, path) if p is None else p
    m = (p >= FLOOR_P).astype(np.uint8)
    n, lab = cv2.connectedComponents(m, connectivity=4)
    if n < 2:
        return None
    mass = np.bincount(lab.ravel(), weights=p.ravel(), minlength=n)
    mass[0] = 0.0
    k = int(np.argmax(mass))
    cs, _ = cv2.findContours((lab == k).astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    pts = np.concatenate(cs).reshape(-1, 2).astype(np.float32)
    hull = cv2.convexHull(pts).reshape(-1, 2)
    return cv2.approxPolyDP(hull.reshape(-1, 1, 2), 0.8, True).reshape(-1, 2).astype(np.float64)
