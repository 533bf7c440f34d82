"""Pixels for vision.synthetic scenes: surfaces with OpenCV, dice ray-marched with numpy.

Every die is a rounded cube (signed distance field) traced per pixel from a pinhole camera
straight above the nadir, so perspective, side faces, cocked tilts, rounded edges and
occlusion between touching dice come out of the geometry; pips are discs of paint, flush,
in a shallow dimple or deeply engraved (the recess shaded, its highlight hidden). A die's
style may vein or grain its body (marbled, wooden), make it metallic (a coloured reflection of
a bright-above room), or translucent (the floor behind it shows through, tinted, and so do the
pips of its far faces, where the ray leaves the die). Surfaces are polygons whose textures
(wood grain and planks, cork granules, slate mottling, cloth weave, a printed paper grid, a
plastic sheen) follow the tray, so the empty frame and every throw on it share them; shadows
are projected silhouettes, blurred (lighter under translucent dice). Then light falloff,
vignetting, blur, camera shake; the camera's tilt and lens distortion as one remap of a
larger straight-down picture (vision.synthetic_camera); rolling-shutter flicker; a grey-scale
sensor; noise and JPEG.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from vision.synthetic import (FACE_VALUES, STYLES, Scene, die_pose, die_corners, style_of, CUBE)

_O = 0.5  # pip offset from the face centre, in half edges
_FAR = 9.0
PIPS = np.full((7, 6, 2), _FAR, dtype=np.float32)
for _v, _pts in {1: [(0, 0)], 2: [(-_O, -_O), (_O, _O)], 3: [(-_O, -_O), (0, 0), (_O, _O)],
                 4: [(-_O, -_O), (_O, -_O), (-_O, _O), (_O, _O)],
                 5: [(-_O, -_O), (_O, -_O), (0, 0), (-_O, _O), (_O, _O)],
                 6: [(-_O, -_O), (-_O, 0), (-_O, _O), (_O, -_O), (_O, 0), (_O, _O)]}.items():
    PIPS[_v, :len(_pts)] = _pts
PIPS.setflags(write=False)
_PIP_GRID = np.zeros((9, 3, 3), bool)  # [value, u + 1, v + 1]: is there a pip at that grid point
for _v in range(1, 7):
    for _u, _w in PIPS[_v]:
        if _u < _FAR:
            _PIP_GRID[_v, int(round(_u / _O)) + 1, int(round(_w / _O)) + 1] = True
_PIP_GRID[7] = [[1, 1, 1], [0, 1, 0], [1, 1, 1]]  # "seven": not a die face; 8: "blank"
_PIP_GRID.setflags(write=False)
_ODD_INDEX = {"seven": 7, "blank": 8}
del _u, _w
del _v, _pts
_FACE_VALUE_ARR = np.array(FACE_VALUES, dtype=np.int64)
_ITERS = 14


def _random_bytes(rng: np.random.Generator, n: int) -> np.ndarray:
    """n seeded random bytes (uint8), straight from the bit generator (about twice as fast as rng.bytes)."""
    return rng.bit_generator.random_raw((n + 7) // 8).view(np.uint8)[:n]


def _unit_noise(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    """Zero-mean, unit-variance noise (triangular: two uniform bytes), float32; cheaper than normals."""
    u = _random_bytes(rng, w * h * 2).reshape(2, h, w)
    tri = cv2.add(u[0], u[1], dtype=cv2.CV_32F)
    tri -= 255.0
    tri *= np.float32(1.0 / 104.4)
    return tri


def _lowfreq(rng: np.random.Generator, h: int, w: int, cell: int) -> np.ndarray:
    sh, sw = max(2, h // cell + 2), max(2, w // cell + 2)
    m = rng.standard_normal((sh, sw)).astype(np.float32)
    return cv2.resize(m, (w, h), interpolation=cv2.INTER_CUBIC)


def _fill(mask: np.ndarray, poly: np.ndarray, value: float = 1.0) -> None:
    """Polygon onto a float mask (hard-edged: OpenCV anti-aliases only 8-bit images; blur it after)."""
    pts = np.round(np.asarray(poly) * 16).astype(np.int32)
    cv2.fillPoly(mask, [pts], value, lineType=cv2.LINE_8, shift=4)


def _blend(img: np.ndarray, mask: np.ndarray, colour: np.ndarray) -> None:
    """img = img * (1 - mask) + colour * mask, in place; colour (3,) or (h, w, 3)."""
    m = mask[..., None]
    img *= 1.0 - m
    img += m * colour


def hand_mask(scene: Scene, scale: float = 1.0) -> np.ndarray:
    """Float mask (0-1) of the hand at `scale` of the image size: forearm, palm, fingers, thumb."""
    w, h = scene.size
    sw, sh = max(1, int(round(w * scale))), max(1, int(round(h * scale)))
    m = np.zeros((sh, sw), np.float32)
    hand = scene.hand
    if hand is None:
        return m
    e, t = np.array(hand.entry) * scale, np.array(hand.tip) * scale
    u = t - e
    u /= float(np.linalg.norm(u)) or 1.0
    nrm = np.array([-u[1], u[0]])
    wd = hand.width * scale

    def capsule(p, q, thick):
        cv2.line(m, (int(round(p[0] * 8)), int(round(p[1] * 8))), (int(round(q[0] * 8)), int(round(q[1] * 8))),
                 1.0, max(1, int(round(thick))), cv2.LINE_AA, 3)
    knuckle = t - u * 0.7 * wd
    wrist = knuckle - u * 0.75 * wd
    capsule(e - u * 2.0 * wd, wrist, 0.62 * wd)  # forearm
    for f in (-0.22, -0.07, 0.07, 0.22):  # palm: a fat rounded block
        capsule(wrist + nrm * f * wd * 0.8, knuckle + nrm * f * wd, 0.34 * wd)
    spread = (-0.12, -0.04, 0.04, 0.12)
    lengths = (0.5, 0.68, 0.72, 0.62)
    for k, f in enumerate((-0.27, -0.09, 0.09, 0.27)):
        base = knuckle + nrm * f * wd
        dirn = u + nrm * spread[k]
        dirn /= np.linalg.norm(dirn)
        capsule(base, base + dirn * lengths[k] * wd, 0.17 * wd)
    side = 1.0 if int(hand.entry[0] + hand.entry[1]) % 2 else -1.0  # left or right hand
    tb = wrist + u * 0.2 * wd + nrm * side * 0.3 * wd
    capsule(tb, tb + (u * 0.6 + nrm * side * 0.55) * 0.6 * wd, 0.2 * wd)
    return cv2.GaussianBlur(m, (0, 0), max(0.6, 0.015 * wd))


def _soft(mask: np.ndarray, sigma: float) -> np.ndarray:
    """Gaussian blur; wide ones at a reduced size (same look, a fraction of the time)."""
    if sigma <= 0.3:
        return mask
    h, w = mask.shape[:2]
    f = int(sigma / 2.0)
    if f < 2:
        return cv2.GaussianBlur(mask, (0, 0), sigma)
    small = cv2.resize(mask, (max(2, w // f), max(2, h // f)), interpolation=cv2.INTER_AREA)
    small = cv2.GaussianBlur(small, (0, 0), sigma / f)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)


def _background(scene: Scene, rng: np.random.Generator, k: float) -> np.ndarray:
    """Table, keep zone, tray rim, walls and felt (with their light and the dice's shadows), at scale k."""
    W, Hh = scene.size
    w, h = max(2, int(round(W * k))), max(2, int(round(Hh * k)))
    tray = scene.tray
    H = scene.camera_height
    c = np.array(scene.center)
    lt = scene.lighting
    L = lt.direction()
    grain = _unit_noise(rng, h, w)
    low = _lowfreq(rng, h, w, max(8, int(48 * k)))
    floor = np.array(tray.floor)
    outer = np.array(tray.outer)
    grow = H / (H - tray.wall_height)
    top_in = c + (floor - c) * grow
    top_out = c + (outer - c) * grow
    tint = np.array(lt.tint, np.float32)

    def col(bgr) -> tuple:
        return tuple(float(min(255.0, v)) for v in np.asarray(bgr, np.float32) * tint)

    def draw(img8, poly, colour, outline: int = 0) -> None:
        """Anti-aliased polygon (or outline) straight onto the 8-bit albedo."""
        pts = [np.round(np.asarray(poly) * k * 16).astype(np.int32)]
        if outline:
            cv2.polylines(img8, pts, True, colour, outline, cv2.LINE_AA, 4)
        else:
            cv2.fillPoly(img8, pts, colour, lineType=cv2.LINE_AA, shift=4)

    def mask(poly) -> np.ndarray:
        """Anti-aliased coverage of a polygon at this scale (OpenCV anti-aliases only 8-bit images)."""
        m8 = np.zeros((h, w), np.uint8)
        draw(m8, poly, 255)
        return m8.astype(np.float32) * np.float32(1 / 255)

    # (big float arrays are updated in place: fresh temporaries of this size cost more than the maths)
    alb8 = np.empty((h, w, 3), np.uint8)
    cv2.rectangle(alb8, (0, 0), (w - 1, h - 1), col(tray.table_bgr), -1)  # (numpy's 3-channel fill is slow)
    looks = tray.floor_look is not None or tray.table_look is not None
    if looks:
        trng = np.random.default_rng(_tray_seed(tray))
        origin = np.array(scene.nadir if scene.nadir is not None else scene.center) - np.array(tray.nadir or scene.center)
        lum_t = _surface_lum(tray.table_look, w, h, k, trng, origin) if tray.table_look is not None else None
    irr = np.full((h, w), lt.ambient + 0.9 * L[2], np.float32)
    buf = np.empty((h, w), np.float32)
    # texture: low-frequency blotches, grain, and wood-ish streaks on the table
    tex = low
    tex *= np.float32(0.025)
    tex += np.float32(1.0)
    np.multiply(grain, np.float32(0.05), out=buf)
    tex += buf
    ang = rng.uniform(0, math.pi)
    yy, xx = np.mgrid[0:h:4, 0:w:4].astype(np.float32) / k
    s = xx * math.cos(ang) + yy * math.sin(ang)
    streak = np.sin(s * rng.uniform(0.02, 0.06) + 3 * np.sin(s * 0.005 + yy * 0.01)) * rng.uniform(0.0, 0.07)
    streak = cv2.resize(streak.astype(np.float32), (w, h), interpolation=cv2.INTER_LINEAR)
    tray_m = mask(top_out)
    np.subtract(np.float32(1.0), tray_m, out=buf)  # 1 on the table
    if scene.keep_zone is not None:
        buf -= mask(np.array(scene.keep_zone))
    streak *= buf
    if tray.table_look is None:
        tex += streak
    elif lum_t is not None:
        lum_t -= np.float32(1.0)
        lum_t *= buf
        tex += lum_t
    if scene.keep_zone is not None:
        kz = np.array(scene.keep_zone)
        draw(alb8, kz, col(np.clip(np.array(tray.felt_bgr, np.float32) * 1.15 + 20, 0, 255)))
        draw(alb8, kz, col((235, 235, 235)), outline=max(1, int(W * k / 640)))
    # the tray's shadow on the table (not on its own rim)
    np.subtract(np.float32(1.0), tray_m, out=buf)
    buf *= _soft(mask(outer - L[:2] / L[2] * tray.wall_height), (tray.wall_height * 0.4 + 1) * k)
    buf *= np.float32(-0.45)
    buf += np.float32(1.0)
    irr *= buf
    # rim top, walls, floor
    draw(alb8, top_out, col(tray.rim_bgr))
    wall_irr = irr.copy()
    n = len(floor)
    cen = floor.mean(axis=0)
    for i in range(n):
        a, b = floor[i], floor[(i + 1) % n]
        e = b - a
        nn = np.array([-e[1], e[0]]) / (np.linalg.norm(e) + 1e-9)
        if np.dot(nn, cen - (a + b) / 2) < 0:
            nn = -nn  # inward
        shade = lt.ambient * 0.8 + 0.85 * max(0.0, float(nn @ L[:2]))
        pts = np.round(np.array([a, b, top_in[(i + 1) % n], top_in[i]]) * k * 16).astype(np.int32)
        cv2.fillConvexPoly(wall_irr, pts, float(shade), cv2.LINE_8, 4)
    wall_irr -= irr  # the walls: everything inside the rim's inner edge (the felt follows)
    wall_irr *= mask(top_in)
    irr += wall_irr
    fm = mask(floor)
    draw(alb8, floor, col(tray.felt_bgr))
    if tray.floor_look is not None:
        lum_f = _surface_lum(tray.floor_look, w, h, k, trng, origin)
        if lum_f is not None:
            lum_f -= np.float32(1.0)
            lum_f *= fm
        if tray.floor_look.kind == "paper":
            _paper_lines(alb8, tray.floor_look, floor, k, origin, col)
    # the walls' shadow on the floor: lit where the way to the light clears the wall; soft (room light)
    lit = mask(floor - L[:2] / L[2] * tray.wall_height)
    lit *= fm
    shadow_len = tray.wall_height * math.hypot(L[0], L[1]) / L[2]
    lit = _soft(lit, (0.25 * shadow_len + 1.0) * k)
    ao = _soft(fm, (tray.wall_height * 0.5 + 1.0) * k)  # darker close to every wall
    # floor light = ambient * (0.55 + 0.45 ao) + 0.85 Lz (0.3 + 0.7 lit)
    floor_irr = lit
    floor_irr *= np.float32(0.85 * L[2] * 0.7)
    floor_irr += np.float32(0.85 * L[2] * 0.3 + lt.ambient * 0.55)
    ao *= np.float32(lt.ambient * 0.45)
    floor_irr += ao
    floor_irr -= irr
    floor_irr *= fm
    irr += floor_irr
    fg = 0.03  # felt is grainier
    if tray.floor_look is not None:
        fg = {"felt": 0.03 * tray.floor_look.strength, "wood": -0.035, "paper": -0.04, "plastic": -0.045,
              "cork": -0.02, "slate": -0.025}.get(tray.floor_look.kind, 0.0)
    np.multiply(grain, np.float32(fg), out=buf)
    buf *= fm
    tex += buf
    if tray.floor_look is not None and lum_f is not None:
        tex += lum_f
    irr *= tex
    irr *= _light_map(scene, (w, h))
    if scene.dice:
        irr *= _shadow_mask(scene, k, (h, w))
    out = cv2.multiply(alb8, cv2.merge([irr, irr, irr]), dtype=cv2.CV_8U)
    if looks:
        sheen = None
        if tray.floor_look is not None and tray.floor_look.sheen > 0:
            sheen = _sheen(scene, tray.floor_look.sheen, w, h, trng) * fm
        if tray.table_look is not None and tray.table_look.sheen > 0:
            np.subtract(np.float32(1.0), tray_m, out=buf)
            t_sh = _sheen(scene, tray.table_look.sheen, w, h, trng) * buf
            sheen = t_sh if sheen is None else sheen + t_sh
        if sheen is not None:
            sheen *= np.float32(255.0)
            s3 = cv2.merge([sheen * np.float32(v) for v in tint])
            out = cv2.add(out, s3, dtype=cv2.CV_8U)
    return out


def _tray_seed(tray) -> int:
    """A seed that belongs to the tray (its textures stay put from throw to throw)."""
    v = float(np.sum(np.array(tray.floor)) * 7.919 + tray.rim_width * 104.729 + tray.wall_height * 13.37)
    return int(abs(v) * 1000) % (2 ** 31)


def _cells(rng: np.random.Generator, h: int, w: int, cell: float) -> np.ndarray:
    """Smooth zero-mean noise with blobs about `cell` pixels across."""
    cell = max(1.0, cell)
    sh, sw = max(2, int(h / cell) + 3), max(2, int(w / cell) + 3)
    m = rng.standard_normal((sh, sw)).astype(np.float32)
    if sh * cell < h * 0.8 or cell <= 1.0:
        return cv2.resize(m, (w, h), interpolation=cv2.INTER_LINEAR)
    return cv2.resize(m, (int(round(sw * cell)), int(round(sh * cell))), interpolation=cv2.INTER_CUBIC)[:h, :w]


def _oriented(rng: np.random.Generator, s: np.ndarray, t: np.ndarray, cell_s: float, cell_t: float) -> np.ndarray:
    """Noise stretched along s (cells cell_s x cell_t), sampled at coordinates (s, t); smooth
    noise (cells of 8 pixels and more) is worked out at a quarter of the size and scaled up."""
    h, w = s.shape
    if min(cell_s, cell_t) >= 8 and h >= 16 and w >= 16:
        small = _oriented(rng, s[2::4, 2::4], t[2::4, 2::4], cell_s, cell_t)
        return cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)
    s0, t0 = float(s.min()), float(t.min())
    gw = int((float(s.max()) - s0) / cell_s) + 4
    gh = int((float(t.max()) - t0) / cell_t) + 4
    g = rng.standard_normal((gh, gw)).astype(np.float32)
    ms = s - np.float32(s0)
    ms *= np.float32(1.0 / cell_s)
    ms += np.float32(1.0)
    mt = t - np.float32(t0)
    mt *= np.float32(1.0 / cell_t)
    mt += np.float32(1.0)
    return cv2.remap(g, ms, mt, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)


def _surface_lum(look, w: int, h: int, k: float, rng: np.random.Generator, origin) -> np.ndarray | None:
    """A surface's texture as a brightness factor (h, w) around 1, at scale k of the floor pixels
    (None: plain). The surface's colour is its `bgr`; darker or lighter grain, rings, speckles
    and mottling are shades of it (bgr2 gives their depth)."""
    kind = look.kind
    sc = look.scale * k  # texture scale in these pixels
    depth = np.float32(_luma(look.bgr2) / max(1.0, _luma(look.bgr)) - 1.0)  # bgr2 relative to bgr
    if kind in ("wood", "cloth", "slate"):
        a = math.radians(look.angle_deg)
        xs = np.arange(w, dtype=np.float32) + np.float32(origin[0] * k)
        ys = np.arange(h, dtype=np.float32) + np.float32(origin[1] * k)
        ca, sa = np.float32(math.cos(a)), np.float32(math.sin(a))
        s = np.add.outer(ys * sa, xs * ca)  # along the grain
        t = np.add.outer(ys * ca, xs * -sa)  # across it
    if kind == "wood":
        sc = max(sc, 2.0)
        ring = _oriented(rng, s, t, 30 * sc, 3 * sc)
        ring *= np.float32(1.6)
        ring += t * np.float32(1.0 / sc)
        ring *= np.float32(2 * math.pi)
        v = np.sin(ring, out=ring)
        v += np.float32(1.0)
        v *= np.float32(0.5)
        v = v * v * v
        v *= depth * np.float32(look.strength)
        fine = _oriented(rng, s, t, max(6.0, 20 * k), max(0.7, 0.8 * k))
        fine *= np.float32(0.05)
        v += fine
        plank = max(8 * sc, 40 * k)
        q = t * np.float32(1.0 / plank)
        idx = np.floor(q)
        seam = np.abs(q - np.rint(q)) * np.float32(plank)
        jit = rng.uniform(-0.08, 0.08, 64).astype(np.float32)
        v += jit[idx.astype(np.int32) % 64]
        v -= np.float32(0.35) * np.clip(np.float32(1.2) - seam, 0, 1)
        v += np.float32(1.0)
        return v
    if kind == "cloth":
        p = max(2.2, sc)
        wv = np.sin(s * np.float32(2 * math.pi / p)) * np.sin(t * np.float32(2 * math.pi / p))
        wv *= np.float32(0.1 * look.strength)
        wv += np.float32(1.0)
        return wv
    if kind == "slate":
        m = _cells(rng, h, w, max(2.0, sc)) * np.float32(0.6)
        m += _cells(rng, h, w, max(4.0, 4 * sc)) * np.float32(0.4)
        m += _oriented(rng, s, t, max(20.0, 30 * sc), max(1.5, 0.3 * sc)) * np.float32(0.25)
        v = np.clip(np.float32(0.5) + np.float32(0.35) * m, 0, 1)
        v *= depth * np.float32(look.strength)
        v += np.float32(1.0)
        return v
    if kind == "cork":
        c = max(1.0, sc)
        dark = _cells(rng, h, w, c)
        dark -= np.float32(0.7)
        np.clip(dark * np.float32(2.5), 0, 1, out=dark)
        dark *= depth * np.float32(look.strength)
        light = _cells(rng, h, w, c * 1.7)
        light -= np.float32(1.0)
        np.clip(light * np.float32(2.0), 0, 1, out=light)
        light *= np.float32(0.35 * look.strength)
        dark += light
        dark += np.float32(1.0)
        return dark
    if kind in ("plastic", "laminate", "plain"):
        tone = _cells(rng, h // 4 + 1, w // 4 + 1, 20 * k)
        tone = cv2.resize(tone, (w, h), interpolation=cv2.INTER_LINEAR)
        tone *= np.float32(0.02 * look.strength)
        tone += np.float32(1.0)
        return tone
    return None  # felt: its grain is the background's


def _luma(c) -> float:
    b, g, r = c
    return 0.114 * b + 0.587 * g + 0.299 * r


def _paper_lines(alb8: np.ndarray, look, floor: np.ndarray, k: float, origin, col) -> None:
    """A faint squared grid printed on the paper floor (anti-aliased lines, inside the floor only)."""
    h, w = alb8.shape[:2]
    g = max(2.0, look.scale * k)
    a = math.radians(look.angle_deg)
    u = np.array([math.cos(a), math.sin(a)])
    v = np.array([-math.sin(a), math.cos(a)])
    o = np.asarray(origin, float) * k
    corners = np.array([[0, 0], [w, 0], [w, h], [0, h]], float) + o
    line = tuple(float(b + (c - b) * look.strength) for b, c in zip(col(look.bgr), col(look.bgr2)))
    grid = alb8.copy()
    for d, e in ((u, v), (v, u)):
        proj = corners @ d
        along = corners @ e
        for m in range(int(math.floor(proj.min() / g)), int(math.ceil(proj.max() / g)) + 1):
            p0 = d * m * g + e * (along.min() - 2) - o
            p1 = d * m * g + e * (along.max() + 2) - o
            cv2.line(grid, (int(round(p0[0] * 16)), int(round(p0[1] * 16))),
                     (int(round(p1[0] * 16)), int(round(p1[1] * 16))), line, 1, cv2.LINE_AA, 4)
    inside = np.zeros((h, w), np.uint8)
    cv2.fillPoly(inside, [np.round(floor * k * 16).astype(np.int32)], 255, cv2.LINE_8, 4)
    cv2.copyTo(grid, inside, alb8)


def _sheen(scene: Scene, strength: float, w: int, h: int, rng: np.random.Generator) -> np.ndarray:
    """A soft highlight: the lamp's blurred reflection in a smooth surface (0-1 times strength)."""
    L = scene.lighting.direction()
    W, Hh = scene.size
    diag = math.hypot(W, Hh)
    dirn = -L[:2] / (np.linalg.norm(L[:2]) + 1e-9)
    cx, cy = np.array(scene.center) + dirn * diag * rng.uniform(0.05, 0.45)
    r = diag * rng.uniform(0.2, 0.55)
    yy, xx = np.mgrid[0:48, 0:64].astype(np.float32)
    xs, ys = (xx + 0.5) * W / 64, (yy + 0.5) * Hh / 48
    g = np.exp(-((xs - cx) ** 2 + (ys - cy) ** 2) / (r * r)).astype(np.float32) * np.float32(strength)
    return cv2.resize(g, (w, h), interpolation=cv2.INTER_LINEAR)


def _shadow_mask(scene: Scene, k: float, shape: tuple[int, int]) -> np.ndarray:
    """The share of light each pixel (at scale k) keeps under the dice's cast and contact shadows."""
    h, w = shape
    L = scene.lighting.direction()
    cast = np.zeros((h, w), np.float32)
    contact = np.zeros((h, w), np.float32)
    c = np.array(scene.center)
    H = scene.camera_height
    for d in scene.dice:
        cor = die_corners(d)
        # along the light onto the surface the die rests on, then into the image at that height
        flat = cor[:, :2] - L[:2] / L[2] * (cor[:, 2] - d.base_z)[:, None]
        flat = (c + (flat - c) * (H / (H - d.base_z))) * k
        tr = style_of(d).translucency
        _fill(cast, cv2.convexHull(flat.astype(np.float32)).reshape(-1, 2), 1.0 - 0.6 * tr)
        foot = (c + (cor[:, :2] - c) * (H / (H - d.base_z))) * k
        _fill(contact, cv2.convexHull(foot.astype(np.float32)).reshape(-1, 2))
    s = scene.dice[0].size_px * k
    cast = _soft(cast, 0.08 * s + 0.6)
    contact = _soft(contact, 0.12 * s + 0.6)
    cast *= np.float32(0.55)
    contact *= np.float32(0.35)
    cast += contact
    np.minimum(cast, np.float32(0.8), out=cast)
    np.subtract(np.float32(1.0), cast, out=cast)
    return cast


def _trace_die(img: np.ndarray, depth: np.ndarray, scene: Scene, idx: int) -> None:
    """Ray-march one rounded die into img (and the depth buffer) over its screen box."""
    d = scene.dice[idx]
    st = style_of(d)
    pose = die_pose(d)
    R, P, a, rr = pose.rotation, pose.position, pose.half, pose.radius
    w, h = scene.size
    H = scene.camera_height
    cx, cy = scene.center
    pts = scene.project(CUBE * a @ R.T + P)
    x0 = max(0, int(math.floor(pts[:, 0].min())) - 2)
    x1 = min(w, int(math.ceil(pts[:, 0].max())) + 3)
    y0 = max(0, int(math.floor(pts[:, 1].min())) - 2)
    y1 = min(h, int(math.ceil(pts[:, 1].max())) + 3)
    if x1 <= x0 or y1 <= y0:
        return
    ys, xs = np.mgrid[y0:y1, x0:x1]
    X = xs.ravel().astype(np.float32) - np.float32(cx)
    Y = ys.ravel().astype(np.float32) - np.float32(cy)
    inv_n = 1.0 / np.sqrt(X * X + Y * Y + np.float32(H * H))
    Dw = (X * inv_n, Y * inv_n, np.float32(-H) * inv_n)
    Rf = R.astype(np.float32)
    # ray direction in the die's frame: R^T d
    dl = [Dw[0] * Rf[0, j] + Dw[1] * Rf[1, j] + Dw[2] * Rf[2, j] for j in range(3)]
    o = (R.T @ (np.array([cx, cy, H]) - P)).astype(np.float32)
    tmin = np.full(X.shape, -np.inf, np.float32)
    tmax = np.full(X.shape, np.inf, np.float32)
    for j in range(3):
        dj = np.where(np.abs(dl[j]) < 1e-7, np.float32(1e-7), dl[j])
        t1 = (-a - o[j]) / dj
        t2 = (a - o[j]) / dj
        np.maximum(tmin, np.minimum(t1, t2), out=tmin)
        np.minimum(tmax, np.maximum(t1, t2), out=tmax)
    sel = np.nonzero(tmax > np.maximum(tmin, 0.0))[0]
    if sel.size == 0:
        return
    dx, dy, dz = dl[0][sel], dl[1][sel], dl[2][sel]
    t = tmin[sel]
    b = np.float32(a - rr)
    rrf = np.float32(rr)
    dmin = np.full(t.shape, np.inf, np.float32)  # closest approach: coverage of edge pixels
    tbest = t.copy()
    act = np.arange(t.size)  # rays still marching, with their state alongside
    ax, ay, az, at = dx, dy, dz, t.copy()
    aexit = tmax[sel] + np.float32(1.0)
    adm = dmin.copy()
    atb = t.copy()
    for _ in range(_ITERS):
        qx = np.abs(o[0] + at * ax) - b
        qy = np.abs(o[1] + at * ay) - b
        qz = np.abs(o[2] + at * az) - b
        inner = np.minimum(np.maximum(np.maximum(qx, qy), qz), 0.0)
        np.maximum(qx, 0.0, out=qx)
        np.maximum(qy, 0.0, out=qy)
        np.maximum(qz, 0.0, out=qz)
        dist = np.sqrt(qx * qx + qy * qy + qz * qz) + inner - rrf
        better = dist < adm
        adm = np.where(better, dist, adm)
        atb = np.where(better, at, atb)
        at += dist
        go = (dist > 0.02) & (at < aexit)  # not yet on the surface, not yet out of the die's box
        if not go.all():
            done = ~go
            dmin[act[done]] = adm[done]
            tbest[act[done]] = atb[done]
            keep = np.nonzero(go)[0]
            if keep.size == 0:
                act = keep
                break
            act, ax, ay, az, at, aexit, adm, atb = (x[keep] for x in (act, ax, ay, az, at, aexit, adm, atb))
    if act.size:
        dmin[act] = adm
        tbest[act] = atb
    t = tbest
    texit = tmax[sel]
    pix = (H - P[2]) / H  # one image pixel in world units at the die's height
    alpha = np.clip(1.0 - dmin / np.float32(pix), 0.0, 1.0)
    flat_all = ys.ravel()[sel] * w + xs.ravel()[sel]
    dep = depth.reshape(-1)
    before = dep[flat_all]  # 0 = no die drawn there yet
    keep = np.nonzero((alpha > 0.0) & ((before == 0) | (t < before)))[0]  # covered, and in front
    if keep.size == 0:
        return
    alpha, t, flat_idx = alpha[keep], t[keep], flat_all[keep]
    dx, dy, dz = dx[keep], dy[keep], dz[keep]
    if st.translucency:
        texit = texit[keep]
    px, py, pz = o[0] + t * dx, o[1] + t * dy, o[2] + t * dz
    # normal of the rounded box (die frame)
    ax, ay, az = np.abs(px), np.abs(py), np.abs(pz)
    nx = np.maximum(ax - b, 0.0) * np.sign(px)
    ny = np.maximum(ay - b, 0.0) * np.sign(py)
    nz = np.maximum(az - b, 0.0) * np.sign(pz)
    inv = 1.0 / np.maximum(np.sqrt(nx * nx + ny * ny + nz * nz), 1e-6)
    nx *= inv
    ny *= inv
    nz *= inv
    # which face (axis of the largest coordinate) and where on it (the next two axes, cyclic)
    kx = (ax >= ay) & (ax >= az)
    ky = ~kx & (ay >= az)
    kz = ~(kx | ky)
    k = np.where(kx, 0, np.where(ky, 1, 2))
    neg = np.where(kx, px, np.where(ky, py, pz)) < 0
    value = _FACE_VALUE_ARR[2 * k + neg]
    inv_a = np.float32(1.0 / a)
    u = np.where(kx, py, np.where(ky, pz, px)) * inv_a
    v = np.where(kx, pz, np.where(ky, px, py)) * inv_a
    odd = None
    if d.symbols:
        odd = np.ones(value.shape, bool)
    elif d.odd_top is not None:
        odd = value == d.value  # the top face (its value shows on no other face)
        if d.odd_top in _ODD_INDEX:
            value = np.where(odd, _ODD_INDEX[d.odd_top], value)
    dp, one, ou, ov = _pip_distance(value, u, v)
    if st.one_pip is not None:
        rp = np.where(one, np.float32(st.one_radius), np.float32(st.pip_radius))
    else:
        rp = np.float32(st.pip_radius)
    pip_a = np.clip((rp - dp) * np.float32(a / 1.4) + 0.5, 0.0, 1.0)  # anti-aliased pip edge
    if odd is not None and (d.symbols or d.odd_top == "cross"):  # a painted symbol instead of pips
        kind = (value + int(d.yaw_deg * 7.0)) % len(_SYMBOLS) if d.symbols else np.zeros(value.shape, np.int64)
        sym = np.zeros(value.shape, np.float32)
        for j, shape in enumerate(_SYMBOLS):
            sel = kind == j
            if sel.any():
                sym[sel] = shape(u[sel], v[sel], a / 1.4)
        pip_a = np.where(odd, sym, pip_a)
        dp = np.where(odd, np.float32(_FAR), dp)
    # dimple: inside a pip the normal tilts towards the pip's centre (big pips are shallow bowls)
    inside = (dp < rp).astype(np.float32)
    s_t = inside / rp * np.minimum(np.float32(1.0), np.float32(st.pip_radius) / rp) * np.float32(0.9 * min(st.pip_depth, 1.6 if st.pip_paint < 0.5 else 1.0))
    tu, tv = s_t * ou, s_t * ov
    zero = np.float32(0.0)
    nx = nx - np.where(ky, tv, np.where(kz, tu, zero))
    ny = ny - np.where(kx, tu, np.where(kz, tv, zero))
    nz = nz - np.where(kx, tv, np.where(ky, tu, zero))
    inv = 1.0 / np.sqrt(nx * nx + ny * ny + nz * nz)
    nx *= inv
    ny *= inv
    nz *= inv
    # to the world
    wx = Rf[0, 0] * nx + Rf[0, 1] * ny + Rf[0, 2] * nz
    wy = Rf[1, 0] * nx + Rf[1, 1] * ny + Rf[1, 2] * nz
    wz = Rf[2, 0] * nx + Rf[2, 1] * ny + Rf[2, 2] * nz
    light = scene.lighting
    L = light.direction().astype(np.float32)
    # view direction: back along the ray (world)
    vx = -(Rf[0, 0] * dx + Rf[0, 1] * dy + Rf[0, 2] * dz)
    vy = -(Rf[1, 0] * dx + Rf[1, 1] * dy + Rf[1, 2] * dz)
    vz = -(Rf[2, 0] * dx + Rf[2, 1] * dy + Rf[2, 2] * dz)
    hx, hy, hz = vx + L[0], vy + L[1], vz + L[2]
    ndl = np.clip(wx * L[0] + wy * L[1] + wz * L[2], 0.0, 1.0)
    ndh = np.clip((wx * hx + wy * hy + wz * hz) / np.sqrt(hx * hx + hy * hy + hz * hz), 0.0, 1.0)
    # ambient occlusion close to what the die stands on
    zw = Rf[2, 0] * px + Rf[2, 1] * py + Rf[2, 2] * pz + np.float32(P[2] - d.base_z)
    occl = 1.0 - 0.35 * np.exp(-zw / np.float32(0.12 * d.size_px))
    amb = np.float32(light.ambient) * (0.55 + 0.45 * np.clip(wz, 0, 1)) * occl
    recess = np.float32(min(0.7 if st.pip_paint < 0.5 else 0.4, 0.25 * st.pip_depth))
    diffuse = (amb + 0.9 * ndl) * (1.0 - recess * pip_a * inside)  # the recess is shaded
    spec = np.float32(st.gloss * 255.0) * (1.0 - 0.5 * pip_a) * ndh ** np.float32(st.shininess)
    if st.pip_depth > 1.0:  # an engraved pip's wall hides the highlight too
        spec *= 1.0 - np.float32(min(1.0, 0.5 * st.pip_depth)) * pip_a
    gain = _light_gain(scene, (flat_idx % w).astype(np.float32), (flat_idx // w).astype(np.float32))
    tint = np.array(light.tint, np.float32)
    body = np.array(st.body, np.float32)
    pipc = np.array(st.pip, np.float32)
    out = img.reshape(-1, 3)
    under = out[flat_idx].astype(np.float32)
    big = one & (pip_a > 0) if st.one_pip is not None else None
    bigc = np.array(st.one_pip, np.float32) if big is not None else None
    fancy = st.marble or st.grain or st.metal or st.translucency
    if fancy:
        looks = _body_looks(st, scene, idx, (px, py, pz), a, (wx, wy, wz), (vx, vy, vz), L,
                            (dx, dy, dz), o, t, texit if st.translucency else None, pip_a, d)
    for c in range(3):
        if fancy and looks["mix"] is not None:
            bc = body[c] + (looks["body2"][c] - body[c]) * looks["mix"]
        else:
            bc = body[c]
        alb = bc + (pipc[c] - bc) * pip_a
        if big is not None:
            alb = np.where(big, bc + (bigc[c] - bc) * pip_a, alb)
        col = alb * diffuse + spec
        if fancy and st.metal:
            m = np.float32(st.metal) * (1.0 - pip_a)
            col += m * (bc * (0.2 * diffuse + looks["env"]) + spec * (bc / 255.0) - alb * diffuse - spec)
        through = None
        if fancy and st.translucency:
            tr = np.float32(st.translucency) * (1.0 - pip_a)
            glow = bc * (0.35 * amb + 0.25 * ndl) + looks["far_pip"] * pipc[c] * amb
            col += tr * (glow - alb * diffuse)
            through = tr * under[:, c] * looks["filter"][c] * looks["trans"] * looks["far"]
        col = col * (tint[c] * gain)
        if through is not None:
            col += through
        under[:, c] += alpha * (col - under[:, c])
    out[flat_idx] = np.clip(under + 0.5, 0, 255).astype(np.uint8)
    solid = alpha > 0.5
    dep[flat_idx[solid]] = t[solid]


def _edge(d: np.ndarray, sharp: float) -> np.ndarray:
    """Anti-aliased coverage of a shape whose signed distance (half edges, inside > 0) is d."""
    return np.clip(d * np.float32(sharp) + 0.5, 0.0, 1.0).astype(np.float32)


def _cross(u, v, k):  # an X
    bar = np.minimum(np.abs(u - v), np.abs(u + v)) / math.sqrt(2)
    return _edge(0.11 - bar, k) * _edge(0.6 - np.maximum(np.abs(u), np.abs(v)), k)


def _plus(u, v, k):  # a +
    return _edge(0.12 - np.minimum(np.abs(u), np.abs(v)), k) * _edge(0.55 - np.maximum(np.abs(u), np.abs(v)), k)


def _ring(u, v, k):  # a circle drawn as a line
    return _edge(0.09 - np.abs(np.hypot(u, v) - 0.42), k)


def _clover(u, v, k):  # three leaves and a stem
    leaves = [np.hypot(u - math.cos(t) * 0.24, v - math.sin(t) * 0.24) for t in (math.pi / 2, 7 * math.pi / 6, 11 * math.pi / 6)]
    stem = _edge(0.05 - np.abs(u), k) * _edge(v + 0.6, k) * _edge(-v, k)
    return np.maximum(_edge(0.2 - np.minimum(np.minimum(leaves[0], leaves[1]), leaves[2]), k), stem)


def _diamond(u, v, k):  # a filled rhombus
    return _edge(0.5 - (np.abs(u) + 0.7 * np.abs(v)), k)


def _crescent(u, v, k):  # a moon
    return _edge(0.45 - np.hypot(u, v), k) * _edge(np.hypot(u - 0.22, v - 0.1) - 0.38, k)


#: what a symbol die carries instead of pips (face by face)
_SYMBOLS = (_cross, _plus, _ring, _clover, _diamond, _crescent)


def _pip_distance(value: np.ndarray, u: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, ...]:
    """Distance (half edges) from face coordinates (u, v) to the nearest pip of faces `value`, _FAR
    where that grid point has no pip (pips sit on a 3 x 3 grid of spacing _O: the nearest grid
    point is the only one whose pip can cover a point); where the face is a one; the offsets (u, v)
    from that grid point."""
    gu = np.clip(np.rint(u / _O), -1, 1).astype(np.int64)
    gv = np.clip(np.rint(v / _O), -1, 1).astype(np.int64)
    one = value == 1
    gu[one] = 0
    gv[one] = 0
    has = _PIP_GRID[value, gu + 1, gv + 1]
    ou = u - gu * np.float32(_O)
    ov = v - gv * np.float32(_O)
    return np.where(has, np.sqrt(ou * ou + ov * ov), np.float32(_FAR)), one, ou, ov


def _pip_cover(value: np.ndarray, u: np.ndarray, v: np.ndarray, st, a: float) -> np.ndarray:
    """Pip coverage (0-1) at face coordinates (u, v) (in half edges) of faces `value`."""
    dp, one, _, _ = _pip_distance(value, u, v)
    rp = np.where(one, np.float32(st.one_radius), np.float32(st.pip_radius)) if st.one_pip is not None else np.float32(st.pip_radius)
    return np.clip((rp - dp) * np.float32(a / 1.4) + 0.5, 0.0, 1.0)


def _body_looks(st, scene: Scene, idx: int, p, a: float, n, view, L, dirs, o, t, texit, pip_a, d) -> dict:
    """Per-pixel body looks beyond flat paint: vein / grain mix, metal reflection, what a
    translucent body lets through (the floor behind it and the pips of its far faces)."""
    px, py, pz = p
    out: dict = {"mix": None}
    q = np.stack([px, py, pz]) * np.float32(1.0 / a)  # (3, N) in half edges
    prng = np.random.default_rng([scene.seed & 0x7FFFFFFF, idx, 17])
    if st.marble:
        dirs3 = prng.standard_normal((3, 3)).astype(np.float32)
        dirs3 /= np.linalg.norm(dirs3, axis=1, keepdims=True)
        f = prng.uniform(1.5, 4.0, 3).astype(np.float32)
        ph = prng.uniform(0, 2 * math.pi, 3).astype(np.float32)
        s1, s2, s3 = (dirs3 @ q) * f[:, None]
        tt = s1 + 1.8 * np.sin(s2 * 1.7 + ph[1]) + 0.9 * np.sin(s3 * 3.1 + ph[2]) + ph[0]
        vein = np.float32(0.5) + np.float32(0.5) * np.sin(tt)
        sharp = np.float32(prng.uniform(1.0, 5.0))
        out["mix"] = np.float32(st.marble) * vein ** sharp
    if st.grain:
        ax = prng.standard_normal(3).astype(np.float32)
        ax /= np.linalg.norm(ax)
        b1 = np.cross(ax, [1.0, 0.0, 0.0] if abs(ax[0]) < 0.9 else [0.0, 1.0, 0.0]).astype(np.float32)
        b1 /= np.linalg.norm(b1)
        b2 = np.cross(ax, b1).astype(np.float32)
        off = prng.uniform(-3, 3, 2).astype(np.float32)
        r = np.sqrt((b1 @ q + off[0]) ** 2 + (b2 @ q + off[1]) ** 2)
        ring = r * np.float32(prng.uniform(2.5, 6.0)) + np.float32(0.25) * np.sin((ax @ q) * 4.0)
        out["mix"] = np.float32(st.grain) * (np.float32(0.5) + np.float32(0.5) * np.sin(ring * np.float32(2 * math.pi))) ** 2
    if st.body2 is not None:
        out["body2"] = np.array(st.body2, np.float32)
    elif out["mix"] is not None:
        out["body2"] = np.array(st.body, np.float32) * np.float32(0.6)
    if st.metal:
        nx, ny, nz = n
        vx, vy, vz = view
        nv = nx * vx + ny * vy + nz * vz
        rz = 2 * nv * nz - vz
        rx = 2 * nv * nx - vx
        ry = 2 * nv * ny - vy
        band_ang = prng.uniform(0, math.pi)
        band = np.exp(-((rx * math.cos(band_ang) + ry * math.sin(band_ang)) * 2.5) ** 2)
        out["env"] = np.float32(0.25) + np.float32(0.6) * np.clip(rz, 0, 1) ** 1.5 + np.float32(0.35) * band * np.clip(rz + 0.3, 0, 1)
    if st.translucency and texit is not None:
        dx, dy, dz = dirs
        ex, ey, ez = (o[0] + texit * dx) / a, (o[1] + texit * dy) / a, (o[2] + texit * dz) / a
        axs, ays, azs = np.abs(ex), np.abs(ey), np.abs(ez)
        kx = (axs >= ays) & (axs >= azs)
        ky = ~kx & (ays >= azs)
        k = np.where(kx, 0, np.where(ky, 1, 2))
        neg = np.where(kx, ex, np.where(ky, ey, ez)) < 0
        value = _FACE_VALUE_ARR[2 * k + neg]
        u = np.where(kx, ey, np.where(ky, ez, ex))
        v = np.where(kx, ez, np.where(ky, ex, ey))
        far = _pip_cover(value, u, v, st, a) * np.float32(0.4)
        path = np.clip((texit - t) / np.float32(2 * a), 0, 2)
        out["trans"] = np.exp(-np.float32(0.5) * path).astype(np.float32)
        out["far"] = 1.0 - far
        out["far_pip"] = far * np.float32(0.6)
        body = np.array(st.body, np.float32)
        out["filter"] = np.float32(0.25) + np.float32(0.9) * (body / 255.0) ** 0.8
    return out


def _hand(img: np.ndarray, scene: Scene) -> None:
    hand = scene.hand
    if hand is None:
        return
    w, h = scene.size
    m = hand_mask(scene)
    L = scene.lighting.direction()
    # its soft shadow on what lies below
    off = np.clip(-L[:2] / L[2] * hand.height, -2 * hand.width, 2 * hand.width)
    sh = cv2.warpAffine(m, np.float32([[1, 0, off[0]], [0, 1, off[1]]]), (w, h))
    img *= (1.0 - 0.5 * _soft(sh, hand.width * 0.12 + 1))[..., None]
    # a rounded body: normals from the blurred mask (worked out at a quarter size, then smoothed up)
    f = 4
    small = cv2.resize(m, (max(2, w // f), max(2, h // f)), interpolation=cv2.INTER_AREA)
    small = cv2.GaussianBlur(small, (0, 0), hand.width * 0.1 / f + 0.5)
    g = hand.width * 0.25 / f
    gx = cv2.Sobel(small, cv2.CV_32F, 1, 0, ksize=3) * g
    gy = cv2.Sobel(small, cv2.CV_32F, 0, 1, ksize=3) * g
    shade = (-gx * L[0] - gy * L[1] + L[2]) / np.sqrt(gx * gx + gy * gy + 1.0)
    shade = scene.lighting.ambient + 0.75 * np.clip(shade, 0, 1)
    shade = cv2.resize(shade.astype(np.float32), (w, h), interpolation=cv2.INTER_CUBIC) * _light_map(scene, (w, h))
    skin = np.array(hand.skin_bgr, np.float32) * np.array(scene.lighting.tint, np.float32)
    _blend(img, m, skin[None, None, :] * shade[..., None])


def _light_gain(scene: Scene, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Uneven light and vignetting at image pixels (x, y)."""
    lt = scene.lighting
    w, h = scene.size
    xn = x / w - 0.5
    yn = y / h - 0.5
    return lt.intensity * (1.0 + lt.gradient[0] * xn + lt.gradient[1] * yn) * (1.0 - lt.vignette * (xn * xn + yn * yn) * 2.0)


def _light_map(scene: Scene, shape_wh: tuple[int, int]) -> np.ndarray:
    w, h = scene.size
    yy, xx = np.mgrid[0:48, 0:64].astype(np.float32)
    g = _light_gain(scene, (xx + 0.5) * w / 64, (yy + 0.5) * h / 48).astype(np.float32)
    return cv2.resize(g, shape_wh, interpolation=cv2.INTER_LINEAR)


def _glare(img: np.ndarray, scene: Scene) -> None:
    gl = scene.glare
    if gl is None:
        return
    w, h = scene.size
    r = gl.radius
    x0, x1 = max(0, int(gl.center[0] - 4 * r)), min(w, int(gl.center[0] + 4 * r) + 1)
    y0, y1 = max(0, int(gl.center[1] - 4 * r)), min(h, int(gl.center[1] + 4 * r) + 1)
    if x1 <= x0 or y1 <= y0:
        return
    yy, xx = np.mgrid[y0:y1, x0:x1].astype(np.float32)
    rr = np.sqrt((xx - gl.center[0]) ** 2 + (yy - gl.center[1]) ** 2) / r
    add = gl.strength * (420.0 * np.exp(-rr ** 4) + 90.0 * np.exp(-(rr / 1.4) ** 2))
    patch = img[y0:y1, x0:x1].astype(np.float32) + add[..., None]
    img[y0:y1, x0:x1] = np.clip(patch, 0, 255).astype(np.uint8)


def _motion_kernel(length: float, angle_deg: float) -> np.ndarray:
    n = max(3, int(round(length)) | 1)
    k = np.zeros((n, n), np.float32)
    c = n // 2
    a = math.radians(angle_deg)
    dx, dy = math.cos(a) * (n - 1) / 2, math.sin(a) * (n - 1) / 2
    cv2.line(k, (int(round(c - dx)), int(round(c - dy))), (int(round(c + dx)), int(round(c + dy))), 1.0, 1, cv2.LINE_AA)
    return k / k.sum()


def _motion(img: np.ndarray, scene: Scene) -> np.ndarray:
    mo = scene.motion
    if mo is None:
        return img
    return cv2.filter2D(img, -1, _motion_kernel(mo.length, mo.angle_deg), borderType=cv2.BORDER_REFLECT)


def _rolling_die(img: np.ndarray, scene: Scene, i: int) -> None:
    """Draw a die that is still moving: trace it alone (colour and coverage), smear both, put it over img."""
    d = scene.dice[i]
    h, w = img.shape[:2]
    black = np.zeros_like(img)
    white = np.full_like(img, 255)
    _trace_die(black, np.zeros((h, w), np.float32), scene, i)
    _trace_die(white, np.zeros((h, w), np.float32), scene, i)
    pts = scene.project(die_corners(d))
    m = d.motion.length / 2 + 3
    x0, y0 = (max(0, int(v - m)) for v in pts.min(axis=0))
    x1, y1 = (int(v + m) + 1 for v in pts.max(axis=0))
    x1, y1 = min(w, x1), min(h, y1)
    if x1 <= x0 or y1 <= y0:
        return
    kern = _motion_kernel(d.motion.length, d.motion.angle_deg)
    pre = black[y0:y1, x0:x1].astype(np.float32)  # colour x coverage
    cover = 1.0 - (white[y0:y1, x0:x1].astype(np.float32) - pre).mean(axis=2) / 255.0
    pre = cv2.filter2D(pre, -1, kern, borderType=cv2.BORDER_CONSTANT)
    cover = cv2.filter2D(np.clip(cover, 0, 1), -1, kern, borderType=cv2.BORDER_CONSTANT)
    under = img[y0:y1, x0:x1].astype(np.float32)
    img[y0:y1, x0:x1] = np.clip(under * (1.0 - cover[..., None]) + pre + 0.5, 0, 255).astype(np.uint8)


def _to_u8(img: np.ndarray) -> np.ndarray:
    """float (0-255) -> uint8, rounded and saturated, in one pass (the values are never negative)."""
    return cv2.convertScaleAbs(img)


def _sensor_noise(img: np.ndarray, rng: np.random.Generator, sigma: float) -> np.ndarray:
    """Independent noise on every channel of every pixel: one random byte each, mapped through the
    logistic quantile (unit variance, close to a Gaussian) and added with 8-bit saturation."""
    h, w = img.shape[:2]
    q = (np.arange(256) + 0.5) / 256.0
    z = np.log(q / (1.0 - q)) * (math.sqrt(3.0) / math.pi) * sigma
    up = np.clip(np.rint(z), 0, 255).astype(np.uint8)
    down = np.clip(np.rint(-z), 0, 255).astype(np.uint8)
    ch = img.shape[2] if img.ndim == 3 else 1
    u = _random_bytes(rng, h * w * ch).reshape(h, w * ch)
    flat = np.ascontiguousarray(img).reshape(h, w * ch)
    flat = cv2.subtract(cv2.add(flat, cv2.LUT(u, up)), cv2.LUT(u, down))
    return flat.reshape(h, w, ch)


def _shifted(scene: Scene, dx: float, dy: float, size: tuple[int, int]) -> Scene:
    """The same scene on a larger canvas: every floor coordinate moved by (dx, dy)."""
    from dataclasses import replace

    def mv(pt):
        return (pt[0] + dx, pt[1] + dy)

    def poly(p):
        return tuple(mv(q) for q in p) if p is not None else None
    tray = replace(scene.tray, floor=poly(scene.tray.floor), outer=poly(scene.tray.outer),
                   nadir=mv(scene.tray.nadir) if scene.tray.nadir is not None else None)
    dice = tuple(replace(d, center=mv(d.center)) for d in scene.dice)
    hand = replace(scene.hand, entry=mv(scene.hand.entry), tip=mv(scene.hand.tip)) if scene.hand else None
    glare = replace(scene.glare, center=mv(scene.glare.center)) if scene.glare else None
    spots = tuple((x + dx, y + dy, r, depth) for x, y, r, depth in scene.spots)
    return replace(scene, size=size, tray=tray, dice=dice, hand=hand, glare=glare, keep_zone=poly(scene.keep_zone),
                   nadir=mv(scene.center), camera=None, spots=spots)


def _base(scene: Scene, rng: np.random.Generator) -> np.ndarray:
    """The picture of the straight-down camera, before the sensor: surfaces, dice, hand, glare, blur."""
    w, h = scene.size
    k = 0.5 if w > 800 else 1.0
    bg = _background(scene, rng, k)
    img = bg if k == 1.0 else cv2.resize(bg, (w, h), interpolation=cv2.INTER_LINEAR)
    if scene.spots:
        _spots(img, scene)
    if scene.dice:
        depth = np.zeros((h, w), np.float32)  # ray lengths; 0 = empty (calloc'd: only pages near dice are touched)
        for i in sorted(range(len(scene.dice)), key=lambda i: scene.dice[i].base_z):
            if scene.dice[i].motion is None:
                _trace_die(img, depth, scene, i)
        for i, d in enumerate(scene.dice):
            if d.motion is not None:
                _rolling_die(img, scene, i)
    if scene.hand is not None:
        f = img.astype(np.float32)
        _hand(f, scene)
        img = _to_u8(f)
    _glare(img, scene)
    if scene.blur > 0.05:
        img = cv2.GaussianBlur(img, (0, 0), scene.blur)
    img = _motion(img, scene)
    if scene.shake is not None:
        img = cv2.filter2D(img, -1, _motion_kernel(max(1.0, scene.shake.length), scene.shake.angle_deg),
                           borderType=cv2.BORDER_REFLECT)
    return img


def _spots(img: np.ndarray, scene: Scene) -> None:
    """Dark marks on the floor and table (Scene.spots): soft-edged discs darkened by their depth."""
    h, w = img.shape[:2]
    for x, y, r, depth in scene.spots:
        x0, y0 = max(0, int(x - r - 3)), max(0, int(y - r - 3))
        x1, y1 = min(w, int(x + r + 4)), min(h, int(y + r + 4))
        if x1 <= x0 or y1 <= y0:
            continue
        yy, xx = np.mgrid[y0:y1, x0:x1].astype(np.float32)
        cover = np.clip(r - np.hypot(xx - x, yy - y) + 0.5, 0.0, 1.0) * np.float32(depth)
        patch = img[y0:y1, x0:x1].astype(np.float32)
        img[y0:y1, x0:x1] = np.clip(patch * (1.0 - cover[..., None]) + 0.5, 0, 255).astype(np.uint8)


def _flicker(img: np.ndarray, scene: Scene, rng: np.random.Generator) -> np.ndarray:
    """Rolling-shutter mains flicker: rows read out at different moments of the lamp's cycle."""
    h = img.shape[0]
    phase = rng.uniform(0, 2 * math.pi)
    band = 4
    out = np.empty_like(img)
    for y0 in range(0, h, band):
        g = 1.0 + scene.flicker * math.sin(2 * math.pi * (y0 + band / 2) / scene.flicker_period + phase)
        cv2.convertScaleAbs(img[y0:y0 + band], out[y0:y0 + band], alpha=g)
    return out


def render_scene(scene: Scene) -> np.ndarray:
    rng = np.random.default_rng(scene.seed)
    w, h = scene.size
    if scene.camera is None:
        img = _base(scene, rng)
    else:
        from vision.synthetic_camera import sample_maps
        mx, my = sample_maps(scene.camera, scene.size)
        x0, y0 = math.floor(min(0.0, float(mx.min()))) - 2, math.floor(min(0.0, float(my.min()))) - 2
        x1, y1 = math.ceil(max(w - 1.0, float(mx.max()))) + 3, math.ceil(max(h - 1.0, float(my.max()))) + 3
        cw, ch = min(x1 - x0, 4 * w), min(y1 - y0, 4 * h)
        canvas = _base(_shifted(scene, -x0, -y0, (cw, ch)), rng)
        mx -= np.float32(x0)
        my -= np.float32(y0)
        img = cv2.remap(canvas, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    if scene.flicker:
        img = _flicker(img, scene, rng)
    if scene.grey:
        grey = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
        if scene.noise > 0:
            grey = _sensor_noise(grey[..., None], rng, scene.noise)[..., 0]
        if scene.jpeg_quality is not None:
            ok, buf = cv2.imencode(".jpg", grey, [cv2.IMWRITE_JPEG_QUALITY, int(scene.jpeg_quality)])
            grey = cv2.imdecode(buf, cv2.IMREAD_GRAYSCALE)
        return cv2.merge([grey, grey, grey])
    if scene.noise > 0:
        img = _sensor_noise(img, rng, scene.noise)
    if scene.jpeg_quality is not None:
        ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(scene.jpeg_quality)])
        img = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return img
