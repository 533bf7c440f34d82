"""`python -m vision.train.faces`: train the face reader (vision.faces) on die crops, export ONNX.

Each training example is one die cut out by `vision.faces.crop`, as the reader cuts it, from a
rendered scene or a real photo, with the errors a detector makes: its centre moved by up to a
tenth of a die, its size off by a tenth, any turn, a mirror. Labels: the die's face, or "not
readable" (rendered dice that are cocked, on an edge or hidden), or "not a die": crops of the
background at a die's size, and crops of a piece of a die (a pip at the size of a die).

Reproducible from `--seed`, like vision.train:

    python -m vision.train.faces --renders R1,R2 --data PHOTOS --steps 3000 --out vision/model/faces.onnx
    python -m vision.train.faces ... --leave-out rune55 --out folds/without-rune55.faces.onnx
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

import cv2
import numpy as np

from vision import faces as F
from vision.train.data import SOURCES, Sample, photometric

#: the share of each source in a batch (renormalised over those present)
MIX = {"render": 0.45, "rune55": 0.2, "webcam": 0.15, "fisheye": 0.05, "crops": 0.15}
NEG_SHARE = 0.15  # crops of no die
MIN_SIDE = 8.0  # dice smaller than this are not taught
PART_SHARE, PART = 0.25, (0.15, 0.3)  # of the negatives: a pip's size (in top-face sides) seen as a die
JITTER_XY, JITTER_SIZE = 0.07, 0.1  # a detector's error, in top-face sides (one sigma)


def die_items(samples: list[Sample]) -> list[tuple[int, int]]:
    return [(i, k) for i, s in enumerate(samples) for k in range(len(s.dice)) if s.dice[k, 2] >= MIN_SIDE]


def view(g: np.ndarray, x: float, y: float, side: float, rng: np.random.Generator, jitter: bool = True) -> np.ndarray:
    """A training crop: the reader's crop with a detector's error, any turn, a mirror, light and lens."""
    if jitter:
        x += rng.normal(0, JITTER_XY) * side
        y += rng.normal(0, JITTER_XY) * side
        side *= math.exp(rng.normal(0, JITTER_SIZE))
    c = F.crop(g, x, y, side, rng.uniform(0, 360) if jitter else 0.0)
    if not jitter:
        return c
    if rng.random() < 0.5:
        c = c[:, ::-1]
    if rng.random() < 0.25:  # a small die: fewer pixels than the crop
        k = int(rng.integers(12, F.CROP - 4))
        c = cv2.resize(cv2.resize(c, (k, k), interpolation=cv2.INTER_AREA), (F.CROP, F.CROP),
                       interpolation=cv2.INTER_LINEAR)
    return photometric(np.ascontiguousarray(c), rng)


def negative(s: Sample, rng: np.random.Generator) -> np.ndarray | None:
    """A crop of no die in sample s: the background at a die's size, or a piece of a die at a die's size."""
    h, w = s.gray.shape
    d = s.dice
    ref = float(np.median(d[:, 2])) if len(d) else float(rng.uniform(16, 90))
    if len(d) and rng.random() < PART_SHARE:  # a pip of a die, as large as a die
        k = int(rng.integers(len(d)))
        x, y, side = d[k, 0], d[k, 1], d[k, 2]
        if side * PART[0] < MIN_SIDE:
            return None
        return view(s.gray, x + rng.uniform(-0.3, 0.3) * side, y + rng.uniform(-0.3, 0.3) * side,
                    side * rng.uniform(*PART), rng, jitter=True)
    side = ref * math.exp(rng.uniform(-0.5, 0.5))
    for _ in range(8):
        x, y = rng.uniform(0, w), rng.uniform(0, h)
        if s.mask is not None and s.mask[int(y), int(x)] == 0:
            continue
        if len(d) == 0 or np.all(np.hypot(d[:, 0] - x, d[:, 1] - y) > 0.9 * np.maximum(d[:, 2], side)):
            return view(s.gray, x, y, side, rng, jitter=True)
    return None


def load(args) -> dict[str, list[Sample]]:
    """The detector's training pools (vision.train.train.load_pools), those that hold a die to teach."""
    from vision.train.train import load_pools

    return {k: v for k, v in load_pools(args).items() if die_items(v)}


def batches(pools: dict[str, list[Sample]], seed: int, batch: int):
    rng = np.random.default_rng(seed)
    names = list(pools)
    items = {n: die_items(pools[n]) for n in names}
    p = np.array([MIX.get(n, 0.1) for n in names], np.float64)
    p /= p.sum()
    neg_from = [n for n in names if n != "crops"] or names
    while True:
        xs, ys = [], []
        while len(xs) < batch:
            if rng.random() < NEG_SHARE:
                src = neg_from[int(rng.integers(len(neg_from)))]
                c = negative(pools[src][int(rng.integers(len(pools[src])))], rng)
                if c is not None:
                    xs.append(c)
                    ys.append(F.NOT_A_DIE)
                continue
            src = names[int(rng.choice(len(names), p=p))]
            i, k = items[src][int(rng.integers(len(items[src])))]
            s = pools[src][i]
            x, y, side, cls = s.dice[k]
            xs.append(view(s.gray, x, y, side, rng))
            ys.append(int(cls))
        yield F.normalise(np.stack(xs)), np.array(ys, np.int64)


def train(args) -> dict:
    import torch
    import torch.nn.functional as TF

    from vision.train.model import FaceCNN, export_faces_onnx

    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    pools = load(args)
    if not pools:
        print("no training data: give --renders DIR and/or --data DIR", file=sys.stderr)
        raise SystemExit(2)
    print("data: " + ", ".join(f"{k} {len(v)} pictures, {len(die_items(v))} dice" for k, v in pools.items()),
          flush=True)
    model = FaceCNN()
    if args.init:
        model.load_state_dict(torch.load(args.init, map_location="cpu"))
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=args.lr, total_steps=args.steps, pct_start=0.1)
    gen = batches(pools, args.seed, args.batch)
    model.train()
    t0 = time.time()
    run_loss, run_acc = 0.0, 0.0
    for step in range(1, args.steps + 1):
        x, y = next(gen)
        out = model(torch.from_numpy(x))[:, :, 0, 0]
        yt = torch.from_numpy(y)
        loss = TF.cross_entropy(out, yt)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        acc = float((out.argmax(1) == yt).float().mean())
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
            "leave_out": args.leave_out, "init": Path(args.init).name if args.init else None,
            "data": {k: len(die_items(v)) for k, v in pools.items()}, "seconds": round(time.time() - t0),
            "final_loss": round(run_loss, 4), "final_acc": round(run_acc, 4)}
    out_path.with_suffix(".train.json").write_text(json.dumps(info, indent=1) + "\n")
    print(f"wrote {out_path} ({out_path.stat().st_size / 1024:.0f} KiB)", flush=True)
    return info


def parser() -> argparse.ArgumentParser:
    from vision.train.train import source_list

    ap = argparse.ArgumentParser(prog="python -m vision.train.faces", description=__doc__.split("\n\n")[0])
    ap.add_argument("--renders", metavar="DIR", help="rendered training scenes (vision.train.data.render_cache), folders joined by commas")
    ap.add_argument("--data", metavar="DIR", help="the real photo folder (the dice-photos layout)")
    ap.add_argument("--leave-out", metavar="SRC[,SRC]", type=source_list,
                    help=f"train without these real sources (a fold model): {', '.join(SOURCES)}")
    ap.add_argument("--init", metavar="CKPT.pt", help="start from these weights")
    ap.add_argument("--out", required=True, metavar="MODEL.onnx", help="where to write the model (and .pt, .train.json)")
    ap.add_argument("--steps", type=int, default=3000)
    ap.add_argument("--batch", type=int, default=128)
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
