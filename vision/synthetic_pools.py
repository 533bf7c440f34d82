"""The widened scene pools of vision.synthetic: "train" and "holdout".

The classic pool (vision.synthetic's default) is the renderer's original world: a few fixed die
styles on felt, a camera straight down. The two pools here draw every table afresh:

- die styles (`random_style`): glossy or matte paint in any body colour, translucent bodies
  (the floor and the far faces' pips show through), marbled / mottled bodies, engraved pips
  (recessed, darker, sometimes unpainted) or painted ones, sharp or rounded corners, casino dice
  (sharp corners, translucent red, flush white pips); pips black, white, red, blue or gold; a big
  red one-pip on some;
- floors (`random_surface`): felt, wood (grain), paper (white or cream, a faint squared grid),
  plastic (smooth, a soft sheen); tables: wood, plain paint, cloth, laminate;
- light direction, elevation and colour temperature; mains flicker (rolling-shutter bands);
  camera height, tilt and lens distortion (`vision.synthetic_camera`); camera shake, sensor
  noise, blur, JPEG quality, grey-scale sensors; dice 20 to 120 px wide.

The holdout pool is for judging a model trained on the train pool on what it never saw: its
dice are always of the two holdout-only families "metal" (a metallic body: gold, silver, copper
or gunmetal, enamel pips) and "wooden" (a wood-grained body, burnt-in engraved pips), its floors
always one of the two holdout-only kinds "cork" (brown, dark and light granules) and "slate"
(dark mottled stone), and its settings (`RANGES`) reach a little beyond the train ranges. The
train pool never produces a holdout family or floor, nor a cork or slate table.
"""

from __future__ import annotations

import math
from types import MappingProxyType
from typing import Mapping

import cv2
import numpy as np

from vision import synthetic as S

BGR = tuple[int, int, int]

#: the random settings of each pool: (low, high) ranges and shares.
RANGES: Mapping[str, Mapping[str, object]] = MappingProxyType({
    "train": MappingProxyType({
        "die_px": (20.0, 120.0), "die_max_frac": 0.11,  # die edge in pixels (and at most this share of the width)
        "camera_per_die": (16.0, 55.0),  # camera height in die edges
        "tilt_deg": (0.0, 20.0), "tilt_share": 0.65,
        "distortion": (-0.10, 0.20), "distortion_share": 0.6,
        "elevation_deg": (25.0, 85.0), "kelvin": (2700.0, 6500.0),
        "flicker": (0.005, 0.04), "flicker_share": 0.35,
        "noise": (0.5, 7.0), "blur": (0.2, 1.5), "jpeg": (45, 97), "no_jpeg_share": 0.1,
        "grey_share": 0.12, "shake_px": (0.5, 3.0), "shake_share": 0.25,
    }),
    "holdout": MappingProxyType({
        "die_px": (18.0, 130.0), "die_max_frac": 0.12,
        "camera_per_die": (13.0, 66.0),
        "tilt_deg": (0.0, 24.0), "tilt_share": 0.7,
        "distortion": (-0.13, 0.26), "distortion_share": 0.65,
        "elevation_deg": (20.0, 88.0), "kelvin": (2400.0, 7500.0),
        "flicker": (0.005, 0.05), "flicker_share": 0.4,
        "noise": (0.5, 8.5), "blur": (0.2, 1.7), "jpeg": (40, 97), "no_jpeg_share": 0.1,
        "grey_share": 0.15, "shake_px": (0.5, 3.5), "shake_share": 0.25,
    }),
})

_WOODS: tuple[BGR, ...] = ((120, 180, 222), (80, 140, 192), (42, 72, 112), (52, 92, 160), (150, 160, 168),
                           (95, 150, 205), (30, 50, 80))
_METALS: tuple[BGR, ...] = ((40, 150, 205), (192, 192, 196), (60, 105, 190), (92, 86, 80), (120, 170, 200))
_DIE_WOODS: tuple[BGR, ...] = ((140, 185, 222), (105, 160, 210), (45, 75, 112), (60, 100, 165), (160, 200, 230))


def _hsv(h: float, s: float, v: float) -> BGR:
    px = np.uint8([[[int(h) % 180, int(np.clip(s * 255, 0, 255)), int(np.clip(v * 255, 0, 255))]]])
    return tuple(int(x) for x in cv2.cvtColor(px, cv2.COLOR_HSV2BGR)[0, 0])


def _luma(c) -> float:
    b, g, r = c
    return 0.114 * b + 0.587 * g + 0.299 * r


def _jitter(rng: np.random.Generator, c, amount: float = 14.0) -> BGR:
    return tuple(int(np.clip(v + rng.uniform(-amount, amount), 0, 255)) for v in c)


def _shade(rng: np.random.Generator, c, common: float = 20.0, each: float = 4.0) -> BGR:
    """A colour made lighter or darker as a whole, its hue kept (a small per-channel wobble)."""
    f = 1.0 + rng.uniform(-common, common) / 100.0
    return tuple(int(np.clip(v * f + rng.uniform(-each, each), 0, 255)) for v in c)


def _random_colour(rng: np.random.Generator, v=(0.1, 0.95), s=(0.0, 0.95)) -> BGR:
    return _hsv(rng.uniform(0, 180), rng.uniform(*s), rng.uniform(*v))


def _pip_for(rng: np.random.Generator, body: BGR, least: float = 95.0, also: BGR | None = None) -> tuple[str, BGR]:
    """A pip colour that stands out from the body (and from `also`, a second body colour)."""
    def ok(c, b):
        return abs(_luma(c) - _luma(b)) >= least or (math.dist(c, b) >= 190 and abs(_luma(c) - _luma(b)) >= 40)
    names = [n for n, c in S.PIP_COLOURS.items() if ok(c, body) and (also is None or ok(c, also))]
    if not names:  # the better of black and white against both body colours
        names = [max(("black", "white"), key=lambda n: min(abs(_luma(S.PIP_COLOURS[n]) - _luma(b))
                                                            for b in (body, also or body)))]
    n = str(rng.choice(names))
    return n, S.PIP_COLOURS[n]


def random_style(rng: np.random.Generator, family: str) -> S.DieStyle | str:
    """A die style of this family (DIE_FAMILIES); "classic" gives a STYLES name."""
    if family == "classic":
        return str(rng.choice(list(S.STYLES)))
    u = rng.uniform
    kw: dict = dict(family=family, corner=float(u(0.05, 0.18)), pip_radius=float(u(0.14, 0.2)))
    if family in ("glossy", "matte", "engraved", "marbled"):
        body = _random_colour(rng)
        if family == "glossy":
            kw.update(gloss=float(u(0.4, 0.8)), shininess=float(u(60, 160)), pip_depth=float(u(0.6, 1.3)))
        elif family == "matte":
            kw.update(gloss=float(u(0.02, 0.15)), shininess=float(u(6, 20)), pip_depth=float(u(0.5, 1.2)))
        elif family == "engraved":
            kw.update(gloss=float(u(0.05, 0.35)), shininess=float(u(30, 120)), pip_depth=float(u(1.7, 2.6)),
                      pip_paint=0.0 if rng.random() < 0.4 else 1.0, corner=float(u(0.08, 0.2)))
        else:
            other = _random_colour(rng) if rng.random() < 0.5 else (
                _jitter(rng, (235, 235, 235), 15) if _luma(body) < 130 else _jitter(rng, (35, 35, 35), 15))
            f = u(0.2, 0.45)  # veins that never rival the pips
            body2 = tuple(int(b + (o - b) * f) for b, o in zip(body, other))
            kw.update(gloss=float(u(0.25, 0.7)), shininess=float(u(30, 80)), marble=float(u(0.45, 0.95)),
                      body2=body2, pip_depth=float(u(0.6, 1.4)))
        pip_name, pip = _pip_for(rng, body, also=kw.get("body2"))
        if family == "engraved" and kw["pip_paint"] == 0.0:
            pip_name, pip = "unpainted", tuple(int(v * 0.55) for v in body)
        one = None
        if pip_name in ("black", "blue", "unpainted") and _luma(body) > 150 and rng.random() < 0.3:
            one = S.PIP_COLOURS["red"]
        kw.update(body=body, pip=pip, one_pip=one, one_radius=float(u(0.32, 0.45)))
        if one is not None:
            kw["pip_radius"] = float(u(0.14, 0.19))
        name = f"{family}-{_hex(body)}-{pip_name}" + ("-red1" if one else "")
    elif family == "translucent":
        body = _random_colour(rng, v=(0.45, 0.95), s=(0.45, 1.0))
        pip_name = str(rng.choice(["white", "white", "black", "gold"]))
        kw.update(body=body, pip=S.PIP_COLOURS[pip_name], translucency=float(u(0.45, 0.78)),
                  gloss=float(u(0.5, 0.85)), shininess=float(u(80, 180)), pip_depth=float(u(0.3, 1.2)),
                  corner=float(u(0.03, 0.15)))
        name = f"translucent-{_hex(body)}-{pip_name}"
    elif family == "casino":
        body = _jitter(rng, (32, 26, 178), 18)
        kw.update(body=body, pip=_jitter(rng, (238, 238, 236), 8), translucency=float(u(0.55, 0.78)),
                  gloss=float(u(0.6, 0.9)), shininess=float(u(100, 200)), pip_depth=0.0,
                  corner=float(u(0.012, 0.03)), pip_radius=float(u(0.17, 0.2)))
        name = f"casino-{_hex(body)}"
    elif family == "metal":
        body = _jitter(rng, _METALS[int(rng.integers(len(_METALS)))], 10)
        pip_name = "black" if _luma(body) > 90 else str(rng.choice(["white", "red"]))
        kw.update(body=body, pip=S.PIP_COLOURS[pip_name], metal=float(u(0.75, 1.0)), gloss=float(u(0.5, 0.9)),
                  shininess=float(u(12, 40)), pip_depth=float(u(1.0, 1.8)), corner=float(u(0.04, 0.12)))
        name = f"metal-{_hex(body)}-{pip_name}"
    elif family == "wooden":
        body = _jitter(rng, _DIE_WOODS[int(rng.integers(len(_DIE_WOODS)))], 12)
        dark = _luma(body) > 110
        pip = _jitter(rng, (22, 32, 48), 8) if dark else _jitter(rng, (225, 232, 236), 8)
        kw.update(body=body, pip=pip, grain=float(u(0.35, 0.8)), body2=tuple(int(v * u(0.55, 0.75)) for v in body),
                  gloss=float(u(0.03, 0.25)), shininess=float(u(8, 30)), pip_depth=float(u(1.6, 2.4)),
                  corner=float(u(0.08, 0.2)))
        name = f"wooden-{_hex(body)}"
    else:
        raise ValueError(f"unknown die family {family!r}")
    return S.DieStyle(name=name, **kw)


def _hex(c: BGR) -> str:
    return "%02x%02x%02x" % (c[2], c[1], c[0])


def random_surface(rng: np.random.Generator, kind: str, die: float) -> S.Surface:
    """A floor or table surface of this kind; texture scales follow the die size (floor pixels)."""
    u = rng.uniform
    ang = float(u(0, 180))
    if kind == "felt":
        if rng.random() < 0.5:
            c = _jitter(rng, S.FELTS[str(rng.choice(list(S.FELTS)))], 10)
        else:
            c = _random_colour(rng, v=(0.12, 0.75), s=(0.2, 0.9))
        return S.Surface("felt", c, strength=float(u(0.6, 1.4)))
    if kind == "wood":
        c = _jitter(rng, _WOODS[int(rng.integers(len(_WOODS)))], 14)
        return S.Surface("wood", c, tuple(int(v * u(0.55, 0.8)) for v in c), scale=float(die * u(0.12, 0.6)),
                         angle_deg=ang, strength=float(u(0.35, 0.9)), sheen=float(u(0.0, 0.08)))
    if kind == "paper":
        c = _jitter(rng, (238, 240, 242) if rng.random() < 0.6 else (198, 228, 242), 8)
        line = ((215, 175, 130), (160, 160, 160), (165, 195, 150), (150, 150, 215))[int(rng.integers(4))]
        return S.Surface("paper", c, line, scale=float(die * u(0.28, 0.75)), angle_deg=float(u(-8, 8)),
                         strength=float(u(0.2, 0.6)))
    if kind == "plastic":
        c = _random_colour(rng, v=(0.15, 0.92), s=(0.0, 0.9))
        return S.Surface("plastic", c, sheen=float(u(0.06, 0.3)), strength=float(u(0.1, 0.4)))
    if kind == "plain":
        return S.Surface("plain", _random_colour(rng, v=(0.2, 0.9), s=(0.0, 0.5)), strength=float(u(0.2, 0.8)))
    if kind == "cloth":
        c = _random_colour(rng, v=(0.15, 0.85), s=(0.0, 0.8))
        return S.Surface("cloth", c, tuple(int(v * 0.8) for v in c), scale=float(u(2.5, 6.0)), angle_deg=float(u(-10, 10)),
                         strength=float(u(0.3, 0.9)))
    if kind == "laminate":
        return S.Surface("laminate", _random_colour(rng, v=(0.3, 0.95), s=(0.0, 0.4)),
                         sheen=float(u(0.04, 0.15)), strength=float(u(0.1, 0.5)))
    if kind == "cork":
        c = _shade(rng, (75, 125, 175), 20, 6)
        return S.Surface("cork", c, tuple(int(v * u(0.45, 0.65)) for v in c), scale=float(die * u(0.03, 0.08)),
                         strength=float(u(0.5, 0.95)))
    if kind == "slate":
        c = _shade(rng, (72, 70, 62) if rng.random() < 0.6 else (95, 95, 92), 25, 3)
        return S.Surface("slate", c, tuple(int(min(255, v * u(1.3, 1.7))) for v in c), scale=float(die * u(0.5, 2.0)),
                         angle_deg=ang, strength=float(u(0.4, 0.85)))
    raise ValueError(f"unknown surface kind {kind!r}")


def kelvin_tint(kelvin: float, balance: float) -> tuple[float, float, float]:
    """BGR gains of a light of this colour temperature after a camera's white balance has taken
    away `balance` (0-1) of its cast (Tanner Helland's fit of the Planckian locus)."""
    t = kelvin / 100.0
    r = 255.0 if t <= 66 else 329.7 * (t - 60) ** -0.1332
    g = 99.47 * math.log(t) - 161.1 if t <= 66 else 288.1 * (t - 60) ** -0.0755
    b = 255.0 if t >= 66 else (0.0 if t <= 19 else 138.5 * math.log(t - 10) - 305.0)
    rgb = np.clip(np.array([b, g, r]), 1.0, 255.0) / 255.0
    rgb = rgb / rgb[1]
    gains = rgb ** (1.0 - balance)
    return tuple(float(v) for v in gains / gains.mean())


def _floor_mean(s: S.Surface) -> BGR:
    if s.kind in ("wood", "cork", "slate"):
        return tuple(int((a + b) / 2) for a, b in zip(s.bgr, s.bgr2))
    return s.bgr


def _stands_out(style: S.DieStyle, floor: BGR, least: float = 55.0) -> bool:
    body = np.array(style.body, float)
    if style.translucency:
        body = body * (1 - 0.5 * style.translucency) + np.array(floor) * 0.5 * style.translucency * body / 255.0
    return math.dist(body, floor) >= least and (abs(_luma(body) - _luma(floor)) >= 22 or math.dist(body, floor) >= 90)


def make_setup(rng: np.random.Generator, n_dice: int, size: tuple[int, int], pool: str, **kw):
    """A table of the train or holdout pool (overrides as for random_scene, plus floor / table kinds,
    camera (a Camera, or False for none), grey, flicker)."""
    bad = set(kw) - set(S._POOL_KEYS)
    if bad:
        raise TypeError(f"unknown scene option(s) {sorted(bad)}; known: {', '.join(S._POOL_KEYS)}")
    R = RANGES[pool]
    u = rng.uniform
    w, h = size
    lo, hi = R["die_px"]
    hi = min(hi, R["die_max_frac"] * w)
    die = float(kw.get("die_size") or math.exp(u(math.log(lo), math.log(max(lo * 1.2, hi)))))
    cam = float(kw.get("camera_height") or die * u(*R["camera_per_die"]))
    ic = np.array([(w - 1) / 2.0, (h - 1) / 2.0])
    tray = kw.get("tray")
    keep = kw.get("keep_zone")
    keep = bool(rng.random() < 0.15) if keep is None else bool(keep)
    if kw.get("nadir") is not None:
        nadir = np.array(kw["nadir"], np.float64)
    elif tray is not None:
        nadir = np.array(tray.nadir, np.float64) if tray.nadir is not None else ic
    else:
        nadir = ic + u(-0.04, 0.04, 2) * np.array([w, h])
    # styles
    families = S.DIE_FAMILIES[pool]
    styles_kw = kw.get("style")
    floor_kinds = S.FLOOR_KINDS[pool]
    if kw.get("felt") is not None:
        if kw["felt"] not in S.FELTS:
            raise ValueError(f"unknown felt {kw['felt']!r} ({', '.join(S.FELTS)})")
        kw["floor"] = "felt"
    for attempt in range(40):
        if tray is not None:
            floor_look = tray.floor_look or S.Surface("felt", tray.felt_bgr)
        else:
            fk = kw.get("floor") or str(rng.choice(floor_kinds))
            if fk not in S.FLOOR_KINDS["train"] + S.FLOOR_KINDS["holdout"]:
                raise ValueError(f"unknown floor {fk!r} ({', '.join(S.FLOOR_KINDS['train'] + S.FLOOR_KINDS['holdout'])})")
            floor_look = random_surface(rng, fk, die)
            if kw.get("felt") is not None:
                floor_look = S.Surface("felt", S.FELTS[kw["felt"]], strength=1.0)
        fmean = _floor_mean(floor_look)
        if styles_kw is not None:
            styles = (styles_kw,) if isinstance(styles_kw, (str, S.DieStyle)) else tuple(styles_kw)
            for st in styles:
                S._style(st)
            break
        n_styles = max(1, n_dice) if rng.random() < 0.15 else 1
        styles = []
        for _ in range(n_styles):
            for _ in range(30):
                st = random_style(rng, str(rng.choice(families)))
                if _stands_out(S._style(st), fmean):
                    styles.append(st)
                    break
        if len(styles) == n_styles:
            styles = tuple(styles)
            break
    else:
        raise RuntimeError("no die style stands out from the floor")
    keep_poly = None
    if tray is None:
        shape = kw.get("tray_shape") or str(rng.choice(["rect", "rect", "rounded", "rounded", "hex"]))
        wall = die * u(0.6, 2.6)
        rim = die * u(0.4, 1.5)
        grow = cam / (cam - wall)
        fw_frac = float(np.clip(die * u(9.0, 20.0) / w, 0.34, 0.76))
        if keep:
            fw_frac = min(fw_frac, u(0.5, 0.56))
            cx = ic[0] - u(0.10, 0.13) * w
        else:
            cx = ic[0] + u(-0.03, 0.03) * w
        fw = fw_frac * w
        fh = float(np.clip(fw * u(0.6, 0.95), 0.3 * h, 0.76 * h))
        cy = ic[1] + u(-0.03, 0.03) * h
        ang = u(-6, 6) if shape != "hex" else u(-3, 3)
        hw, hh = fw / 2.0, fh / 2.0
        if shape == "hex":
            hw, hh = hw * 1.08, hh * 1.02
        floor = S.shape_polygon(shape, (cx, cy), hw, hh, ang, corner=u(0.12, 0.3) * min(hw, hh))
        outer = S.offset_convex(floor, rim)
        proj = nadir + (outer - nadir) * grow
        lim = np.array([w - 1, h - 1]) - 3
        over = max(0.0, float(np.max(np.maximum(-proj + 3, proj - lim) / (np.abs(proj - nadir) + 1e-9))))
        if over > 0:
            floor = nadir + (floor - nadir) * (1.0 / (1.0 + over))
            outer = S.offset_convex(floor, rim)
        rims = [c for c in S.RIMS if S._contrast(c, fmean, 60.0)]
        rim_c = rims[int(rng.integers(len(rims)))] if rims and rng.random() < 0.5 else None
        for _ in range(30):
            if rim_c is not None:
                break
            c = _random_colour(rng, v=(0.08, 0.95), s=(0.0, 0.9))
            if S._contrast(c, fmean, 60.0):
                rim_c = c
        rim_c = rim_c or ((20, 20, 20) if _luma(fmean) > 128 else (220, 220, 220))
        tk = kw.get("table") or str(rng.choice(S.TABLE_KINDS[pool]))
        table_look = random_surface(rng, tk, die)
        tray = S.Tray(shape, S._tuple_poly(floor), S._tuple_poly(outer), floor_look.kind, fmean,
                      tuple(int(v) for v in rim_c), float(rim), float(wall), _floor_mean(table_look),
                      (float(nadir[0]), float(nadir[1])), floor_look, table_look)
        if keep:
            proj = nadir + (np.array(tray.outer) - nadir) * grow
            x0 = float(proj[:, 0].max()) + die * 0.6
            x1 = w - 1 - die * 0.4
            if x1 - x0 >= 2.2 * die:
                keep_poly = ((x0, h * u(0.12, 0.22)), (x1, h * u(0.12, 0.22)), (x1, h * u(0.78, 0.88)), (x0, h * u(0.78, 0.88)))
                keep_poly = ((x0, keep_poly[0][1]), (x1, keep_poly[0][1]), (x1, keep_poly[2][1]), (x0, keep_poly[2][1]))
    light = kw.get("lighting")
    if light is None:
        kelvin = float(u(*R["kelvin"]))
        light = S.Lighting(azimuth_deg=float(u(0, 360)), elevation_deg=float(u(*R["elevation_deg"])),
                           intensity=float(u(0.7, 1.25)), ambient=float(u(0.22, 0.5)),
                           gradient=(float(u(-0.3, 0.3)), float(u(-0.3, 0.3))), vignette=float(u(0.05, 0.45)),
                           tint=kelvin_tint(kelvin, float(u(0.4, 0.85))), kelvin=kelvin)
    camera = kw.get("camera")
    if camera is None:
        camera = _random_camera(rng, R, size, tray, keep_poly, cam, nadir)
    elif camera is False:
        camera = None
    elif camera.homography == S.Camera().homography and (camera.tilt_deg or camera.distortion):
        camera = _fit_camera(size, tray, keep_poly, cam, nadir, camera.tilt_deg, camera.tilt_dir_deg, camera.distortion)
    grey = kw.get("grey")
    grey = bool(rng.random() < R["grey_share"]) if grey is None else bool(grey)
    flicker = kw.get("flicker")
    if flicker is None:
        flicker = float(u(*R["flicker"])) if rng.random() < R["flicker_share"] else 0.0
    period = float(h / u(1.5, 8.0))
    jpeg = kw["jpeg_quality"] if "jpeg_quality" in kw else (
        None if rng.random() < R["no_jpeg_share"] else int(rng.integers(R["jpeg"][0], R["jpeg"][1] + 1)))
    return S._Setup(size, tray, keep_poly, die, cam, tuple(styles), light,
                    float(kw["noise"]) if kw.get("noise") is not None else float(u(*R["noise"])),
                    float(kw["blur"]) if kw.get("blur") is not None else float(u(*R["blur"])),
                    jpeg, (float(nadir[0]), float(nadir[1])), camera, grey, float(flicker), period, pool)


def _random_camera(rng, R, size, tray, keep_poly, cam, nadir) -> S.Camera | None:
    from vision import synthetic_camera as C
    u = rng.uniform
    tilt = float(u(*R["tilt_deg"])) if rng.random() < R["tilt_share"] else 0.0
    k = float(u(*R["distortion"])) if rng.random() < R["distortion_share"] else 0.0
    if tilt == 0.0 and k == 0.0:
        return None
    return _fit_camera(size, tray, keep_poly, cam, nadir, tilt, float(u(0, 360)), k)


def _fit_camera(size, tray, keep_poly, cam, nadir, tilt, tdir, k) -> S.Camera:
    """A camera leaning `tilt` towards `tdir` with distortion k, aimed so the tray stays in view."""
    from vision import synthetic_camera as C
    grow = cam / (cam - tray.wall_height)
    keep = nadir + (np.array(tray.outer) - nadir) * grow
    if keep_poly is not None:
        keep = np.vstack([keep, np.array(keep_poly)])
    h0 = C.tilt_homography(size, np.array(tray.floor).mean(axis=0), cam, tilt, tdir)
    m = C.fit(size, h0, k, keep)
    return S.Camera(tilt, tdir, k, tuple(float(v) for v in m.ravel()))


def per_scene(rng: np.random.Generator, setup, condition: str) -> dict:
    """What changes from frame to frame on a pool table: a slight camera shake."""
    R = RANGES[setup.pool]
    if condition != "blur" and rng.random() < R["shake_share"]:
        return {"shake": S.Motion(float(rng.uniform(*R["shake_px"])), float(rng.uniform(0, 180)))}
    return {}
