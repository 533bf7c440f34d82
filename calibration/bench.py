"""`yatzycam bench --only calibration`: the tray floor found on empty trays, against the true floor.

- Renders (vision.synthetic_trays.random_tray, seeds REPORT_SEED up: not the seeds the finder was
  tuned on, TUNE_SEED up): rectangular, rounded, round, hexagonal and octagonal trays filling 30-100%
  of the frame, rims darker, lighter or the colour of the table, and frames of floor only. Found: the
  finder gives a floor; IoU against the floor the renderer drew (clipped to the frame).
- Real frames (tests/data/floors: dice painted out, floors drawn by hand), when that folder is there.
- Scenes: the empty frames of the vision bench's first scenes (`vision.bench.cases`, its holdout
  pool): tilted cameras, trays off the frame's centre with a keep zone beside them, small trays;
  outside what random_tray draws, and what the reader's calibrations stand on.

Targets (issue 27): found on >= 99% of the renders, IoU >= 0.95 on >= 98%; on the real frames
found on all, IoU >= 0.9.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import cv2
import numpy as np

TUNE_SEED = 0  # the renders the finder's parameters were looked at (never reported)
REPORT_SEED = 1_000_000
FULL_N, QUICK_N = 1000, 12
SCENES_N, SCENES_QUICK_N = 400, 6
REAL = Path(__file__).resolve().parent.parent / "tests" / "data" / "floors"


def _score(img: np.ndarray, truth) -> float | None:
    from vision import tray

    h, w = img.shape[:2]
    try:
        found = tray.find_floor(img)
    except tray.TrayError:
        return None
    return tray.iou(found, tuple(map(tuple, truth)), (w, h))


def _summary(ious: list[float | None], iou_target: float) -> dict[str, Any]:
    found = [v for v in ious if v is not None]
    n = len(ious)
    return {"n": n, "found": len(found), "found_share": round(len(found) / max(1, n), 4),
            f"iou_ge_{iou_target}": int(sum(v >= iou_target for v in found)),
            f"iou_ge_{iou_target}_share": round(int(sum(v >= iou_target for v in found)) / max(1, n), 4),
            "iou_median": round(float(np.median(found)), 4) if found else None,
            "iou_min": round(float(min(found)), 4) if found else None}


def renders(n: int, seed: int = REPORT_SEED) -> dict[str, Any]:
    from vision import synthetic as S
    from vision.synthetic_trays import random_tray, true_floor

    ious, by_kind = [], {}
    for i in range(n):
        sc = random_tray(np.random.default_rng(seed + i))
        v = _score(S.render(sc), true_floor(sc))
        ious.append(v)
        by_kind.setdefault(sc.tray.shape, []).append(v)
    out = _summary(ious, 0.95)
    out["seeds"] = f"{seed}..{seed + n - 1}"
    out["by_shape"] = {k: _summary(v, 0.95) for k, v in sorted(by_kind.items())}
    return out


def real(folder: Path = REAL) -> dict[str, Any]:
    index = folder / "floors.json"
    if not index.is_file():
        return {"missing": f"{index} is not there"}
    rows = json.loads(index.read_text())
    ious, by_source = [], {}
    for name, r in sorted(rows.items()):
        v = _score(cv2.imread(str(folder / name), cv2.IMREAD_COLOR), r["floor"])
        ious.append(v)
        by_source.setdefault(r["source"], []).append(v)
    out = _summary(ious, 0.9)
    out["by_source"] = {k: _summary(v, 0.9) for k, v in sorted(by_source.items())}
    return out


def scenes(n: int) -> dict[str, Any]:
    """The floor found on the empty frames of the vision bench's first n scenes."""
    from vision import bench as VB
    from vision import synthetic as S
    from vision.synthetic_trays import true_floor

    ious = []
    for c in VB.cases(n):
        scene, _ = VB.make_scene(c)
        ious.append(_score(S.render_empty(scene), true_floor(scene)))
    out = _summary(ious, 0.95)
    out["iou_ge_0.9"] = int(sum(v >= 0.9 for v in ious if v is not None))
    out["pool"] = VB.pool() or "default"
    return out


def bench(quick: bool) -> dict[str, Any]:
    return {"renders": renders(QUICK_N if quick else FULL_N), "real": real(),
            "vision_bench_scenes": scenes(SCENES_QUICK_N if quick else SCENES_N)}
