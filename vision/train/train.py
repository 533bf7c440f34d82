"""`python -m vision.train`: train the dice detector on renders and real photos, export ONNX.

Reproducible from `--seed` (the same data, seed and step count give the same weights on the same
machine). Typical use: pretrain on renders, then fine-tune with the real photos; a leave-one-source-
out fold model is the same fine-tune with `--leave-out SRC`.

    python -m vision.train --renders /tmp/renders --steps 6000 --out pre.onnx
    python -m vision.train --renders /tmp/renders --data PHOTOS --init pre.pt --steps 3000 --out vision/model/dice.onnx
    python -m vision.train ... --init pre.pt --leave-out webcam --out folds/without-webcam.onnx
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

import numpy as np

from vision.detector import N_CLASSES
from vision.train.data import SOURCES, augment, photo_samples, render_cache, render_samples, targets

#: the share of each kind of sample in a batch (renormalised over the sources present)
MIX = {"render": 0.5, "rune55": 0.2, "webcam": 0.12, "fisheye": 0.06, "crops": 0.12}


def need_torch():
    try:
        import torch  # noqa: F401
    except ImportError:
        print("vision.train needs PyTorch: pip install -e '.[train]' (torch==2.13.0 takes the CPU build)",
              file=sys.stderr)
        raise SystemExit(2)


def load_pools(args) -> dict[str, list]:
    pools: dict[str, list] = {}
    if args.renders:
        if getattr(args, "render_count", 0):  # (vision.train.faces reads renders only)
            render_cache(args.renders.split(",")[0], range(args.render_seed, args.render_seed + args.render_count),
                         args.workers, args.render_pool)
        folders = args.renders.split(",")
        pools["render"] = [x for f in folders for x in render_samples(f)]
    if args.data:
        left = set(args.leave_out.split(",")) if args.leave_out else set()
        for src in SOURCES:
            if src in left:
                continue
            got = photo_samples(args.data, src)
            if "fisheye" in left:  # fisheye crops are cut from the fisheye photos: keep them out too
                got = [s for s in got if s.source != "fisheye"]
            if got:
                pools[src] = got
    if args.limit:
        pools = {k: v[:args.limit] for k, v in pools.items()}
    return {k: v for k, v in pools.items() if v}


def batches(pools: dict[str, list], seed: int, batch: int, crop: int):
    rng = np.random.default_rng(seed)
    names = list(pools)
    p = np.array([MIX.get(n, 0.1) for n in names], np.float64)
    p /= p.sum()
    while True:
        imgs, tg = [], []
        for _ in range(batch):
            src = names[int(rng.choice(len(names), p=p))]
            s = pools[src][int(rng.integers(len(pools[src])))]
            g, d, m = augment(s, rng, crop)
            imgs.append(g)
            tg.append(targets(d, m, crop))
        x = np.stack(imgs)[:, None].astype(np.float32) / 255.0
        yield x, {k: np.stack([t[k] for t in tg]) for k in tg[0]}


def losses(out, t):
    import torch
    import torch.nn.functional as F

    heat_logit = out[:, 0]
    p = torch.sigmoid(heat_logit).clamp(1e-4, 1 - 1e-4)
    gt, w, centre = t["heat"], t["heat_w"], t["centre"]
    pos = centre * -((1 - p) ** 2) * torch.log(p)
    neg = (1 - centre) * -((1 - gt) ** 4) * (p ** 2) * torch.log(1 - p) * w
    npos = centre.sum().clamp(min=1.0)
    l_heat = (pos.sum() + neg.sum()) / npos
    cls = t["cls"]
    cw = t["cls_w"]
    logits = out[:, 1:1 + N_CLASSES]
    ce = F.cross_entropy(logits, cls.clamp(min=0), reduction="none")
    sel = (cls >= 0).float() * cw
    l_cls = (ce * sel).sum() / sel.sum().clamp(min=1.0)
    l_size = (torch.abs(out[:, 1 + N_CLASSES] - t["size"]) * sel).sum() / sel.sum().clamp(min=1.0)
    offp = torch.sigmoid(out[:, 2 + N_CLASSES:4 + N_CLASSES])
    l_off = (torch.abs(offp - t["off"]).sum(1) * centre).sum() / npos
    return l_heat, l_cls, l_size, l_off


def train(args) -> dict:
    import torch

    from vision.train.model import DiceNet, export_onnx

    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    pools = load_pools(args)
    if not pools:
        print("no training data: give --renders DIR and/or --data DIR", file=sys.stderr)
        raise SystemExit(2)
    print("data: " + ", ".join(f"{k} {len(v)}" for k, v in pools.items()), flush=True)
    model = DiceNet()
    if args.init:
        model.load_state_dict(torch.load(args.init, map_location="cpu"))
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=args.lr, total_steps=args.steps,
                                                pct_start=0.05 if args.init else 0.15)
    gen = batches(pools, args.seed, args.batch, args.crop)
    model.train()
    t0 = time.time()
    run = np.zeros(4)
    for step in range(1, args.steps + 1):
        x, t = next(gen)
        out = model(torch.from_numpy(x))
        tt = {k: torch.from_numpy(v) for k, v in t.items()}
        parts = losses(out, tt)
        loss = parts[0] + parts[1] + 0.5 * parts[2] + parts[3]
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        cur = np.array([float(v.detach()) for v in parts])
        run = 0.95 * run + 0.05 * cur if step > 1 else cur
        if step % args.log_every == 0 or step == args.steps:
            print(f"step {step}/{args.steps}  heat {run[0]:.3f} cls {run[1]:.3f} size {run[2]:.3f} off {run[3]:.3f}"
                  f"  {time.time() - t0:.0f}s", flush=True)
    out_path = Path(args.out)
    out_path.parent.mkdir(parents=True, exist_ok=True)
    torch.save(model.state_dict(), out_path.with_suffix(".pt"))
    export_onnx(model, str(out_path))
    info = {"steps": args.steps, "seed": args.seed, "batch": args.batch, "crop": args.crop, "lr": args.lr,
            "leave_out": args.leave_out, "init": Path(args.init).name if args.init else None,
            "data": {k: len(v) for k, v in pools.items()}, "seconds": round(time.time() - t0),
            "final_losses": [round(float(v), 4) for v in run]}
    out_path.with_suffix(".train.json").write_text(json.dumps(info, indent=1) + "\n")
    print(f"wrote {out_path} ({out_path.stat().st_size / 1024:.0f} KiB) and {out_path.with_suffix('.pt').name}")
    return info


def source_list(text: str) -> str:
    bad = [x for x in text.split(",") if x not in SOURCES]
    if bad:
        raise argparse.ArgumentTypeError(f"unknown source {bad[0]!r} (one of {', '.join(SOURCES)})")
    return text


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m vision.train", description=__doc__.split("\n\n")[0])
    ap.add_argument("--renders", metavar="DIR", help="rendered training scenes, one folder or several joined by commas (the first filled with --render-count)")
    ap.add_argument("--render-count", type=int, default=0, metavar="N", help="render N scenes into --renders first")
    ap.add_argument("--render-seed", type=int, default=0, metavar="S", help="the first render's seed")
    ap.add_argument("--render-pool", default="train", choices=("classic", "train"),
                    help="the renderer's pool for --render-count (default %(default)s; holdout is never trained on)")
    ap.add_argument("--data", metavar="DIR", help="the real photo folder (the dice-photos layout)")
    ap.add_argument("--leave-out", metavar="SRC[,SRC]", type=source_list,
                    help=f"train without these real sources (a fold model): {', '.join(SOURCES)}")
    ap.add_argument("--init", metavar="CKPT.pt", help="start from these weights (a pretrained model)")
    ap.add_argument("--out", required=True, metavar="MODEL.onnx", help="where to write the model (and .pt, .train.json)")
    ap.add_argument("--steps", type=int, default=4000)
    ap.add_argument("--batch", type=int, default=24)
    ap.add_argument("--crop", type=int, default=192, help="training crop side (multiple of 16)")
    ap.add_argument("--lr", type=float, default=4e-3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--workers", type=int, default=2, help="processes for rendering")
    ap.add_argument("--limit", type=int, default=0, help="use at most this many samples per source (smoke tests)")
    ap.add_argument("--log-every", type=int, default=100)
    return ap


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if args.crop % 16:
        parser().error("--crop must be a multiple of 16")
    need_torch()
    train(args)
    return 0
