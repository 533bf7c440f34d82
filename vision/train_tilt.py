"""Train vision.tilt's flat-or-cocked model on rendered scenes (vision.synthetic).

    python -m vision.train_tilt --render-only                # fill the render cache (optional)
    python -m vision.train_tilt --out vision/tilt_model.npz  # train: 3200 mixed + 3000 all-cocked + ~2180
                                                             # hard all-cocked scenes, 1200 more for validation
                                                             # (~9 min of renders in two processes, then
                                                             # ~5 min of samples and ~8 of training six
                                                             # networks on a 2-core machine; networks
                                                             # trained again differ in the last bits of
                                                             # their sums, so a re-run gives a model as
                                                             # good, not the same one)
    python -m vision.train_tilt --evaluate --scenes 700      # held-out figures of the committed model

Scenes come from seeds >= 1_000_000 only (the vision bench uses 1000-2999):
- TRAIN_SEED + i, COCKED_SEED + i and the hard ones among HARD_SEED + i (i < --hard-scenes):
  training, except the last VAL_SHARE of the TRAIN_SEED scenes, which with VAL_SEED + i
  (i < --val-scenes) pick the threshold and are never fitted on;
- HELDOUT_SEED + i: held-out renders, used only by --evaluate;
- tests/vision/test_tilt.py uses TEST_SEED + i.
Scene i has size SIZES[i % 2], DICE[(i // 2) % 3] dice, and is "cocked" with probability
COCKED_SHARE (else "clean"); COCKED_SEED + i and HARD_SEED + i are all "cocked", and of the
HARD_SEED candidates only those with a cocked die of the kinds the model found hardest are kept
(`is_hard`: leaning within 70 degrees of the direction to the camera's nadir, where the sliver of
side face a flat die shows there disappears, or leaning less than 20 degrees); those dice, in
every training scene, also weigh --hard-weight (3) times as much in the loss. The cocked dice of
the COCKED_SEED scenes give one more cocked sample each for their upturned side face (side_meta:
the face on the side away from the lean, when it faces the camera enough that the reader could
take its pips for a top face, as it does now and then), centred on that face. Every die
whose truth status is "ok" (flat) or "cocked" is a sample; its centre is the truth top-face centre
jittered by 4% of the die (the reader's error), its angle the top face's projected edge direction
plus 2 degrees of noise (None for a one, as the reader gives, and for 15% of the others), its
die_px off by 2%; each die's neighbour map marks the scene's other dice (their truth top-face
centres, jittered the same way; for an upturned side face not its own die's top face, within
NEAR_SIDE, which the reader taking the side face for a die does not find as well), and flat dice
with another die within NEAR_WEIGHTED die sides weigh --near-weight (2) times as much in the loss
(the model without the map called such dice cocked); each die's floor map marks the scene's tray
floor (its polygon shifted by FLOOR_NOISE of a die, per scene, as the calibration's is off); each
training patch is also used mirrored. The printed threshold goes into
tilt.THRESHOLD (it is stored in the model too; a test checks they agree).

Renders are cached under /tmp/yatzycam-tilt/ (frame PNG + meta JSON per seed, SEED.side.json the
side faces; an empty SEED.easy marks a HARD_SEED candidate that is not hard).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from pathlib import Path

import cv2
import numpy as np

from vision import synthetic as S
from vision import tilt as T

CACHE = Path(os.environ.get("YATZYCAM_TILT_CACHE", "/tmp/yatzycam-tilt"))
TRAIN_SEED = 1_000_000
COCKED_SEED = 1_500_000  # extra training scenes, all "cocked" (cocked dice are 1-2 of 5-8 in a scene)
HARD_SEED = 1_700_000  # candidate all-cocked scenes; only the hard kinds are kept (see is_hard)
HARD_CANDIDATES = 7000
VAL_SEED = 1_900_000  # extra validation scenes (mixed, like TRAIN_SEED's): they only pick the threshold
HELDOUT_SEED = 2_000_000
TEST_SEED = 3_000_000
SIZES = ((1280, 960), (640, 480))
DICE = (5, 6, 8)
COCKED_SHARE = 0.6
VAL_SHARE = 0.2
NEAR_SIDE = 0.9  # an upturned side face's own die's top face lies within this many die sides of it
NEAR_WEIGHTED = 1.4  # flat dice with another die this close (centre to centre, in die sides) weigh --near-weight
FLOOR_NOISE = 0.03  # the calibration's floor edge lies within ~0.05 die of the truth's (own seeds 22,000,000 up)
SIDE_MIN_VIEW = 0.45  # side faces of cocked dice facing the camera at least this much are trained on (side_meta)


# --------------------------------------------------------------------------- scenes
def make_scene(seed: int, i: int) -> S.Scene:
    rng = np.random.default_rng(seed)
    share = 1.0 if COCKED_SEED <= seed < VAL_SEED else COCKED_SHARE
    cond = "cocked" if rng.random() < share else "clean"
    return S.random_scene(rng, DICE[(i // 2) % 3], SIZES[i % 2], cond)


def lean_to_nadir(d: S.DieSpec, nadir) -> float:
    """The angle (degrees, -180..180) between where a die leans and the direction to the nadir."""
    phi = math.degrees(math.atan2(nadir[1] - d.center[1], nadir[0] - d.center[0]))
    return (d.tilt_dir_deg - phi + 180.0) % 360.0 - 180.0


def is_hard(scene: S.Scene) -> bool:
    """A scene with a cocked die of the kinds the model misses most: leaning (within 70 degrees)
    towards the nadir, where the sliver of side face a flat die shows disappears instead of
    another one showing, or leaning only a little (< 20 degrees)."""
    return any(d.tilt_deg > S.COCKED_DEG and (abs(lean_to_nadir(d, scene.center)) < 70.0 or d.tilt_deg < 20.0)
               for d in scene.dice)


def hard_seeds(n: int) -> list[tuple[int, int]]:
    """The hard scenes among candidates HARD_SEED + i, i < n (decided once, remembered in CACHE)."""
    out = []
    CACHE.mkdir(parents=True, exist_ok=True)
    for i in range(n):
        seed = HARD_SEED + i
        if (CACHE / f"{seed}.json").exists():
            out.append((seed, i))
        elif not (CACHE / f"{seed}.easy").exists():
            if is_hard(make_scene(seed, i)):
                out.append((seed, i))
            else:
                (CACHE / f"{seed}.easy").touch()
    return out


def face_px(scene: S.Scene) -> float:
    """A flat die's top face side in frame pixels: the edge seen at height size (z = s)."""
    s = scene.die_size
    return s * scene.camera_height / (scene.camera_height - s)


def die_meta(scene: S.Scene) -> list[dict]:
    tr = S.truth(scene)
    out = []
    for d, t in zip(scene.dice, tr.dice):
        p = S.die_pose(d)
        ups = np.concatenate([p.rotation[2], -p.rotation[2]])
        j = int(np.argmax(ups))
        k, sgn = j % 3, (1.0 if j < 3 else -1.0)
        c3 = p.position + p.rotation[:, k] * sgn * p.half
        e3 = c3 + p.rotation[:, (k + 1) % 3] * p.half  # towards the middle of one edge of the top face
        c2, e2 = scene.project(np.array([c3, e3]))
        ang = math.atan2(e2[1] - c2[1], e2[0] - c2[0])
        out.append({"status": t.status, "center": list(t.center), "face": t.face, "tilt": d.tilt_deg,
                    "tilt_dir": d.tilt_dir_deg, "angle": ang, "where": d.where, "style": d.style})
    return out


def side_meta(scene: S.Scene, min_view: float = SIDE_MIN_VIEW) -> list[dict]:
    """The side faces of the scene's cocked dice that turn up towards the camera (the face on the
    side away from where the die leans, tilted up by its lean) and face it enough (the cosine
    between the face's normal and the ray to the camera >= min_view) that the reader could take
    its pips for a top face: centre and edge direction in image pixels, the face's value."""
    cam = np.array([scene.center[0], scene.center[1], scene.camera_height])
    out = []
    for d in scene.dice:
        if d.tilt_deg <= S.COCKED_DEG or d.where == "off":
            continue
        p = S.die_pose(d)
        top = int(np.argmax(np.concatenate([p.rotation[2], -p.rotation[2]])))
        for j in range(6):
            k, sgn = j % 3, (1.0 if j < 3 else -1.0)
            n = p.rotation[:, k] * sgn
            if j == top or n[2] < 0.2:  # the top face, or a face turned down or hardly up
                continue
            c3 = p.position + n * p.half
            ray = cam - c3
            view = float(n @ ray) / float(np.linalg.norm(ray))
            if view < min_view:
                continue
            e3 = c3 + p.rotation[:, (k + 1) % 3] * p.half
            c2, e2 = scene.project(np.array([c3, e3]))
            out.append({"center": [float(c2[0]), float(c2[1])], "angle": math.atan2(e2[1] - c2[1], e2[0] - c2[0]),
                        "face": S.FACE_VALUES[2 * k + (sgn < 0)], "view": view, "tilt": d.tilt_deg})
    return out


def cached_sides(seed: int, i: int) -> list[dict]:
    """side_meta of scene (seed, i), worked out once and kept in CACHE (SEED.side.json)."""
    js = CACHE / f"{seed}.side.json"
    if js.exists():
        return json.loads(js.read_text())
    out = side_meta(make_scene(seed, i))
    CACHE.mkdir(parents=True, exist_ok=True)
    js.write_text(json.dumps(out))
    return out


def cached_floor(seed: int, i: int, meta: dict) -> list[list[float]]:
    """The tray floor's polygon (frame pixels) of scene (seed, i): from its meta, or worked out
    from the scene (renders cached before the floor map was a feature lack it) and kept there."""
    if "floor" not in meta:
        meta["floor"] = [list(map(float, p)) for p in make_scene(seed, i).tray.floor]
        (CACHE / f"{seed}.json").write_text(json.dumps(meta))
    return meta["floor"]


def cached(seed: int, i: int) -> tuple[np.ndarray, dict]:
    """The frame and its meta for scene (seed, i), rendered once and kept in CACHE."""
    if seed < 1_000_000:
        raise ValueError(f"seed {seed}: training and measuring use seeds >= 1_000_000 (the bench has 1000-2999)")
    CACHE.mkdir(parents=True, exist_ok=True)
    png, js = CACHE / f"{seed}.png", CACHE / f"{seed}.json"
    if png.exists() and js.exists():
        img = cv2.imread(str(png), cv2.IMREAD_COLOR)
        if img is not None:
            return img, json.loads(js.read_text())
    sc = make_scene(seed, i)
    img = S.render(sc)
    meta = {"seed": seed, "size": list(sc.size), "nadir": list(sc.center), "die_size": sc.die_size,
            "camera_height": sc.camera_height, "face_px": face_px(sc), "condition": sc.condition,
            "dice": die_meta(sc), "floor": [list(map(float, p)) for p in sc.tray.floor]}
    cv2.imwrite(str(png), img, [cv2.IMWRITE_PNG_COMPRESSION, 1])
    js.write_text(json.dumps(meta))
    return img, meta


# --------------------------------------------------------------------------- samples
def samples(seeds_i, rng: np.random.Generator, jitters: int = 1, jitter: float = 0.04,
            angle_noise_deg: float = 2.0, no_angle: float = 0.0, scale_noise: float = 0.0, log: bool = True,
            sides: set[int] | None = None, floor_noise: float = FLOOR_NOISE):
    """Patches, geometry, labels (1 = cocked) and info dicts for every flat / cocked die of the
    scenes. no_angle: the share of 2-6 dice given no yaw (the patch's own estimate is used).
    sides: seeds whose cocked dice's upturned side faces (side_meta) are samples too (cocked,
    centred on that face, with its edge direction). floor_noise: the tray floor given to the floor
    map is shifted by this share of a die (normal, per scene), as the calibration's floor is off."""
    P, G, y, info = [], [], [], []
    t0 = time.time()
    for n, (seed, i) in enumerate(seeds_i):
        img, meta = cached(seed, i)
        die = meta["face_px"]
        cs, angs, labs, inf, nb = [], [], [], [], []
        todo = list(meta["dice"])
        if sides is not None and seed in sides and meta["condition"] == "cocked":
            todo += [{"status": "cocked", "side": True, "tilt_dir": 0.0, "style": "", "where": "tray", **f}
                     for f in cached_sides(seed, i)]
        for d in todo:
            if d["status"] not in ("ok", "cocked"):
                continue
            for _ in range(jitters):
                c = np.array(d["center"]) + rng.normal(0.0, jitter * die, 2)
                cs.append((float(c[0]), float(c[1])))
                # the other dice as the reader finds them (their top faces, jittered the same way);
                # for an upturned side face not its own die's top face, which the reader, taking
                # the side face for a die, does not find as well
                away = (NEAR_SIDE if d.get("side") else T.NEAR_SKIP) * die
                nb.append([tuple(np.array(e["center"]) + rng.normal(0.0, jitter * die, 2)) for e in meta["dice"]
                           if math.dist(e["center"], d["center"]) > away])
                a = d["angle"] + math.radians(rng.normal(0.0, angle_noise_deg))
                if d["face"] == 1 or rng.random() < no_angle:
                    a = None
                angs.append(a)
                labs.append(1 if d["status"] == "cocked" else 0)
                nx, ny = meta["nadir"]
                rel = (d["tilt_dir"] - math.degrees(math.atan2(ny - c[1], nx - c[0])) + 180.0) % 360.0 - 180.0
                inf.append({"seed": seed, "size": meta["size"][0], "tilt": d["tilt"], "face": d["face"],
                            "style": d["style"], "where": d["where"], "center": c.tolist(),
                            "side": d.get("side", False), "near": bool(nb[-1]) and min(
                                math.dist(e, c) for e in nb[-1]) < NEAR_WEIGHTED * die,
                            "hard": d["status"] == "cocked" and not d.get("side") and (abs(rel) < 70.0 or d["tilt"] < 20.0)})
        if not cs:
            continue
        floor = np.asarray(cached_floor(seed, i, meta)) + rng.normal(0.0, floor_noise * die, 2)
        p, g = T.patches(img, cs, die * (1.0 + scale_noise * float(rng.standard_normal())),
                         tuple(meta["nadir"]), angs, nb, floor)
        P.append(p)
        G.append(g)
        y.extend(labs)
        info.extend(inf)
        if log and (n + 1) % 100 == 0:
            print(f"  {n + 1} scenes, {len(y)} samples, {time.time() - t0:.0f} s", file=sys.stderr, flush=True)
    return np.concatenate(P), np.concatenate(G), np.array(y, np.int64), info


# --------------------------------------------------------------------------- model
def train_mlp(X: np.ndarray, y: np.ndarray, hidden: int = 48, epochs: int = 60, lr: float = 2e-3,
              l2: float = 1e-4, seed: int = 0, pos_weight: float = 1.0, log: bool = True,
              weights: np.ndarray | None = None) -> dict:
    """A one-hidden-layer MLP (tanh) trained with Adam on the (weighted) logistic loss; plain numpy."""
    rng = np.random.default_rng(seed)
    mu = X.mean(axis=0)
    sd = X.std(axis=0) + 1e-6
    Z = ((X - mu) / sd).astype(np.float32)
    n, f = Z.shape
    params = {"W1": (rng.normal(0, 1.0 / math.sqrt(f), (f, hidden))).astype(np.float32),
              "b1": np.zeros(hidden, np.float32),
              "W2": (rng.normal(0, 1.0 / math.sqrt(hidden), (hidden,))).astype(np.float32),
              "b2": np.zeros((), np.float32)}
    m = {k: np.zeros_like(v) for k, v in params.items()}
    v = {k: np.zeros_like(v) for k, v in params.items()}
    w = np.where(y == 1, pos_weight, 1.0).astype(np.float32)
    if weights is not None:
        w *= weights.astype(np.float32)
    w /= w.mean()
    step = 0
    batch = 256
    for ep in range(epochs):
        order = rng.permutation(n)
        lr_ep = lr * (0.5 * (1 + math.cos(math.pi * ep / epochs)))
        tot = 0.0
        for b0 in range(0, n, batch):
            idx = order[b0:b0 + batch]
            xb, yb, wb = Z[idx], y[idx].astype(np.float32), w[idx]
            h = np.tanh(xb @ params["W1"] + params["b1"])
            z = h @ params["W2"] + params["b2"]
            p = 1.0 / (1.0 + np.exp(-z))
            tot += float(np.sum(wb * (np.logaddexp(0, z) - yb * z)))
            gz = wb * (p - yb) / len(idx)
            g = {"W2": h.T @ gz + l2 * params["W2"], "b2": np.array(gz.sum(), np.float32)}
            gh = np.outer(gz, params["W2"]) * (1 - h * h)
            g["W1"] = xb.T @ gh + l2 * params["W1"]
            g["b1"] = gh.sum(axis=0)
            step += 1
            for k in params:
                m[k] = 0.9 * m[k] + 0.1 * g[k]
                v[k] = 0.999 * v[k] + 0.001 * g[k] * g[k]
                mh = m[k] / (1 - 0.9 ** step)
                vh = v[k] / (1 - 0.999 ** step)
                params[k] = (params[k] - lr_ep * mh / (np.sqrt(vh) + 1e-8)).astype(np.float32)
        if log and (ep % 10 == 9 or ep == epochs - 1):
            print(f"  epoch {ep + 1}: loss {tot / n:.4f}", file=sys.stderr, flush=True)
    return {"mu": mu.astype(np.float32), "sd": sd.astype(np.float32), **params}


def rates(p: np.ndarray, y: np.ndarray, thr: float) -> tuple[int, int, int, int]:
    """(false-cocked count, flat count, missed count, cocked count)."""
    flat, ck = y == 0, y == 1
    return int(np.sum(p[flat] >= thr)), int(flat.sum()), int(np.sum(p[ck] < thr)), int(ck.sum())


def report(p: np.ndarray, y: np.ndarray, info: list[dict], thr: float, title: str) -> None:
    print(f"{title} at threshold {thr:.3f}:")
    sizes = np.array([d["size"] for d in info])
    for name, sel in (("all", np.ones(len(y), bool)), ("1280x960", sizes == 1280), ("640x480", sizes == 640)):
        fc, nf, miss, nc = rates(p[sel], y[sel], thr)
        print(f"  {name:9s} flat called cocked {fc}/{nf} = {100 * fc / max(nf, 1):.3f}%   "
              f"cocked missed {miss}/{nc} = {100 * miss / max(nc, 1):.2f}%")


def describe(P: np.ndarray, G: np.ndarray, chunk: int = 8192) -> np.ndarray:
    """tilt.describe in chunks (its temporaries take ~100 KB per patch)."""
    return np.concatenate([T.describe(P[k:k + chunk], G[k:k + chunk]) for k in range(0, max(len(P), 1), chunk)])


def seed_list(base: int, n: int) -> list[tuple[int, int]]:
    return [(base + i, i) for i in range(n)]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m vision.train_tilt", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scenes", type=int, default=3200,
                    help="mixed scenes (seeds TRAIN_SEED + i; the last VAL_SHARE pick the threshold), "
                         "or with --evaluate the held-out scenes")
    ap.add_argument("--cocked-scenes", type=int, default=3000, help="extra all-cocked training scenes (COCKED_SEED + i)")
    ap.add_argument("--hard-scenes", type=int, default=HARD_CANDIDATES,
                    help="candidate all-cocked scenes HARD_SEED + i whose hard ones (is_hard, ~30%%) are trained on too")
    ap.add_argument("--val-scenes", type=int, default=1200,
                    help="extra validation scenes VAL_SEED + i (with the last VAL_SHARE of --scenes: they pick the threshold)")
    ap.add_argument("--out", default=str(T.MODEL_PATH), help="model file (.npz)")
    ap.add_argument("--evaluate", action="store_true", help="measure the model at --out on held-out renders")
    ap.add_argument("--render-only", action="store_true", help="only fill the render cache (with --evaluate: held-out)")
    ap.add_argument("--jitters", type=int, default=3, help="jittered centres per training die")
    ap.add_argument("--hidden", type=int, default=64)
    ap.add_argument("--epochs", type=int, default=20)
    ap.add_argument("--ensemble", type=int, default=6, help="networks averaged")
    ap.add_argument("--hard-weight", type=float, default=3.0,
                    help="loss weight of the cocked dice of the hard kinds (leaning towards the nadir or < 20 degrees)")
    ap.add_argument("--near-weight", type=float, default=2.0,
                    help="loss weight of the flat dice with another die within NEAR_WEIGHTED die sides (the model's "
                         "false calls were mostly flat dice touching another)")
    ap.add_argument("--no-sides", dest="sides", action="store_false",
                    help="do not train on the upturned side faces of the COCKED_SEED scenes' cocked dice (side_meta)")
    a = ap.parse_args(argv)
    cv2.setNumThreads(1)
    if a.render_only:
        todo = seed_list(HELDOUT_SEED, a.scenes) if a.evaluate else \
            seed_list(TRAIN_SEED, a.scenes) + seed_list(COCKED_SEED, a.cocked_scenes) + hard_seeds(a.hard_scenes) + \
            seed_list(VAL_SEED, a.val_scenes)
        t0 = time.time()
        for n, (seed, i) in enumerate(todo):
            cached(seed, i)
            if a.sides and not a.evaluate and COCKED_SEED <= seed < COCKED_SEED + a.cocked_scenes:
                cached_sides(seed, i)
            if (n + 1) % 100 == 0:
                print(f"{n + 1}/{len(todo)} scenes {time.time() - t0:.0f} s", flush=True)
        return 0
    if a.evaluate:
        return evaluate(a.out, a.scenes)
    rng = np.random.default_rng(1)
    seeds = seed_list(TRAIN_SEED, a.scenes)
    n_val = int(round(VAL_SHARE * len(seeds)))
    tr = seeds[:-n_val] + seed_list(COCKED_SEED, a.cocked_scenes) + hard_seeds(a.hard_scenes)
    va = seeds[-n_val:] + seed_list(VAL_SEED, a.val_scenes)
    print(f"training scenes {len(tr)}, validation scenes {len(va)}", file=sys.stderr)
    sides = {seed for seed, _ in seed_list(COCKED_SEED, a.cocked_scenes)} if a.sides else None
    Pt, Gt, yt, it = samples(tr, rng, jitters=a.jitters, no_angle=0.15, scale_noise=0.02, sides=sides)
    wt = np.where([d["hard"] for d in it], a.hard_weight, 1.0)
    wt = np.where([d["near"] and y == 0 for d, y in zip(it, yt)], a.near_weight, wt)
    wt = np.concatenate([wt, wt])
    Pm, Gm = T.mirror(Pt, Gt)
    Xt = np.concatenate([describe(Pt, Gt), describe(Pm, Gm)])
    yt = np.concatenate([yt, yt])
    del Pt, Gt, Pm, Gm
    Pv, Gv, yv, iv = samples(va, np.random.default_rng(2), jitters=1)  # (its own draws: built apart, the same)
    Xv = describe(Pv, Gv)
    print(f"train {len(yt)} samples ({int(yt.sum())} cocked), val {len(yv)} ({int(yv.sum())} cocked)", file=sys.stderr)
    nets = [train_mlp(Xt, yt, hidden=a.hidden, epochs=a.epochs, seed=k, weights=wt) for k in range(a.ensemble)]
    model = {"mu": nets[0]["mu"], "sd": nets[0]["sd"]}
    for k in ("W1", "b1", "W2", "b2"):
        model[k] = np.stack([n[k] for n in nets]).astype(np.float32)
    model["W1"] = model["W1"].astype(np.float16).astype(np.float32)  # stored as float16 (half the file)
    pv = T.predict(model, Xv)
    thr = pick_threshold(pv, yv)
    model["threshold"] = np.float32(thr)
    model["version"] = np.int32(T.FEATURE_VERSION)
    np.savez_compressed(a.out, **{**model, "W1": model["W1"].astype(np.float16)})
    report(pv, yv, iv, thr, "validation")
    print(f"wrote {a.out} ({os.path.getsize(a.out) // 1024} KB); threshold {thr:.4f} (set tilt.THRESHOLD to it)")
    return 0


def evaluate(path: str, n: int) -> int:
    """Held-out figures: per-die rates at the model's threshold, by frame size, and the time per die."""
    model = T.load_model(path)
    T._model = model  # cocked_scores with this model (not necessarily the installed one)
    thr = float(model["threshold"])
    rng = np.random.default_rng(7)
    seeds = seed_list(HELDOUT_SEED, n)
    ps, ys, infos = [], [], []
    spent, dice = 0.0, 0
    for seed, i in seeds:
        img, meta = cached(seed, i)
        cs, angs = [], []
        for d in meta["dice"]:
            if d["status"] not in ("ok", "cocked"):
                continue
            c = np.array(d["center"]) + rng.normal(0.0, 0.04 * meta["face_px"], 2)
            cs.append((float(c[0]), float(c[1])))
            angs.append(None if d["face"] == 1 else d["angle"] + math.radians(rng.normal(0.0, 2.0)))
            ys.append(1 if d["status"] == "cocked" else 0)
            infos.append({"size": meta["size"][0], "seed": seed, "tilt": d["tilt"], "face": d["face"]})
        if not cs:
            continue
        t0 = time.process_time()
        ps.append(T.cocked_scores(img, cs, meta["face_px"], tuple(meta["nadir"]), angs,
                                  floor=cached_floor(seed, i, meta)))
        spent += time.process_time() - t0
        dice += len(cs)
    p, y = np.concatenate(ps), np.array(ys)
    report(p, y, infos, thr, f"held-out seeds {HELDOUT_SEED}..{HELDOUT_SEED + n - 1} ({n} scenes)")
    ones = np.array([d["face"] == 1 for d in infos])
    if ones.any():  # ones have no yaw from their pips and no lower cut: the reader's hardest face here
        fl, ck = np.sort(p[ones & (y == 0)])[::-1], np.sort(p[ones & (y == 1)])
        print(f"  ones: flat called cocked {int(np.sum(fl >= thr))}/{len(fl)}, cocked missed {int(np.sum(ck < thr))}/{len(ck)}; "
              f"highest flat {', '.join(f'{v:.3f}' for v in fl[:3])}; lowest cocked {', '.join(f'{v:.3f}' for v in ck[:3])}")
    for t in (0.5 * thr, thr, min(0.99, 1.5 * thr)):
        fc, nf, miss, nc = rates(p, y, t)
        print(f"  at {t:.3f}: false-cocked {fc}/{nf}, missed {miss}/{nc}")
    print(f"  cocked_scores: {1000 * spent / max(dice, 1):.3f} ms per die (CPU time, one thread, {dice} dice)")
    ps = []
    for seed, i in seeds:  # the upturned side faces of cocked dice, as the reader may take them for a top face
        img, meta = cached(seed, i)
        if meta["condition"] != "cocked":
            continue
        fs = cached_sides(seed, i)
        if fs:
            cs = [tuple(np.array(f["center"]) + rng.normal(0.0, 0.04 * meta["face_px"], 2)) for f in fs]
            angs = [None if f["face"] == 1 else f["angle"] + math.radians(rng.normal(0.0, 2.0)) for f in fs]
            ps.append(T.cocked_scores(img, cs, meta["face_px"], tuple(meta["nadir"]), angs,
                                      floor=cached_floor(seed, i, meta)))
    p = np.concatenate(ps) if ps else np.zeros(0)
    print(f"  side faces of cocked dice (facing the camera >= {SIDE_MIN_VIEW}) scored under {thr:.3f}: "
          f"{int(np.sum(p < thr))}/{len(p)}")
    return 0


def pick_threshold(p: np.ndarray, y: np.ndarray, max_false: float = 0.0005) -> float:
    """The lowest threshold whose false-cocked rate on flat validation dice stays <= max_false
    (with at least a small margin above the highest-scoring flat die when there are few)."""
    flat = np.sort(p[y == 0])[::-1]
    k = int(math.floor(max_false * len(flat)))
    thr = float(flat[k]) + 1e-6 if k < len(flat) else 0.5
    return float(min(max(thr, 0.05), 0.99))


if __name__ == "__main__":
    raise SystemExit(main())
