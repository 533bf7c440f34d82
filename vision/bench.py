"""`yatzycam bench --only vision [--data DIR] [--models DIR] [--quick]`: the reader judged on pictures it
was not chosen on. Every figure carries its count and a 95% Wilson interval.

1. Real photos, each source left out (`--data DIR` or $YATZYCAM_PHOTOS: a folder laid out as the
   dice-photos set, see tests/data/README.md; skipped, saying why, when neither is given). Sources:
   rune55 (`images/` and `oblique/` together), webcam (boxes on the top face), fisheye (faces all
   known; its single-die crops scored apart) and crops (single dice, face classification only).
   Each source is read with the fold model `--models DIR`/without-<source>.onnx (trained without
   that source), else with the committed model and a note that the model was trained on it. The
   photos have no calibration: `read(photo)`. Per die, for dice at least MIN_PX wide: a die read ok
   counts as right when its centre lies in a labelled box of the same face; one in no labelled box
   (an unlabelled symbol die too) counts against precision. Exact photos: the multiset of ok faces
   equals the labels'. Crops are set in a border of their median grey (the detector sees a die on
   a plain ground around it) and scored by the die read nearest the crop's centre.
2. Renders outside the training ranges: FULL_SCENES scenes from the renderer's holdout pool (die
   styles and floors the training never sees; the default pool, said so, while the renderer has
   none), 5, 6 and 8 dice, half 1280x960 and half 640x480, about 55% clean, 20% cocked, 15% off the
   tray, 10% missing, each calibrated from its empty frame and a reference throw as the appliance
   is. Scenes are cached under $YATZYCAM_BENCH_CACHE (default: the temp folder's yatzycam-bench),
   calibrations beside them, keyed by the runtime code and model they were made with.
3. Wrong-face rate per die: dice read ok whose face (or status) is wrong / dice read ok, over at
   least MIN_OK_DICE dice read ok (`--dice N`: N; the scenes of 2 and the bench's further scenes
   after them, as many as that takes), and on the folds.
4. Speed: the median CPU time of `read(frame, calibration, n)` on 8-dice frames at 1280x960 and
   640x480, alone in this process, on one thread (OpenCV and the nets' engine), model included; the model's file size and
   multiply-adds per frame (vision.onnxcount on the net inputs the calibrated path gave it).

`python -m vision.bench --render N` fills the render cache; `--own SEED0 [--cases N]` reads a
development set (the bench's layout of scenes from other seeds).
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import statistics
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision.photolabels import fixed_boxes

ROOT = Path(__file__).resolve().parent.parent
CACHE = Path(os.environ.get("YATZYCAM_BENCH_CACHE") or Path(tempfile.gettempdir()) / "yatzycam-bench") / "v2"
FULL_SCENES = 2000
QUICK_SCENES = 40
MIN_OK_DICE = 10_000  # the wrong-face rate is measured on at least this many dice read ok (full run)
SPEED_FRAMES = 60  # 8-dice frames timed per size (full run); 3 with --quick
MIN_PX = 16  # real dice narrower than this are out of scope (neither counted nor held against)
SOURCES = ("rune55", "webcam", "fisheye", "crops")
#: top-face side / box side of a webcam box, by face: its boxes hug the pips rather than the face (a
#: one's box is often its pip alone), so the box of a face with few pips is the smaller. Measured as
#: the median ratio of the render-trained detector's size (it never saw a real photo) to the box.
PIP_BOX = {1: 2.26, 2: 1.55, 3: 1.34, 4: 1.24, 5: 1.05, 6: 1.11}
#: a whole die's box in top-face sides, about its top face: seen up to about 45 degrees off the
#: vertical, a die's visible sides reach up to a quarter of a side beyond its top face's square
DIE_BOX = 1.5
BENCH_SEED = 1000
OWN_SEED_MIN = 1_000_000  # `--own` sets start here: never the bench's seeds
CONDITIONS = ("clean", "cocked", "off_tray", "missing")


# --------------------------------------------------------------------------- figures
def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of k successes in n trials ((0, 1) when n is 0)."""
    if n <= 0:
        return 0.0, 1.0
    p = k / n
    d = 1.0 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return max(0.0, c - h), min(1.0, c + h)


def figure(k: int, n: int) -> dict:
    """{"k", "n", "rate", "ci95"}: a count out of a total, with its 95% Wilson interval."""
    lo, hi = wilson(k, n)
    return {"k": int(k), "n": int(n), "rate": round(k / n, 5) if n else None, "ci95": [round(lo, 5), round(hi, 5)]}


# --------------------------------------------------------------------------- rendered scenes
@dataclass(frozen=True)
class Case:
    index: int
    size: tuple[int, int]
    n_dice: int
    condition: str
    seed: int

    @property
    def visible(self) -> int:
        return self.n_dice - 1 if self.condition == "missing" else self.n_dice


def cases(n: int, seed0: int = BENCH_SEED) -> list[Case]:
    """The bench's scenes, the same on every run: conditions 55/20/15/10, sizes and counts interleaved.
    (`seed0`: the same layout of scenes from other seeds, for a development set: `--own`.)"""
    out = []
    for i in range(n):
        u = (i * 0.6180339887) % 1.0  # evenly spread, deterministic
        cond = "clean" if u < 0.55 else "cocked" if u < 0.75 else "off_tray" if u < 0.90 else "missing"
        size = (1280, 960) if i % 2 == 0 else (640, 480)
        out.append(Case(i, size, (5, 6, 8)[(i // 2) % 3], cond, seed0 + i))
    return out


def pool() -> str | None:
    """The renderer's pool of die styles and floors the training never sees ("holdout"), or None
    (the default pool) while the renderer has none."""
    import inspect

    from vision import synthetic as S

    try:
        has = "pool" in inspect.signature(S.random_scene).parameters and "holdout" in getattr(S, "POOLS", ())
    except (TypeError, ValueError):
        has = False
    return "holdout" if has else None


_RENDER_KEY: str | None = None


def render_key() -> str:
    """The pool and a digest of the renderer's code: renders are cached per renderer version."""
    global _RENDER_KEY
    if _RENDER_KEY is None:
        h = hashlib.sha1()
        for f in sorted(ROOT.glob("vision/synthetic*.py")):
            h.update(f.name.encode())
            h.update(f.read_bytes())
        _RENDER_KEY = f"{pool() or 'default'}-{h.hexdigest()[:10]}"
    return _RENDER_KEY


def _cache_dir() -> Path:
    return CACHE / render_key()


def _paths(c: Case) -> tuple[Path, Path, Path, Path]:
    stem = _cache_dir() / f"{c.index:05d}-{c.size[0]}-{c.n_dice}-{c.condition}-{c.seed}"
    return (stem.with_name(stem.name + ".png"), stem.with_name(stem.name + "-empty.png"),
            stem.with_name(stem.name + "-ref.png"), stem.with_name(stem.name + ".truth.json"))


def make_scene(c: Case):
    """(scene, reference scene) of a case: the scene in the bench's pool and its reference throw (the
    same table, light, camera and dice, lying flat and apart; None when they find no room)."""
    from vision import synthetic as S

    rng = np.random.default_rng(c.seed)
    p = pool()
    kw = {"pool": p} if p else {}
    scene = S.random_scene(rng, c.n_dice, c.size, c.condition, **kw)
    try:
        return scene, S.reference_scene(rng, c.n_dice, c.size, like=scene)
    except RuntimeError:  # no room for a reference throw of this tray: it is calibrated from the empty tray
        return scene, None


def scene_dice(scene) -> list[dict]:
    """Every die of a scene as the frame shows it: {"center", "side" (its top face's, in frame pixels),
    "cls" (0-5 for faces 1-6, 6 for not readable), "status", "face" (the face most up)}."""
    from vision import synthetic as S
    from vision.detector import NOT_READABLE

    if hasattr(S, "labels"):
        return [{"center": [float(lb.center[0]), float(lb.center[1])], "side": float(lb.side), "cls": int(lb.cls),
                 "status": lb.status, "face": int(lb.face)} for lb in S.labels(scene)]
    out = []
    for d, td in zip(scene.dice, S.truth(scene).dice):
        H = scene.camera_height
        side = d.size_px * H / max(H - (d.base_z + d.size_px), 1.0)
        cls = td.face - 1 if td.status in ("ok", "off_tray") else NOT_READABLE
        out.append({"center": [float(td.center[0]), float(td.center[1])], "side": float(side), "cls": int(cls),
                    "status": td.status, "face": int(td.face)})
    return out


def scene_truth(scene) -> dict:
    from vision import synthetic as S

    j = S.truth(scene).as_json()
    for d, lb in zip(j["dice"], scene_dice(scene)):
        d["face"] = lb["face"]  # the face most up, whatever the status
        d["size"] = lb["side"]
    return {"truth": j, "expected_n": scene.expected_n, "pool": pool() or "default"}


def render_case(c: Case) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict]:
    """(frame, empty frame, reference frame, truth) of a case, from the cache or rendered now."""
    from vision import synthetic as S

    fp, ep, rp, tp = _paths(c)
    if fp.exists() and ep.exists() and rp.exists() and tp.exists():
        frame, empty, ref = (cv2.imread(str(p)) for p in (fp, ep, rp))
        if frame is not None and empty is not None and ref is not None:
            return frame, empty, ref, json.loads(tp.read_text())
    scene, ref_scene = make_scene(c)
    frame, empty = S.render(scene), S.render_empty(scene)
    ref = empty.copy() if ref_scene is None else S.render(ref_scene)  # (a throw with no dice: not used)
    truth = scene_truth(scene)
    fp.parent.mkdir(parents=True, exist_ok=True)
    for p, img in ((fp, frame), (ep, empty), (rp, ref)):
        tmp = p.with_name(p.stem + f".{os.getpid()}.tmp.png")
        cv2.imwrite(str(tmp), img, [cv2.IMWRITE_PNG_COMPRESSION, 1])
        os.replace(tmp, p)
    tmp = tp.with_name(tp.name + f".{os.getpid()}.tmp")
    tmp.write_text(json.dumps(truth))
    os.replace(tmp, tp)
    return frame, empty, ref, truth


_CODE_KEY: str | None = None


def code_key() -> str:
    """A digest of what a calibration depends on: the runtime modules of calibration/ and vision/ and
    the model files and their thresholds (a cached calibration is used only while they are unchanged;
    the model card is not among them, so that a bench run beside an edit of it keeps one key)."""
    global _CODE_KEY
    if _CODE_KEY is None:
        h = hashlib.sha1()
        skip = {"bench.py", "onnxcount.py", "thresholds.py"}
        files = sorted(ROOT.glob("calibration/*.py")) + sorted(ROOT.glob("vision/*.py")) + \
            sorted(ROOT.glob("vision/*.npz")) + sorted(ROOT.glob("vision/model/*.onnx")) + \
            sorted(ROOT.glob("vision/model/*.json"))
        for f in files:
            if f.name in skip or f.name.startswith(("synthetic", "train")) or not f.is_file():
                continue
            h.update(f.name.encode())
            h.update(f.read_bytes())
        _CODE_KEY = h.hexdigest()[:12]
    return _CODE_KEY


def _calibrate(empty: np.ndarray, ref: np.ndarray, n_dice: int):
    """(calibration or None, reference not used, no tray found): as the appliance calibrates, from the
    empty tray and the reference throw; without the reference when that fails; None when no tray is
    found (the frame is then read as a plain photo)."""
    from calibration import CalibrationError, calibrate

    try:
        return calibrate(empty, ref, n_dice), 0, 0
    except CalibrationError:
        try:
            return calibrate(empty), 1, 0
        except CalibrationError:
            return None, 1, 1


def calibrated(c: Case, empty: np.ndarray, ref: np.ndarray):
    """_calibrate of a case, cached beside its renders (keyed by code_key)."""
    from calibration.profile import Calibration

    p = _cache_dir() / f"cal-{code_key()}" / f"{c.index:05d}-{c.seed}.json"
    if p.exists():
        try:
            d = json.loads(p.read_text())
            cal = None if d["cal"] is None else Calibration.from_json(d["cal"])
            return cal, d["no_ref"], d["no_tray"]
        except (ValueError, KeyError):
            pass
    cal, no_ref, no_tray = _calibrate(empty, ref, c.n_dice)
    saved = None if cal is None else cal.to_json()
    p.parent.mkdir(parents=True, exist_ok=True)
    tmp = p.with_name(p.name + f".{os.getpid()}.tmp")
    tmp.write_text(json.dumps({"cal": saved, "no_ref": no_ref, "no_tray": no_tray}))
    os.replace(tmp, p)
    # read as saved (its coordinates rounded), as the appliance reads its profile and as the next
    # run reads this cache: a run that calibrates and one that finds the cache count the same
    return (None if saved is None else Calibration.from_json(saved)), no_ref, no_tray


def match_dice(read_dice: list[dict], truth_dice: list[dict], reach: float = 0.6) -> list[int | None]:
    """For each reported die, the index of the truth die it is (nearest centres first, each truth die
    once, within `reach` of the truth die's size), or None."""
    pairs = []
    for i, d in enumerate(read_dice):
        for j, t in enumerate(truth_dice):
            dist = math.dist(d["center"], t["center"])
            if dist <= reach * t.get("size", 40.0):
                pairs.append((dist, i, j))
    out: list[int | None] = [None] * len(read_dice)
    used: set[int] = set()
    for _, i, j in sorted(pairs):
        if out[i] is None and j not in used:
            out[i] = j
            used.add(j)
    return out


def _one_scene(c: Case) -> dict:
    """Calibrate and read one bench scene: what happened, for `_scenes` to count."""
    from vision.reader import FrameError, read

    cv2.setNumThreads(1)
    try:
        frame, empty, ref, t = render_case(c)
    except RuntimeError as e:  # synthetic could not lay this seed's dice out
        return {"case": c, "unrendered": str(e)}
    truth = t["truth"]
    cal, no_ref, no_tray = calibrated(c, empty, ref)
    scene = {"case": c, "truth_dice": truth["dice"], "truth_verdict": truth["verdict"],
             "truth_values": tuple(truth["values"]), "no_ref": no_ref, "no_tray": no_tray}
    try:
        r = read(frame, cal, c.n_dice)
    except FrameError:  # a frame the reader refuses whole (blank, black): the appliance asks again
        return {**scene, "verdict": "reroll", "reasons": ("frame",), "values": (), "ms": 0.0, "dice": []}
    dice = [{"value": d.value, "status": d.status, "center": [float(d.center[0]), float(d.center[1])]} for d in r.dice]
    return {**scene, "verdict": r.verdict, "reasons": tuple(r.reasons), "values": tuple(r.values), "ms": r.ms,
            "dice": dice}


def jobs() -> int:
    """Worker processes: $YATZYCAM_BENCH_JOBS, else up to 2 (each on one core)."""
    env = os.environ.get("YATZYCAM_BENCH_JOBS")
    if env and env.isdigit() and int(env) > 0:
        return int(env)
    return max(1, min(2, os.cpu_count() or 1))


def _read_all(todo: list[Case], workers: int) -> list[dict]:
    """_one_scene of every case, in `workers` processes."""
    if workers > 1 and len(todo) > 1:
        import multiprocessing as mp

        with mp.get_context("fork").Pool(workers) as p:
            return p.map(_one_scene, todo, chunksize=4)
    return [_one_scene(c) for c in todo]


def right(res: dict) -> bool:
    """A scene read as it should be: a clean one exactly, any other refused."""
    if res["case"].condition == "clean":
        return res["verdict"] == "ok" and res["values"] == res["truth_values"]
    return res["verdict"] == "reroll"


def silent_wrong(res: dict) -> bool:
    """Read ok while the faces are wrong, or ok on a throw that should be refused."""
    return res["verdict"] == "ok" and (res["truth_verdict"] != "ok" or res["values"] != res["truth_values"])


def die_tally(res: dict) -> tuple[int, int, int]:
    """(rendered dice, dice read ok, of those wrong): a die read ok is wrong when it is no rendered die,
    or its die is not ok (cocked, off the tray, unreadable) or shows another face."""
    truth = res["truth_dice"]
    ok = [d for d in res["dice"] if d["status"] == "ok" and d["value"] is not None]
    wrong = 0
    for d, j in zip(ok, match_dice(ok, truth)):
        if j is None or truth[j]["status"] != "ok" or truth[j].get("face", truth[j]["value"]) != d["value"]:
            wrong += 1
    return len(truth), len(ok), wrong


def own(seed0: int, n: int) -> int:
    """`python -m vision.bench --own SEED0 [--cases N]`: the bench's layout of scenes from seeds SEED0 up
    (a development set the bench's figures are not tuned on), read as the bench reads them; prints the
    counts and one line per scene not read as it should be."""
    if seed0 < OWN_SEED_MIN:
        print(f"vision.bench: --own seeds start at {OWN_SEED_MIN} or more (the bench's are {BENCH_SEED} up)",
              file=sys.stderr)
        return 2
    results = []
    for res in _read_all(cases(n, seed0), jobs()):
        if "unrendered" in res:
            c = res["case"]
            print(f"{c.index} seed {c.seed} {c.condition}: not rendered ({res['unrendered']}), left out")
        else:
            results.append(res)
    for res in results:
        if not right(res):
            c = res["case"]
            print(f"{c.index} seed {c.seed} {c.condition} {c.size[0]}x{c.size[1]} {c.n_dice} dice: {res['verdict']} "
                  f"{','.join(res['reasons']) or '-'} {list(res['values'])} (truth {list(res['truth_values'])})")
    for cond in CONDITIONS:
        mine = [r for r in results if r["case"].condition == cond]
        print(f"{cond}: {sum(map(right, mine))}/{len(mine)}")
    silent = [r["case"].index for r in results if silent_wrong(r)]
    print(f"silent wrong: {len(silent)}/{len(results)} {silent}")
    return 0


def next_cases(start: int, need: int, ok_per_scene: float) -> list[Case]:
    """The bench's scenes after its first `start`: enough, at `ok_per_scene` dice read ok a scene, for
    about `need` more dice read ok (5% over, at least 16 scenes)."""
    step = max(16, math.ceil(need / max(ok_per_scene, 0.5) * 1.05))
    return cases(start + step)[start:]


def _scenes(n: int, min_ok: int = 0) -> tuple[dict, dict]:
    """(section 2's figures, section 3's rendered half) over n bench scenes, and further scenes after
    them until at least min_ok dice are read ok (section 3 only; at most 3 n scenes in all for
    MIN_OK_DICE dice, that many times more for more)."""
    workers = jobs()
    results = _read_all(cases(n), workers)
    most = math.ceil(3 * n * max(1.0, min_ok / MIN_OK_DICE))
    while (ok := sum(die_tally(r)[1] for r in results if "unrendered" not in r)) < min_ok and len(results) < most:
        more = next_cases(len(results), min_ok - ok, ok / len(results))[: most - len(results)]
        results += _read_all(more, workers)  # (a reader that passes few dice stops at `most` scenes)
    caught = {k: [0, 0] for k in CONDITIONS}
    with_reason = {k: 0 for k in ("cocked", "off_tray", "missing")}
    false_reroll: Counter = Counter()
    not_read: Counter = Counter()  # false rerolls by the number of dice not read (left to set by hand)
    kept_ok = kept_wrong = 0  # the faces read ok in falsely rerolled scenes (an entry by hand starts from them)
    silent = no_ref = no_tray = 0
    silent_cases: list[int] = []
    dice = dice_ok = dice_wrong = 0
    unrendered: list[int] = []
    for res in results:
        c = res["case"]
        if "unrendered" in res:  # the renderer could not lay this seed out: counted, said, left out
            unrendered.append(c.index)
            continue
        a, b, w = die_tally(res)
        dice, dice_ok, dice_wrong = dice + a, dice_ok + b, dice_wrong + w
        if c.index >= n:
            continue
        no_ref += res["no_ref"]
        no_tray += res["no_tray"]
        caught[c.condition][1] += 1
        caught[c.condition][0] += int(right(res))
        if c.condition != "clean":
            with_reason[c.condition] += int(c.condition in res["reasons"])
        elif res["verdict"] == "reroll":
            false_reroll.update(res["reasons"] or ("none",))
            not_read[sum(not (d["status"] == "ok" and d["value"] is not None) for d in res["dice"])] += 1
            kept_ok, kept_wrong = kept_ok + b, kept_wrong + w
        if silent_wrong(res):
            silent += 1
            silent_cases.append(c.index)
    p = pool()
    out: dict = {"pool": p or "default",
                 "note": "holdout pool: die styles and floors the training never saw" if p else
                 "the renderer has no holdout pool yet: these scenes come from the default pool, "
                 "which the training draws on (not outside its ranges)",
                 "scenes": n - sum(i < n for i in unrendered), "workers": workers,
                 "reference_not_used": no_ref, "tray_not_found": no_tray}
    if unrendered:
        out["not_rendered"] = {"count": len(unrendered), "cases": unrendered[:20],
                               "why": "the renderer could not lay these seeds out: left out of every count"}
    out["clean_read_exactly"] = figure(*caught["clean"])
    for k in ("cocked", "off_tray", "missing"):
        out[f"{k}_caught"] = figure(*caught[k])
        out[f"{k}_with_that_reason"] = figure(with_reason[k], caught[k][1])
    out["silent_wrong"] = figure(silent, out["scenes"])
    if silent_cases:
        out["silent_wrong_cases"] = silent_cases[:20]
    out["false_rerolls_by_reason"] = dict(sorted(false_reroll.items())) or "none"
    if not_read:
        counts = sorted(not_read.elements())
        out["false_rerolls_dice_not_read"] = {"median": statistics.median(counts),
                                              "by_count": {str(k): v for k, v in sorted(not_read.items())}}
        out["false_rerolls_faces_read_ok_wrong"] = figure(kept_wrong, kept_ok)
    per_die = {"rendered_dice": dice, "scenes": len(results) - len(unrendered),
               "wrong_face_per_ok_die": figure(dice_wrong, dice_ok)}
    return out, per_die


# --------------------------------------------------------------------------- speed
def _timed(todo: list[Case]) -> dict[str, list[float]]:
    """CPU ms of `read` per frame, each scene read alone in this process after its calibration (cached),
    OpenCV on one thread: time.process_time counts every thread, so other load moves it little."""
    from vision.reader import read

    cv2.setNumThreads(1)
    out: dict[str, list[float]] = {"1280x960": [], "640x480": []}
    for c in todo:
        frame, empty, ref, _ = render_case(c)
        cal = calibrated(c, empty, ref)[0]
        read(frame, cal, c.n_dice)  # a first read (lazy loads: the model, the empty tray's copy)
        t0 = time.process_time()
        read(frame, cal, c.n_dice)
        out[f"{c.size[0]}x{c.size[1]}"].append((time.process_time() - t0) * 1000.0)
    return out


def net_inputs(todo: list[Case]) -> dict[str, list[list[tuple[int, int]]]]:
    """The (h, w) of every net input the calibrated path feeds the detector, per frame, by frame size."""
    from vision import detector as D
    from vision.reader import read

    seen: list[tuple[int, int]] = []
    real_run = D.Detector.run

    def run(self, gray):
        seen.append((int(gray.shape[0]), int(gray.shape[1])))
        return real_run(self, gray)

    out: dict[str, list[list[tuple[int, int]]]] = {"1280x960": [], "640x480": []}
    D.Detector.run = run
    try:
        for c in todo:
            frame, empty, ref, _ = render_case(c)
            cal = calibrated(c, empty, ref)[0]
            seen.clear()
            read(frame, cal, c.n_dice)
            out[f"{c.size[0]}x{c.size[1]}"].append(list(seen))
    finally:
        D.Detector.run = real_run
    return out


def speed(todo: list[Case], model: Path | None = None) -> dict:
    from vision import detector as D
    from vision.onnxcount import OnnxError, macs

    model = Path(model) if model is not None else D.MODEL
    ms = _timed(todo)
    by_size: dict[tuple[int, int], list[Case]] = {}
    for c in todo:
        by_size.setdefault(c.size, []).append(c)
    inputs = net_inputs([c for cs in by_size.values() for c in cs[: max(2, len(cs) // 4)]])
    out: dict = {"frames_timed": {k: len(v) for k, v in ms.items()}}
    for size, v in ms.items():
        out[f"median_ms_8_dice_{size}"] = round(statistics.median(v), 2) if v else None
    out["cpu"] = "one core: CPU time of read() after calibrating, one thread, model included"
    from vision.onnxnet import describe

    out["engine"] = describe()  # what ran the nets (vision.onnxnet)
    if model.is_file():
        out["model"] = model.name
        out["model_bytes"] = model.stat().st_size
        for size, frames in inputs.items():
            if not frames:
                continue
            runs = [len(f) for f in frames]
            out[f"net_runs_per_frame_{size}"] = statistics.median(runs)
            if not any(runs):
                out[f"net_macs_per_frame_{size}"] = 0
                continue
            try:
                per = [sum(macs(model, hw)["macs"] for hw in f) for f in frames]
            except OnnxError as e:
                out["macs_error"] = str(e)
                break
            out[f"net_macs_per_frame_{size}"] = int(statistics.median(per))
            out[f"net_input_{size}"] = "x".join(map(str, reversed(max((hw for f in frames for hw in f),
                                                                       key=lambda s: s[0] * s[1]))))
        try:
            out["net_macs_at_320x256"] = macs(model, (256, 320))["macs"]
            from vision import faces as F
            from vision.reader import faces_path, load_thresholds

            per_crop = macs(faces_path(model), (F.CROP, F.CROP))["macs"]
            out["face_net"] = faces_path(model).name
            out["face_net_bytes"] = faces_path(model).stat().st_size
            out["face_net_macs_per_crop"] = per_crop
            # the mirrored read (the thresholds beside the model say so) reads each die twice
            reads = 2 if load_thresholds(model.with_name("thresholds.json")).mirror else 1
            out["face_net_reads_per_die"] = reads
            out["face_net_macs_per_frame_8_dice"] = per_crop * 8 * reads
        except OnnxError as e:
            out["macs_error"] = str(e)
    else:
        out["model"] = f"missing: {model}"
    return out


# --------------------------------------------------------------------------- real photos
def _jsonl(p: Path) -> list[dict]:
    return [json.loads(line) for line in p.read_text().splitlines() if line.strip()]


def photo_records(root: Path, source: str) -> list[dict]:
    """The labelled photos of one source: {"path", "boxes"} (boxes [x1, y1, x2, y2, face or None], the
    labels' corrections applied: vision.photolabels; with
    "top_only" true when they cover the top face's pips only, not the die: webcam);
    for crops (and the fisheye crops, source "fisheye_crops") {"path", "face"}."""
    root = Path(root)
    out = []
    if source == "rune55":
        for sub in (root, root / "oblique"):
            if (sub / "labels.jsonl").exists():
                out += [{"path": str(sub / r["image"]), "boxes": fixed_boxes(source, r["image"], r["boxes"])}
                        for r in _jsonl(sub / "labels.jsonl")]
    elif source in ("webcam", "fisheye"):
        if (root / source / "labels.jsonl").exists():
            out = [{"path": str(root / source / r["image"]), "boxes": fixed_boxes(source, r["image"], r["boxes"]),
                    "top_only": source == "webcam"}
                   for r in _jsonl(root / source / "labels.jsonl")]
    elif source in ("crops", "fisheye_crops"):
        base = root / "crops" if source == "crops" else root / "fisheye" / "crops"
        for face_dir in sorted(base.glob("[1-6]")):
            out += [{"path": str(p), "face": int(face_dir.name)} for p in sorted(face_dir.iterdir())
                    if p.suffix.lower() in (".jpg", ".jpeg", ".png")]
    else:
        raise ValueError(f"unknown source {source!r}")
    return out


def die_boxes(boxes: list) -> list:
    """Top-face label boxes (webcam's: they hug the pips) grown to the whole die: a square of DIE_BOX
    top-face sides (the box's side times PIP_BOX of its face) about the box's centre. A box of unknown
    face is left as it is."""
    out = []
    for x1, y1, x2, y2, face in boxes:
        if face is not None:
            half = 0.5 * DIE_BOX * math.sqrt(max((x2 - x1) * (y2 - y1), 1.0)) * PIP_BOX[int(face)]
            cx, cy = 0.5 * (x1 + x2), 0.5 * (y1 + y2)
            x1, y1, x2, y2 = cx - half, cy - half, cx + half, cy + half
        out.append([x1, y1, x2, y2, face])
    return out


def scored_boxes(rec: dict) -> list:
    """The boxes a photo's dice are scored against (bench, thresholds): its label boxes, those of a
    source whose boxes hug a top face's pips (webcam: a one's box is its pip alone) grown to the
    whole die (die_boxes), so that a die's centre on its body is in its box and a die's width, not
    its pips', decides whether it is at least MIN_PX wide."""
    return die_boxes(rec["boxes"]) if rec.get("top_only") else rec["boxes"]


def extra_crops(root: Path, source: str) -> list[dict]:
    """The single-die crops that belong to a source with photos (fisheye's crops, cut from frames of
    its camera), read and left out with it; none for the others."""
    return photo_records(root, "fisheye_crops") if source == "fisheye" else []


def crop_in_border(img: np.ndarray, face: int) -> tuple[np.ndarray, list]:
    """A single-die crop set in its border (pad_crop) and the crop's die as a label box in it."""
    h, w = img.shape[:2]
    return pad_crop(img), [[w // 2, h // 2, w // 2 + w, h // 2 + h, face]]


def pad_crop(img: np.ndarray) -> np.ndarray:
    """A single-die crop set in a border of its median grey, half its size on each side."""
    h, w = img.shape[:2]
    fill = [float(v) for v in np.median(img.reshape(-1, img.shape[2] if img.ndim == 3 else 1), axis=0)]
    return cv2.copyMakeBorder(img, h // 2, h // 2, w // 2, w // 2, cv2.BORDER_CONSTANT, value=fill + [0] * (4 - len(fill)))


_LOADED: list[str] = []


def _use_model(path: str | None) -> None:
    """In a fresh worker process: every Detector made without a path (or with the committed one) loads
    `path` instead, and every face net the fold's face net (reader.faces_path of it); the paths loaded
    are kept in _LOADED."""
    cv2.setNumThreads(1)
    from vision import detector as D
    from vision import faces as F
    from vision.reader import faces_path

    real_det, real_faces = D.Detector.__init__, F.FaceNet.__init__
    default, default_faces = D.MODEL.resolve(), faces_path(D.MODEL).resolve()

    def init(self, p=None, threads=1):
        if path is not None and (p is None or Path(p).resolve() == default):
            p = path
        real_det(self, p, threads)
        _LOADED.append(str(self.path))

    def init_faces(self, p=None, **kw):
        if path is not None and (p is None or Path(p).resolve() == default_faces):
            p = faces_path(path)
        real_faces(self, p, **kw)
        _LOADED.append(str(self.path))

    D.Detector.__init__ = init  # (the thresholds stay the committed model's: the fold model stands for it)
    F.FaceNet.__init__ = init_faces


def _read_photo(rec: dict) -> dict:
    from vision.reader import FrameError, read

    img = cv2.imread(rec["path"], cv2.IMREAD_COLOR)
    if img is None:
        return {"error": f"{rec['path']}: not readable", "loaded": list(_LOADED)}
    if "face" in rec:
        img = pad_crop(img)
    try:
        r = read(img)
    except FrameError as e:
        return {"error": str(e), "loaded": list(_LOADED)}
    return {"dice": [{"value": d.value, "status": d.status, "center": [float(d.center[0]), float(d.center[1])]}
                     for d in r.dice], "shape": img.shape[:2], "loaded": list(_LOADED)}


def read_photos(recs: list[dict], model: str | None, workers: int) -> list[dict]:
    """_read_photo of each record in fresh (spawned) processes that load `model` (None: the committed one)."""
    import multiprocessing as mp

    with mp.get_context("spawn").Pool(max(1, min(workers, len(recs))), initializer=_use_model,
                                      initargs=(model,)) as p:
        return p.map(_read_photo, recs, chunksize=4)


def match_in_boxes(x: float, y: float, value: int, boxes: list, hit: set[int]) -> str:
    """What a die read `value` with its centre at (x, y) is against a photo's label boxes, as the bench
    counts it: "right" (in a box of that face not yet matched: the box is then in `hit`), "wrong_face"
    (in labelled boxes of other faces only), "double" (in a labelled box already matched), "ignored"
    (only in boxes under MIN_PX or of unknown face) or "unlabelled" (in no box)."""
    inside = [k for k, b in enumerate(boxes) if b[0] <= x <= b[2] and b[1] <= y <= b[3]]
    in_big = [k for k in inside if _labelled(boxes[k])]
    same = [k for k in in_big if boxes[k][4] == value and k not in hit]
    if same:
        hit.add(same[0])
        return "right"
    if in_big and any(boxes[k][4] != value for k in in_big):
        return "wrong_face"
    if in_big:  # a second die read in a box already matched
        return "double"
    return "ignored" if inside else "unlabelled"


def _labelled(b) -> bool:
    """A label box that counts: of known face and at least MIN_PX wide."""
    return b[4] is not None and min(b[2] - b[0], b[3] - b[1]) >= MIN_PX


def judge_photo(dice: list[dict], boxes: list) -> tuple[list[str], int]:
    """What each die read in one photo is against its label boxes (vision.bench.match_in_boxes of a
    die read ok, else "refused"), and how many boxes were matched."""
    hit: set[int] = set()
    what = [match_in_boxes(*d["center"], d["value"], boxes, hit) if d["status"] == "ok" and d["value"] is not None
            else "refused" for d in dice]
    return what, len(hit)


def score_photo(dice: list[dict], boxes: list) -> dict:
    """Per-die counts of one photo: right (ok, centre in an unmatched box of that face), wrong_face (ok,
    in a box of another face only), unlabelled (ok, in no box), ignored (ok, in a box under MIN_PX or of
    unknown face), refused (not ok); labelled (boxes of known face at least MIN_PX wide) and hit."""
    what, hit = judge_photo(dice, boxes)
    out = Counter(what)
    out["labelled"] = sum(_labelled(b) for b in boxes)
    out["hit"] = hit
    return dict(out)


MISREAD = ("wrong_face", "unlabelled", "double")  # a die passed ok that the labels do not bear out
SHEET_MAX = 120  # tiles on one sheet


def misread_tiles(rec: dict, dice: list[dict], shape: tuple[int, int]) -> list[np.ndarray]:
    """A sheet tile (vision.sheet) of each die of one photo (read at `shape`, as _read_photo gives it)
    that was passed ok and that its labels do not bear out (a wrong face, in no box, a second die in a
    box): the die's surroundings, what was read and the faces of the boxes it lies in. A single-die
    crop: its die when read ok with another face. The photo is loaded only when it has such a die."""
    from vision import sheet

    if "face" in rec:
        bad = [] if score_crop(dice, shape, rec["face"]) != "wrong" else [None]
    else:
        bad = [d for d, what in zip(dice, judge_photo(dice, scored_boxes(rec))[0]) if what in MISREAD]
    img = cv2.imread(rec["path"], cv2.IMREAD_COLOR) if bad else None
    if img is None:
        return []
    name = Path(rec["path"]).stem[:14]
    if "face" in rec:
        read = [d["value"] for d in dice if d["status"] == "ok"]
        return [sheet.tile(pad_crop(img), f"{name}: read {read} / label {rec['face']}")]
    boxes = scored_boxes(rec)
    out = []
    for d in bad:
        x, y = d["center"]
        inside = [b for b in boxes if b[0] <= x <= b[2] and b[1] <= y <= b[3] and _labelled(b)]
        side = max((max(b[2] - b[0], b[3] - b[1]) for b in inside), default=min(img.shape[:2]) / 8)
        crop = sheet.around(img, x, y, 0.9 * side).copy()
        r = crop.shape[0] / 2
        cv2.circle(crop, (int(r), int(r)), max(2, int(r / 20)), (0, 0, 255), -1)
        labels = ",".join(str(b[4]) for b in inside) or "no box"
        out.append(sheet.tile(crop, f"{name}: read {d['value']} / label {labels}"))
    return out


def score_crop(dice: list[dict], shape: tuple[int, int], face: int) -> str:
    """"right", "wrong" or "refused": the die read nearest the padded crop's centre (within a quarter of
    the padded picture's shorter side), ok with the crop's face or another, or none ok there."""
    h, w = shape
    near = [d for d in dice if math.dist(d["center"], (w / 2, h / 2)) <= 0.25 * min(h, w)]
    if not near:
        return "refused"
    d = min(near, key=lambda d: math.dist(d["center"], (w / 2, h / 2)))
    if d["status"] != "ok" or d["value"] is None:
        return "refused"
    return "right" if d["value"] == face else "wrong"


def fold_model(source: str, models: Path | None) -> tuple[str | None, str]:
    """(model path or None for the committed one, a note on what it was trained on)."""
    if models is not None:
        p = Path(models) / f"without-{source}.onnx"
        if p.is_file():
            return str(p), f"fold model {p.name}: trained without {source}"
        for q in sorted(Path(models).glob("without-*.onnx")):  # a fold that left out several sources
            if q.name.endswith(".faces.onnx"):
                continue
            try:
                left = json.loads(q.with_suffix(".train.json").read_text()).get("leave_out") or ""
            except (OSError, ValueError, AttributeError):
                continue
            if source in str(left).split(","):
                return str(q), f"fold model {q.name}: trained without {left}"
    where = f"no {Path(models) / f'without-{source}.onnx'}" if models is not None else "no --models DIR"
    return None, f"TRAINED ON THIS SOURCE ({where}): the committed model saw these photos, figures are optimistic"


def photos(data: Path, models: Path | None, quick: bool, pictures: Path | None = None) -> dict:
    """Section 1: each real source read with its fold model; section 3's real half. With `pictures`,
    each source's dice passed ok that its labels do not bear out on PICTURES/vision-SOURCE-misread.png."""
    from vision import sheet
    from vision.reader import faces_path

    out: dict = {"data": str(data), "min_px": MIN_PX}
    fold_tot = Counter()
    for source in SOURCES:
        recs = photo_records(data, source)
        extra = extra_crops(data, source)
        if quick:
            recs, extra = recs[::max(1, len(recs) // 8)], extra[::max(1, len(extra) // 8)]
        if not recs and not extra:
            out[source] = {"skipped": f"no labelled photos of {source} in {data}"}
            continue
        model, note = fold_model(source, models)
        t0 = time.perf_counter()
        got = read_photos(recs + extra, model, jobs())
        sec: dict = {"model": note}
        loaded = sorted({p for g in got for p in g.get("loaded", [])})
        fold_files = set() if model is None else {Path(model).resolve(), faces_path(model).resolve()}
        if model is not None and loaded and any(Path(p).resolve() not in fold_files for p in loaded):
            sec["model_warning"] = f"the reader loaded {loaded}, not the fold model"
        if not loaded:
            sec["model_warning"] = "the reader loaded no detector model in these reads"
        errors = [g["error"] for g in got if "error" in g]
        if errors:
            sec["errors"] = {"count": len(errors), "first": errors[0]}
        whole = [(r, g) for r, g in zip(recs, got) if "boxes" in r]
        crops = [(r, g) for r, g in zip(recs + extra, got) if "face" in r]
        if whole:
            tot = Counter()
            exact = 0
            for r, g in whole:
                if "error" in g:
                    tot["labelled"] += sum(map(_labelled, scored_boxes(r)))
                    continue
                tot.update(score_photo(g["dice"], scored_boxes(r)))
                labels = sorted(b[4] for b in r["boxes"] if b[4] is not None)
                if all(b[4] is not None for b in r["boxes"]):
                    exact += int(sorted(d["value"] for d in g["dice"] if d["status"] == "ok"
                                        and d["value"] is not None) == labels)
            claims = tot["right"] + tot["wrong_face"] + tot["unlabelled"] + tot["double"]
            sec["photos"] = len(whole)
            sec["precision"] = figure(tot["right"], claims)
            sec["recall"] = figure(tot["hit"], tot["labelled"])
            sec["exact_photos"] = figure(exact, len(whole))
            sec["wrong_face_per_ok_die"] = figure(tot["wrong_face"], tot["right"] + tot["wrong_face"])
            sec["ok_dice_in_no_box"] = tot["unlabelled"]
            sec["refused_dice"] = tot["refused"]
            if model is not None:
                fold_tot["wrong"] += tot["wrong_face"]
                fold_tot["ok"] += tot["right"] + tot["wrong_face"]
        if crops:
            res = Counter(score_crop(g["dice"], tuple(g["shape"]), r["face"]) if "error" not in g else "refused"
                          for r, g in crops)
            key = "crops" if source == "crops" else "fisheye_crops"
            sec[key] = {"face_accuracy": figure(res["right"], len(crops)),
                        "wrong_face_per_ok_die": figure(res["wrong"], res["right"] + res["wrong"]),
                        "refused": res["refused"]}
            if model is not None:
                fold_tot["wrong"] += res["wrong"]
                fold_tot["ok"] += res["right"] + res["wrong"]
        if pictures is not None:
            tiles = [t for r, g in zip(recs + extra, got) if "error" not in g for t in misread_tiles(r, g["dice"], tuple(g["shape"]))]
            written = sheet.write(Path(pictures) / f"vision-{source}-misread.png", tiles[:SHEET_MAX])
            sec["misread_picture"] = str(written) if written else "none: every die passed ok is borne out"
        sec["seconds"] = round(time.perf_counter() - t0, 1)
        out[source] = sec
    out["fold_models_wrong_face_per_ok_die"] = figure(fold_tot["wrong"], fold_tot["ok"]) if fold_tot["ok"] else \
        "no fold model given (--models DIR): no real figure from photos the model did not see"
    return out


# --------------------------------------------------------------------------- the section
def photo_folder(data: str | os.PathLike | None) -> tuple[Path | None, str]:
    """The real photo folder (--data, else $YATZYCAM_PHOTOS) or None with the reason."""
    given = data if data is not None else os.environ.get("YATZYCAM_PHOTOS") or None
    if given is None:
        return None, "skipped: no photo folder given (--data DIR or YATZYCAM_PHOTOS)"
    p = Path(given)
    if not p.is_dir():
        return None, f"skipped: {p} is not a folder"
    if not any(photo_records(p, s) for s in SOURCES):
        return None, f"skipped: {p} holds no labelled photos in the dice-photos layout"
    return p, ""


def bench(quick: bool, data: str | os.PathLike | None = None, models: str | os.PathLike | None = None,
          pictures: str | os.PathLike | None = None, dice: int | None = None) -> dict:
    cv2.setNumThreads(1)  # one core, as asked
    t0 = time.perf_counter()
    out: dict = {}
    folder, why = photo_folder(data)
    if models is not None and not Path(models).is_dir():
        out["models_warning"] = f"{models} is not a folder: the committed model reads every source"
        models = None
    if folder is None:
        out["real_photos_leave_one_source_out"] = why
    else:
        out["real_photos_leave_one_source_out"] = photos(folder, Path(models) if models else None, quick,
                                                            Path(pictures) if pictures else None)
    n = QUICK_SCENES if quick else FULL_SCENES
    scenes, per_die = _scenes(n, dice if dice is not None else (0 if quick else MIN_OK_DICE))
    out["renders_outside_training"] = scenes
    out["wrong_face_per_die"] = {"renders": per_die}
    real = out["real_photos_leave_one_source_out"]
    out["wrong_face_per_die"]["real_folds"] = real.get("fold_models_wrong_face_per_ok_die") if isinstance(real, dict) else real
    eights = [c for c in cases(n) if c.n_dice == 8]
    k = 3 if quick else SPEED_FRAMES
    todo = [c for c in eights if c.size[0] == 1280][:k] + [c for c in eights if c.size[0] == 640][:k]
    out["speed"] = speed(todo)
    out["seconds"] = round(time.perf_counter() - t0, 1)
    return out


def main(argv: list[str]) -> int:
    """`python -m vision.bench --render N [--start K] [--step S]`: fill the render cache;
    `python -m vision.bench --own SEED0 [--cases N]`: read a development set (see `own`)."""
    try:
        if "--own" in argv:
            n = int(argv[argv.index("--cases") + 1]) if "--cases" in argv else FULL_SCENES
            seed0 = int(argv[argv.index("--own") + 1])
            return own(seed0, n)
        n = int(argv[argv.index("--render") + 1]) if "--render" in argv else FULL_SCENES
        start = int(argv[argv.index("--start") + 1]) if "--start" in argv else 0
        step = int(argv[argv.index("--step") + 1]) if "--step" in argv else 1
    except (IndexError, ValueError):
        print("vision.bench: usage: python -m vision.bench --own SEED0 [--cases N] | --render N [--start K] "
              "[--step S] (whole numbers)", file=sys.stderr)
        return 2
    if "--own" not in argv and step < 1:
        print("vision.bench: --step must be at least 1", file=sys.stderr)
        return 2
    cv2.setNumThreads(1)
    for c in cases(n)[start::step]:
        try:
            render_case(c)
        except RuntimeError as e:  # the renderer could not lay this seed out (the bench leaves it out)
            print(f"case {c.index} (seed {c.seed}): not rendered ({e})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
