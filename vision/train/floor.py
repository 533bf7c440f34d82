"""`python -m vision.train.floor`: train the floor net (vision.floornet), export ONNX.

The floor net marks, in a frame of the empty tray, where the tray's floor is: a small
encoder-decoder CNN (vision.floornet) trained on renders whose true floor the renderer knows:
- "trays": `vision.synthetic_trays.random_tray`, every tray kind the calibration serves
  (rectangular, rounded, round, hexagonal, octagonal, rims darker, lighter or the colour of the
  table, frames of floor only), from seeds TRAYS_SEED up (never the calibration bench's);
- "pool": the empty frames of the renderer's train pool (`vision.synthetic.render_empty` of a
  bench-like scene: tilted cameras, lens distortion, off-centre trays, keep zones beside them, the
  pool's floors, tables and light), from seeds POOL_SEED up (never the holdout pool, never the
  seeds the thresholds or the benches use).

Each is stored once at the net's input size (BGR PNG and the floor's mask PNG) by `render_floors`.
Training paints things lying on the floor into half the views (`things_on_floor`: stains, shadows,
smudges, the mask unchanged, so the net learns that the floor runs on under them), crops a part of
the frame now and then (a floor that runs off the frame), flips it, and changes light, colour,
grey, noise and blur; the loss is binary cross-entropy plus a soft IoU loss. Export: opset 12,
BatchNorm folded, Conv/ReLU/Add/nearest Resize only (OpenCV 4.6's dnn).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import cv2
import numpy as np

from vision.floornet import IN_H, IN_W, MODEL

TRAYS_SEED = 3_000_000
POOL_SEED = 97_000_000


def _one(args: tuple[str, int, str]) -> bool:
    """Render one training frame (kind "trays" or "pool", seed) into folder as SEED.png and SEED.mask.png."""
    kind, seed, folder = args
    from vision import synthetic as S
    from vision.synthetic_trays import random_tray

    cv2.setNumThreads(1)
    out = Path(folder)
    png, msk = out / f"{kind}-{seed}.png", out / f"{kind}-{seed}.mask.png"
    if png.exists() and msk.exists():
        return True
    rng = np.random.default_rng(seed)
    try:
        if kind == "trays":
            scene = random_tray(rng)
            img = S.render(scene)
        else:
            size = ((1280, 960), (640, 480))[int(rng.integers(2))]
            scene = S.random_scene(rng, int(rng.choice([5, 6, 8])), size, "clean", pool="train")
            img = S.render_empty(scene)
    except RuntimeError:
        return False
    h, w = img.shape[:2]
    m = np.zeros((h, w), np.uint8)
    cv2.fillPoly(m, [np.round(floor_outline(scene) * 8).astype(np.int32)], 255, cv2.LINE_AA, shift=3)
    small = cv2.resize(img, (IN_W, IN_H), interpolation=cv2.INTER_AREA)
    m_small = cv2.resize(m, (IN_W, IN_H), interpolation=cv2.INTER_AREA)
    cv2.imwrite(str(png), small)
    cv2.imwrite(str(msk), m_small)
    return True


def floor_outline(scene, per_side: int = 24) -> np.ndarray:
    """The floor's outline in the frame's pixels, each side cut into `per_side` pieces before it goes
    through the camera (lens distortion bends straight sides)."""
    P = np.asarray(scene.tray.floor, np.float64)
    t = np.linspace(0.0, 1.0, per_side, endpoint=False)[:, None]
    dense = np.concatenate([a + t * (b - a) for a, b in zip(P, np.roll(P, -1, axis=0))])
    return np.asarray(scene.to_image(dense), np.float64)


def render_floors(folder: Path, trays: range, pool: range, workers: int = 1) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    todo = [("trays", s, str(folder)) for s in trays] + [("pool", s, str(folder)) for s in pool]
    if workers > 1:
        import multiprocessing as mp

        with mp.get_context("fork").Pool(workers) as p:
            list(p.imap_unordered(_one, todo, chunksize=8))
    else:
        for t in todo:
            _one(t)


def load(folder: Path) -> tuple[np.ndarray, np.ndarray]:
    """(images (N, H, W, 3) uint8, masks (N, H, W) uint8) of a rendered folder."""
    xs, ys = [], []
    for p in sorted(folder.glob("*.mask.png")):
        img = cv2.imread(str(p).replace(".mask.png", ".png"), cv2.IMREAD_COLOR)
        m = cv2.imread(str(p), cv2.IMREAD_GRAYSCALE)
        if img is not None and m is not None:
            xs.append(img)
            ys.append(m)
    return np.stack(xs), np.stack(ys)


THINGS = 0.5  # the share of training views with things lying on the floor (things_on_floor)


def things_on_floor(img: np.ndarray, m: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """`img` with one to four things lying on the floor, the mask unchanged (the floor runs on under
    them): blobs and shadows, soft-edged or sharp, some over the floor's edge, coloured like the
    rim or table around the floor, like another part of the frame, a flat colour, or a shade of
    the floor itself. What a real empty tray may hold: stains, a cast shadow, a hand's or a cup's
    shadow, a die left lying, a smudge where something was painted out."""
    h, w = m.shape
    inside = np.flatnonzero(m.ravel() > 127)
    outside = np.flatnonzero(m.ravel() <= 127)
    if inside.size == 0:
        return img
    edge = np.flatnonzero((cv2.morphologyEx(m, cv2.MORPH_GRADIENT, np.ones((3, 3), np.uint8)) > 0).ravel())
    out = img.astype(np.float32)
    flat = img.reshape(-1, 3)
    for _ in range(int(rng.integers(1, 5))):
        pool = edge if edge.size and rng.random() < 0.3 else inside
        cy, cx = divmod(int(pool[rng.integers(pool.size)]), w)
        r = rng.uniform(0.03, 0.3) * min(h, w)
        blob = np.zeros((h, w), np.uint8)
        if rng.random() < 0.5:
            cv2.ellipse(blob, (cx, cy), (max(1, int(r)), max(1, int(r * rng.uniform(0.3, 1.0)))),
                        float(rng.uniform(0, 180)), 0, 360, 255, -1, cv2.LINE_AA)
        else:
            a = np.sort(rng.uniform(0, 2 * np.pi, int(rng.integers(3, 8))))
            rr = r * rng.uniform(0.4, 1.0, a.size)
            pts = np.c_[cx + rr * np.cos(a), cy + rr * np.sin(a)].astype(np.int32)
            cv2.fillPoly(blob, [pts], 255, cv2.LINE_AA)
        alpha = blob.astype(np.float32) / 255.0
        soft = rng.uniform(0.0, 0.25) * r
        if soft >= 0.5:
            alpha = cv2.GaussianBlur(alpha, (0, 0), soft)
        alpha = (alpha * rng.uniform(0.5, 1.0))[:, :, None]
        kind = rng.random()
        if kind < 0.3:  # a shadow: the same, darker
            paint = out * rng.uniform(0.3, 0.8)
        elif kind < 0.55 and outside.size:  # the colour around the floor (a rim or table smudge)
            paint = np.broadcast_to(flat[outside[rng.integers(outside.size)]].astype(np.float32), out.shape)
        elif kind < 0.8:  # another part of the frame
            dy, dx = int(rng.integers(-h // 2, h // 2 + 1)), int(rng.integers(-w // 2, w // 2 + 1))
            paint = np.roll(out, (dy, dx), axis=(0, 1))
        else:  # a flat colour
            paint = np.broadcast_to(rng.uniform(0, 255, 3).astype(np.float32), out.shape)
        out = out * (1.0 - alpha) + paint * alpha
    return np.clip(out, 0, 255).astype(np.uint8)


def augment(img: np.ndarray, m: np.ndarray, rng: np.random.Generator, things: float = THINGS) -> tuple[np.ndarray, np.ndarray]:
    """One training view: things on the floor (a share `things` of the views), a crop now and then,
    flips, light, colour, grey, blur, noise."""
    h, w = m.shape
    if rng.random() < things:
        img = things_on_floor(img, m, rng)
    if rng.random() < 0.3:  # a part of the frame: the floor runs off it
        s = rng.uniform(0.6, 0.95)
        cw, ch = int(w * s), int(h * s)
        x0, y0 = int(rng.integers(0, w - cw + 1)), int(rng.integers(0, h - ch + 1))
        img = cv2.resize(img[y0:y0 + ch, x0:x0 + cw], (w, h), interpolation=cv2.INTER_LINEAR)
        m = cv2.resize(m[y0:y0 + ch, x0:x0 + cw], (w, h), interpolation=cv2.INTER_LINEAR)
    if rng.random() < 0.5:
        img, m = img[:, ::-1], m[:, ::-1]
    if rng.random() < 0.5:
        img, m = img[::-1], m[::-1]
    x = img.astype(np.float32) / 255.0
    if rng.random() < 0.15:
        x = np.repeat(x.mean(axis=2, keepdims=True), 3, axis=2)
    x = x * rng.uniform(0.85, 1.15, 3).astype(np.float32)  # colour of the light
    x = np.clip(x * rng.uniform(0.6, 1.4) + rng.uniform(-0.1, 0.1), 0, 1) ** rng.uniform(0.7, 1.4)
    if rng.random() < 0.3:
        x = cv2.GaussianBlur(x, (0, 0), rng.uniform(0.5, 1.5))
    if rng.random() < 0.5:
        x = x + rng.normal(0, rng.uniform(0.005, 0.04), x.shape).astype(np.float32)
    return np.clip(x, 0, 1).astype(np.float32), (m.astype(np.float32) / 255.0)


def train(args) -> dict:
    import torch
    import torch.nn.functional as TF

    from vision.train.model import FloorNet
    from vision.train.model import export_floor_onnx as export

    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    rng = np.random.default_rng(args.seed)
    xs, ys = [], []
    for f in args.renders.split(","):
        x, y = load(Path(f))
        xs.append(x)
        ys.append(y)
    X, Y = np.concatenate(xs), np.concatenate(ys)
    if args.limit:
        X, Y = X[: args.limit], Y[: args.limit]
    net = FloorNet()
    if args.init:
        net.load_state_dict(torch.load(args.init, map_location="cpu"))
    opt = torch.optim.AdamW(net.parameters(), lr=args.lr, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=args.lr, total_steps=args.steps, pct_start=0.15)
    t0, run = time.time(), 0.0
    net.train()
    for step in range(1, args.steps + 1):
        idx = rng.integers(0, len(X), args.batch)
        views = [augment(X[i], Y[i], rng, args.things) for i in idx]
        x = torch.from_numpy(np.stack([v[0] for v in views]).transpose(0, 3, 1, 2).copy())
        y = torch.from_numpy(np.stack([v[1] for v in views])[:, None].copy())
        logit = net(x)
        y = TF.interpolate(y, size=logit.shape[-2:], mode="area")
        p = torch.sigmoid(logit)
        inter = (p * y).sum((1, 2, 3))
        union = (p + y - p * y).sum((1, 2, 3)) + 1e-6
        loss = TF.binary_cross_entropy_with_logits(logit, y) + (1 - inter / union).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        run = 0.98 * run + 0.02 * float(loss) if step > 1 else float(loss)
        if step % args.log_every == 0 or step == args.steps:
            print(f"step {step}/{args.steps}  loss {run:.4f}  {time.time() - t0:.0f}s", flush=True)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    torch.save(net.state_dict(), out.with_suffix(".pt"))
    export(net, out)
    info = {"steps": args.steps, "seed": args.seed, "batch": args.batch, "lr": args.lr, "images": int(len(X)),
            "renders": [Path(f).name for f in args.renders.split(",")], "seconds": round(time.time() - t0),
            "final_loss": round(run, 4), "things": args.things}
    out.with_suffix(".train.json").write_text(json.dumps(info, indent=1) + "\n")
    print(f"wrote {out} ({out.stat().st_size // 1024} KiB)")
    return info


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m vision.train.floor", description=__doc__.split("\n\n")[0])
    ap.add_argument("--renders", required=True, metavar="DIR[,DIR]", help="rendered floors (render them with --render)")
    ap.add_argument("--render", type=int, nargs=2, metavar=("TRAYS", "POOL"),
                    help="first render this many tray and pool frames into the first --renders folder")
    ap.add_argument("--out", default=str(MODEL), metavar="MODEL.onnx")
    ap.add_argument("--init", metavar="CKPT.pt")
    ap.add_argument("--steps", type=int, default=3000)
    ap.add_argument("--batch", type=int, default=12)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--workers", type=int, default=1, help="processes that render")
    ap.add_argument("--things", type=float, default=THINGS, help="share of views with things on the floor")
    ap.add_argument("--limit", type=int, default=0, help="use at most this many frames (smoke tests)")
    ap.add_argument("--log-every", type=int, default=100)
    return ap


def main(argv: list[str] | None = None) -> int:
    from vision.train.train import need_torch

    a = parser().parse_args(argv)
    if a.steps > 0:
        need_torch()  # before the rendering: a missing PyTorch is one line, not a traceback after it
    if a.render:
        n_trays, n_pool = a.render
        render_floors(Path(a.renders.split(",")[0]), range(TRAYS_SEED, TRAYS_SEED + n_trays),
                      range(POOL_SEED, POOL_SEED + n_pool), a.workers)
    if a.steps > 0:
        train(a)
    return 0


if __name__ == "__main__":
    sys.exit(main())
