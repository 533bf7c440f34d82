"""Synthetic tray scenes with ground truth: for the reader's tests, its bench, the simulator and
training a dice detector.

A scene is plain data (`Scene`): a camera straight above a tray, dice lying in it (or in a
keep zone beside it, or off the tray), a light, sensor noise, blur and JPEG settings, and a
seed.  `render(scene)` turns it into a BGR photo (ray-marched rounded dice with pips, shading,
shadows, felt, tray walls, vignetting, noise, JPEG); `truth(scene)` says what a perfect
reader must answer, in the vocabulary of `yatzycam read`.

- `random_scene(rng, n_dice, size, condition, **overrides)`: conditions in CONDITIONS
  ("clean", "cocked", "off_tray", "missing", "extra", and the unreadable kinds "glare",
  "blur", "hand", "odd_face"); `random_condition(rng)` draws them in the bench's BENCH_MIX.
- `reference_scene(rng, n, like=scene)` (dice flat and apart, for calibration; `like=` keeps
  everything of the table, camera included), `empty_scene`, `render`, `render_empty`, `truth`,
  `frame_polygons` (floor, rim and keep zone in frame pixels).
- `SimTable(n_dice, rng, ...)`: one table thrown again and again (`throw(keep)`, `rethrow()`).
- `labels(scene)`: every die as it appears in the frame, for training a detector: top-face centre
  and side (px), class 0-5 (faces 1-6) or UNREADABLE_CLASS (6: cocked, rolling, hidden, odd
  face, camera shake), status, whole-die box and the share of it inside the frame.
- `python -m vision.synthetic --out DIR [--pool train]`: write scenes and a truth.jsonl (with labels).

Pools (`pool=` of random_scene, bench_scenes, reference_scene's overrides and SimTable):
- "classic" (the default): the original world, fixed STYLES on FELTS, camera straight down; a
  seed gives the same scene and pixels as ever (the hand-written reader's tests rely on it).
- "train": widened tables (vision.synthetic_pools): die families glossy, matte, translucent,
  marbled, engraved, casino and classic, in any body colour with black, white, red, blue or gold
  pips (some with a big red one-pip), sharp or rounded corners; floors felt, wood, paper
  (squared grid) and plastic (a soft sheen); tables wood, plain, cloth, laminate; light
  direction, elevation and colour temperature; mains flicker; camera height, tilt up to 20
  degrees and barrel / pincushion distortion (vision.synthetic_camera); shake, blur, noise,
  JPEG, grey-scale sensors; dice 20 to 120 px.
- "holdout": what a model trained on "train" never sees: dice only of the families "metal" and
  "wooden", floors only "cork" and "slate", and settings reaching a little beyond the train
  ranges (vision.synthetic_pools.RANGES). The train pool never produces these families or floors.

Coordinates: x right, y down, in the image's pixels *at floor height*; z up in the same unit.
The camera looks straight down from height H over its nadir (`Scene.center`, near the image
centre); a point (X, Y, Z) appears at ``c + (P - c) * H / (H - Z)``: things closer to the
camera look bigger and dice away from the nadir show a side face. `DieSpec.center` is the
die body's centre on the floor plane; `TruthDie.center` is where its top face's centre appears.
A scene's `camera` (tilt, lens distortion) then warps that picture into the frame: `truth` and
`labels` give frame pixels (`Scene.to_image` maps floor pixels there).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Mapping, Sequence

import cv2
import numpy as np

Point = tuple[float, float]
Poly = tuple[Point, ...]

#: conditions random_scene understands; glare, blur, hand and odd_face are the "unreadable" kinds.
CONDITIONS = ("clean", "cocked", "off_tray", "missing", "extra", "glare", "blur", "hand", "odd_face")
#: what an odd die shows on top instead of a valid face ("unreadable": not a 1-6 pip layout).
ODD_FACES = ("blank", "seven", "cross")
#: the share of each condition in the vision bench (issue 4's targets).
BENCH_MIX: Mapping[str, float] = MappingProxyType({"clean": 0.55, "cocked": 0.20, "off_tray": 0.15, "missing": 0.10})
#: tilt (degrees) above which a die counts as cocked.
COCKED_DEG = 12.0
#: reasons in the order `yatzycam read` reports them.
REASONS = ("cocked", "off_tray", "missing", "extra", "unreadable")


# --------------------------------------------------------------------------- looks
@dataclass(frozen=True)
class DieStyle:
    name: str
    body: tuple[int, int, int]  # BGR
    pip: tuple[int, int, int]  # BGR
    gloss: float = 0.35  # specular strength
    shininess: float = 40.0
    corner: float = 0.12  # corner radius / edge length
    pip_radius: float = 0.2  # pip radius / half edge
    one_pip: tuple[int, int, int] | None = None  # big coloured one-pip (BGR)
    one_radius: float = 0.40
    family: str = "classic"  # see DIE_FAMILIES
    translucency: float = 0.0  # 0 opaque; up to ~0.8: the body lets the floor and the far faces' pips through
    marble: float = 0.0  # strength of the body's veins / mottling (in body2)
    body2: tuple[int, int, int] | None = None  # vein, mottle or grain colour (BGR)
    pip_depth: float = 1.0  # 0 flush (casino), 1 a shallow dimple, 2 deeply engraved
    pip_paint: float = 1.0  # 1 pips painted in `pip`; 0 unpainted (the recess shows by its shading)
    grain: float = 0.0  # wood grain on the body (wooden dice)
    metal: float = 0.0  # metallic body: coloured mirror-like reflection instead of diffuse paint


STYLES: Mapping[str, DieStyle] = MappingProxyType({
    s.name: s for s in (
        DieStyle("white", (232, 234, 236), (28, 26, 24), pip_radius=0.21),
        DieStyle("ivory", (196, 222, 236), (40, 38, 45), gloss=0.25, corner=0.16),
        DieStyle("black", (34, 32, 30), (235, 235, 232), gloss=0.55, shininess=60.0),
        DieStyle("red", (38, 30, 190), (236, 236, 236), gloss=0.5, shininess=50.0),
        DieStyle("blue", (170, 80, 30), (236, 236, 236), gloss=0.45),
        DieStyle("green", (70, 140, 25), (236, 236, 236), gloss=0.45),
        DieStyle("yellow", (40, 205, 235), (30, 30, 30), gloss=0.4, corner=0.14),
        DieStyle("white_red1", (228, 230, 232), (30, 28, 26), one_pip=(40, 30, 200), corner=0.1, pip_radius=0.16),
    )
})

FELTS: Mapping[str, tuple[int, int, int]] = MappingProxyType({
    "green": (52, 110, 38), "blue": (120, 62, 28), "red": (40, 36, 140), "black": (30, 30, 32),
    "grey": (105, 105, 100), "beige": (150, 185, 200), "dark_green": (38, 70, 25),
})
#: the die families each pool draws from (`random_style`); "classic" is the fixed STYLES list.
#: The holdout pool's families ("metal", "wooden") are never produced by the train pool.
DIE_FAMILIES: Mapping[str, tuple[str, ...]] = MappingProxyType({
    "train": ("classic", "glossy", "matte", "translucent", "marbled", "engraved", "casino"),
    "holdout": ("metal", "wooden"),
})
#: tray floors of each pool ("felt" draws from FELTS or a random felt colour); holdout-only: cork, slate.
FLOOR_KINDS: Mapping[str, tuple[str, ...]] = MappingProxyType({
    "train": ("felt", "wood", "paper", "plastic"),
    "holdout": ("cork", "slate"),
})
#: tables around the tray; cork and slate tables appear only in the holdout pool.
TABLE_KINDS: Mapping[str, tuple[str, ...]] = MappingProxyType({
    "train": ("wood", "plain", "cloth", "laminate"),
    "holdout": ("wood", "plain", "cloth", "laminate", "cork", "slate"),
})
#: pip colours of the random styles (BGR): black, white, red, blue, gold.
PIP_COLOURS: Mapping[str, tuple[int, int, int]] = MappingProxyType({
    "black": (26, 24, 22), "white": (236, 236, 234), "red": (40, 30, 200), "blue": (175, 70, 30),
    "gold": (45, 165, 212),
})
POOLS = ("classic", "train", "holdout")

RIMS: tuple[tuple[int, int, int], ...] = ((40, 70, 110), (25, 45, 75), (30, 30, 32), (80, 110, 150), (60, 60, 62), (20, 30, 60))
TABLES: tuple[tuple[int, int, int], ...] = ((90, 130, 170), (60, 95, 140), (200, 200, 195), (120, 125, 130), (50, 70, 95), (175, 190, 205))


# --------------------------------------------------------------------------- values
@dataclass(frozen=True)
class DieSpec:
    value: int  # the face on top (1-6)
    center: Point  # the die body's centre, x/y in floor pixels
    yaw_deg: float
    size_px: float  # edge length in floor pixels
    style: str | DieStyle = "white"  # a STYLES name or a DieStyle of its own
    tilt_deg: float = 0.0  # 0 = flat; > COCKED_DEG = cocked
    where: str = "tray"  # "tray" | "keep" | "off"
    tilt_dir_deg: float = 0.0  # image direction the top leans towards
    base_z: float = 0.0  # height of the surface it rests on (the rim for a die on the rim)
    odd_top: str | None = None  # one of ODD_FACES: the top face is not a valid pip layout
    motion: Motion | None = None  # still rolling when the frame was taken: smeared along this
    symbols: bool = False  # a symbol die (a cross, a ring, a clover ... on every face): no die of the game


@dataclass(frozen=True)
class Tray:
    shape: str  # "rect" | "rounded" | "hex"
    floor: Poly  # the felt, at z = 0
    outer: Poly  # the rim's outer edge, at z = wall_height
    felt: str
    felt_bgr: tuple[int, int, int]
    rim_bgr: tuple[int, int, int]
    rim_width: float
    wall_height: float
    table_bgr: tuple[int, int, int]
    nadir: Point | None = None  # the camera's nadir it was laid out under (reused when the tray is reused)
    floor_look: Surface | None = None  # None: plain felt in felt_bgr (the classic look)
    table_look: Surface | None = None  # None: the classic table (felt-grain and faint streaks)


@dataclass(frozen=True)
class Surface:
    """A textured surface: a tray floor or the table around it."""
    kind: str  # felt | wood | paper | plastic | cloth | laminate | plain | cork | slate
    bgr: tuple[int, int, int]  # its main colour
    bgr2: tuple[int, int, int] = (0, 0, 0)  # grain, grid lines or speckles
    scale: float = 10.0  # texture scale in floor pixels (grid spacing, grain period, speckle size)
    angle_deg: float = 0.0  # grain or grid direction
    strength: float = 0.5  # how strongly the texture shows
    sheen: float = 0.0  # a soft specular sheen (plastic, laminate)


@dataclass(frozen=True)
class Camera:
    """How the camera departs from a straight-down pinhole: tilt and lens distortion, applied to
    the rendered picture as a homography of the floor plane (`homography`, floor pixels ->
    undistorted image) and a radial remap (`distortion` k: undistorted = c + (q - c)(1 + k r^2),
    r = |q - c| / half diagonal; k > 0 barrel, k < 0 pincushion)."""
    tilt_deg: float = 0.0
    tilt_dir_deg: float = 0.0
    distortion: float = 0.0
    homography: tuple[float, ...] = (1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0)


@dataclass(frozen=True)
class Lighting:
    azimuth_deg: float = 225.0  # image direction towards the light
    elevation_deg: float = 55.0
    intensity: float = 1.0
    ambient: float = 0.35
    gradient: Point = (0.0, 0.0)  # relative brightness change across the frame (x, y)
    vignette: float = 0.25
    tint: tuple[float, float, float] = (1.0, 1.0, 1.0)  # BGR gains
    kelvin: float | None = None  # the colour temperature the tint was made from (None: a random tint)

    def direction(self) -> np.ndarray:
        az, el = math.radians(self.azimuth_deg), math.radians(self.elevation_deg)
        return np.array([math.cos(el) * math.cos(az), math.cos(el) * math.sin(az), math.sin(el)])


@dataclass(frozen=True)
class Hand:
    """A hand reaching into the frame from `entry` (on the image border) towards `tip`."""
    entry: Point
    tip: Point
    width: float
    skin_bgr: tuple[int, int, int]
    height: float  # above the floor, for its shadow


@dataclass(frozen=True)
class Glare:
    center: Point
    radius: float
    strength: float = 1.0


@dataclass(frozen=True)
class Motion:
    length: float  # pixels
    angle_deg: float


@dataclass(frozen=True)
class Scene:
    size: tuple[int, int]  # (w, h)
    tray: Tray
    keep_zone: Poly | None
    dice: tuple[DieSpec, ...]
    expected_n: int
    camera_height: float  # floor pixels
    lighting: Lighting = field(default_factory=Lighting)
    noise: float = 2.0  # sensor noise sigma (0-255 scale)
    blur: float = 0.6  # gaussian sigma (lens / focus)
    jpeg_quality: int | None = 90
    seed: int = 0
    condition: str = "clean"
    hand: Hand | None = None
    glare: Glare | None = None
    motion: Motion | None = None

    nadir: Point | None = None  # the point straight below the camera (None: the image centre)
    die_size: float = 0.0  # edge length of this table's dice (floor pixels), also when none are in view
    camera: Camera | None = None  # tilt and lens distortion (None: straight down, no distortion)
    grey: bool = False  # a grey-scale sensor: every channel the same
    flicker: float = 0.0  # mains flicker: rolling-shutter bands of +-flicker relative brightness
    flicker_period: float = 0.0  # rows per band period
    shake: Motion | None = None  # slight camera shake that leaves the dice readable
    pool: str = "classic"  # which pool drew it (POOLS)
    #: dark marks on the floor or table (a screw hole, a stain): (x, y, radius, depth 0-1), floor pixels
    spots: tuple[tuple[float, float, float, float], ...] = ()

    @property
    def center(self) -> Point:
        """The camera's nadir in image pixels."""
        if self.nadir is not None:
            return self.nadir
        return ((self.size[0] - 1) / 2.0, (self.size[1] - 1) / 2.0)

    def project(self, pts: np.ndarray) -> np.ndarray:
        """(N, 3) points -> (N, 2) floor pixels: where the straight-down camera sees them."""
        pts = np.asarray(pts, dtype=np.float64).reshape(-1, 3)
        c = np.array(self.center)
        k = self.camera_height / (self.camera_height - pts[:, 2])
        return c + (pts[:, :2] - c) * k[:, None]

    def to_image(self, pts: np.ndarray) -> np.ndarray:
        """(N, 2) floor pixels (as `project` gives) -> (N, 2) pixels of the rendered frame (after
        the camera's tilt and lens distortion; the same points without a `camera`)."""
        from vision.synthetic_camera import forward
        return forward(self.camera, pts, self.size)


@dataclass(frozen=True)
class TruthDie:
    index: int
    value: int | None  # the face when status is "ok", else None
    face: int  # the face most up, whatever the status
    center: Point  # image pixels of the visible top face's centre
    status: str  # "ok" | "cocked" | "off_tray" | "unreadable"


@dataclass(frozen=True)
class Truth:
    dice: tuple[TruthDie, ...]
    values: tuple[int, ...]  # sorted faces of ok dice
    verdict: str  # "ok" | "reroll"
    reasons: tuple[str, ...]
    expected_n: int

    def as_json(self) -> dict:
        """The same shape as one line of `yatzycam read --json` (without image and ms)."""
        return {"verdict": self.verdict, "reasons": list(self.reasons), "values": list(self.values),
                "dice": [{"value": d.value, "center": [round(d.center[0], 1), round(d.center[1], 1)],
                          "status": d.status} for d in self.dice]}


# --------------------------------------------------------------------------- die geometry
# canonical die: local +x=2, -x=5, +y=3, -y=4, +z=1, -z=6 (opposite faces sum to 7)
FACE_VALUES = (2, 5, 3, 4, 1, 6)  # index 2*axis + (sign < 0)


def _face_up_rotation(value: int) -> np.ndarray:
    """Rotation (local -> world) that puts `value` on top."""
    i = FACE_VALUES.index(value)
    k, s = i // 2, (-1.0 if i % 2 else 1.0)
    r = np.zeros((3, 3))
    r[2, k] = s  # world z = s * local k
    r[0, (k + 1) % 3] = 1.0
    r[1, (k + 2) % 3] = 1.0
    if np.linalg.det(r) < 0:
        r[1] *= -1.0
    return r


def _rot_z(deg: float) -> np.ndarray:
    a = math.radians(deg)
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def _rot_axis(axis: np.ndarray, deg: float) -> np.ndarray:
    a = math.radians(deg)
    x, y, z = axis / np.linalg.norm(axis)
    c, s, t = math.cos(a), math.sin(a), 1 - math.cos(a)
    return np.array([[t * x * x + c, t * x * y - s * z, t * x * z + s * y],
                     [t * x * y + s * z, t * y * y + c, t * y * z - s * x],
                     [t * x * z - s * y, t * y * z + s * x, t * z * z + c]])


@dataclass(frozen=True)
class DiePose:
    rotation: np.ndarray  # local -> world
    position: np.ndarray  # body centre (x, y, z)
    half: float  # half edge
    radius: float  # corner radius


def style_of(d: DieSpec) -> DieStyle:
    """The die's look: its own DieStyle, or the STYLES entry it names."""
    return d.style if isinstance(d.style, DieStyle) else STYLES[d.style]


def style_name(d: DieSpec) -> str:
    return d.style.name if isinstance(d.style, DieStyle) else str(d.style)


def die_pose(d: DieSpec) -> DiePose:
    style = style_of(d)
    r = _face_up_rotation(d.value)
    r = _rot_z(d.yaw_deg) @ r
    if d.tilt_deg:
        td = math.radians(d.tilt_dir_deg)
        # rotating about the horizontal axis perpendicular to the lean direction moves the top towards it
        axis = np.array([-math.sin(td), math.cos(td), 0.0])
        r = _rot_axis(axis, d.tilt_deg) @ r
    a = d.size_px / 2.0
    rr = style.corner * d.size_px
    b = a - rr
    corners = CUBE * b @ r.T
    z = d.base_z - (corners[:, 2].min() - rr)
    return DiePose(r, np.array([d.center[0], d.center[1], z]), a, rr)


CUBE = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)], dtype=np.float64)


def die_corners(d: DieSpec) -> np.ndarray:
    """(8, 3) world corners of the die's (unrounded) bounding cube."""
    p = die_pose(d)
    return CUBE * p.half @ p.rotation.T + p.position


def top_face(d: DieSpec) -> tuple[int, np.ndarray]:
    """(face value most up, world centre of that face)."""
    p = die_pose(d)
    ups = np.concatenate([p.rotation[2], -p.rotation[2]])  # z of +x,+y,+z,-x,-y,-z
    j = int(np.argmax(ups))
    k, s = j % 3, (1.0 if j < 3 else -1.0)
    value = FACE_VALUES[2 * k + (s < 0)]
    return value, p.position + p.rotation[:, k] * s * p.half


def footprint(d: DieSpec) -> np.ndarray:
    """Convex hull (M, 2) of the die seen straight from above, floor pixels."""
    return _hull(die_corners(d)[:, :2])


# --------------------------------------------------------------------------- 2-d helpers
def _hull(pts: np.ndarray) -> np.ndarray:
    """Convex hull (M, 2), counter-clockwise in (x, y) maths orientation."""
    h = cv2.convexHull(np.asarray(pts, dtype=np.float32).reshape(-1, 1, 2), clockwise=False).reshape(-1, 2)
    return _ccw(h.astype(np.float64))


def _ccw(poly: np.ndarray) -> np.ndarray:
    poly = np.asarray(poly, dtype=np.float64)
    x, y = poly[:, 0], poly[:, 1]
    area = float(np.dot(x[:-1], y[1:]) - np.dot(x[1:], y[:-1]) + x[-1] * y[0] - x[0] * y[-1])
    return poly if area > 0 else poly[::-1]


def _halfplanes(poly: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Outward unit normals (M, 2) and offsets (M,) of a convex polygon: inside iff n.p <= c."""
    poly = _ccw(poly)
    e = np.empty_like(poly)
    e[:-1] = poly[1:] - poly[:-1]
    e[-1] = poly[0] - poly[-1]
    n = np.empty_like(e)
    n[:, 0] = e[:, 1]
    n[:, 1] = -e[:, 0]
    n /= np.sqrt(n[:, 0] ** 2 + n[:, 1] ** 2)[:, None]
    return n, np.einsum("ij,ij->i", n, poly)


def inside_convex(poly: np.ndarray | tuple, pts: np.ndarray, margin: float = 0.0) -> np.ndarray:
    """Which points lie inside the convex polygon (or its `_halfplanes`) by at least `margin`."""
    n, c = poly if isinstance(poly, tuple) else _halfplanes(poly)
    pts = np.asarray(pts, dtype=np.float64).reshape(-1, 2)
    return np.all(pts @ n.T <= c - margin, axis=1)


def offset_convex(poly: np.ndarray, dist: float) -> np.ndarray:
    """Grow (dist > 0) or shrink a convex polygon by moving every edge along its normal."""
    poly = _ccw(poly)
    n, c = _halfplanes(poly)
    c = c + dist
    m = len(poly)
    out = []
    for i in range(m):
        j = (i - 1) % m
        a = np.array([n[j], n[i]])
        if abs(np.linalg.det(a)) < 1e-9:
            out.append(poly[i] + n[i] * dist)
        else:
            out.append(np.linalg.solve(a, np.array([c[j], c[i]])))
    return np.array(out)


def overlap_depth(p: np.ndarray, q: np.ndarray) -> float:
    """Penetration depth of two convex polygons (separating axes); <= 0 means apart or touching."""
    lo = np.maximum(p.min(axis=0), q.min(axis=0))
    hi = np.minimum(p.max(axis=0), q.max(axis=0))
    gap = float((hi - lo).min())
    if gap <= 0:
        return gap  # the bounding boxes already separate them
    best = math.inf
    for poly in (p, q):
        n, _ = _halfplanes(poly)
        a, b = p @ n.T, q @ n.T
        best = min(best, float(np.minimum(a.max(axis=0) - b.min(axis=0), b.max(axis=0) - a.min(axis=0)).min()))
        if best <= 0:
            return best
    return best


def shape_polygon(shape: str, center: Point, half_w: float, half_h: float, angle_deg: float = 0.0,
                  corner: float = 0.0) -> np.ndarray:
    """Floor polygon of a tray of this shape."""
    if shape == "rect":
        pts = np.array([[-half_w, -half_h], [half_w, -half_h], [half_w, half_h], [-half_w, half_h]])
    elif shape == "rounded":
        r = min(corner, half_w * 0.9, half_h * 0.9)
        pts = []
        for cx, cy, a0 in ((half_w - r, half_h - r, 0), (-half_w + r, half_h - r, 90),
                           (-half_w + r, -half_h + r, 180), (half_w - r, -half_h + r, 270)):
            for k in range(9):
                a = math.radians(a0 + k * 90 / 8)
                pts.append([cx + r * math.cos(a), cy + r * math.sin(a)])
        pts = np.array(pts)
    elif shape == "hex":
        pts = np.array([[half_w * math.cos(math.radians(a)), half_h * math.sin(math.radians(a)) / math.sin(math.radians(60))]
                        for a in range(0, 360, 60)])
    else:
        raise ValueError(f"unknown tray shape {shape!r} (rect, rounded, hex)")
    rot = _rot_z(angle_deg)[:2, :2]
    return _ccw(pts @ rot.T + np.array(center))


# --------------------------------------------------------------------------- truth
def _hand_mask(scene: Scene, scale: float = 1.0) -> np.ndarray:
    from vision.synthetic_render import hand_mask
    return hand_mask(scene, scale)


def _status(scene: Scene, d: DieSpec, c: np.ndarray, hand: np.ndarray | None) -> str:
    """A die's status as if it lay on the tray (c: its top face's centre, floor pixels)."""
    if d.motion is not None:
        return "unreadable"
    if d.tilt_deg > COCKED_DEG:
        return "cocked"
    if scene.motion is not None or d.odd_top is not None:
        return "unreadable"
    if scene.glare is not None and math.dist(c, scene.glare.center) < scene.glare.radius + 0.5 * d.size_px:
        return "unreadable"
    if hand is not None and _covered(hand, 0.25, c, d.size_px):
        return "unreadable"
    return "ok"


def truth(scene: Scene) -> Truth:
    """What a perfect reader says about this scene (die centres in the rendered frame's pixels)."""
    hand = _hand_mask(scene, 0.25) if scene.hand is not None else None
    dice = []
    for i, d in enumerate(scene.dice):
        if d.symbols:  # no die of the game
            continue
        face, c3 = top_face(d)
        c = scene.project(c3[None])[0]  # floor pixels (the hand and glare live there too)
        status = "off_tray" if d.where == "off" else _status(scene, d, c, hand)
        if scene.camera is not None:
            c = scene.to_image(c[None])[0]
        dice.append(TruthDie(i, face if status == "ok" else None, face, (float(c[0]), float(c[1])), status))
    found = {d.status for d in dice}
    reasons = set()
    if "cocked" in found:
        reasons.add("cocked")
    if "off_tray" in found:
        reasons.add("off_tray")
    if len(dice) < scene.expected_n:
        reasons.add("missing")
    if len(dice) > scene.expected_n:
        reasons.add("extra")
    if "unreadable" in found or scene.hand is not None or scene.glare is not None or scene.motion is not None:
        reasons.add("unreadable")
    ordered = tuple(r for r in REASONS if r in reasons)
    values = tuple(sorted(d.value for d in dice if d.status == "ok"))
    return Truth(tuple(dice), values, "reroll" if ordered else "ok", ordered, scene.expected_n)


#: the class a detector learns for a die that is not flat and readable (cocked, on its edge,
#: still rolling, hidden by a hand or a glare, an odd face, or under camera shake).
UNREADABLE_CLASS = 6


@dataclass(frozen=True)
class Label:
    """One die as it appears in the rendered frame, for training a detector."""
    index: int  # into scene.dice
    center: Point  # frame pixels of its top face's centre
    side: float  # the top face's apparent side in frame pixels (square root of its area)
    cls: int  # 0-5 for faces 1-6; UNREADABLE_CLASS for a die that cannot be read
    status: str  # "ok" | "cocked" | "off_tray" | "unreadable" (as in truth())
    face: int  # the face most up, whatever the class
    box: tuple[float, float, float, float]  # x0, y0, x1, y1 of the whole die in the frame (not clipped)
    visible: float  # share of the die's outline inside the frame (1.0: all of it)
    top: tuple[Point, ...]  # the top face's four corners in the frame
    style: str  # the die style's name
    family: str  # its family (DIE_FAMILIES)

    def as_json(self) -> dict:
        return {"center": [round(self.center[0], 2), round(self.center[1], 2)], "side": round(self.side, 2),
                "cls": self.cls, "status": self.status, "face": self.face,
                "box": [round(v, 2) for v in self.box], "visible": round(self.visible, 3),
                "top": [[round(x, 2), round(y, 2)] for x, y in self.top], "style": self.style,
                "family": self.family}


def labels(scene: Scene) -> list[Label]:
    """Every die of the scene as it appears in `render(scene)`: top-face centre and side, class
    (faces 1-6 as 0-5, or UNREADABLE_CLASS), status, whole-die box and how much of it is in view.
    An off-tray die lying flat keeps its face's class; its status says "off_tray"."""
    hand = _hand_mask(scene, 0.25) if scene.hand is not None else None
    w, h = scene.size
    frame = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    out = []
    for i, d in enumerate(scene.dice):
        if d.symbols:  # no die of the game (vision.synthetic.distractors gives where it lies)
            continue
        p = die_pose(d)
        ups = np.concatenate([p.rotation[2], -p.rotation[2]])
        j = int(np.argmax(ups))
        k, sgn = j % 3, (1.0 if j < 3 else -1.0)
        face = FACE_VALUES[2 * k + (sgn < 0)]
        c3 = p.position + p.rotation[:, k] * sgn * p.half
        e1, e2 = p.rotation[:, (k + 1) % 3] * p.half, p.rotation[:, (k + 2) % 3] * p.half
        quad3 = np.array([c3 + e1 + e2, c3 - e1 + e2, c3 - e1 - e2, c3 + e1 - e2])
        c_floor = scene.project(c3[None])[0]
        readable = _status(scene, d, c_floor, hand)
        status = "off_tray" if d.where == "off" else readable
        pts = scene.to_image(np.vstack([scene.project(c3[None]), scene.project(quad3),
                                        scene.project(die_corners(d))]))
        c, quad, hullpts = pts[0], pts[1:5], pts[5:]
        x, y = quad[:, 0], quad[:, 1]
        area = 0.5 * abs(float(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))))
        hull = cv2.convexHull(hullpts.astype(np.float32))
        total = float(cv2.contourArea(hull))
        inter, _ = cv2.intersectConvexConvex(hull.reshape(-1, 2), frame)
        inside = bool(np.all((hullpts >= 0) & (hullpts <= np.array([w, h]))))
        visible = 1.0 if inside or total <= 0 else float(min(1.0, max(0.0, inter / total)))
        st = style_of(d)
        out.append(Label(i, (float(c[0]), float(c[1])), math.sqrt(area),
                         face - 1 if readable == "ok" else UNREADABLE_CLASS, status, face,
                         (float(hullpts[:, 0].min()), float(hullpts[:, 1].min()),
                          float(hullpts[:, 0].max()), float(hullpts[:, 1].max())), visible,
                         tuple((float(a), float(b)) for a, b in quad), st.name, st.family))
    return out


def _covered(mask: np.ndarray, scale: float, c: np.ndarray, size: float) -> bool:
    """Does the hand cover a noticeable part of a die's top face?"""
    h, w = mask.shape
    r = max(1, int(round(0.5 * size * scale)))
    x, y = int(round(c[0] * scale)), int(round(c[1] * scale))
    patch = mask[max(0, y - r):min(h, y + r + 1), max(0, x - r):min(w, x + r + 1)]
    return patch.size > 0 and float(patch.mean()) > 0.1


# --------------------------------------------------------------------------- generation
@dataclass(frozen=True)
class Setup:
    """The physical table: everything that stays the same from throw to throw."""
    size: tuple[int, int]
    tray: Tray
    keep_zone: Poly | None
    die_size: float
    camera_height: float
    styles: tuple[str, ...]  # one per die index (cycled)
    lighting: Lighting
    noise: float
    blur: float
    jpeg_quality: int | None
    nadir: Point
    camera: Camera | None = None
    grey: bool = False
    flicker: float = 0.0
    flicker_period: float = 0.0
    pool: str = "classic"

    def style(self, i: int) -> str | DieStyle:
        return self.styles[i % len(self.styles)]


_SETUP_KEYS = ("tray_shape", "felt", "style", "keep_zone", "die_size", "camera_height", "jpeg_quality",
               "noise", "blur", "lighting", "tray", "nadir")
POOL_KEYS = _SETUP_KEYS + ("floor", "table", "camera", "grey", "flicker")


def as_style(s: str | DieStyle) -> DieStyle:
    """A DieStyle, or the STYLES entry a name names (ValueError for an unknown name)."""
    if isinstance(s, DieStyle):
        return s
    if s not in STYLES:
        raise ValueError(f"unknown die style {s!r} ({', '.join(STYLES)}, or a DieStyle)")
    return STYLES[s]


def contrast(a: tuple[int, int, int], b: tuple[int, int, int], least: float = 70.0) -> bool:
    """Do two BGR colours differ enough for a player to tell a die from the felt at a glance?"""
    return math.dist(a, b) >= least


def _rim_for(rng: np.random.Generator, felt_bgr: tuple[int, int, int]) -> tuple[int, int, int]:
    """A rim colour that can be told from the felt (a tray maker's choice, and the floor's edge shows)."""
    rims = [r for r in RIMS if contrast(r, felt_bgr, 60.0)] or list(RIMS)
    return tuple(int(v) for v in rims[int(rng.integers(len(rims)))])


def _make_setup(rng: np.random.Generator, n_dice: int, size: tuple[int, int], **kw) -> Setup:
    pool = kw.pop("pool", None) or "classic"
    if pool not in POOLS:
        raise ValueError(f"unknown pool {pool!r} ({', '.join(POOLS)})")
    if pool != "classic":
        from vision.synthetic_pools import make_setup
        return make_setup(rng, n_dice, size, pool, **kw)
    bad = set(kw) - set(_SETUP_KEYS)
    if bad:
        raise TypeError(f"unknown scene option(s) {sorted(bad)}; known: {', '.join(_SETUP_KEYS)}")
    w, h = size
    die = float(kw.get("die_size") or w * rng.uniform(0.042, 0.058))
    cam = float(kw.get("camera_height") or die * rng.uniform(26.0, 38.0))
    keep = kw.get("keep_zone")
    keep = bool(rng.random() < 0.2) if keep is None else bool(keep)
    tray = kw.get("tray")
    ic = np.array([(w - 1) / 2.0, (h - 1) / 2.0])
    if kw.get("nadir") is not None:
        nadir = np.array(kw["nadir"], dtype=np.float64)
    elif tray is not None:
        nadir = np.array(tray.nadir, dtype=np.float64) if tray.nadir is not None else ic
    else:  # the camera is mounted roughly, not exactly, above the middle
        nadir = ic + rng.uniform(-0.03, 0.03, 2) * np.array([w, h])
    styles = kw.get("style")
    if styles is None:
        names = list(STYLES)
        if rng.random() < 0.15:
            styles = tuple(str(rng.choice(names)) for _ in range(max(1, n_dice)))
        else:
            styles = (str(rng.choice(names)),)
    elif isinstance(styles, str):
        styles = (styles,)
    for s in styles:
        as_style(s)
    keep_poly = None
    if tray is None:
        shape = kw.get("tray_shape") or str(rng.choice(["rect", "rect", "rounded", "rounded", "hex"]))
        felt = kw.get("felt")
        if felt is None:  # players pick dice that stand out from their felt
            felts = [f for f in FELTS if all(contrast(as_style(st).body, FELTS[f]) for st in styles)] or list(FELTS)
            felt = str(rng.choice(felts))
        if felt not in FELTS:
            raise ValueError(f"unknown felt {felt!r} ({', '.join(FELTS)})")
        wall = die * rng.uniform(1.2, 2.6)
        rim = die * rng.uniform(0.5, 1.5)
        grow = cam / (cam - wall)
        c = nadir
        # room left for the rim (projected) and a strip of table
        if keep:
            fw = rng.uniform(0.50, 0.56) * w
            cx = ic[0] - rng.uniform(0.10, 0.13) * w
        else:
            fw = rng.uniform(0.62, 0.76) * w
            cx = ic[0] + rng.uniform(-0.02, 0.02) * w
        fh = rng.uniform(0.66, 0.76) * h
        cy = ic[1] + rng.uniform(-0.02, 0.02) * h
        ang = rng.uniform(-4, 4) if shape != "hex" else rng.uniform(-3, 3)
        hw, hh = fw / 2.0, fh / 2.0
        if shape == "hex":
            hw, hh = hw * 1.08, hh * 1.02
        floor = shape_polygon(shape, (cx, cy), hw, hh, ang, corner=rng.uniform(0.12, 0.3) * min(hw, hh))
        outer = offset_convex(floor, rim)
        # keep the projected rim inside the frame (shrink the tray about the nadir if needed)
        proj = c + (outer - c) * grow
        lim = np.array([w - 1, h - 1]) - 3
        over = max(0.0, float(np.max(np.maximum(-proj + 3, proj - lim) / (np.abs(proj - c) + 1e-9))))
        if over > 0:
            f = 1.0 / (1.0 + over)
            floor = c + (floor - c) * f
            outer = offset_convex(floor, rim)
        tray = Tray(shape, tuple_poly(floor), tuple_poly(outer), felt, FELTS[felt],
                    _rim_for(rng, FELTS[felt]), float(rim), float(wall),
                    tuple(int(v) for v in TABLES[rng.integers(len(TABLES))]), (float(nadir[0]), float(nadir[1])))
        if keep:
            proj = c + (np.array(tray.outer) - c) * grow
            x0 = float(proj[:, 0].max()) + die * 0.6
            x1 = w - 1 - die * 0.4
            if x1 - x0 >= 2.2 * die:
                y0 = h * rng.uniform(0.12, 0.22)
                y1 = h * rng.uniform(0.78, 0.88)
                keep_poly = ((x0, y0), (x1, y0), (x1, y1), (x0, y1))
    light = kw.get("lighting") or Lighting(
        azimuth_deg=float(rng.uniform(0, 360)), elevation_deg=float(rng.uniform(40, 75)),
        intensity=float(rng.uniform(0.75, 1.2)), ambient=float(rng.uniform(0.28, 0.45)),
        gradient=(float(rng.uniform(-0.25, 0.25)), float(rng.uniform(-0.25, 0.25))),
        vignette=float(rng.uniform(0.1, 0.4)),
        tint=tuple(float(v) for v in 1.0 + rng.uniform(-0.06, 0.06, 3)))
    return Setup(size, tray, keep_poly, die, cam, tuple(styles), light,
                  float(kw["noise"]) if kw.get("noise") is not None else float(rng.uniform(1.0, 4.0)),
                  float(kw["blur"]) if kw.get("blur") is not None else float(rng.uniform(0.3, 0.9)),
                  kw["jpeg_quality"] if "jpeg_quality" in kw else int(rng.integers(70, 96)),
                  (float(nadir[0]), float(nadir[1])))


def tuple_poly(p: np.ndarray) -> Poly:
    return tuple((float(x), float(y)) for x, y in p)


class _Placer:
    """Puts dice down one by one without overlap (flat dice may touch)."""

    def __init__(self, setup: Setup, rng: np.random.Generator, fixed: Sequence[DieSpec] = ()):
        self.s = setup
        self.rng = rng
        self.placed: list[np.ndarray] = [footprint(d) for d in fixed]
        self.specs: list[DieSpec] = list(fixed)
        self.floor = np.array(setup.tray.floor)
        c = np.array(setup.nadir)
        grow = setup.camera_height / (setup.camera_height - setup.tray.wall_height)
        self.outer_proj = c + (np.array(setup.tray.outer) - c) * grow
        self.keep = np.array(setup.keep_zone) if setup.keep_zone else None
        self.floor_hp = _halfplanes(self.floor)
        self.keep_hp = _halfplanes(self.keep) if self.keep is not None else None

    # -- checks
    def _free(self, fp: np.ndarray) -> bool:
        return all(overlap_depth(fp, q) <= 0.35 for q in self.placed)

    def _in_image(self, d: DieSpec, partial: bool = False) -> bool:
        """Is the die in the frame (partial: is its centre, at least)?"""
        w, h = self.s.size
        pts = self._scene_project(die_corners(d))
        if self.s.camera is not None:
            from vision.synthetic_camera import forward
            pts = forward(self.s.camera, pts, self.s.size)
        if partial:
            c = pts.mean(axis=0)
            return bool(0 <= c[0] < w and 0 <= c[1] < h)
        return bool(pts[:, 0].min() >= 2 and pts[:, 1].min() >= 2 and pts[:, 0].max() <= w - 3 and pts[:, 1].max() <= h - 3)

    def _scene_project(self, pts: np.ndarray) -> np.ndarray:
        c = np.array(self.s.nadir)
        k = self.s.camera_height / (self.s.camera_height - pts[:, 2])
        return c + (pts[:, :2] - c) * k[:, None]

    def _ok(self, d: DieSpec, fp: np.ndarray) -> bool:
        if d.where == "tray":
            if not np.all(inside_convex(self.floor_hp, fp, -0.35)):
                return False
        elif d.where == "keep":
            if self.keep is None or not np.all(inside_convex(self.keep_hp, fp, 0.5)):
                return False
        return self._free(fp) and self._in_image(d)

    def add(self, d: DieSpec) -> bool:
        fp = footprint(d)
        if self._ok(d, fp):
            self.placed.append(fp)
            self.specs.append(d)
            return True
        return False

    # -- proposals
    def _die(self, i: int, **kw) -> DieSpec:
        rng = self.rng
        base = dict(value=int(rng.integers(1, 7)), center=(0.0, 0.0), yaw_deg=float(rng.uniform(0, 360)),
                    size_px=self.s.die_size, style=self.s.style(i))
        base.update(kw)
        return DieSpec(**base)

    def _contact(self, make, start: np.ndarray, direction: np.ndarray, ok, far: float) -> DieSpec | None:
        """Slide a die from `start` along `direction` to where `ok` first holds (touching)."""
        lo, hi = 0.0, far
        if not ok(make(start + direction * hi)):
            return None
        if ok(make(start)):
            return make(start)
        for _ in range(13):
            mid = (lo + hi) / 2
            if ok(make(start + direction * mid)):
                hi = mid
            else:
                lo = mid
        return make(start + direction * (hi + self.rng.uniform(0.0, 0.8)))

    def _to_wall(self, make, start: np.ndarray, outward: np.ndarray, region_hp: tuple, far: float) -> DieSpec | None:
        """Slide a die outward until it leaves the region, then back until it is just inside: against the wall."""
        def within(d: DieSpec) -> bool:
            return bool(np.all(inside_convex(region_hp, footprint(d), -0.35)))
        d = self._contact(make, start, outward, lambda d: not within(d), far)
        if d is None:
            return None
        return self._contact(make, np.array(d.center), -outward, within, self.s.die_size)

    def _random_point(self, poly: np.ndarray, margin: float) -> np.ndarray:
        lo, hi = poly.min(axis=0), poly.max(axis=0)
        for _ in range(100):
            p = self.rng.uniform(lo, hi)
            if inside_convex(poly, p, margin)[0]:
                return p
        return poly.mean(axis=0)

    def _edge_point(self, poly: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """A random point on a polygon edge, its inward normal and the edge direction."""
        poly = _ccw(poly)
        e = np.roll(poly, -1, axis=0) - poly
        lens = np.linalg.norm(e, axis=1)
        i = int(self.rng.choice(len(poly), p=lens / lens.sum()))
        t = self.rng.uniform(0.1, 0.9)
        n, _ = _halfplanes(poly)
        return poly[i] + e[i] * t, -n[i], e[i] / lens[i]

    def place_flat(self, i: int, where: str = "tray", mode: str | None = None, **kw) -> DieSpec | None:
        rng = self.rng
        s = self.s.die_size
        region = self.keep if where == "keep" else self.floor
        region_hp = self.keep_hp if where == "keep" else self.floor_hp
        for _ in range(60):
            m = mode or str(rng.choice(["free", "free", "free", "touch", "wall"]))
            tilt = float(rng.uniform(0, 2.5)) if where == "tray" else 0.0
            d0 = self._die(i, where=where, tilt_deg=tilt, tilt_dir_deg=float(rng.uniform(0, 360)), **kw)
            if m == "touch" and where == "tray":
                others = [d for d in self.specs if d.where == "tray" and d.base_z == 0 and d.tilt_deg < COCKED_DEG]
                if not others:
                    continue
                a = others[int(rng.integers(len(others)))]
                yaw = a.yaw_deg + (rng.uniform(-6, 6) if rng.random() < 0.6 else rng.uniform(0, 90))
                ang = math.radians(a.yaw_deg + 90 * int(rng.integers(4)) + rng.uniform(-35, 35))
                u = np.array([math.cos(ang), math.sin(ang)])
                start = np.array(a.center)
                d = self._contact(lambda p: replace(d0, center=(float(p[0]), float(p[1])), yaw_deg=float(yaw)),
                                  start, u, lambda d: self._free(footprint(d)), 2.0 * s)
            elif m == "wall" and where == "tray":
                p, inward, edge = self._edge_point(region)
                yaw = math.degrees(math.atan2(edge[1], edge[0])) + 90 * int(rng.integers(4))
                yaw += rng.uniform(-5, 5) if rng.random() < 0.7 else rng.uniform(0, 90)
                d = self._to_wall(lambda q: replace(d0, center=(float(q[0]), float(q[1])), yaw_deg=float(yaw)),
                                  p + inward * 2.0 * s, -inward, region_hp, 2.0 * s)
            else:
                c = self._random_point(region, 0.75 * s)
                d = replace(d0, center=(float(c[0]), float(c[1])))
            if d is not None and self.add(d):
                return d
        return None

    def place_cocked(self, i: int, **kw) -> DieSpec | None:
        rng = self.rng
        s = self.s.die_size
        for _ in range(60):
            tilt = float(rng.uniform(16, 40 if self.s.pool == "classic" else 46))  # up to on its edge
            others = [d for d in self.specs if d.where == "tray" and d.tilt_deg < COCKED_DEG and d.base_z == 0]
            if others and rng.random() < 0.4:
                a = others[int(rng.integers(len(others)))]
                ang = rng.uniform(0, 2 * math.pi)
                u = np.array([math.cos(ang), math.sin(ang)])
                lean = -u
                start = np.array(a.center)
                region_ok = None
            else:
                p, inward, _ = self._edge_point(self.floor)
                u, lean = inward, -inward
                start = p + inward * 2.5 * s
                region_ok = True
            lean_deg = math.degrees(math.atan2(lean[1], lean[0]))
            yaw = lean_deg + 90 * int(rng.integers(4)) + (rng.uniform(-8, 8) if rng.random() < 0.8 else rng.uniform(0, 90))
            d0 = self._die(i, where="tray", tilt_deg=tilt, tilt_dir_deg=float(lean_deg), yaw_deg=float(yaw), **kw)

            def make(q, d0=d0):
                return replace(d0, center=(float(q[0]), float(q[1])))
            if region_ok:
                d = self._to_wall(make, start, lean, self.floor_hp, 3.0 * s)
            else:
                d = self._contact(make, start, u, lambda d: self._free(footprint(d)), 3.0 * s)
            if d is not None and self.add(d):
                return d
        return None

    def place_off(self, i: int, **kw) -> DieSpec | None:
        rng = self.rng
        s = self.s.die_size
        floor = self.floor
        outer = np.array(self.s.tray.outer)
        rim_ok = self.s.tray.rim_width >= 0.55 * s
        for _ in range(120):
            d0 = self._die(i, where="off", **kw)
            if rim_ok and rng.random() < 0.6:
                mid = offset_convex(floor, self.s.tray.rim_width / 2)
                p, _, _ = self._edge_point(mid)
                d = replace(d0, center=(float(p[0]), float(p[1])), base_z=self.s.tray.wall_height)
                if inside_convex(self.floor_hp, p, -0.3 * s)[0]:
                    continue
                fp = footprint(d)
                if np.any(inside_convex(self.floor_hp, fp, 0.0)):  # hangs over the felt: it would fall in
                    continue
                if self._free(fp) and self._in_image(d):
                    self.placed.append(fp)
                    self.specs.append(d)
                    return d
            else:
                w, h = self.s.size
                # the train pool lets a share of them lie at the frame's edge, partly out of view
                partial = self.s.pool == "train" and rng.random() < 0.25
                p = rng.uniform([s, s], [w - s, h - s]) if not partial else rng.uniform([0, 0], [w, h])
                if self.s.camera is not None:  # a point of the table the tilted camera sees
                    from vision.synthetic_camera import backward
                    p = backward(self.s.camera, p[None], self.s.size)[0]
                d = replace(d0, center=(float(p[0]), float(p[1])))
                fp = footprint(d)
                if overlap_depth(fp, self.outer_proj) > -0.3 * s:
                    continue
                if self.keep is not None and overlap_depth(fp, self.keep) > -0.3 * s:
                    continue
                if self._free(fp) and self._in_image(d, partial):
                    self.placed.append(fp)
                    self.specs.append(d)
                    return d
        return None


def _effects(rng: np.random.Generator, setup: Setup, dice: Sequence[DieSpec], condition: str,
             cam: float) -> dict:
    w, h = setup.size
    s = setup.die_size
    c = np.array(setup.nadir)
    if condition == "glare":
        tray_dice = [d for d in dice if d.where != "off"] or list(dice)
        if tray_dice:
            _, c3 = top_face(tray_dice[int(rng.integers(len(tray_dice)))])
            p = c + (c3[:2] - c) * (cam / (cam - c3[2])) + rng.uniform(-0.2, 0.2, 2) * s
        else:
            p = c + rng.uniform(-3, 3, 2) * s
        return {"glare": Glare((float(p[0]), float(p[1])), float(s * rng.uniform(0.7, 1.3)), float(rng.uniform(1.0, 1.5)))}
    if condition == "blur" and not any(d.motion is not None for d in dice):
        return {"motion": Motion(float(s * rng.uniform(0.45, 0.8)), float(rng.uniform(0, 180)))}
    if condition == "hand":
        side = int(rng.integers(4))
        t = rng.uniform(0.25, 0.75)
        entry = [(t * w, -0.05 * h), (w * 1.05, t * h), (t * w, h * 1.05), (-0.05 * w, t * h)][side]
        d = dice[int(rng.integers(len(dice)))] if dice else None
        target = np.array(d.center) if d is not None else c
        target = target + rng.uniform(-1.5, 1.5, 2) * s
        tones = ((150, 175, 225), (120, 150, 205), (95, 125, 180), (70, 95, 145), (50, 65, 100))
        skin = tuple(int(np.clip(v + rng.uniform(-12, 12), 0, 255)) for v in tones[int(rng.integers(len(tones)))])
        return {"hand": Hand((float(entry[0]), float(entry[1])), (float(target[0]), float(target[1])),
                             float(s * rng.uniform(4.5, 6.0)), skin, float(s * rng.uniform(1.5, 3.5)))}
    return {}


def _scene(setup: Setup, dice: Sequence[DieSpec], expected_n: int, rng: np.random.Generator,
           condition: str) -> Scene:
    seed = int(rng.integers(2**31))
    light = setup.lighting
    extra: dict = {}
    if setup.pool != "classic":
        from vision.synthetic_pools import per_scene
        extra = per_scene(rng, setup, condition)
    return Scene(setup.size, setup.tray, setup.keep_zone, tuple(dice), expected_n, setup.camera_height,
                 light, setup.noise, setup.blur, setup.jpeg_quality, seed, condition,
                 nadir=setup.nadir, die_size=setup.die_size, camera=setup.camera, grey=setup.grey,
                 flicker=setup.flicker, flicker_period=setup.flicker_period, pool=setup.pool,
                 **_effects(rng, setup, dice, condition, setup.camera_height), **extra)


def random_scene(rng: np.random.Generator, n_dice: int, size: tuple[int, int] = (1280, 960),
                 condition: str = "clean", pool: str | None = None, **overrides) -> Scene:
    """A random tray scene of `n_dice` (the game's count) under `condition` (see CONDITIONS).

    overrides: tray_shape ("rect"|"rounded"|"hex"), felt (a FELTS name), style (a STYLES name or a
    sequence, one per die), keep_zone (bool: a marked zone beside the tray, where some dice lie set
    aside), die_size, camera_height (floor pixels), jpeg_quality (None = no JPEG), noise, blur,
    lighting (a Lighting), tray (a Tray).

    pool: None or "classic" (the renderer's original world: STYLES on FELTS, camera straight down;
    the same seed gives the same scene as ever), "train" or "holdout" (widened worlds, see
    vision.synthetic_pools: also the overrides floor and table (kinds), camera (a Camera, or
    False), grey, flicker)."""
    if pool is not None:
        overrides["pool"] = pool
    if condition not in CONDITIONS:
        raise ValueError(f"unknown condition {condition!r} ({', '.join(CONDITIONS)})")
    if n_dice < 1:
        raise ValueError("n_dice must be at least 1")
    for attempt in range(20):
        setup = _make_setup(rng, n_dice, tuple(size), **overrides)
        dice = _place(setup, rng, n_dice, condition)
        if dice is not None:
            return _scene(setup, dice, n_dice, rng, condition)
    raise RuntimeError(f"could not place {n_dice} dice for {condition!r} in 20 attempts")


def random_condition(rng: np.random.Generator, mix: Mapping[str, float] = BENCH_MIX) -> str:
    """A condition drawn with the given shares (default: the bench's mix)."""
    names = list(mix)
    p = np.array([mix[k] for k in names], dtype=np.float64)
    return names[int(rng.choice(len(names), p=p / p.sum()))]


def with_distractors(scene: Scene, rng: np.random.Generator, symbol_dice: int = 2, spots: int = 4) -> Scene:
    """The scene with things that are not dice of the game: up to `symbol_dice` symbol dice lying
    flat on the floor (where they fit beside the dice) and up to `spots` dark marks (screw holes,
    stains: a pip's size to a die's) on the floor and the table, none under a die. The truth and
    the labels leave them out; `distractors` says where they are."""
    setup = _setup_of(scene)
    placer = _Placer(setup, rng, fixed=scene.dice)
    extra = []
    for k in range(symbol_dice):
        d = placer.place_flat(len(scene.dice) + k, where="tray")
        if d is not None:
            extra.append(replace(d, symbols=True, style=scene.dice[0].style if scene.dice and rng.random() < 0.5 else d.style))
    w, h = scene.size
    marks = []
    for _ in range(40):
        if len(marks) >= spots:
            break
        r = float(setup.die_size * rng.uniform(0.06, 0.35))
        x, y = float(rng.uniform(0.05, 0.95) * w), float(rng.uniform(0.05, 0.95) * h)
        if all(math.dist((x, y), d.center) > 0.9 * d.size_px + r for d in (*scene.dice, *extra)):
            marks.append((x, y, r, float(rng.uniform(0.35, 0.9))))
    return replace(scene, dice=tuple(scene.dice) + tuple(extra), spots=tuple(marks))


def distractors(scene: Scene) -> list[tuple[float, float, float]]:
    """(x, y, side) in the rendered frame of what `with_distractors` added: each symbol die's top
    face and each mark (side: the scene's top-face side)."""
    sym = [replace(d, symbols=False) for d in scene.dice if d.symbols]
    out = [(float(lb.center[0]), float(lb.center[1]), float(lb.side)) for lb in labels(replace(scene, dice=tuple(sym)))]
    if scene.spots:
        flat = [lb.side for lb in labels(scene)] or [float(scene.die_size)]
        side = float(np.median(flat))
        pts = scene.to_image(np.array([(x, y) for x, y, _, _ in scene.spots], np.float64))
        out += [(float(x), float(y), side) for x, y in pts]
    return out


def _place(setup: Setup, rng: np.random.Generator, n_dice: int, condition: str) -> list[DieSpec] | None:
    n_visible = n_dice - 1 if condition == "missing" else n_dice + 1 if condition == "extra" else n_dice
    placer = _Placer(setup, rng)
    special = {"cocked": "cocked", "off_tray": "off"}.get(condition)
    n_special = 0
    if special:
        n_special = 1 if rng.random() < 0.85 or n_visible < 3 else 2
    n_keep = 0
    if setup.keep_zone is not None and n_visible - n_special > 1:
        n_keep = int(rng.integers(0, min(4, n_visible - n_special - 1) + 1))
    kinds = ["keep"] * n_keep + ["tray"] * (n_visible - n_keep - n_special) + [special] * n_special
    order = list(range(n_visible))
    rng.shuffle(order)  # which die index gets which kind
    out: dict[int, DieSpec] = {}
    # normal dice first (cocked ones lean on them), then the special ones
    for kind_rank in ("keep", "tray", "cocked", "off"):
        for j, idx in enumerate(order):
            if kinds[j] != kind_rank:
                continue
            if kind_rank == "cocked":
                d = placer.place_cocked(idx)
            elif kind_rank == "off":
                d = placer.place_off(idx)
            else:
                d = placer.place_flat(idx, where=kind_rank)
            if d is None:
                return None
            out[idx] = d
    dice = [out[i] for i in range(n_visible)]
    if condition == "odd_face":
        j = int(rng.choice([i for i, d in enumerate(dice) if d.where != "off"]))
        dice[j] = replace(dice[j], odd_top=str(rng.choice(ODD_FACES)))
    if condition == "blur" and dice and rng.random() < 0.5:  # one die still rolling (else the camera shook)
        j = int(rng.integers(len(dice)))
        moving = replace(dice[j], where="tray", motion=Motion(float(setup.die_size * rng.uniform(0.6, 1.5)),
                                                             float(rng.uniform(0, 360))),
                         tilt_deg=float(rng.uniform(0, 9)), base_z=float(setup.die_size * rng.uniform(0, 0.3)))
        others = [footprint(d) for i, d in enumerate(dice) if i != j]
        fp = footprint(moving)
        if all(overlap_depth(fp, q) <= 0.35 for q in others) and dice[j].where == "tray":
            dice[j] = moving
    return dice


def _setup_of(scene: Scene) -> Setup:
    """The table a scene was taken on (to take more pictures of it)."""
    size = scene.die_size or (scene.dice[0].size_px if scene.dice else scene.size[0] * 0.05)
    styles = tuple(d.style for d in scene.dice) or ("white",)
    return Setup(scene.size, scene.tray, scene.keep_zone, float(size), scene.camera_height, styles,
                  scene.lighting, scene.noise, scene.blur, scene.jpeg_quality, scene.center,
                  scene.camera, scene.grey, scene.flicker, scene.flicker_period, scene.pool)


def with_effect(scene: Scene, rng: np.random.Generator, kind: str) -> Scene:
    """The same scene with a hand in view, a glare or camera shake added ("hand" | "glare" | "blur")."""
    if kind not in ("hand", "glare", "blur"):
        raise ValueError(f"unknown effect {kind!r} (hand, glare, blur)")
    effect = _effects(rng, _setup_of(scene), scene.dice, kind, scene.camera_height)
    return replace(scene, condition=kind, **effect)


def bench_scenes(n: int = 2000, seed: int = 0, dice: Sequence[int] = (5, 6, 8),
                 sizes: Sequence[tuple[int, int]] = ((1280, 960), (640, 480)),
                 mix: Mapping[str, float] = BENCH_MIX, pool: str | None = None):
    """The vision bench's scenes, reproducible from the seed: sizes and dice counts taken in turn
    (half at each size by default), conditions drawn in `mix`, tables from `pool` (None: classic;
    "holdout": styles, floors and settings a model trained on the "train" pool never saw).
    Yields Scenes one at a time."""
    rng = np.random.default_rng(seed)
    for i in range(n):
        size = tuple(sizes[i % len(sizes)])
        n_dice = dice[(i // len(sizes)) % len(dice)]
        yield random_scene(rng, n_dice, size, random_condition(rng, mix), pool=pool)


def reference_scene(rng: np.random.Generator, n_dice: int, size: tuple[int, int] = (1280, 960),
                    like: Scene | None = None, **overrides) -> Scene:
    """N dice lying flat, well apart, in the tray: the calibration's reference throw (on a small
    pool tray, as far apart as it allows).

    like: take it on the same table as that scene (tray, keep zone, light, camera, dice); else on a
    new random table (overrides as for random_scene)."""
    if like is not None and overrides:
        raise TypeError("reference_scene: give either like= or overrides, not both")
    pool = like.pool if like is not None else (overrides.get("pool") or "classic")
    for attempt in range(20 if pool == "classic" else 30):  # (pool trays can be small: closer dice later)
        if like is not None:
            setup = _setup_of(like)
        else:
            setup = _make_setup(rng, n_dice, tuple(size), **{"keep_zone": False, **overrides})
        placer = _Placer(setup, rng)
        dice = []
        for i in range(n_dice):
            classic = setup.pool == "classic"
            for _ in range(200 if classic else 60):
                c = placer._random_point(np.array(setup.tray.floor), (1.2 if attempt < 5 else 0.75 if attempt < 10 else 0.55) * setup.die_size)
                d = placer._die(i, center=(float(c[0]), float(c[1])))
                fp = footprint(d)
                late = attempt - 4 if classic else attempt + 1
                gap = 0.9 if late <= 0 else max(0.1, 0.9 - 0.1 * late)  # small trays: closer
                grown = offset_convex(_ccw(fp), gap * setup.die_size)
                if all(overlap_depth(grown, q) <= 0 for q in placer.placed) and placer.add(d):
                    dice.append(d)
                    break
            else:
                break
        if len(dice) == n_dice:
            return _scene(setup, dice, n_dice, rng, "clean")
    raise RuntimeError(f"could not place {n_dice} dice well apart")


def frame_polygons(scene: Scene) -> dict:
    """The tray's floor, its rim's outer edge (seen at the rim's height) and the keep zone, in
    the rendered frame's pixels (vertices mapped through the camera; None where there is none)."""
    tray = scene.tray
    outer = np.c_[np.array(tray.outer), np.full(len(tray.outer), tray.wall_height)]
    return {"floor": scene.to_image(np.array(tray.floor)).tolist(),
            "outer": scene.to_image(scene.project(outer)).tolist(),
            "keep_zone": scene.to_image(np.array(scene.keep_zone)).tolist() if scene.keep_zone else None}


def empty_scene(scene: Scene) -> Scene:
    """The same tray, light and camera with no dice (and no hand, glare or motion)."""
    return replace(scene, dice=(), hand=None, glare=None, motion=None, condition="empty")


def render(scene: Scene) -> np.ndarray:
    """The scene as a BGR uint8 photo (h, w, 3); the same scene always gives the same pixels."""
    from vision.synthetic_render import render_scene
    return render_scene(scene)


def render_empty(scene: Scene) -> np.ndarray:
    """The empty tray under the same light: the calibration's empty frame."""
    return render(empty_scene(scene))


# --------------------------------------------------------------------------- the simulated table
class SimTable:
    """A table with a tray and N dice that a simulated player throws again and again.

    The tray, light, camera and dice style are fixed for the table's life; `throw(keep)` leaves
    the kept dice where they lie (or moves them once into the keep zone, if the table has one)
    and throws the others. A share of throws ends with a cocked die or a die off the tray;
    `rethrow()` throws the same dice again (what a player does after "throw again")."""

    def __init__(self, n_dice: int, rng: np.random.Generator, size: tuple[int, int] = (1280, 960),
                 cocked_rate: float = 0.05, off_rate: float = 0.05, style: str | Sequence[str] | None = None,
                 tray: Tray | None = None, keep_zone: bool | None = False, **overrides):
        if n_dice < 1:
            raise ValueError("n_dice must be at least 1")
        self.n_dice = n_dice
        self.rng = rng
        self.cocked_rate = cocked_rate
        self.off_rate = off_rate
        kw = dict(overrides)
        if style is not None:
            kw["style"] = style
        if tray is not None:
            kw["tray"] = tray
            keep_zone = False
        kw["keep_zone"] = keep_zone
        self.setup = _make_setup(rng, n_dice, tuple(size), **kw)
        self._last_keep: tuple[int, ...] = ()
        self._scene: Scene | None = None
        self.throws = 0
        self.throw(())

    @property
    def scene(self) -> Scene:
        assert self._scene is not None
        return self._scene

    @property
    def faces(self) -> tuple[int, ...]:
        """The true top face of every die, by die index."""
        return tuple(top_face(d)[0] for d in self.scene.dice)

    @property
    def truth(self) -> Truth:
        return truth(self.scene)

    def render(self) -> np.ndarray:
        return render(self.scene)

    def reference_scene(self) -> Scene:
        """The table's dice lying flat and well apart (for calibrating on this table)."""
        return reference_scene(self.rng, self.n_dice, like=self.scene)

    def empty_scene(self) -> Scene:
        """The table with no dice in view."""
        return empty_scene(self.scene)

    def throw(self, keep: Sequence[int] = ()) -> Scene:
        keep = tuple(sorted(set(int(k) for k in keep)))
        for k in keep:
            if not 0 <= k < self.n_dice:
                raise ValueError(f"die index {k} out of range 0..{self.n_dice - 1}")
        rng = self.rng
        for attempt in range(30):
            fixed = self._kept(keep, rng)
            if fixed is None:
                continue
            placer = _Placer(self.setup, rng, fixed=list(fixed.values()))
            thrown = [i for i in range(self.n_dice) if i not in fixed]
            special: dict[int, str] = {}
            if thrown:
                r = rng.random()
                if r < self.cocked_rate:
                    special[int(rng.choice(thrown))] = "cocked"
                elif r < self.cocked_rate + self.off_rate:
                    special[int(rng.choice(thrown))] = "off"
            out = dict(fixed)
            ok = True
            for i in sorted(thrown, key=lambda i: i in special):
                kind = special.get(i)
                d = placer.place_cocked(i) if kind == "cocked" else placer.place_off(i) if kind == "off" else placer.place_flat(i)
                if d is None:
                    ok = False
                    break
                out[i] = d
            if ok:
                dice = [out[i] for i in range(self.n_dice)]
                cond = "cocked" if "cocked" in special.values() else "off_tray" if "off" in special.values() else "clean"
                self._scene = _scene(self.setup, dice, self.n_dice, rng, cond)
                self._last_keep = keep
                self.throws += 1
                return self._scene
        raise RuntimeError("could not throw the dice without overlap in 30 attempts")

    def rethrow(self) -> Scene:
        """Throw again the dice the last throw threw (after a cocked / off-tray reroll)."""
        return self.throw(self._last_keep)

    def _kept(self, keep: tuple[int, ...], rng: np.random.Generator) -> dict[int, DieSpec] | None:
        if self._scene is None or not keep:
            return {}
        out: dict[int, DieSpec] = {}
        placer = _Placer(self.setup, rng)
        move = []
        for k in keep:
            d = self._scene.dice[k]
            flat_ok = d.where != "off" and d.tilt_deg <= COCKED_DEG
            if self.setup.keep_zone is not None and d.where != "keep":
                move.append(k)
            elif not flat_ok:
                move.append(k)
            else:
                if not placer.add(d):
                    return None
                out[k] = d
        for k in move:
            old = self._scene.dice[k]
            where = "keep" if self.setup.keep_zone is not None else "tray"
            d = placer.place_flat(k, where=where, value=top_face(old)[0])
            if d is None:
                return None
            out[k] = d
        return out


# --------------------------------------------------------------------------- speed
def speed(n: int = 20, seed: int = 0, dice: int = 8, pool: str | None = None) -> dict:
    """Rendering and generation times on this machine (medians over n scenes per size, one thread):
    for `yatzycam bench` or `python -c "from vision.synthetic import speed; print(speed(pool='train'))"`."""
    import os
    import statistics
    import time

    threads = cv2.getNumThreads()
    cv2.setNumThreads(1)
    try:
        out: dict = {"scenes_per_size": n, "dice": dice, "pool": pool or "classic"}
        for size in ((1280, 960), (640, 480)):
            rng = np.random.default_rng(seed)
            gen, ren, wall = [], [], []
            for _ in range(n):
                c = time.process_time()
                sc = random_scene(rng, dice, size, random_condition(rng), pool=pool)
                gen.append(time.process_time() - c)
                c, t = time.process_time(), time.perf_counter()
                render(sc)
                ren.append(time.process_time() - c)
                wall.append(time.perf_counter() - t)
            key = f"{size[0]}x{size[1]}"
            out[f"render_ms_{key}"] = round(1000 * statistics.median(ren), 1)
            out[f"render_wall_ms_{key}"] = round(1000 * statistics.median(wall), 1)
            out[f"generate_ms_{key}"] = round(1000 * statistics.median(gen), 1)
        out["load_average_1min"] = round(os.getloadavg()[0], 2)
        return out
    finally:
        cv2.setNumThreads(threads)


# --------------------------------------------------------------------------- command line
def main(argv: Sequence[str] | None = None) -> int:
    """python -m vision.synthetic: write rendered scenes and their truth (one JSON line each)."""
    import argparse
    import json
    import os

    import cv2 as _cv2

    p = argparse.ArgumentParser(prog="python -m vision.synthetic", description=main.__doc__)
    p.add_argument("--out", required=True, help="folder for the images and truth.jsonl")
    p.add_argument("-n", type=int, default=10, help="how many scenes (default 10)")
    p.add_argument("--dice", type=int, default=5, help="the game's dice count (default 5)")
    p.add_argument("--size", default="1280x960", help="WxH (default 1280x960)")
    p.add_argument("--condition", default="mix", help=f"one of {', '.join(CONDITIONS)}, or 'mix' (the bench's mix)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--empty", action="store_true", help="also write each scene's empty tray (NAME-empty.png)")
    p.add_argument("--pool", default="classic", choices=POOLS,
                   help="classic (default), train or holdout: which world the tables come from")
    a = p.parse_args(argv)
    try:
        w, h = (int(v) for v in a.size.lower().split("x"))
    except ValueError:
        p.error(f"--size {a.size!r}: expected WxH, e.g. 1280x960")
    if a.condition != "mix" and a.condition not in CONDITIONS:
        p.error(f"--condition {a.condition!r}: expected one of {', '.join(CONDITIONS)} or mix")
    os.makedirs(a.out, exist_ok=True)
    rng = np.random.default_rng(a.seed)
    with open(os.path.join(a.out, "truth.jsonl"), "w") as f:
        for i in range(a.n):
            cond = random_condition(rng) if a.condition == "mix" else a.condition
            sc = random_scene(rng, a.dice, (w, h), cond, pool=a.pool)
            name = f"scene{i:04d}.png"
            _cv2.imwrite(os.path.join(a.out, name), render(sc))
            if a.empty:
                _cv2.imwrite(os.path.join(a.out, f"scene{i:04d}-empty.png"), render_empty(sc))
            f.write(json.dumps({"image": name, "condition": cond, "expected_n": a.dice, **truth(sc).as_json(),
                                "floor": sc.to_image(np.array(sc.tray.floor)).tolist(),
                                "keep_zone": sc.to_image(np.array(sc.keep_zone)).tolist() if sc.keep_zone else None,
                                "pool": sc.pool, "labels": [lb.as_json() for lb in labels(sc)]}) + "\n")
    print(f"wrote {a.n} scenes and truth.jsonl to {a.out}")
    return 0


if __name__ == "__main__":
    from vision.synthetic import main as _main  # the package's module, not a second copy as __main__

    raise SystemExit(_main())
