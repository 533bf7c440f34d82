"""The tray: find its floor in an empty frame; where a point lies (floor, keep zone, off the tray).

`find_floor(empty_bgr)` works on any felt colour and on rectangular, rounded and
hexagonal trays: the floor is the smooth region around the middle of the frame,
bounded by the first strong colour/brightness edge (the foot of the wall). The
frame is smoothed and shrunk, an edge map of L, a and b is thresholded, the
region reached from the centre without crossing an edge is taken, closed, and
its convex hull is the floor polygon (trays are convex).
"""

from __future__ import annotations

import cv2
import numpy as np

Poly = tuple[tuple[float, float], ...]


class TrayError(ValueError):
    user_error = True


def _edges(bgr: np.ndarray) -> np.ndarray:
    """Edge strength that ignores soft shading: chroma (log-ratio) edges plus log-brightness edges."""
    lg = np.log(bgr.astype(np.float32) + 10.0)
    lg = cv2.GaussianBlur(lg, (0, 0), 1.4)
    b, g, r = lg[:, :, 0], lg[:, :, 1], lg[:, :, 2]
    mag = np.zeros(b.shape, np.float32)
    for ch, w in ((r - g, 3.0), (b - g, 3.0), ((b + g + r) / 3.0, 1.0)):
        gx = cv2.Sobel(ch, cv2.CV_32F, 1, 0, ksize=3)
        gy = cv2.Sobel(ch, cv2.CV_32F, 0, 1, ksize=3)
        mag += w * w * (gx * gx + gy * gy)
    return np.sqrt(mag)


def find_floor(empty_bgr: np.ndarray, work_width: int = 320, grow_px: int = 6) -> Poly:
    """The tray floor polygon (image pixels) from a frame of the empty tray."""
    h, w = empty_bgr.shape[:2]
    s = work_width / w
    small = cv2.resize(empty_bgr, (work_width, max(8, round(h * s))), interpolation=cv2.INTER_AREA)
    sh, sw = small.shape[:2]
    mag = _edges(small)
    cy, cx = sh // 2, sw // 2
    core = mag[cy - sh // 10: cy + sh // 10, cx - sw // 10: cx + sw // 10]
    # an edge is far above the felt's own texture and shading
    t = max(6.0 * float(np.median(core)), float(np.percentile(core, 99)) * 1.5, 0.15)
    free = (mag < t).astype(np.uint8)
    free = cv2.morphologyEx(free, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3)))
    n, labels = cv2.connectedComponents(free, connectivity=4)
    # the component holding most of the frame's middle
    mid = labels[cy - 3: cy + 4, cx - 3: cx + 4].ravel()
    mid = mid[mid > 0]
    if mid.size == 0:
        raise TrayError("no tray floor in the middle of the frame (is the camera over the tray?)")
    lab = int(np.bincount(mid).argmax())
    region = (labels == lab).astype(np.uint8)
    # second pass: grow through soft wall shadows (weaker edges) but only a little way
    near = cv2.dilate(region, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * grow_px + 1, 2 * grow_px + 1)))
    free2 = ((mag < 1.8 * t) & (near > 0)).astype(np.uint8)
    n2, labels2 = cv2.connectedComponents(free2, connectivity=4)
    keep = np.unique(labels2[region > 0])
    region = np.isin(labels2, keep[keep > 0]).astype(np.uint8) | region
    # third pass: felt in a wall's shadow keeps the felt's chroma (coloured felts only)
    lg = cv2.GaussianBlur(np.log(small.astype(np.float32) + 10.0), (0, 0), 2.0)
    chroma = np.dstack([lg[:, :, 2] - lg[:, :, 1], lg[:, :, 0] - lg[:, :, 1]])
    ref = np.median(chroma[region > 0], axis=0)
    spread = np.percentile(np.linalg.norm(chroma[region > 0] - ref, axis=1), 95)
    if float(np.linalg.norm(ref)) > 4 * spread and float(np.linalg.norm(ref)) > 0.12:
        felt = (np.linalg.norm(chroma - ref, axis=2) < max(2.0 * spread, 0.05)).astype(np.uint8)
        near = cv2.dilate(region, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (4 * grow_px + 1, 4 * grow_px + 1)))
        n3, labels3 = cv2.connectedComponents(felt & near, connectivity=4)
        keep = np.unique(labels3[region > 0])
        region = np.isin(labels3, keep[keep > 0]).astype(np.uint8) | region
    region = cv2.morphologyEx(region, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (9, 9)))
    cs, _ = cv2.findContours(region, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    c = max(cs, key=cv2.contourArea)
    hull = cv2.convexHull(c)
    frac = cv2.contourArea(hull) / float(sw * sh)
    touches = hull[:, 0, 0].min() <= 1 or hull[:, 0, 1].min() <= 1 or hull[:, 0, 0].max() >= sw - 2 or hull[:, 0, 1].max() >= sh - 2
    if frac < 0.08 or frac > 0.95 or (touches and frac > 0.8):
        raise TrayError(f"no clear tray floor in the empty frame (found {frac:.0%} of the frame)")
    # the edge band eats ~1.5 px of the small frame; give it back
    hull = hull.astype(np.float32)
    m = cv2.moments(hull)
    ctr = np.array([m["m10"] / m["m00"], m["m01"] / m["m00"]], np.float32)
    v = hull[:, 0, :] - ctr
    grow = 1.5 / np.maximum(np.linalg.norm(v, axis=1, keepdims=True), 1.0)
    pts = (hull[:, 0, :] + v * grow) / s
    approx = cv2.approxPolyDP(pts.astype(np.float32).reshape(-1, 1, 2), 1.0 / s, True)[:, 0, :]
    return tuple((float(x), float(y)) for x, y in approx)


def find_keep_zone(empty_bgr: np.ndarray, floor: Poly, work_width: int = 320) -> Poly | None:
    """A marked zone beside the tray for set-aside dice: a plain, clearly outlined, roughly
    rectangular region away from the tray and the frame's border. None when there is none."""
    h, w = empty_bgr.shape[:2]
    s = work_width / w
    small = cv2.resize(empty_bgr, (work_width, max(8, round(h * s))), interpolation=cv2.INTER_AREA)
    sh, sw = small.shape[:2]
    mag = _edges(small)
    t = max(6.0 * float(np.median(mag)), float(np.percentile(mag, 60)) * 3.0, 0.15)
    free = (mag < t).astype(np.uint8)
    tray_zone = cv2.dilate(mask(floor, (sw, sh), s), cv2.getStructuringElement(cv2.MORPH_RECT, (25, 25)))
    free[tray_zone > 0] = 0
    n, labels, stats, _ = cv2.connectedComponentsWithStats(free, connectivity=4)
    best = None
    for i in range(1, n):
        x, y, bw, bh, area = (int(v) for v in stats[i])
        if x <= 1 or y <= 1 or x + bw >= sw - 1 or y + bh >= sh - 1:
            continue  # the table runs off the frame; a zone is drawn inside it
        if not (0.015 * sw * sh <= area <= 0.25 * sw * sh):
            continue
        comp = (labels == i).astype(np.uint8)
        cs, _ = cv2.findContours(comp, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        c = max(cs, key=cv2.contourArea)
        rect = cv2.minAreaRect(c)
        fill = area / max(1.0, rect[1][0] * rect[1][1])
        if fill < 0.85:
            continue
        if best is None or area > best[0]:
            best = (area, rect)
    if best is None:
        return None
    box = cv2.boxPoints(best[1]) / s
    return tuple((float(x), float(y)) for x, y in box)


def inside(poly: Poly, x: float, y: float, margin: float = 0.0) -> bool:
    """True when (x, y) lies inside `poly` by at least `margin` pixels (negative: within that much outside)."""
    cnt = np.asarray(poly, np.float32).reshape(-1, 1, 2)
    return cv2.pointPolygonTest(cnt, (float(x), float(y)), True) >= margin


def distance(poly: Poly, x: float, y: float) -> float:
    """Signed distance to the polygon's edge: positive inside."""
    cnt = np.asarray(poly, np.float32).reshape(-1, 1, 2)
    return float(cv2.pointPolygonTest(cnt, (float(x), float(y)), True))


def mask(poly: Poly, size: tuple[int, int], scale: float = 1.0) -> np.ndarray:
    """uint8 mask (h, w) of the polygon, drawn at `scale`."""
    w, h = size
    m = np.zeros((h, w), np.uint8)
    cv2.fillPoly(m, [np.round(np.asarray(poly) * scale).astype(np.int32)], 1)
    return m


def iou(a: Poly, b: Poly, size: tuple[int, int]) -> float:
    ma, mb = mask(a, size), mask(b, size)
    inter = np.count_nonzero(ma & mb)
    return inter / max(1, np.count_nonzero(ma | mb))


def scale_poly(p: Poly, k: float) -> Poly:
    return tuple((x * k, y * k) for x, y in p)
