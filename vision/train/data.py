"""Training data for the detector: real labelled photos, rendered scenes, augmentation, targets.

A *sample* is a grey picture with its dice: (x, y) of each top face's centre, its side in
pixels, and its class (0-5 for faces 1-6, 6 for not readable), plus a mask of where the picture
is real (heat is not learnt outside it: a crop's padding, a rotation's corners).

Sources of real photos (a folder laid out as the shared `dice-photos` set; its README gives the
formats): "rune55" (`images/` and `oblique/`, one source), "webcam" (boxes on the top face),
"fisheye" (faces from `labels.jsonl`), "crops" (single dice, no photo around them). Renders come
from `vision.synthetic`, cached as PNG + JSON by `render_cache`.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision.bench import PIP_BOX, photo_records
from vision.detector import DIE_MAX, DIE_MIN, STRIDE

SOURCES = ("rune55", "webcam", "fisheye", "crops")
BIG_SHARE = 0.2  # views in which the dice are larger than the net's range (a coarser pyramid level reads them)
#: dice outside the net's size range are no positives; near its edges they are not taught either way
POS_RANGE = (DIE_MIN * 0.8, DIE_MAX * 1.15)
IGNORE_RANGE = (DIE_MIN * 0.5, DIE_MAX * 1.7)


@dataclass
class Sample:
    gray: np.ndarray  # uint8 HxW
    dice: np.ndarray  # (N, 4) float32: x, y, side, class
    mask: np.ndarray | None = None  # uint8 HxW, 255 where heat is learnt; None: everywhere
    source: str = ""
    name: str = ""
    condition: str = ""  # a render's condition (vision.synthetic.CONDITIONS)
    #: (M, 3) x, y, side of what is no die of the game (a render's symbol dice and dark marks:
    #: vision.synthetic.distractors); None: nothing known
    others: np.ndarray | None = None


def _boxes_sample(img_path: Path, boxes: list, source: str, top_only: bool) -> Sample | None:
    g = cv2.imread(str(img_path), cv2.IMREAD_GRAYSCALE)
    if g is None:
        return None
    dice = []
    for x1, y1, x2, y2, face in boxes:
        if face is None:
            return None  # a die of unknown face: the photo cannot teach faces
        w, h = x2 - x1, y2 - y1
        # a box around the whole die is wider than the top face; a top-face box (webcam) holds the pips
        side = math.sqrt(max(w * h, 1.0)) * (PIP_BOX[int(face)] if top_only else 0.85)
        dice.append((0.5 * (x1 + x2), 0.5 * (y1 + y2), side, int(face) - 1))
    return Sample(g, np.array(dice, np.float32).reshape(-1, 4), None, source, img_path.name)


def photo_samples(root: str | os.PathLike, source: str) -> list[Sample]:
    """Every labelled photo of one source in the photo folder `root`: its labels as vision.bench's
    photo_records reads them (the corrections of vision.photolabels applied), or the single-die crops."""
    root = Path(root)
    out: list[Sample] = []
    if source in ("rune55", "webcam", "fisheye"):  # the labels as the bench reads them (corrections applied)
        for rec in photo_records(root, source):
            s = _boxes_sample(Path(rec["path"]), rec["boxes"], source, bool(rec.get("top_only")))
            if s is not None:
                out.append(s)
    elif source == "crops":
        for face_dir in sorted((root / "crops").glob("[1-6]")) + sorted((root / "fisheye" / "crops").glob("[1-6]")):
            for p in sorted(face_dir.iterdir()):
                s = crop_sample(p, int(face_dir.name), "crops" if "fisheye" not in str(p) else "fisheye")
                if s is not None:
                    out.append(s)
    else:
        raise ValueError(f"unknown source {source!r} ({', '.join(SOURCES)})")
    return out


def crop_sample(path: Path, face: int, source: str) -> Sample | None:
    """A single-die crop set in a frame twice its size (an even grey around it); heat is learnt on the crop only."""
    g = cv2.imread(str(path), cv2.IMREAD_GRAYSCALE)
    if g is None:
        return None
    h, w = g.shape
    py, px = h // 2, w // 2
    big = cv2.copyMakeBorder(g, py, py, px, px, cv2.BORDER_CONSTANT, value=float(np.median(g)))
    mask = np.zeros(big.shape, np.uint8)
    mask[py:py + h, px:px + w] = 255
    side = 0.8 * min(h, w)
    return Sample(big, np.array([[px + w / 2, py + h / 2, side, face - 1]], np.float32), mask, source, path.name)


# --------------------------------------------------------------------------- renders
def scene_labels(scene) -> np.ndarray:
    """(N, 4) x, y, side, class of a rendered scene's dice, as the frame shows them (vision.synthetic.labels)."""
    from vision import synthetic as S

    rows = [(lb.center[0], lb.center[1], lb.side, lb.cls) for lb in S.labels(scene)]
    return np.array(rows, np.float32).reshape(-1, 4)


RENDER_MIX = {"clean": 0.34, "cocked": 0.26, "off_tray": 0.1, "missing": 0.04, "extra": 0.04,
              "glare": 0.05, "blur": 0.04, "hand": 0.06, "odd_face": 0.07}


def _render_one(args: tuple[int, str, str, dict | None, bool]) -> None:
    seed, out, pool, mix, distract = args
    from vision import synthetic as S

    p = Path(out) / f"r{seed:06d}"
    if p.with_suffix(".json").exists():
        return
    cv2.setNumThreads(1)
    rng = np.random.default_rng(seed)
    size = ((1280, 960), (640, 480), (960, 720))[seed % 3]
    n = int(rng.choice([1, 2, 3, 5, 6, 8, 10]))
    cond = S.random_condition(rng, mix or RENDER_MIX)
    try:
        scene = S.random_scene(rng, n, size, cond, pool=pool)
    except (RuntimeError, ValueError):
        return
    if distract:  # symbol dice and dark marks beside the dice: not dice of the game
        scene = S.with_distractors(scene, rng, int(rng.integers(1, 4)), int(rng.integers(0, 7)))
    if seed % 11 == 0:  # now and then the empty tray: a frame with no die at all
        img, lab = S.render_empty(scene), np.zeros((0, 4), np.float32)
    else:
        img, lab = S.render(scene), scene_labels(scene)
    g = img if img.ndim == 2 else cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    cv2.imwrite(str(p.with_suffix(".png")), g, [cv2.IMWRITE_PNG_COMPRESSION, 1])
    meta = {"dice": lab.tolist(), "condition": cond}
    if distract:
        meta["others"] = [list(t) for t in S.distractors(scene)]
    p.with_suffix(".json").write_text(json.dumps(meta))


def render_cache(out: str | os.PathLike, seeds: range, workers: int = 2, pool: str = "train",
                 mix: dict[str, float] | None = None, distract: bool = False) -> Path:
    """Render the training scenes of `seeds` from the renderer's `pool` ("classic" or "train"; never
    "holdout", which the bench keeps for scenes the model never saw) into `out`, skipping those there.
    `mix`: the conditions' shares (default RENDER_MIX; {"cocked": 1.0} for a set of cocked dice);
    `distract`: every scene also holds symbol dice and dark marks (vision.synthetic.with_distractors),
    written as the JSON's "others"."""
    if pool == "holdout":
        raise ValueError("the holdout pool is for evaluation only")
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    jobs = [(s, str(out), pool, mix, distract) for s in seeds]
    if workers > 1:
        import multiprocessing as mp

        with mp.get_context("fork").Pool(workers) as pool:
            pool.map(_render_one, jobs, chunksize=4)
    else:
        for j in jobs:
            _render_one(j)
    return out


def iter_render_samples(folder: str | os.PathLike):
    """The rendered scenes of a render_cache folder, one at a time (pictures are read as they come)."""
    for j in sorted(Path(folder).glob("r*.json")):
        g = cv2.imread(str(j.with_suffix(".png")), cv2.IMREAD_GRAYSCALE)
        if g is None:
            continue
        meta = json.loads(j.read_text())
        dice = np.array(meta["dice"], np.float32).reshape(-1, 4)
        others = np.array(meta["others"], np.float32).reshape(-1, 3) if "others" in meta else None
        yield Sample(g, dice, None, "render", j.stem, meta.get("condition", ""), others)


def render_samples(folder: str | os.PathLike) -> list[Sample]:
    return list(iter_render_samples(folder))


# --------------------------------------------------------------------------- augmentation
def augment(s: Sample, rng: np.random.Generator, crop: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A random view of a sample: scaled so its dice fall in the net's size range, turned, flipped,
    cropped to crop x crop, with light, blur, noise and JPEG changes. Returns (gray, dice, mask)."""
    g, dice = s.gray, s.dice
    h, w = g.shape
    if len(dice):
        ref = float(np.median(dice[:, 2]))
        if rng.random() < BIG_SHARE:  # dice too big for this level: the net learns a pip is no die
            target = math.exp(rng.uniform(math.log(DIE_MAX * 1.3), math.log(DIE_MAX * 5)))
        else:
            target = math.exp(rng.uniform(math.log(DIE_MIN + 2), math.log(DIE_MAX - 6)))
        scale = target / max(ref, 1.0)
    else:
        scale = math.exp(rng.uniform(math.log(0.15), math.log(1.0)))
    angle = rng.uniform(0, 360) if rng.random() < 0.7 else 0.0
    # centre the crop on a random die most of the time, else anywhere
    if len(dice) and rng.random() < 0.8:
        k = int(rng.integers(len(dice)))
        cx, cy = float(dice[k, 0]), float(dice[k, 1])
        cx += rng.uniform(-0.35, 0.35) * crop / scale
        cy += rng.uniform(-0.35, 0.35) * crop / scale
    else:
        cx, cy = rng.uniform(0, w), rng.uniform(0, h)
    aniso = math.exp(rng.normal(0, 0.06))
    M = cv2.getRotationMatrix2D((cx, cy), angle, scale)
    M[:, 0] *= aniso
    # recentre: the point (cx, cy) maps to the crop's centre
    p = M[:, :2] @ np.array([cx, cy]) + M[:, 2]
    M[:, 2] += np.array([crop / 2, crop / 2]) - p
    if rng.random() < 0.3:  # a little perspective (camera tilt)
        src = np.float32([[0, 0], [crop, 0], [crop, crop], [0, crop]])
        dst = src + rng.normal(0, 0.04 * crop, (4, 2)).astype(np.float32)
        P = cv2.getPerspectiveTransform(src, dst) @ np.vstack([M, [0, 0, 1]])
    else:
        P = np.vstack([M, [0, 0, 1]])
    interp = cv2.INTER_AREA if scale < 0.7 else cv2.INTER_LINEAR
    fill = float(np.median(g[::8, ::8]))  # outside the picture: an even grey (no mirrored dice)
    out = cv2.warpPerspective(g, P, (crop, crop), flags=interp, borderMode=cv2.BORDER_CONSTANT, borderValue=fill)
    base = s.mask if s.mask is not None else np.full(g.shape, 255, np.uint8)
    mask = cv2.warpPerspective(base, P, (crop, crop), flags=cv2.INTER_NEAREST, borderValue=0)
    if len(dice):
        pts = np.concatenate([dice[:, :2], np.ones((len(dice), 1), np.float32)], 1) @ P.T
        xy = pts[:, :2] / pts[:, 2:3]
        # local scale of the warp at each die
        J = np.sqrt(abs(np.linalg.det(P[:2, :2]))) / np.abs(pts[:, 2])
        nd = np.concatenate([xy, (dice[:, 2] * J)[:, None], dice[:, 3:4]], 1).astype(np.float32)
    else:
        nd = np.zeros((0, 4), np.float32)
    if rng.random() < 0.5:
        out, mask = out[:, ::-1].copy(), mask[:, ::-1].copy()
        nd[:, 0] = crop - 1 - nd[:, 0]
    out = photometric(out, rng)
    return out, nd, mask


def photometric(g: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    f = g.astype(np.float32) / 255.0
    if rng.random() < 0.8:
        gamma = math.exp(rng.normal(0, 0.3))
        f = np.power(np.clip(f, 0, 1), gamma)
        f = f * rng.uniform(0.6, 1.3) + rng.uniform(-0.15, 0.15)
    if rng.random() < 0.3:  # uneven light
        h, w = f.shape
        gx, gy = rng.normal(0, 0.25, 2)
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        f = f * (1 + gx * (xx / w - 0.5) + gy * (yy / h - 0.5))
    if rng.random() < 0.1:
        f = 1.0 - f  # light pips on a dark die look like dark pips on a light one, inverted
    if rng.random() < 0.35:
        sig = rng.uniform(0.3, 1.3)
        f = cv2.GaussianBlur(f, (0, 0), sig)
    if rng.random() < 0.15:  # motion blur
        L = int(rng.integers(3, 7))
        k = np.zeros((L, L), np.float32)
        k[L // 2] = 1.0 / L
        k = cv2.warpAffine(k, cv2.getRotationMatrix2D((L / 2 - 0.5, L / 2 - 0.5), rng.uniform(0, 180), 1.0), (L, L))
        f = cv2.filter2D(f, -1, k / max(k.sum(), 1e-6))
    if rng.random() < 0.5:
        f = f + rng.normal(0, rng.uniform(0.005, 0.04), f.shape).astype(np.float32)
    u8 = np.clip(f * 255.0 + 0.5, 0, 255).astype(np.uint8)
    if rng.random() < 0.4:
        ok, enc = cv2.imencode(".jpg", u8, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(35, 95))])
        if ok:
            u8 = cv2.imdecode(enc, cv2.IMREAD_GRAYSCALE)
    return u8


# --------------------------------------------------------------------------- targets
def targets(dice: np.ndarray, mask: np.ndarray, crop: int) -> dict[str, np.ndarray]:
    """CenterNet-style targets on the STRIDE grid: a Gaussian heat per die, and at each die's cell
    (and its 3x3 neighbours for class and size) the class, log side in cells and sub-cell offset."""
    n = crop // STRIDE
    heat = np.zeros((n, n), np.float32)
    cls = np.full((n, n), -1, np.int64)
    cls_w = np.zeros((n, n), np.float32)
    size = np.zeros((n, n), np.float32)
    off = np.zeros((2, n, n), np.float32)
    centre = np.zeros((n, n), np.float32)
    yy, xx = np.mgrid[0:n, 0:n].astype(np.float32)
    order = np.argsort(-dice[:, 2]) if len(dice) else []
    ignore = np.ones((n, n), np.float32)
    for i in order:
        x, y, side, c = dice[i]
        gx, gy = x / STRIDE, y / STRIDE
        if not POS_RANGE[0] <= side <= POS_RANGE[1]:
            if IGNORE_RANGE[0] <= side <= IGNORE_RANGE[1]:
                r2 = (0.5 * side / STRIDE) ** 2
                ignore[((xx + 0.5 - gx) ** 2 + (yy + 0.5 - gy) ** 2) <= r2] = 0.0
            continue
        if not (0 <= gx < n and 0 <= gy < n):
            continue
        sig = max(0.35, side / STRIDE / 5.0)
        g = np.exp(-((xx + 0.5 - gx) ** 2 + (yy + 0.5 - gy) ** 2) / (2 * sig * sig))
        heat = np.maximum(heat, g)
        ix, iy = int(gx), int(gy)
        centre[iy, ix] = 1.0
        off[:, iy, ix] = (gx - ix, gy - iy)
        for dy in (-1, 0, 1):
            for dx in (-1, 0, 1):
                jx, jy = ix + dx, iy + dy
                if 0 <= jx < n and 0 <= jy < n:
                    wgt = 1.0 if dx == dy == 0 else 0.5
                    if wgt >= cls_w[jy, jx]:
                        cls[jy, jx] = int(c)
                        cls_w[jy, jx] = wgt
                        size[jy, jx] = math.log(max(side, 1.0) / STRIDE)
    m = cv2.resize(mask, (n, n), interpolation=cv2.INTER_AREA).astype(np.float32) / 255.0
    heat_w = (m > 0.5).astype(np.float32) * ignore
    heat_w = np.maximum(heat_w, centre)
    return {"heat": heat, "heat_w": heat_w, "centre": centre, "cls": cls, "cls_w": cls_w, "size": size, "off": off}
