"""`python -m vision.train.faces`: train the face reader (vision.faces) on die crops, export ONNX.

Two steps, both reproducible from their seeds:

1. **The bank** (`build_bank`): every die of the training pictures (renders and real photos) cut
   out once as a BASE x BASE window at the reader's scale (a top face FACE_PX pixels wide, as in the
   reader's crop) but wider (BASE_CONTEXT top faces), so that any turn, shift and size error of a
   detector can be cut from it later. Where the die is read from is where the reader would read it
   from: a rendered die at its true centre and side (the calibrated path knows the die size), a
   real die at the detection a detector makes on it (its centre and size, as the uncalibrated
   reader sees it), else at its label box. Labels: the die's face, or "not readable" (rendered dice
   that are cocked, rolling, hidden or show an odd face), or "not a die": a detector's own false
   detections on the training pictures (a pip, a symbol die, a side face, a screw hole, a hand),
   the background at a die's size, a pip seen as a die, a window half a die off a die.
2. **Training** (`train`): batches drawn from the bank by source and class shares, each window cut
   to the reader's CROP x CROP crop in PyTorch with a detector's errors (centre, size), any turn, a
   mirror, then light, blur, small-die, noise and inversion changes, normalised as the reader
   normalises; with --parts some face windows are cut as a part of the die only and taught "not a
   die". AdamW with a one-cycle learning rate; the net is vision.train.model.FaceCNN.

    python -m vision.train.faces --renders R1,R2 --data PHOTOS --detector vision/model/dice.onnx \\
        --bank /tmp/bank.npz --steps 12000 --out vision/model/dice.faces.onnx
    python -m vision.train.faces ... --leave-out rune55 --out folds/without-rune55.faces.onnx

The bank is cached in --bank (keyed by its inputs); a fold leaves its sources out of the same bank.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import sys
import time
from pathlib import Path

import cv2
import numpy as np

from vision import faces as F
from vision.train.data import SOURCES, Sample

BASE = 72  # bank window side, pixels
BASE_CONTEXT = BASE * F.CONTEXT / F.CROP  # bank window side in top-face sides (the reader's scale)
MIN_SIDE = 8.0  # dice smaller than this (pixels) are not taught
#: the share of each source among the face examples of a batch (renormalised over those present)
MIX = {"render": 0.45, "rune55": 0.2, "webcam": 0.15, "fisheye": 0.05, "crops": 0.15}
NEG_SHARE = 0.16  # share of "not a die" in a batch
UNREADABLE_SHARE = 0.14  # share of "not readable" (rendered) in a batch
JITTER_XY, JITTER_SIZE = 0.07, 0.08  # a detector's error, in top-face sides and relative (one sigma)
TURN_JITTER, TURN_ANY = 12.0, 0.1  # degrees off the turn toward the centre (one sigma); share of any turn
#: a part of a die taken for a die (a detector's die a half to two thirds the size, centred off the
#: die: two rows of a six look like a four): with --parts, PART_SHARE of the face windows of a batch
#: are cut so, PART_ZOOM times the die's size and PART_OFF top-face sides off its centre, and taught
#: "not a die"
PART_SHARE, PART_ZOOM, PART_OFF = 0.06, (0.4, 0.65), (0.2, 0.35)
KINDS = ("die", "detector_false", "background", "pip", "off_centre", "distractor")
#: a small die's few pixels: a quarter of the views are shrunk to a crop side drawn from one of these
#: ranges (pixels of the CROP-pixel crop, CONTEXT top faces wide) and seen larger again. "all" (the
#: recipe's) reaches dice of 6 to 20 pixels; "in-scope" only dice of 15 to 25 pixels, the smallest the
#: reader is asked to read (16 px). Tried for the second part and not taken: it read more dice and
#: passed more wrong faces on data it never saw (the model card)
SMALL_CROPS = {"all": ((10, 16), (16, 24), (24, 32)), "in-scope": ((24, 32), (32, 40))}
BANK_VERSION = 3  # raise it when what goes into the bank changes (a cached bank is then rebuilt)
#: render conditions whose "not readable" dice are not taught: a hand over a die, a glare, a camera
#: shake or a rolling die make a die "not readable" for the scene's truth, but its crop can show a
#: face as plainly as a flat die's (the settle step, not the face net, refuses a throw in motion)
AMBIGUOUS = ("blur", "glare", "hand")


def window(g: np.ndarray, x: float, y: float, side: float) -> np.ndarray:
    """The bank window of a die of top-face side `side` at (x, y): BASE pixels, BASE_CONTEXT sides
    (kept as 8 bits: the bank is large)."""
    return np.clip(F.crop(g, x, y, side * BASE_CONTEXT / F.CONTEXT, out=BASE) + 0.5, 0, 255).astype(np.uint8)


# --------------------------------------------------------------------------- the bank
FALSE_SCORE, FALSE_MAX = 0.25, 12  # a detector's false dice taught: at least this heat, at most so many a picture


def _detections(g: np.ndarray, det, die_px: float | None):
    """The detector's dice in a picture, the strongest first (at least FALSE_SCORE)."""
    if det is None:
        return []
    return sorted((d for d in det.detect(g, die_px=die_px, peak=FALSE_SCORE)), key=lambda d: -d.score)


def _match(d, dice: np.ndarray, boxes: list | None) -> int | None:
    """The index of the labelled die a detection lies on (its centre near the die's, or in its box)."""
    if boxes is not None:
        for k, (x1, y1, x2, y2, _) in enumerate(boxes):
            pad = 0.1 * max(x2 - x1, y2 - y1)
            if x1 - pad <= d.x <= x2 + pad and y1 - pad <= d.y <= y2 + pad:
                return k
        return None
    if not len(dice):
        return None
    dist = np.hypot(dice[:, 0] - d.x, dice[:, 1] - d.y)
    k = int(np.argmin(dist))
    return k if dist[k] <= 0.6 * max(float(dice[k, 2]), 8.0) else None


def sample_items(s: Sample, det, rng: np.random.Generator, boxes: list | None = None):
    """(window, class, kind, turn) of every die of a sample, and its negatives. `boxes` (real photos):
    the label boxes in the sample's pixels, parallel to s.dice; a die is then read at the detection on
    it. turn: vision.faces.toward_centre of the window's place (NaN for a single-die crop, which has
    no picture around it)."""
    g, dice = s.gray, s.dice
    h, w = g.shape
    out = []
    lone = s.source in ("crops",) or s.mask is not None  # a single-die crop set in a plain frame

    def item(x: float, y: float, side: float, cls: int, kind: str):
        turn = float("nan") if lone else F.toward_centre(x, y, w, h)
        out.append((window(g, x, y, side), cls, kind, turn))

    real = boxes is not None
    die_px = None if real or not len(dice) else float(np.median(dice[:, 2]))
    found = _detections(g, det, die_px) if (det is not None and s.source != "crops") else []
    best: dict[int, object] = {}
    false = 0
    for d in found:
        k = _match(d, dice, boxes)
        if k is None:
            inside = s.mask is None or s.mask[min(h - 1, max(0, int(d.y))), min(w - 1, max(0, int(d.x)))]
            if inside and false < FALSE_MAX:
                item(d.x, d.y, d.size, F.NOT_A_DIE, "detector_false")
                false += 1
            continue
        side = float(dice[k, 2])
        if d.size < 0.5 * side:  # a pip or a part of the die taken for a die
            item(d.x, d.y, d.size, F.NOT_A_DIE, "pip")
            continue
        if real and d.size <= 1.6 * side and (k not in best or d.score > best[k].score):
            best[k] = d
    for k in range(len(dice)):
        x, y, side, cls = (float(v) for v in dice[k])
        if side < MIN_SIDE or (cls == F.NOT_READABLE and s.condition in AMBIGUOUS):
            continue
        if k in best:  # where a detector reads the real die from
            x, y, side = best[k].x, best[k].y, best[k].size
        item(x, y, side, int(cls), "die")
    # what a render knows is no die of the game (a symbol die, a screw hole, a stain), where it lies
    for x, y, side in (s.others if s.others is not None else ()):
        if side >= MIN_SIDE:
            item(float(x), float(y), float(side), F.NOT_A_DIE, "distractor")
    # negatives that need no detector: the background at a die's size, a pip as a die, half a die off
    ref = float(np.median(dice[:, 2])) if len(dice) else float(rng.uniform(16, 90))
    if s.source != "crops":
        for _ in range(2):
            side = ref * math.exp(rng.uniform(-0.5, 0.5))
            x, y = rng.uniform(0, w), rng.uniform(0, h)
            if s.mask is not None and not s.mask[int(y), int(x)]:
                continue
            if len(dice) == 0 or np.all(np.hypot(dice[:, 0] - x, dice[:, 1] - y) > 0.9 * np.maximum(dice[:, 2], side)):
                item(x, y, side, F.NOT_A_DIE, "background")
    if len(dice):
        k = int(rng.integers(len(dice)))
        x, y, side = (float(v) for v in dice[k, :3])
        if side * 0.15 >= MIN_SIDE / 2:
            item(x + rng.uniform(-0.3, 0.3) * side, y + rng.uniform(-0.3, 0.3) * side, side * rng.uniform(0.15, 0.3),
                 F.NOT_A_DIE, "pip")
        a = rng.uniform(0, 2 * math.pi)
        r = rng.uniform(0.5, 0.8) * side
        item(x + r * math.cos(a), y + r * math.sin(a), side, F.NOT_A_DIE, "off_centre")
    return out


def photo_items(root: Path, source: str) -> list[tuple[Sample, list | None]]:
    """(sample, label boxes or None) of one real source (boxes for whole photos, None for crops)."""
    from vision.train.data import photo_samples

    samples = photo_samples(root, source)
    if source == "crops":
        return [(s, None) for s in samples]
    recs = {}
    subs = [(root, root / "labels.jsonl"), (root / "oblique", root / "oblique" / "labels.jsonl")] \
        if source == "rune55" else [(root / source, root / source / "labels.jsonl")]
    for base, lj in subs:
        if lj.exists():
            for line in lj.read_text().splitlines():
                if line.strip():
                    r = json.loads(line)
                    recs[Path(r["image"]).name] = r["boxes"]
    return [(s, recs.get(s.name)) for s in samples]


def build_bank(pictures, detector_path: str | None, seed: int = 0, log=print) -> dict[str, np.ndarray]:
    """Every die (and negative) of the pictures, (source, sample, label boxes or None) one at a time,
    as bank windows: {"x" (N, BASE, BASE) uint8, "y" class, "src" (index into "sources"), "kind"
    (index into KINDS), "turn" (degrees toward the picture's centre, NaN: none), "sources"}."""
    from vision.detector import Detector

    det = Detector(detector_path) if detector_path else None
    rng = np.random.default_rng(seed)
    xs, ys, srcs, kinds, turns = [], [], [], [], []
    names = ["render"] + list(SOURCES)
    t0 = time.time()
    for i, (src, s, boxes) in enumerate(pictures):
        for win, cls, kind, turn in sample_items(s, det, rng, boxes):
            xs.append(win)
            ys.append(cls)
            srcs.append(names.index(src))
            kinds.append(KINDS.index(kind))
            turns.append(turn)
        if log and (i + 1) % 2000 == 0:
            log(f"bank: {i + 1} pictures, {len(xs)} windows, {time.time() - t0:.0f}s")
    return {"x": np.stack(xs) if xs else np.zeros((0, BASE, BASE), np.uint8), "y": np.array(ys, np.int8),
            "src": np.array(srcs, np.int8), "kind": np.array(kinds, np.int8), "turn": np.array(turns, np.float32),
            "sources": np.array(names)}


def bank_key(args) -> str:
    """What a bank is made from: its pictures' folders, the detector file, the seed and the layout."""
    h = hashlib.sha1()
    for part in (args.renders or "", args.data or "", args.detector or "", str(args.seed), str(BASE),
                 f"{F.CONTEXT}:{F.CROP}"):
        h.update(part.encode())
    if args.detector and Path(args.detector).is_file():
        h.update(Path(args.detector).read_bytes())
    h.update(f"{BANK_VERSION}:{args.limit}".encode())
    return h.hexdigest()[:12]


def load_bank(args, log=print) -> dict[str, np.ndarray]:
    """The bank of args (cached in args.bank when given and its key matches), all sources in it."""
    from vision.train.data import iter_render_samples

    key = bank_key(args)
    if args.bank and Path(args.bank).is_file():
        with np.load(args.bank) as z:
            if str(z["key"]) == key:
                return {k: z[k] for k in ("x", "y", "src", "kind", "turn", "sources")}
    def pictures():
        for f in (args.renders or "").split(","):
            if f:
                for k, s in enumerate(iter_render_samples(f)):
                    if args.limit and k >= args.limit:
                        break
                    yield "render", s, None
        for src in SOURCES if args.data else ():
            items = photo_items(Path(args.data), src)
            for s, boxes in items[:args.limit] if args.limit else items:
                # fisheye's single-die crops go with fisheye (the same dice, often the same moment)
                yield ("fisheye" if src == "crops" and s.source == "fisheye" else src), s, boxes

    bank = build_bank(pictures(), args.detector, args.seed, log)
    if args.bank:
        Path(args.bank).parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(str(args.bank) + ".tmp.npz")
        np.savez(tmp, key=np.array(key), **bank)
        tmp.replace(args.bank)
    return bank


def without(bank: dict[str, np.ndarray], leave_out: str | None) -> dict[str, np.ndarray]:
    """The bank without the sources of a fold (fisheye's crops go with fisheye)."""
    if not leave_out:
        return bank
    names = list(bank["sources"])
    drop = [names.index(s) for s in leave_out.split(",") if s in names]
    keep = ~np.isin(bank["src"], drop)
    return {k: (v[keep] if k != "sources" else v) for k, v in bank.items()}


# --------------------------------------------------------------------------- batches
class Sampler:
    """Batches of bank indices: NEG_SHARE "not a die", UNREADABLE_SHARE "not readable", the rest faces
    drawn by source (MIX, renormalised over the sources present), each group uniformly."""

    def __init__(self, bank: dict[str, np.ndarray], seed: int):
        self.rng = np.random.default_rng(seed)
        y, src = bank["y"].astype(int), bank["src"].astype(int)
        names = list(bank["sources"])
        self.neg = np.nonzero(y == F.NOT_A_DIE)[0]
        self.unread = np.nonzero(y == F.NOT_READABLE)[0]
        face = y < F.NOT_READABLE
        self.by_src = {}
        for i, n in enumerate(names):
            idx = np.nonzero(face & (src == i))[0]
            if len(idx):
                self.by_src[n] = idx
        p = np.array([MIX.get(n, 0.1) for n in self.by_src], np.float64)
        self.p = p / p.sum()

    def draw(self, n: int) -> np.ndarray:
        r = self.rng
        n_neg = int(r.binomial(n, NEG_SHARE)) if len(self.neg) else 0
        n_unr = int(r.binomial(n - n_neg, UNREADABLE_SHARE / (1 - NEG_SHARE))) if len(self.unread) else 0
        parts = [self.neg[r.integers(len(self.neg), size=n_neg)], self.unread[r.integers(len(self.unread), size=n_unr)]]
        names = list(self.by_src)
        which = r.choice(len(names), size=n - n_neg - n_unr, p=self.p)
        for j, name in enumerate(names):
            k = int((which == j).sum())
            if k:
                parts.append(self.by_src[name][r.integers(len(self.by_src[name]), size=k)])
        idx = np.concatenate(parts)
        r.shuffle(idx)
        return idx


def views(torch, x, rng: np.random.Generator, turn=None, jitter: bool = True, part=None):
    """(N, 1, CROP, CROP) float views of (N, BASE, BASE) uint8 windows, values 0-1, each turned by its
    `turn` (degrees, as vision.faces.crop turns; NaN or None: any turn). With jitter: a detector's
    error (centre, size), the turn off by TURN_JITTER (any turn for TURN_ANY of them: a camera whose
    centre is not above the tray) and a mirror across the crop's upright axis. `part` (N booleans,
    with jitter): those views show a part of the die only (PART_ZOOM, PART_OFF)."""
    import torch.nn.functional as TF

    n = x.shape[0]
    t = torch.from_numpy(x).float().div_(255.0)[:, None]
    k = F.CROP / BASE  # the crop's share of the window at no size error
    turn = np.zeros(n) if turn is None else np.asarray(turn, np.float64)
    ang = np.radians(turn)
    free = np.isnan(ang)
    if jitter:
        free |= rng.random(n) < TURN_ANY
        ang = np.where(free, rng.uniform(0, 2 * math.pi, n), ang + np.radians(rng.normal(0, TURN_JITTER, n)))
        size = np.exp(rng.normal(0, JITTER_SIZE, n))
        dx, dy = rng.normal(0, JITTER_XY, (2, n)) * (2.0 / BASE_CONTEXT)  # sides in the window's -1..1
        mirror = np.where(rng.random(n) < 0.5, -1.0, 1.0)
        if part is not None and np.any(part):
            m = int(np.sum(part))
            size[part] = rng.uniform(*PART_ZOOM, m)
            a, r = rng.uniform(0, 2 * math.pi, m), rng.uniform(*PART_OFF, m) * (2.0 / BASE_CONTEXT)
            dx[part], dy[part] = r * np.cos(a), r * np.sin(a)
    else:
        ang = np.where(free, 0.0, ang)
        size, dx, dy, mirror = np.ones(n), np.zeros(n), np.zeros(n), np.ones(n)
    c, s = np.cos(ang) * k * size, np.sin(ang) * k * size
    theta = np.stack([np.stack([c * mirror, -s, dx], 1), np.stack([s * mirror, c, dy], 1)], 1)
    grid = TF.affine_grid(torch.from_numpy(theta).float(), (n, 1, F.CROP, F.CROP), align_corners=False)
    return TF.grid_sample(t, grid, mode="bilinear", padding_mode="border", align_corners=False)


def small_dice(torch, v, rng: np.random.Generator, small_crops=SMALL_CROPS["all"]):
    """A quarter of (N, 1, C, C) views shrunk to a crop side from one of `small_crops`' ranges (the same
    side for a range's views) and seen at C again: a small die's few pixels. Returns the views and each
    view's side (0: not shrunk)."""
    import torch.nn.functional as TF

    n, _, h, w = v.shape
    sides = np.zeros(n, int)
    small = rng.random(n) < 0.25
    bucket = rng.integers(0, len(small_crops), n)
    for j, (lo, hi) in enumerate(small_crops):
        sel = np.nonzero(small & (bucket == j))[0]
        if len(sel):
            px = int(rng.integers(lo, hi))
            sides[sel] = px
            idx = torch.from_numpy(np.asarray(sel))
            lowres = TF.interpolate(v[idx], size=(px, px), mode="area")
            v[idx] = TF.interpolate(lowres, size=(h, w), mode="bilinear", align_corners=False)
    return v, sides


def photometric(torch, v, rng: np.random.Generator, small_crops=SMALL_CROPS["all"]):
    """Light, blur, a small die's few pixels (a crop side from one of `small_crops`' ranges), noise and
    now and then an inversion, on (N, 1, C, C) 0-1."""
    import torch.nn.functional as TF

    n, _, h, w = v.shape
    gamma = torch.from_numpy(np.exp(rng.normal(0, 0.3, n))).float().view(n, 1, 1, 1)
    v = v.clamp(1e-4, 1).pow(gamma)
    gain = torch.from_numpy(rng.uniform(0.6, 1.25, n)).float().view(n, 1, 1, 1)
    off = torch.from_numpy(rng.uniform(-0.12, 0.12, n)).float().view(n, 1, 1, 1)
    v = v * gain + off
    # uneven light across the die
    gx, gy = (torch.from_numpy(rng.normal(0, 0.2, n)).float().view(n, 1, 1, 1) for _ in range(2))
    ramp = torch.linspace(-0.5, 0.5, w).view(1, 1, 1, w)
    v = v * (1 + gx * ramp + gy * ramp.transpose(2, 3))
    v, _ = small_dice(torch, v, rng, small_crops)
    # blur (focus, motion of the whole camera): three strengths
    blur = rng.random(n)
    for sigma, (lo, hi) in ((0.6, (0.0, 0.15)), (1.0, (0.15, 0.25)), (1.5, (0.25, 0.3))):
        sel = np.nonzero((blur >= lo) & (blur < hi))[0]
        if len(sel):
            r = int(math.ceil(2.5 * sigma))
            ax = torch.arange(-r, r + 1).float()
            g1 = torch.exp(-ax ** 2 / (2 * sigma ** 2))
            g1 = g1 / g1.sum()
            idx = torch.from_numpy(sel)
            b = TF.conv2d(TF.pad(v[idx], (r, r, 0, 0), mode="replicate"), g1.view(1, 1, 1, -1))
            v[idx] = TF.conv2d(TF.pad(b, (0, 0, r, r), mode="replicate"), g1.view(1, 1, -1, 1))
    noise = torch.from_numpy(rng.uniform(0, 0.04, n) * (rng.random(n) < 0.6)).float().view(n, 1, 1, 1)
    v = v + noise * torch.from_numpy(rng.standard_normal((n, 1, h, w))).float()
    inv = torch.from_numpy((rng.random(n) < 0.12).astype(np.float32)).view(n, 1, 1, 1)
    v = v * (1 - inv) + (1 - v) * inv
    return (v.clamp(0, 1) * 255.0).round()


def normalise(torch, v):
    """As vision.faces.normalise, on a torch batch of 0-255 values."""
    m = v.mean(dim=(2, 3), keepdim=True)
    sd = v.std(dim=(2, 3), keepdim=True, unbiased=False).clamp(min=8.0)
    return (v - m) / sd


def batch(torch, bank: dict[str, np.ndarray], idx: np.ndarray, rng: np.random.Generator, augment: bool = True,
          parts: float = 0.0, small_crops=SMALL_CROPS["all"]):
    """Normalised views of bank windows and their classes; with augment, a `parts` share of the face
    windows cut as a part of the die and taught "not a die", and small dice from `small_crops`."""
    y = bank["y"][idx].astype(np.int64)
    part = (y < F.NOT_READABLE) & (rng.random(len(idx)) < parts) if augment and parts else None
    v = views(torch, bank["x"][idx], rng, bank["turn"][idx], jitter=augment, part=part)
    v = photometric(torch, v, rng, small_crops) if augment else (v * 255.0).round()
    if part is not None:
        y = np.where(part, F.NOT_A_DIE, y)
    return normalise(torch, v), torch.from_numpy(y)


# --------------------------------------------------------------------------- training
def train(args) -> dict:
    import torch
    import torch.nn.functional as TF

    from vision.train.model import FaceCNN, export_faces_onnx

    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    bank = without(load_bank(args), args.leave_out)
    if not len(bank["y"]):
        print("no training data: give --renders DIR and/or --data DIR", file=sys.stderr)
        raise SystemExit(2)
    names = list(bank["sources"])
    counts = {n: int(((bank["src"] == i) & (bank["y"] < F.NOT_READABLE)).sum()) for i, n in enumerate(names)}
    counts = {k: v for k, v in counts.items() if v}
    print("bank: " + ", ".join(f"{k} {v} dice" for k, v in counts.items())
          + f"; not readable {int((bank['y'] == F.NOT_READABLE).sum())}, not a die {int((bank['y'] == F.NOT_A_DIE).sum())}",
          flush=True)
    model = FaceCNN()
    if args.init:
        model.load_state_dict(torch.load(args.init, map_location="cpu"))
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=5e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=args.lr, total_steps=args.steps, pct_start=0.1)
    sampler = Sampler(bank, args.seed)
    rng = np.random.default_rng(args.seed + 1)
    model.train()
    parts = PART_SHARE if args.parts else 0.0
    t0 = time.time()
    run_loss, run_acc = 0.0, 0.0
    for step in range(1, args.steps + 1):
        x, y = batch(torch, bank, sampler.draw(args.batch), rng, parts=parts, small_crops=SMALL_CROPS[args.small_crops])
        out = model(x)[:, :, 0, 0]
        loss = TF.cross_entropy(out, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        acc = float((out.argmax(1) == y).float().mean())
        lv = float(loss.detach())
        run_loss = 0.98 * run_loss + 0.02 * lv if step > 1 else lv
        run_acc = 0.98 * run_acc + 0.02 * acc if step > 1 else acc
        if step % args.log_every == 0 or step == args.steps:
            print(f"step {step}/{args.steps}  loss {run_loss:.4f} acc {run_acc:.4f}  {time.time() - t0:.0f}s", flush=True)
    out_path = Path(args.out)
    out_path.parent.mkdir(parents=True, exist_ok=True)
    torch.save(model.state_dict(), out_path.with_suffix(".pt"))
    export_faces_onnx(model, str(out_path))
    info = {"steps": args.steps, "seed": args.seed, "batch": args.batch, "lr": args.lr,
            "leave_out": args.leave_out, "parts": parts, "small_crops": args.small_crops,
            "init": Path(args.init).name if args.init else None,
            "detector": Path(args.detector).name if args.detector else None,
            "data": counts, "not_readable": int((bank["y"] == F.NOT_READABLE).sum()),
            "not_a_die": int((bank["y"] == F.NOT_A_DIE).sum()), "seconds": round(time.time() - t0),
            "final_loss": round(run_loss, 4), "final_acc": round(run_acc, 4)}
    out_path.with_suffix(".train.json").write_text(json.dumps(info, indent=1) + "\n")
    print(f"wrote {out_path} ({out_path.stat().st_size / 1024:.0f} KiB)", flush=True)
    return info


def parser() -> argparse.ArgumentParser:
    from vision.train.train import source_list

    ap = argparse.ArgumentParser(prog="python -m vision.train.faces", description=__doc__.split("\n\n")[0])
    ap.add_argument("--renders", metavar="DIR", help="rendered training scenes (vision.train.data.render_cache), folders joined by commas")
    ap.add_argument("--data", metavar="DIR", help="the real photo folder (the dice-photos layout)")
    ap.add_argument("--detector", metavar="ONNX", help="the detector whose detections place the real dice and give false ones")
    ap.add_argument("--bank", metavar="FILE.npz", help="cache the bank here (reused while its inputs are the same)")
    ap.add_argument("--leave-out", metavar="SRC[,SRC]", type=source_list,
                    help=f"train without these real sources (a fold model): {', '.join(SOURCES)}")
    ap.add_argument("--init", metavar="CKPT.pt", help="start from these weights")
    ap.add_argument("--parts", action="store_true",
                    help=f"teach parts of dice as \"not a die\" ({round(PART_SHARE * 100)}%% of the face windows)")
    ap.add_argument("--small-crops", choices=sorted(SMALL_CROPS), default="all",
                    help="the small dice taught: all (6-20 px) or in-scope (15-25 px, the reader's range) "
                         "(default: %(default)s)")
    ap.add_argument("--out", required=True, metavar="MODEL.onnx", help="where to write the model (and .pt, .train.json)")
    ap.add_argument("--steps", type=int, default=3000)
    ap.add_argument("--batch", type=int, default=192)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--limit", type=int, default=0, help="use at most this many pictures per source (smoke tests)")
    ap.add_argument("--log-every", type=int, default=100)
    return ap


def main(argv: list[str] | None = None) -> int:
    from vision.train.train import need_torch

    args = parser().parse_args(argv)
    need_torch()
    train(args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
