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


WORST_N = 24  # renders on the worst-renders picture


def _found(img: np.ndarray, truth) -> tuple[float | None, tuple | None]:
    """(IoU of the floor found against `truth`, the floor found); (None, None) when none is found."""
    from vision import tray

    h, w = img.shape[:2]
    try:
        found = tray.find_floor(img)
    except tray.TrayError:
        return None, None
    return tray.iou(found, tuple(map(tuple, truth)), (w, h)), found


def _tile(img: np.ndarray, truth, found, iou: float | None, name: str) -> np.ndarray:
    """One frame for a picture: the true floor in white, the floor found in green, the IoU."""
    from calibration.draw import FLOOR_BGR
    from vision import sheet

    out = img.copy()
    th = max(2, round(img.shape[1] / 200))
    cv2.polylines(out, [np.round(np.asarray(truth)).astype(np.int32)], True, (255, 255, 255), th, cv2.LINE_AA)
    if found is not None:
        cv2.polylines(out, [np.round(np.asarray(found)).astype(np.int32)], True, FLOOR_BGR, th, cv2.LINE_AA)
    return sheet.tile(out, f"{name}: IoU {iou:.3f}" if iou is not None else f"{name}: no floor found", 320)


def _picture(path: Path, tiles: list[tuple[float, np.ndarray]]) -> str:
    """The tiles, worst IoU first, on one PNG; its path."""
    from vision import sheet

    return str(sheet.write(path, [t for _, t in sorted(tiles, key=lambda x: x[0])], cols=4))


def _summary(ious: list[float | None], iou_target: float) -> dict[str, Any]:
    found = [v for v in ious if v is not None]
    n = len(ious)
    return {"n": n, "found": len(found), "found_share": round(len(found) / max(1, n), 4),
            f"iou_ge_{iou_target}": int(sum(v >= iou_target for v in found)),
            f"iou_ge_{iou_target}_share": round(int(sum(v >= iou_target for v in found)) / max(1, n), 4),
            "iou_median": round(float(np.median(found)), 4) if found else None,
            "iou_min": round(float(min(found)), 4) if found else None}


def renders(n: int, seed: int = REPORT_SEED, pictures: Path | None = None) -> dict[str, Any]:
    from vision import synthetic as S
    from vision.synthetic_trays import random_tray, true_floor

    ious, by_kind, worst = [], {}, []
    for i in range(n):
        sc = random_tray(np.random.default_rng(seed + i))
        img, truth = S.render(sc), true_floor(sc)
        v, found = _found(img, truth)
        ious.append(v)
        by_kind.setdefault(sc.tray.shape, []).append(v)
        if pictures is not None:
            worst = sorted(worst + [(-1.0 if v is None else v, i, img, truth, found)], key=lambda x: x[:2])[:WORST_N]
    out = _summary(ious, 0.95)
    if pictures is not None:
        out["picture"] = _picture(pictures / "calibration-renders-worst.png",
                                  [(v, _tile(img, t, f, None if v < 0 else v, f"seed {seed + i}"))
                                   for v, i, img, t, f in worst])
    out["seeds"] = f"{seed}..{seed + n - 1}"
    out["by_shape"] = {k: _summary(v, 0.95) for k, v in sorted(by_kind.items())}
    return out


def real(folder: Path = REAL, pictures: Path | None = None) -> dict[str, Any]:
    index = folder / "floors.json"
    if not index.is_file():
        return {"missing": f"{index} is not there"}
    rows = json.loads(index.read_text())
    ious, by_source, tiles = [], {}, []
    for name, r in sorted(rows.items()):
        img = cv2.imread(str(folder / name), cv2.IMREAD_COLOR)
        v, found = _found(img, r["floor"])
        ious.append(v)
        by_source.setdefault(r["source"], []).append(v)
        if pictures is not None:
            tiles.append((-1.0 if v is None else v, _tile(img, r["floor"], found, v, Path(name).stem[:20])))
    out = _summary(ious, 0.9)
    if tiles:
        out["picture"] = _picture(pictures / "calibration-real.png", tiles)
    out["by_source"] = {k: _summary(v, 0.9) for k, v in sorted(by_source.items())}
    return out


def scenes(n: int) -> dict[str, Any]:
    """The floor found on the empty frames of the vision bench's first n scenes, and the keep zone
    beside it (a zone not found leaves its dice outside the calibrated tray: "off_tray")."""
    from vision import bench as VB
    from vision import synthetic as S
    from vision import tray
    from vision.synthetic_trays import true_floor

    ious, kept, stray = [], [], 0
    for c in VB.cases(n):
        scene, _ = VB.make_scene(c)
        empty = S.render_empty(scene)
        v, found = _found(empty, true_floor(scene))
        ious.append(v)
        zone = None if found is None else tray.find_keep_zone(empty, found)
        truth = S.frame_polygons(scene)["keep_zone"]
        if truth is not None:  # the keep zone found against the one drawn (None: not found)
            kept.append(None if zone is None else tray.iou(zone, tuple(map(tuple, truth)), scene.size))
        else:
            stray += int(zone is not None)
    out = _summary(ious, 0.95)
    out["iou_ge_0.9"] = int(sum(v >= 0.9 for v in ious if v is not None))
    out["keep_zones"] = {"scenes_with_one": len(kept), "found": sum(v is not None for v in kept),
                         "iou_ge_0.8": int(sum(v is not None and v >= 0.8 for v in kept)),
                         "found_where_there_is_none": int(stray)}
    out["pool"] = VB.pool() or "default"
    return out


def bench(quick: bool, pictures: str | Path | None = None) -> dict[str, Any]:
    """The figures; with `pictures`, the real frames and the worst renders drawn (true floor white,
    floor found green) on PICTURES/calibration-real.png and calibration-renders-worst.png."""
    pic = Path(pictures) if pictures is not None else None
    return {"renders": renders(QUICK_N if quick else FULL_N, pictures=pic), "real": real(pictures=pic),
            "vision_bench_scenes": scenes(SCENES_QUICK_N if quick else SCENES_N)}
