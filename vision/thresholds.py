"""`python -m vision.thresholds [--out FILE] [--scenes N] [--data DIR --models DIR] [--bootstrap N]`:
the reader's confidence thresholds, set on data the model was not trained on (its renders are not the
bench's; its real photos are, there being no others).

Data: the renderer's train pool from seeds the training never used (its holdout pool, of die styles
and floors the model never saw, is kept for the bench alone: no cut is chosen on it), scenes laid out as the bench's (5, 6 and 8 dice,
1280x960 and 640x480, clean, cocked, off the tray, missing) from seeds SEED and up, never the bench's,
run through the detector on the calibrated path (the frame scaled to the die size, which is known
to within a few percent as a calibration knows it); with `--data DIR --models DIR`, also the real
photos of each source, and its single-die crops set in a border, read by the fold model that never
saw them (DIR/without-SOURCE.onnx, or a fold whose training left that source out with others) over
the pyramid, as the reader reads a photo without calibration.

Each detection is matched to the die it lies on (its centre within 0.6 of the die's top-face side):
- "die": the least heat (Die.score) for a detection to count as a die at all: the cut with the fewest
  false dice kept (detections on no die: an "extra" reroll) plus real dice lost (a "missing" reroll),
  the higher cut on a tie. A false die that passes "face" counts as a wrong face below.
- "face": the least best-face probability (the face net's, vision.faces: the largest of its faces'
  probabilities, that face the most likely class) for a die kept by "die" to pass as read ok. The lowest value at which dice passed ok with a
  wrong face (another face, a die that is cocked or cannot be read, or no die) stay at most MAX_RATE
  of the dice passed ok, by the upper end of the 95% Wilson interval: the safety margin.
A die kept but under "face" is a doubt: the reader refuses the throw with its reason.

Also, for the renders and each real source, the right dice passed before the 1st, 3rd, 5th, 10th
and 20th wrong one ("right_before_wrong"): how two face nets compare where the cut is set; and
what the cuts pass of each ("at_cut": dice passed, wrong ones): the pooled rate can hold while one
set's wrong dice grow.

With `--bootstrap N`, also the face cut's spread ("face_cut_spread": its median and 10th and 90th
percentiles over N resamples of the scenes and photos, `spread`): the cut rests on a few wrong faces.

Writes {"die", "face", "n", "method", ...} (n: detections the thresholds were set on) to --out
(default vision/model/thresholds.json, beside the model it was set for); the reader reads that file.
When no face cut meets the rate it prints why, writes nothing and exits 1. The heat cut is never
under the detector's PEAK (it reports nothing weaker).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import sys
import time
from pathlib import Path

import cv2
import numpy as np

from vision import bench
from vision.detector import PEAK
from vision.faces import NOT_A_DIE
from vision.reader import faces_path, look, sureness

#: the renderer's train pool, from seeds the training never used: the holdout pool (die styles and
#: floors the model never saw) is kept for the bench alone, so that no cut is chosen on it
POOL = "train"
SEED = 90_000_000  # the tool's own scenes: never the bench's (1000 up) nor the training's
SCENES = 4000
MAX_RATE = 0.001  # at most 1 in 1,000 (the upper 95% bound)
DIE_PX_JITTER = 0.04  # the calibrated die size's error (relative, one sigma)
OUT = Path(__file__).with_name("model") / "thresholds.json"
MATCH = 0.6
#: the weights of the detector's heat in a face's sureness (reader.sureness) the face cut is tried with
HEAT_WEIGHTS = (0.0, 0.25, 0.5, 0.75, 1.0)


def _scene_dets(c: bench.Case, model: str | None) -> dict:
    """One threshold scene, rendered (cached) and detected: per detection (score, best-face prob, is the
    face right, is it a die) and how many dice the scene holds."""
    from vision import synthetic as S

    cv2.setNumThreads(1)
    folder = bench.CACHE / f"thresholds-{POOL}-{bench.render_key().split('-')[-1]}"
    png, js = folder / f"{c.seed}.png", folder / f"{c.seed}.json"
    img = cv2.imread(str(png)) if png.exists() and js.exists() else None
    if img is None:
        try:
            scene = S.random_scene(np.random.default_rng(c.seed), c.n_dice, c.size, c.condition,
                                   pool=POOL)
        except RuntimeError:
            return {"dets": [], "dice": 0}
        img, dice = S.render(scene), bench.scene_dice(scene)
        folder.mkdir(parents=True, exist_ok=True)
        tmp = png.with_name(f"{c.seed}.{os.getpid()}.tmp.png")
        cv2.imwrite(str(tmp), img, [cv2.IMWRITE_PNG_COMPRESSION, 1])
        os.replace(tmp, png)
        js.write_text(json.dumps(dice))
    else:
        dice = json.loads(js.read_text())
    m = _model(model)
    rng = np.random.default_rng(c.seed + 7)
    flat = [d for d in dice if d["cls"] < 6]
    die_px = float(np.median([d["side"] for d in (flat or dice)])) if dice else 0.05 * c.size[0]
    die_px *= float(np.exp(rng.normal(0.0, DIE_PX_JITTER)))
    found = look(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY) if img.ndim == 3 else img, m, die_px=die_px,
                 least=0.05, peak=0.05)
    return {"dets": _label(found, dice), "dice": len(dice)}


#: read each die mirrored too (--mirror; set before the workers fork)
MIRROR = False


def _model(path: str | None):
    from vision.reader import model

    return model(path, mirror=MIRROR)


def _label(found, dice: list[dict]) -> list[tuple[float, float, int, int, int]]:
    """(score, best-face prob, face right 0/1, on a die 0/1, dropped 0/1) of each detection (the face
    net's probs), matched one to one to the dice (nearest first, within MATCH of the die's side);
    dropped: "not a die" is its most likely class, and the reader drops it."""
    pairs = []
    for i, d in enumerate(found):
        for j, t in enumerate(dice):
            dist = math.dist((d.x, d.y), t["center"])
            if dist <= MATCH * max(t["side"], 8.0):
                pairs.append((dist, i, j))
    match: dict[int, int] = {}
    used: set[int] = set()
    for _, i, j in sorted(pairs):
        if i not in match and j not in used:
            match[i] = j
            used.add(j)
    out = []
    for i, d in enumerate(found):
        probs = d.probs[:6]
        face = int(np.argmax(probs)) + 1
        best = float(max(probs)) if d.face is not None else 0.0  # another class the most likely: never a face
        j = match.get(i)
        right = int(j is not None and dice[j]["cls"] < 6 and dice[j]["cls"] + 1 == face)
        out.append((float(d.score), best, right, int(j is not None), int(d.cls == NOT_A_DIE)))
    return out


def _photo_dets(args: tuple[dict, str]) -> list[tuple[float, float, int, int, int]]:
    """Detections on one real photo (pyramid, no calibration) labelled like the renders', each matched
    to the label boxes as the bench matches a die read ok (vision.bench.match_in_boxes), the strongest
    first: on a die when "right" or "wrong_face", no die when "double" or "unlabelled"; a detection
    only in boxes under the bench's MIN_PX or of unknown face says nothing and is left out. A
    detection the reader drops ("not a die") takes no box. Boxes that hold a top face's pips only
    (webcam) are grown to the whole die (vision.bench.die_boxes): the question here is whether a die
    passed ok carries the right face, and a right read whose centre lies on the die's body rather than
    on its pips is right. A single-die crop (a record with a "face", no boxes) is read as the bench
    reads it, set in a border (vision.bench.crop_in_border), its box the crop."""
    rec, model = args
    cv2.setNumThreads(1)
    img = cv2.imread(rec["path"], cv2.IMREAD_COLOR)
    if img is None:
        return []
    if "face" in rec:
        img, boxes = bench.crop_in_border(img, rec["face"])
    else:
        boxes = bench.scored_boxes(rec)
    found = look(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY), _model(model), least=0.05, peak=0.05)
    rows, hit = [], set()
    for d in sorted(found, key=lambda d: -d.score):
        dropped = d.cls == NOT_A_DIE
        face = int(np.argmax(d.probs[:6])) + 1
        what = bench.match_in_boxes(d.x, d.y, face, boxes, set(hit) if dropped else hit)
        if what == "ignored":
            continue
        best = float(max(d.probs[:6])) if d.face is not None else 0.0
        rows.append((float(d.score), best, int(what == "right"), int(what in ("right", "wrong_face")), int(dropped)))
    return rows


def _real_rows(a, run) -> tuple[list[list], list[str], dict[str, str]]:
    """The rows of every real source's photos and single-die crops (crops/, fisheye's crops) read by
    the fold model that left that source out (vision.bench's choice: the one named for it, or one whose
    training left it out with others), one list a photo, the source of each, and what was read of
    each source."""
    rows, labels, sources = [], [], {}
    for src in bench.SOURCES:
        fold, _ = bench.fold_model(src, Path(a.models)) if a.models else (None, "")
        if fold is None or not faces_path(fold).is_file():
            sources[src] = "left out: no fold model (the committed model saw these photos)"
            continue
        recs = bench.photo_records(Path(a.data), src) + bench.extra_crops(Path(a.data), src)
        per_photo = run(_photo_dets, [((r, str(fold)),) for r in recs], chunksize=4)
        n_crops = sum("face" in r for r in recs)
        what = " and ".join(f"{n} {kind}" for n, kind in ((len(recs) - n_crops, "photos"), (n_crops, "crops")) if n)
        sources[src] = f"{what or '0 photos'}, {sum(map(len, per_photo))} detections ({Path(fold).name})"
        rows += per_photo
        labels += [src] * len(per_photo)
    return rows, labels, sources


def lowest_safe(values: np.ndarray, bad: np.ndarray, max_rate: float = MAX_RATE) -> tuple[float | None, int, int]:
    """The lowest cut c (among the values) such that, of the items with value >= c, the bad ones'
    share is at most max_rate by the upper end of its 95% Wilson interval; with the count kept and
    the bad ones among them. (None, 0, 0) when no cut is safe."""
    order = np.argsort(-values, kind="stable")
    v, b = values[order], bad[order].astype(np.int64)
    kb = np.cumsum(b)
    best = (None, 0, 0)
    for i in range(len(v)):
        if i + 1 < len(v) and v[i + 1] == v[i]:
            continue  # a cut keeps every item of equal value
        n, k = i + 1, int(kb[i])
        if bench.wilson(k, n)[1] <= max_rate:
            best = (float(v[i]), n, k)
    return best


def safest(values: np.ndarray, bad: np.ndarray, least: int = 50) -> tuple[float | None, int, int]:
    """The cut whose passed items (at least `least` of them) have the lowest upper 95% bound of
    bad ones: the safest cut when none meets the rate. (None, 0, 0) with too few items."""
    order = np.argsort(-values, kind="stable")
    v, b = values[order], bad[order].astype(np.int64)
    kb = np.cumsum(b)
    best, best_hi = (None, 0, 0), 2.0
    for i in range(least - 1, len(v)):
        if i + 1 < len(v) and v[i + 1] == v[i]:
            continue
        hi = bench.wilson(int(kb[i]), i + 1)[1]
        if hi < best_hi:
            best, best_hi = (float(v[i]), i + 1, int(kb[i])), hi
    return best


def least_errors(score: np.ndarray, good: np.ndarray) -> float:
    """The cut with the fewest bad items at or above it plus good ones below it (the higher on a tie),
    halfway between the lowest score it keeps and the next one down."""
    order = np.argsort(-score, kind="stable")
    v, g = score[order], good[order].astype(np.int64)
    bad_above = np.cumsum(1 - g)
    good_below = g.sum() - np.cumsum(g)
    errors = bad_above + good_below
    last = np.r_[v[1:] != v[:-1], True]  # a cut keeps every item of equal score
    idx = np.nonzero(last)[0]
    best = idx[np.argmin(errors[idx])]  # argmin takes the first, the higher cut
    return float(v[best]) if best + 1 >= len(v) else 0.5 * float(v[best] + v[best + 1])


RANKS = (1, 3, 5, 10, 20)  # "right_before_wrong": right dice passed before the k-th wrong one


def right_before_wrong(rows: np.ndarray, die: float, ranks: tuple[int, ...] = RANKS) -> dict[str, int]:
    """How well the face net ranks its reads, whatever the cut: of the detections kept by the die cut,
    surest first, the right dice before the k-th wrong one, for each k of `ranks` (all the right ones
    when there are fewer wrong ones; a wrong one's equals count as after it). Two nets are compared by
    these, where the cut is set, and not at a fixed cut: a net surer of everything passes more at a
    fixed cut and makes its few mistakes surer too."""
    if not len(rows):
        return {str(k): 0 for k in ranks}
    keep = _kept(rows, die)
    best, right = rows[keep, 1], rows[keep, 2].astype(bool)
    wrong = np.sort(best[~right])[::-1]
    return {str(k): int((best[right] > wrong[k - 1]).sum()) if len(wrong) >= k else int(right.sum()) for k in ranks}


def at_cut(rows: np.ndarray, die: float, face: float, weight: float = 0.0) -> dict:
    """What the cuts pass of one set's rows (the renders, or one real source): the dice passed ok, the
    wrong ones among them and their rate's upper 95% bound. The face cut is set on all sets pooled,
    so it can hold the pooled rate while one set's wrong dice grow: compare two nets set by set."""
    keep = _kept(rows, die)
    passed = sureness(rows[keep, 1], rows[keep, 0], weight) >= face
    n, k = int(passed.sum()), int((passed & ~rows[keep, 2].astype(bool)).sum())
    return {"passed": n, "wrong": k, "wrong_upper95": round(bench.wilson(k, n)[1], 6)}


def spread(groups: list[np.ndarray], draws: int, seed: int = 0, max_rate: float = MAX_RATE,
           weight: float = 0.0) -> dict:
    """How much the face cut moves with the data: `choose` on `draws` bootstrap resamples of the
    groups (a scene's or a photo's detections: they go together), the heat's weight held at `weight`
    (cuts of different weights lie on different scales), the median and the 10th and 90th
    percentiles of the cut. The cut rests on the few wrong faces among the surest reads, so a draw
    that holds one more or one fewer of them moves it."""
    rng = np.random.default_rng(seed)
    groups = [g for g in groups if len(g)]
    cuts = []
    for _ in range(draws if groups else 0):
        pick = rng.integers(0, len(groups), len(groups))
        face = choose(np.concatenate([groups[i] for i in pick]), max_rate, weights=(weight,))["face"]
        if face is not None:
            cuts.append(face)
    if not cuts:
        return {"draws": draws, "cuts": 0}
    p10, p50, p90 = np.percentile(cuts, [10, 50, 90])
    return {"draws": draws, "cuts": len(cuts), "median": round(float(p50), DIGITS),
            "p10": round(float(p10), DIGITS), "p90": round(float(p90), DIGITS)}


DIGITS = 6  # decimals of a face cut as written


def _up(cut: float) -> float:
    """A cut written with DIGITS decimals, rounded up: the cut written never passes a die the cut
    found would not (rounded to the nearest, it could fall under the wrong dice just below it)."""
    return math.ceil(round(cut * 10**DIGITS, 9)) / 10**DIGITS


def _kept(rows: np.ndarray, die: float) -> np.ndarray:
    """Which rows (score, best, right, on a die[, dropped]) the reader keeps as dice at the die cut: a
    dropped detection (the face net's "not a die") never, whatever its score."""
    dropped = rows[:, 4].astype(bool) if rows.shape[1] > 4 else np.zeros(len(rows), bool)
    return (rows[:, 0] >= die) & ~dropped


def choose(rows: np.ndarray, max_rate: float = MAX_RATE, weights: tuple[float, ...] = HEAT_WEIGHTS) -> dict:
    """The thresholds from rows (score, best-face prob, face right, on a die[, dropped]): a dropped
    detection (the face net's "not a die") is never kept, whatever its score. The heat's weight is the
    one of `weights` whose safe cut passes the most dice (the first on a tie)."""
    if not len(rows):
        return {"die": None, "face": None, "n": 0, "met": False, "why": "no detections"}
    score, best, right, on_die = rows[:, 0], rows[:, 1], rows[:, 2].astype(bool), rows[:, 3].astype(bool)
    dropped = rows[:, 4].astype(bool) if rows.shape[1] > 4 else np.zeros(len(rows), bool)
    die = max(least_errors(np.where(dropped, -1.0, score), on_die), PEAK)  # the detector reports nothing under its PEAK
    keep = _kept(rows, die)
    kept, false_kept = int(keep.sum()), int((keep & ~on_die).sum())
    weight, (face, passed, wrong) = weights[0], lowest_safe(sureness(best[keep], score[keep], weights[0]), ~right[keep], max_rate)
    for w in weights[1:]:  # the heat's weight in the sureness that passes the most dice safely
        got = lowest_safe(sureness(best[keep], score[keep], w), ~right[keep], max_rate)
        if got[0] is not None and got[1] > passed:
            weight, (face, passed, wrong) = w, got
    best = sureness(best, score, weight)
    out = {"die": round(die, 4), "face": None if face is None else _up(face), "heat_weight": weight,
           "n": int(len(rows)), "met": face is not None, "kept": kept, "false_dice_kept": false_kept,
           "real_dice_lost": int((on_die & ~keep).sum())}
    if face is None:
        # the target cannot be met: take the cut with the fewest wrong faces (the lowest upper bound)
        # among those that still pass some dice, and say so: the reader then refuses all it doubts most
        face, passed, wrong = safest(best[keep], ~right[keep])
        out["why"] = ("no face cut keeps wrong faces under the rate (wrong faces among the most confident): "
                      "the cut with the lowest upper bound of wrong faces instead")
        out["face"] = None if face is None else _up(face)
        if face is None:
            return out
        out.update(passed_ok=int(passed), wrong_passed_ok=int(wrong),
                   wrong_face_upper95=round(bench.wilson(wrong, passed)[1], 6),
                   refused_as_doubt=int(keep.sum() - passed),
                   right_faces_refused=int((right[keep] & (best[keep] < face)).sum()))
        return out
    out.update(passed_ok=int(passed), wrong_passed_ok=int(wrong),
               wrong_face_upper95=round(bench.wilson(wrong, passed)[1], 6),
               refused_as_doubt=int(keep.sum() - passed),
               right_faces_refused=int((right[keep] & (best[keep] < face)).sum()))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m vision.thresholds", description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=str(OUT), metavar="FILE", help="where to write the JSON (default: %(default)s)")
    ap.add_argument("--scenes", type=int, default=SCENES, metavar="N", help="rendered scenes (default: %(default)s)")
    ap.add_argument("--model", metavar="ONNX", help="the model to set them for (default: the committed one)")
    ap.add_argument("--data", metavar="DIR", help="real photos (dice-photos layout), read by the fold models")
    ap.add_argument("--models", metavar="DIR", help="fold models DIR/without-SOURCE.onnx for --data")
    ap.add_argument("--max-rate", type=float, default=MAX_RATE, help="most wrong per die passed (default: %(default)s)")
    ap.add_argument("--mirror", action="store_true",
                    help="cuts for a reader that reads each die twice, its crop and the crop mirrored "
                         "(written as \"mirror\": true; the reader then reads so)")
    ap.add_argument("--bootstrap", type=int, default=0, metavar="N",
                    help="also the face cut's spread over N resamples of the scenes and photos (about 0.3 s each)")
    a = ap.parse_args(argv)
    from vision.detector import MODEL

    model = Path(a.model) if a.model else MODEL
    if not model.is_file():
        print(f"vision.thresholds: {model}: no such model file", file=sys.stderr)
        return 2
    if a.scenes < 1 or not 0 < a.max_rate < 1 or a.bootstrap < 0:
        print("vision.thresholds: --scenes must be at least 1, --max-rate between 0 and 1, --bootstrap 0 or more",
              file=sys.stderr)
        return 2
    for flag in ("data", "models"):
        v = getattr(a, flag)
        if v is not None and not Path(v).is_dir():
            print(f"vision.thresholds: --{flag} {v}: no such folder", file=sys.stderr)
            return 2
    global MIRROR
    MIRROR = a.mirror
    t0 = time.perf_counter()
    todo = bench.cases(a.scenes, SEED)
    workers = bench.jobs()
    m = None if a.model is None else str(model)
    pool = None
    if workers > 1:
        import multiprocessing as mp

        pool = mp.get_context("fork").Pool(workers)
    run = pool.starmap if pool else lambda f, items, chunksize=1: [f(*x) for x in items]
    try:
        got = run(_scene_dets, [(c, m) for c in todo], chunksize=8)
        rows, labels, sources = _real_rows(a, run) if a.data else ([], [], {})
    finally:
        if pool:
            pool.close()
            pool.join()
    groups = [np.array(g, np.float64).reshape(-1, 5) for g in [g["dets"] for g in got] + rows]
    n_dice = sum(g["dice"] for g in got)
    arr = np.concatenate(groups)
    out = choose(arr, a.max_rate)
    p = POOL
    out["method"] = (f"die: the heat cut with the fewest false dice kept plus real dice lost; face: the lowest best-face "
                     f"probability at which the upper 95% Wilson bound of wrong faces among dice passed ok is "
                     f"<= {a.max_rate:g}; on {a.scenes} rendered scenes ({p or 'default'} pool, seeds {SEED} up, {n_dice} dice, "
                     f"calibrated path, die size within {DIE_PX_JITTER:.0%})"
                     + (" and real photos by their fold models (their single-die crops too)" if rows else ""))
    out["model"] = model.name
    out["model_sha1"] = hashlib.sha1(model.read_bytes()).hexdigest()[:12]
    out["max_rate"] = a.max_rate
    out["mirror"] = a.mirror
    if sources:
        out["real_photos"] = sources
    if out.get("die") is not None:
        by = {"renders": groups[:len(got)]}
        for g, src in zip(groups[len(got):], labels):
            by.setdefault(src, []).append(g)
        out["right_before_wrong"] = {k: right_before_wrong(np.concatenate(v), out["die"]) for k, v in by.items()}
        if out.get("face") is not None:
            out["at_cut"] = {k: at_cut(np.concatenate(v), out["die"], out["face"], out.get("heat_weight", 0.0))
                             for k, v in by.items()}
    if a.bootstrap:
        out["face_cut_spread"] = spread(groups, a.bootstrap, max_rate=a.max_rate, weight=out.get("heat_weight", 0.0))
    out["seconds"] = round(time.perf_counter() - t0, 1)
    print(json.dumps(out, indent=1))
    if out.get("face") is None:  # no cut at all: never a file the reader would trust
        print(f"vision.thresholds: {out.get('why', 'no cut')}; {a.out} not written", file=sys.stderr)
        return 1
    if not out.get("met"):
        print(f"vision.thresholds: the 1 in {1 / a.max_rate:,.0f} target is not met; the safest cut written "
              f"(wrong faces' upper bound {out.get('wrong_face_upper95')})", file=sys.stderr)
    Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(a.out).with_name(Path(a.out).name + ".tmp")
    tmp.write_text(json.dumps(out, indent=1) + "\n")
    os.replace(tmp, a.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
