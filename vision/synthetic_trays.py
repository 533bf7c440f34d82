"""Empty trays of every kind a player may put under the camera: for calibration's tests and bench.

`random_tray(rng, kind=None, size=(640, 480))` gives an empty `Scene` (render it with
`vision.synthetic.render`) and `true_floor(scene)` the floor as the frame shows it (the tray's floor
polygon clipped to the frame). Kinds (`KINDS`): the tray's shape (rect, rounded, round, hex, oct)
crossed with its rim against the table (darker, lighter, same) and "floor", a frame that holds only
floor (no rim in view). The floor fills 30-100% of the frame.

Nothing here changes what the existing pools draw: these are new scenes built from the renderer's own
parts (`Tray`, `Surface`, `Scene`), seeded only by the rng given.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from vision import synthetic as S
from vision.synthetic_pools import random_surface

SHAPES = ("rect", "rounded", "round", "hex", "oct")
RIMS = ("darker", "lighter", "same")
KINDS = tuple(f"{s}-{r}" for s in SHAPES for r in RIMS) + ("floor",)
FILL = (0.3, 1.0)  # the floor's share of the frame
FLOOR_KINDS = ("felt", "felt", "felt", "wood", "paper", "plastic", "cloth", "plain")
TABLE_KINDS = ("wood", "wood", "plain", "cloth", "laminate")


def tray_polygon(shape: str, center, half_w: float, half_h: float, angle_deg: float, corner: float = 0.0) -> np.ndarray:
    """A floor outline of `shape`: the renderer's rect, rounded and hex, and round (an ellipse) and oct."""
    if shape in ("rect", "rounded", "hex"):
        return S.shape_polygon(shape, center, half_w, half_h, angle_deg, corner)
    if shape == "round":
        a = np.linspace(0, 2 * math.pi, 72, endpoint=False)
        pts = np.c_[half_w * np.cos(a), half_h * np.sin(a)]
    elif shape == "oct":
        a = np.deg2rad(22.5 + 45.0 * np.arange(8))
        pts = np.c_[half_w * np.cos(a) / math.cos(math.radians(22.5)), half_h * np.sin(a) / math.cos(math.radians(22.5))]
    else:
        raise ValueError(f"unknown tray shape {shape!r} ({', '.join(SHAPES)})")
    t = math.radians(angle_deg)
    rot = np.array([[math.cos(t), -math.sin(t)], [math.sin(t), math.cos(t)]])
    return _ccw(pts @ rot.T + np.asarray(center, np.float64))


def _ccw(poly: np.ndarray) -> np.ndarray:
    """The polygon's vertices in the renderer's order (positive shoelace area in image coordinates)."""
    x, y = poly[:, 0], poly[:, 1]
    area = float(np.dot(x, np.roll(y, -1)) - np.dot(np.roll(x, -1), y))
    return poly if area > 0 else poly[::-1]


def _bgr(c) -> tuple[int, int, int]:
    return tuple(int(np.clip(v, 0, 255)) for v in c)


def _mean(s: S.Surface) -> np.ndarray:
    if s.kind in ("wood", "cork", "slate"):
        return (np.array(s.bgr, float) + np.array(s.bgr2, float)) / 2
    return np.array(s.bgr, float)


def _rim_colour(rng: np.random.Generator, rim: str, table: np.ndarray, floor: np.ndarray) -> tuple[int, int, int]:
    """A rim colour darker than, lighter than or about the table's that the floor can be told from."""
    for _ in range(50):
        if rim == "same":
            c = table + rng.uniform(-10, 10, 3)
        elif rim == "darker":
            c = table * rng.uniform(0.25, 0.65) + rng.uniform(-8, 8, 3)
        else:
            c = table + (255 - table) * rng.uniform(0.35, 0.85) + rng.uniform(-8, 8, 3)
        if math.dist(c, floor) >= 45:
            return _bgr(c)
    return _bgr(c)


def random_tray(rng: np.random.Generator, kind: str | None = None, size: tuple[int, int] = (640, 480)) -> S.Scene:
    """An empty tray scene of `kind` (KINDS; None: any), straight-down camera, the floor filling 30-100%
    of the frame (a "floor" frame: all of it)."""
    if kind is None:
        kind = KINDS[int(rng.integers(len(KINDS)))]
    if kind not in KINDS:
        raise ValueError(f"unknown tray kind {kind!r} ({', '.join(KINDS)})")
    w, h = size
    die = float(w * rng.uniform(0.035, 0.07))
    cam = die * float(rng.uniform(22.0, 40.0))
    ic = np.array([(w - 1) / 2.0, (h - 1) / 2.0])
    nadir = ic + rng.uniform(-0.03, 0.03, 2) * np.array([w, h])
    c = ic + rng.uniform(-0.04, 0.04, 2) * np.array([w, h])
    wall = die * float(rng.uniform(0.8, 2.5))
    rim_w = die * float(rng.uniform(0.4, 1.5))
    # floor and table surfaces; a rim of the kind asked for
    fkind = FLOOR_KINDS[int(rng.integers(len(FLOOR_KINDS)))]
    floor_look = random_surface(rng, fkind, die)
    table_look = random_surface(rng, TABLE_KINDS[int(rng.integers(len(TABLE_KINDS)))], die)
    if kind == "floor":
        shape, rim = "rect", "same"
        ang = float(rng.uniform(-3, 3))
        hw, hh = w * rng.uniform(0.56, 0.7), h * rng.uniform(0.56, 0.7)  # past every frame edge
        floor = tray_polygon(shape, c, hw, hh, ang)
    else:
        shape, rim = kind.split("-")
        fill = float(rng.uniform(*FILL))
        aspect = (w / h) * float(rng.uniform(0.8, 1.15)) if shape != "round" or rng.random() < 0.5 else float(rng.uniform(0.9, 1.1))
        ang = float(rng.uniform(-6, 6))
        corner = float(rng.uniform(0.12, 0.35))
        hh = h / 2.0
        for _ in range(30):  # the floor's visible share of the frame -> fill (bisection on its size)
            floor = tray_polygon(shape, c, aspect * hh, hh, ang, corner * hh)
            got = true_area(floor, size) / float(w * h)
            hh *= (fill / max(got, 1e-3)) ** 0.5
            if abs(got - fill) < 0.005:
                break
        floor = tray_polygon(shape, c, aspect * hh, hh, ang, corner * hh)
    table = _mean(table_look)
    fmean = _mean(floor_look)
    for _ in range(20):  # a floor the player can tell from the rim (a tray maker's choice)
        if math.dist(fmean, table) >= 30 or rim != "same":
            break
        floor_look = random_surface(rng, fkind, die)
        fmean = _mean(floor_look)
    rim_bgr = _rim_colour(rng, rim, table, fmean)
    outer = S.offset_convex(floor, rim_w)
    tray = S.Tray(shape, S.tuple_poly(floor), S.tuple_poly(outer), fkind, _bgr(fmean), rim_bgr, float(rim_w), float(wall),
                  _bgr(table), (float(nadir[0]), float(nadir[1])), floor_look, table_look)
    light = S.Lighting(
        azimuth_deg=float(rng.uniform(0, 360)), elevation_deg=float(rng.uniform(35, 80)),
        intensity=float(rng.uniform(0.75, 1.2)), ambient=float(rng.uniform(0.25, 0.45)),
        gradient=(float(rng.uniform(-0.25, 0.25)), float(rng.uniform(-0.25, 0.25))),
        vignette=float(rng.uniform(0.05, 0.4)), tint=tuple(float(v) for v in 1.0 + rng.uniform(-0.06, 0.06, 3)))
    jpeg = None if rng.random() < 0.1 else int(rng.integers(60, 96))
    return S.Scene(tuple(size), tray, None, (), 0, cam, light, float(rng.uniform(0.8, 5.0)), float(rng.uniform(0.3, 1.2)),
                   jpeg, int(rng.integers(2**31)), "empty", nadir=(float(nadir[0]), float(nadir[1])), die_size=die,
                   pool="trays")


def _frame_mask(poly, size) -> np.ndarray:
    w, h = size
    m = np.zeros((h, w), np.uint8)
    cv2.fillPoly(m, [np.round(np.asarray(poly) * 4).astype(np.int32)], 1, shift=2)
    return m


def true_area(poly, size) -> int:
    return int(np.count_nonzero(_frame_mask(poly, size)))


def true_floor(scene: S.Scene) -> tuple[tuple[float, float], ...]:
    """The floor as the frame shows it (frame pixels): the tray's floor clipped to the frame."""
    w, h = scene.size
    floor = np.asarray(S.frame_polygons(scene)["floor"], np.float64)
    box = np.array([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]], np.float64)
    ok, inter = cv2.intersectConvexConvex(floor.astype(np.float32), box.astype(np.float32))
    return tuple((float(x), float(y)) for x, y in inter.reshape(-1, 2))
