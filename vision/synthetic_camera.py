"""The camera of vision.synthetic scenes beyond the straight-down pinhole: tilt and lens distortion.

A scene is laid out and rendered as seen by a camera straight above the floor (its "floor
pixels"). A `Camera` then turns that picture into the frame a real camera takes:

- tilt: a homography of the floor plane (the floor seen from a camera leaning `tilt_deg` off the
  vertical, looking back at the tray), scaled and shifted so the tray stays in the frame;
- lens distortion: a radial remap about the frame's centre, ``u = c + (q - c)(1 + k r^2)`` with
  ``r = |q - c| / half diagonal`` from the frame pixel q to the undistorted point u; k > 0 gives
  barrel distortion, k < 0 pincushion.

`forward` maps floor pixels to frame pixels (labels, truth); `sample_maps` gives, for every frame
pixel, where to sample the rendered picture (one `cv2.remap` does both warps). The rendered
picture is made larger than the frame where the frame sees beyond it (`canvas`).
"""

from __future__ import annotations

import math

import cv2
import numpy as np


def matrix(cam) -> np.ndarray:
    return np.array(cam.homography, dtype=np.float64).reshape(3, 3)


def _radius(size: tuple[int, int]) -> float:
    w, h = size
    return 0.5 * math.hypot(w, h)


def _centre(size: tuple[int, int]) -> np.ndarray:
    w, h = size
    return np.array([(w - 1) / 2.0, (h - 1) / 2.0])


def undistort(q: np.ndarray, k: float, size: tuple[int, int]) -> np.ndarray:
    """Frame pixels (N, 2) -> undistorted pixels."""
    c = _centre(size)
    d = np.asarray(q, np.float64) - c
    r2 = (d * d).sum(axis=-1, keepdims=True) / _radius(size) ** 2
    return c + d * (1.0 + k * r2)


def distort(u: np.ndarray, k: float, size: tuple[int, int]) -> np.ndarray:
    """Undistorted pixels (N, 2) -> frame pixels (the inverse of `undistort`, by Newton steps on r)."""
    c = _centre(size)
    R = _radius(size)
    d = np.asarray(u, np.float64) - c
    ru = np.sqrt((d * d).sum(axis=-1)) / R  # r (1 + k r^2) = ru
    r = ru.copy()
    for _ in range(8):
        f = r * (1.0 + k * r * r) - ru
        df = 1.0 + 3.0 * k * r * r
        r = r - f / np.where(np.abs(df) < 1e-6, 1e-6, df)
    scale = np.where(ru > 1e-12, r / np.maximum(ru, 1e-12), 1.0)
    return c + d * scale[..., None]


def forward(cam, pts: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """Floor pixels (N, 2) -> frame pixels."""
    pts = np.asarray(pts, np.float64).reshape(-1, 2)
    if cam is None:
        return pts
    m = matrix(cam)
    p = np.c_[pts, np.ones(len(pts))] @ m.T
    u = p[:, :2] / p[:, 2:3]
    return distort(u, cam.distortion, size) if cam.distortion else u


def backward(cam, q: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """Frame pixels (..., 2) -> floor pixels."""
    q = np.asarray(q, np.float64)
    shape = q.shape
    q = q.reshape(-1, 2)
    u = undistort(q, cam.distortion, size) if cam.distortion else q
    m = np.linalg.inv(matrix(cam))
    p = np.c_[u, np.ones(len(u))] @ m.T
    return (p[:, :2] / p[:, 2:3]).reshape(shape)


def tilt_homography(size: tuple[int, int], centre: np.ndarray, height: float, tilt_deg: float,
                    dir_deg: float) -> np.ndarray:
    """The floor (z = 0) seen by a camera `height` above `centre` leaning tilt_deg towards
    image direction dir_deg (it orbits the floor point below it): floor pixels -> image pixels."""
    w, h = size
    src = np.array([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]], np.float64)
    a = math.radians(tilt_deg)
    d = math.radians(dir_deg)
    ux, uy = math.cos(d), math.sin(d)
    # rotate the floor about the horizontal axis perpendicular to the lean direction, about centre
    rel = src - centre
    along = rel @ np.array([ux, uy])
    across = rel @ np.array([-uy, ux])
    x_al = along * math.cos(a)
    z = along * math.sin(a)  # the far side rises towards the camera... or sinks away
    k = height / (height - z)
    q = centre + (np.outer(x_al, [ux, uy]) + np.outer(across, [-uy, ux])) * k[:, None]
    return cv2.getPerspectiveTransform(src.astype(np.float32), q.astype(np.float32)).astype(np.float64)


def fit(size: tuple[int, int], h0: np.ndarray, k: float, keep: np.ndarray, margin: float = 0.02) -> np.ndarray:
    """Shift and shrink h0 (about the frame centre) so the points `keep` (floor pixels) land in the
    frame, `margin` of its size from the border, after distortion k; the final homography."""
    w, h = size
    c = _centre(size)

    class _C:  # a throwaway camera for forward()
        pass
    cam = _C()
    cam.distortion = k

    def frame_pts(m):
        cam.homography = tuple(m.ravel())
        return forward(cam, keep, size)

    q = frame_pts(h0)
    shift = c - (q.min(axis=0) + q.max(axis=0)) / 2.0
    t = np.array([[1, 0, shift[0]], [0, 1, shift[1]], [0, 0, 1]], np.float64)
    m = t @ h0
    lo = np.array([w, h]) * margin
    hi = np.array([w - 1, h - 1]) - lo
    s = 1.0
    for _ in range(40):
        sm = np.array([[s, 0, c[0] * (1 - s)], [0, s, c[1] * (1 - s)], [0, 0, 1]], np.float64) @ m
        q = frame_pts(sm)
        if np.all(q >= lo) and np.all(q <= hi):
            return sm
        s *= 0.97
    return sm


def sample_maps(cam, size: tuple[int, int], step: int = 6) -> tuple[np.ndarray, np.ndarray]:
    """Floor-pixel coordinates (float32 maps, frame-sized) of every frame pixel, for cv2.remap
    (worked out on a coarse grid and interpolated: the maps are smooth)."""
    w, h = size
    gw, gh = -(-w // step) + 2, -(-h // step) + 2
    # grid point i sits where cv2.resize puts it: at (i + 0.5) step - 0.5, one extra point each side
    xs = (np.arange(gw) - 1 + 0.5) * step - 0.5
    ys = (np.arange(gh) - 1 + 0.5) * step - 0.5
    gx, gy = np.meshgrid(xs, ys)
    src = backward(cam, np.dstack([gx, gy]), size).astype(np.float32)
    big = cv2.resize(src, (gw * step, gh * step), interpolation=cv2.INTER_LINEAR)
    big = big[step:step + h, step:step + w]
    return np.ascontiguousarray(big[..., 0]), np.ascontiguousarray(big[..., 1])
