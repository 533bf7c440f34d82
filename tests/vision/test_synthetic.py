"""vision.synthetic: scenes, truth, rendering and the simulated table."""

from __future__ import annotations

import dataclasses
import itertools
import math

import cv2
import numpy as np
import pytest

from vision import synthetic as S


def _scene(seed: int, n: int = 5, condition: str = "clean", size=(640, 480), **kw) -> S.Scene:
    return S.random_scene(np.random.default_rng(seed), n, size=size, condition=condition, **kw)


def test_render_is_deterministic_per_scene():
    sc = _scene(1)
    a, b = S.render(sc), S.render(sc)
    assert a.shape == (480, 640, 3) and a.dtype == np.uint8
    assert np.array_equal(a, b)
    other = S.render(_scene(2))
    assert not np.array_equal(a, other)
    # the same rng seed gives the same scene
    assert _scene(1) == sc


@pytest.mark.parametrize("condition", S.CONDITIONS)
def test_truth_matches_condition(condition):
    for seed in range(4):
        n = (5, 6, 8)[seed % 3]
        sc = _scene(100 + seed, n, condition)
        tr = S.truth(sc)
        w, h = sc.size
        statuses = [d.status for d in tr.dice]
        assert tr.expected_n == n
        for d in tr.dice:
            assert 0 <= d.center[0] < w and 0 <= d.center[1] < h
            assert 1 <= d.face <= 6
            assert (d.value is None) == (d.status != "ok")
        assert tr.values == tuple(sorted(d.value for d in tr.dice if d.status == "ok"))
        assert (tr.verdict == "ok") == (tr.reasons == ())
        if condition == "clean":
            assert tr.verdict == "ok" and len(tr.dice) == n and set(statuses) == {"ok"}
            assert len(tr.values) == n
        elif condition == "cocked":
            assert tr.reasons == ("cocked",) and 1 <= statuses.count("cocked") <= 2
            assert all(d.tilt_deg > S.COCKED_DEG for d in sc.dice if d.tilt_deg > 5)
        elif condition == "off_tray":
            assert tr.reasons == ("off_tray",) and 1 <= statuses.count("off_tray") <= 2
        elif condition == "missing":
            assert tr.reasons == ("missing",) and len(tr.dice) == n - 1
        elif condition == "extra":
            assert tr.reasons == ("extra",) and len(tr.dice) == n + 1
        else:
            assert tr.verdict == "reroll" and tr.reasons == ("unreadable",)
        if condition == "blur":  # the camera shook (every die smeared) or one die was still rolling
            rolling = [i for i, d in enumerate(sc.dice) if d.motion is not None]
            if sc.motion is not None:
                assert set(statuses) == {"unreadable"} and not rolling
            else:
                assert len(rolling) == 1 and [i for i, s in enumerate(statuses) if s != "ok"] == rolling
        if condition == "glare":
            assert statuses.count("unreadable") >= 1


def test_dice_do_not_overlap_and_lie_where_they_say():
    for seed, condition in itertools.product(range(6), ("clean", "cocked", "off_tray")):
        sc = _scene(200 + seed, 8, condition, size=(1280, 960))
        fps = [S.footprint(d) for d in sc.dice]
        for p, q in itertools.combinations(fps, 2):
            assert S.overlap_depth(p, q) <= 0.5
        floor = np.array(sc.tray.floor)
        for d, fp in zip(sc.dice, fps):
            if d.where == "tray":
                assert np.all(S.inside_convex(floor, fp, -0.5)), d
            elif d.where == "off":
                assert not np.any(S.inside_convex(floor, fp, 0.5)), d
            elif d.where == "keep":
                assert np.all(S.inside_convex(np.array(sc.keep_zone), fp, 0.0))


def test_clean_scenes_have_touching_dice_and_dice_against_the_wall():
    touching = walled = 0
    for seed in range(12):
        sc = _scene(300 + seed, 8, "clean")
        fps = [S.footprint(d) for d in sc.dice]
        touching += sum(S.overlap_depth(p, q) > -1.5 for p, q in itertools.combinations(fps, 2))
        n, c = S._halfplanes(np.array(sc.tray.floor))
        for d, fp in zip(sc.dice, fps):
            if d.where == "tray" and np.max(fp @ n.T - c) > -1.5:
                walled += 1
    assert touching >= 5 and walled >= 5


def test_a_rolling_die_is_smeared_along_its_motion():
    base = _scene(11, 1, size=(640, 480), style="white", noise=0.0, blur=0.0, jpeg_quality=None, felt="green")
    still = S.DieSpec(5, base.center, 10.0, 40.0, "white")
    moving = S.replace(still, motion=S.Motion(40.0, 0.0))
    a = S.render(S.replace(base, dice=(still,))).astype(np.float32)
    b = S.render(S.replace(base, dice=(moving,))).astype(np.float32)
    assert S.truth(S.replace(base, dice=(moving,))).reasons == ("unreadable",)
    cx, cy = (int(v) for v in S.truth(S.replace(base, dice=(still,))).dice[0].center)
    row_a, row_b = a[cy, cx - 60:cx + 60].mean(axis=1), b[cy, cx - 60:cx + 60].mean(axis=1)
    # smeared sideways: brighter well beside the die, and the pips' contrast washed out
    beside = np.r_[60 - 38:60 - 24, 60 + 24:60 + 38]  # felt next to the still die, inside the smear
    assert row_b[beside].mean() > row_a[beside].mean() + 20
    col_a, col_b = a[cy - 12:cy + 12, cx].mean(axis=1), b[cy - 12:cy + 12, cx].mean(axis=1)
    assert np.ptp(col_b) < 0.6 * np.ptp(col_a)


def test_cocked_die_is_tilted_and_shows_a_foreshortened_top():
    sc = _scene(7, 6, "cocked")
    cocked = [d for d in sc.dice if d.tilt_deg > S.COCKED_DEG]
    assert cocked
    for d in cocked:
        p = S.die_pose(d)
        up = max(abs(p.rotation[2]))  # cosine between the top face's normal and straight up
        assert math.cos(math.radians(d.tilt_deg)) == pytest.approx(up, abs=1e-6)
        assert up < math.cos(math.radians(S.COCKED_DEG))
        # it rests on its surface: its lowest point (rounded) is at base_z
        corners = S.die_corners(d)
        assert corners[:, 2].min() < d.base_z + 0.3 * d.size_px


def test_top_face_is_the_value_for_flat_dice():
    for v in range(1, 7):
        for yaw in (0, 33, 200):
            d = S.DieSpec(v, (300.0, 200.0), yaw, 50.0)
            face, c = S.top_face(d)
            assert face == v
            assert c[:2] == pytest.approx((300.0, 200.0), abs=1e-6)
            assert c[2] == pytest.approx(50.0, abs=1e-6)


def _count_pips(img: np.ndarray, sc: S.Scene, d: S.DieSpec) -> int:
    """Real OpenCV on the rendered pixels: dark (or light) blobs on the die's flat top face."""
    c = S.truth(sc).dice[0].center
    r = int(0.5 * d.size_px)
    patch = img[int(c[1]) - r:int(c[1]) + r + 1, int(c[0]) - r:int(c[0]) + r + 1]
    grey = cv2.cvtColor(patch, cv2.COLOR_BGR2GRAY).astype(np.float32)
    face = np.zeros(grey.shape, np.uint8)  # the flat part of the top face
    half = d.size_px * (1 - 2 * S.STYLES[d.style].corner) - 2
    box = cv2.boxPoints(((c[0] - int(c[0]) + r, c[1] - int(c[1]) + r), (half, half), d.yaw_deg))
    cv2.fillConvexPoly(face, np.round(box).astype(np.int32), 1)
    face = face.astype(bool)
    if np.median(grey[face]) > 128:
        pips = (grey < 0.6 * np.median(grey[face])) & face
    else:
        pips = (grey > 1.6 * np.median(grey[face]) + 10) & face
    n, _, stats, _ = cv2.connectedComponentsWithStats(pips.astype(np.uint8))
    return len([s for s in stats[1:] if s[cv2.CC_STAT_AREA] > 15])


def _lone_die(style: str, **die) -> tuple[S.Scene, S.DieSpec]:
    base = _scene(11, 6, size=(1280, 960), style=style, noise=0.0, blur=0.0, jpeg_quality=None, felt="green")
    d = S.DieSpec(center=base.center, size_px=80.0, style=style, **die)
    return S.replace(base, dice=(d,)), d


@pytest.mark.parametrize("style", ["white", "black", "red", "white_red1"])
def test_rendered_pips_count_the_face(style):
    for v in range(1, 7):
        sc, d = _lone_die(style, value=v, yaw_deg=17.0 * v)
        assert _count_pips(S.render(sc), sc, d) == v, (style, v)


def test_odd_faces_are_not_die_faces_and_are_unreadable():
    for odd, blobs in (("blank", 0), ("seven", 7), ("cross", 1)):
        sc, d = _lone_die("white", value=3, yaw_deg=10.0, odd_top=odd)
        assert _count_pips(S.render(sc), sc, d) == blobs
        assert S.truth(sc).dice[0].status == "unreadable"


def test_render_empty_is_the_same_tray_without_dice():
    sc = _scene(21, 5, size=(640, 480))
    full, empty = S.render(sc), S.render_empty(sc)
    diff = np.abs(full.astype(np.int16) - empty.astype(np.int16)).max(axis=2)
    mask = np.ones(diff.shape, np.uint8)
    dice = np.zeros(diff.shape, np.uint8)
    for d in S.truth(sc).dice:
        cv2.circle(mask, (int(d.center[0]), int(d.center[1])), int(2.2 * sc.dice[0].size_px), 0, -1)
        cv2.circle(dice, (int(d.center[0]), int(d.center[1])), int(0.4 * sc.dice[0].size_px), 1, -1)
    mask, dice = mask.astype(bool), dice.astype(bool)
    assert diff[dice].mean() > 20  # the dice are there
    assert np.percentile(diff[mask], 99) <= 12  # and nothing else changed (JPEG blocks aside)


def test_reference_scene_dice_lie_flat_and_apart():
    sc = S.reference_scene(np.random.default_rng(5), 6, (1280, 960))
    assert len(sc.dice) == 6 and S.truth(sc).verdict == "ok"
    for a, b in itertools.combinations(sc.dice, 2):
        assert math.dist(a.center, b.center) > 2.0 * a.size_px
    assert all(d.tilt_deg == 0 and d.where == "tray" for d in sc.dice)


def test_reference_scene_like_a_scene_is_taken_on_the_same_table():
    sc = _scene(31, 6, "cocked", size=(640, 480))
    ref = S.reference_scene(np.random.default_rng(1), 6, like=sc)
    assert (ref.tray, ref.lighting, ref.camera_height, ref.size, ref.center) == (sc.tray, sc.lighting, sc.camera_height, sc.size, sc.center)
    assert {d.size_px for d in ref.dice} == {sc.die_size} and S.truth(ref).verdict == "ok"
    # handing over the tray alone keeps the camera too
    again = S.reference_scene(np.random.default_rng(1), 6, (640, 480), tray=sc.tray, lighting=sc.lighting)
    assert again.center == sc.center
    empty = S.empty_scene(sc)
    assert empty.dice == () and empty.die_size == sc.die_size and empty.tray == sc.tray
    table = S.SimTable(5, np.random.default_rng(2), size=(640, 480))
    assert table.reference_scene().tray == table.scene.tray == table.empty_scene().tray


def test_effects_added_to_a_scene_make_it_unreadable():
    sc = _scene(41, 5, "clean")
    for kind in ("hand", "glare", "blur"):
        x = S.with_effect(sc, np.random.default_rng(1), kind)
        assert x.dice == sc.dice and x.tray == sc.tray and x.condition == kind
        assert S.truth(x).reasons == ("unreadable",)
        assert not np.array_equal(S.render(x), S.render(sc))
    with pytest.raises(ValueError):
        S.with_effect(sc, np.random.default_rng(1), "rain")


def test_bench_scenes_follow_the_mix_and_alternate_sizes():
    scenes = list(S.bench_scenes(24, seed=3))
    assert [s.size for s in scenes[:4]] == [(1280, 960), (640, 480)] * 2
    assert {s.expected_n for s in scenes} == {5, 6, 8}
    conds = [s.condition for s in scenes]
    assert set(conds) <= set(S.BENCH_MIX) and conds.count("clean") > conds.count("missing")
    assert [s.seed for s in S.bench_scenes(5, seed=3)] == [s.seed for s in scenes[:5]]


def test_dice_and_rim_stand_out_from_the_felt():
    for seed in range(25):
        sc = S.random_scene(np.random.default_rng(seed), 5, (320, 240))
        for d in sc.dice:
            assert S.contrast(S.STYLES[d.style].body, sc.tray.felt_bgr), (d.style, sc.tray.felt)
        assert S.contrast(sc.tray.rim_bgr, sc.tray.felt_bgr, 60.0)


def test_overrides_are_checked():
    with pytest.raises(TypeError):
        _scene(1, bogus=3)
    with pytest.raises(ValueError):
        _scene(1, condition="sideways")
    with pytest.raises(ValueError):
        _scene(1, style="plaid")
    sc = _scene(1, 5, tray_shape="hex", felt="blue", style="black", keep_zone=False)
    assert sc.tray.shape == "hex" and sc.tray.felt == "blue" and {d.style for d in sc.dice} == {"black"}


def test_simtable_keeps_set_aside_dice_in_place():
    table = S.SimTable(6, np.random.default_rng(9), size=(640, 480), cocked_rate=0.0, off_rate=0.0)
    first = table.scene
    assert len(first.dice) == 6 and table.truth.verdict == "ok"
    keep = (1, 4)
    second = table.throw(keep)
    for k in keep:
        assert second.dice[k] == first.dice[k]
    moved = [i for i in range(6) if i not in keep and second.dice[i].center != first.dice[i].center]
    assert len(moved) == 4
    assert table.faces == tuple(S.top_face(d)[0] for d in second.dice)
    third = table.rethrow()
    for k in keep:
        assert third.dice[k] == first.dice[k]
    assert table.scene.size == (640, 480) and third.tray == first.tray


def test_simtable_with_keep_zone_moves_kept_dice_there():
    table = S.SimTable(5, np.random.default_rng(3), keep_zone=True, cocked_rate=0.0, off_rate=0.0)
    assert table.scene.keep_zone is not None
    before = table.faces
    sc = table.throw([0, 2])
    assert [sc.dice[i].where for i in (0, 2)] == ["keep", "keep"]
    assert (table.faces[0], table.faces[2]) == (before[0], before[2])
    again = table.throw([0, 2, 3])
    assert again.dice[0] == sc.dice[0] and again.dice[2] == sc.dice[2] and again.dice[3].where == "keep"
    assert S.truth(again).verdict == "ok"


def test_simtable_bad_throws_happen_at_their_rate():
    table = S.SimTable(5, np.random.default_rng(4), size=(640, 480), cocked_rate=0.3, off_rate=0.3)
    verdicts = [S.truth(table.throw()).reasons for _ in range(30)]
    assert sum(r == ("cocked",) for r in verdicts) >= 3
    assert sum(r == ("off_tray",) for r in verdicts) >= 3
    assert sum(r == () for r in verdicts) >= 3
    with pytest.raises(ValueError):
        table.throw([7])


def test_command_line_writes_scenes_and_truth(tmp_path):
    import json

    assert S.main(["--out", str(tmp_path), "-n", "3", "--dice", "5", "--size", "320x240", "--condition", "cocked", "--empty"]) == 0
    lines = [json.loads(x) for x in (tmp_path / "truth.jsonl").read_text().splitlines()]
    assert len(lines) == 3 and all(x["reasons"] == ["cocked"] for x in lines)
    img = cv2.imread(str(tmp_path / lines[0]["image"]))
    assert img.shape == (240, 320, 3)
    assert cv2.imread(str(tmp_path / "scene0000-empty.png")).shape == (240, 320, 3)
    with pytest.raises(SystemExit):
        S.main(["--out", str(tmp_path), "--size", "big"])
    out = tmp_path / "pool"
    assert S.main(["--out", str(out), "-n", "2", "--dice", "6", "--size", "320x240", "--pool", "holdout"]) == 0
    lines = [json.loads(x) for x in (out / "truth.jsonl").read_text().splitlines()]
    assert all(x["pool"] == "holdout" and len(x["labels"]) == len(x["dice"]) for x in lines)
    assert all(lb["family"] in S.DIE_FAMILIES["holdout"] and 0 <= lb["cls"] <= 6 for x in lines for lb in x["labels"])


def test_speed_reports_medians_with_their_sample_size():
    figs = S.speed(n=1, dice=5)
    assert figs["scenes_per_size"] == 1
    assert all(figs[k] > 0 for k in ("render_ms_1280x960", "render_ms_640x480", "generate_ms_640x480"))


# --------------------------------------------------------------------------- the train and holdout pools
from vision import synthetic_pools as P  # noqa: E402


def _pool_scene(seed: int, pool: str = "train", n: int = 5, condition: str = "clean", size=(640, 480), **kw) -> S.Scene:
    return S.random_scene(np.random.default_rng(seed), n, size, condition, pool=pool, **kw)


def _blank_diff_pips(sc: S.Scene, d: S.DieSpec) -> int:
    """Blobs where the die's top face differs from the same die with a blank top (real OpenCV on
    the rendered pixels: connected components of the difference)."""
    img = S.render(sc).astype(np.float32)
    blank = S.render(S.replace(sc, dice=(S.replace(d, odd_top="blank"),))).astype(np.float32)
    diff = np.sqrt(((img - blank) ** 2).sum(axis=2))
    pips = (diff > 12).astype(np.uint8)
    pips = cv2.morphologyEx(pips, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3)))
    _, _, stats, _ = cv2.connectedComponentsWithStats(pips)
    return len([s for s in stats[1:] if s[cv2.CC_STAT_AREA] > 20])


@pytest.mark.parametrize("family", S.DIE_FAMILIES["train"] + S.DIE_FAMILIES["holdout"])
def test_every_family_renders_the_six_faces(family):
    st = P.random_style(np.random.default_rng(len(family)), family)
    base = _pool_scene(11, "train", 1, size=(320, 240), style=st, noise=0.0, blur=0.0, jpeg_quality=None, felt="green",
                       camera=False, grey=False, flicker=0.0, lighting=S.Lighting())
    base = S.replace(base, shake=None)
    assert S.as_style(st).family == family
    for v in range(1, 7):
        d = S.DieSpec(v, base.center, 17.0 * v, 100.0, st)
        assert _blank_diff_pips(S.replace(base, dice=(d,)), d) == v, (family, v)


def test_pools_keep_their_styles_and_floors_apart():
    seen = {"train": (set(), set(), set()), "holdout": (set(), set(), set())}
    for pool in seen:
        rng = np.random.default_rng(5)
        for i in range(40):
            sc = S.random_scene(rng, (5, 6, 8)[i % 3], ((1280, 960), (640, 480))[i % 2], S.random_condition(rng), pool=pool)
            fam, floors, tables = seen[pool]
            fam.update(S.style_of(d).family for d in sc.dice)
            floors.add(sc.tray.floor_look.kind)
            tables.add(sc.tray.table_look.kind)
            assert sc.pool == pool
    (tf, tfl, tt), (hf, hfl, ht) = seen["train"], seen["holdout"]
    assert tf <= set(S.DIE_FAMILIES["train"]) and len(tf) >= 5
    assert hf == set(S.DIE_FAMILIES["holdout"])
    assert tfl == set(S.FLOOR_KINDS["train"]) and hfl == set(S.FLOOR_KINDS["holdout"])
    assert not (tf & hf) and not (tfl & hfl)
    assert tt <= set(S.TABLE_KINDS["train"]) and not (tt & {"cork", "slate"})
    assert ht <= set(S.TABLE_KINDS["holdout"])


def test_labels_land_on_the_drawn_dice_after_tilt_and_distortion():
    hits = 0
    for seed, (pool, tilt, k) in enumerate([("train", 18.0, 0.18), ("train", 12.0, -0.1), ("holdout", 23.0, 0.24),
                                            ("holdout", 8.0, -0.12)]):
        sc = _pool_scene(40 + seed, pool, 6, S.random_condition(np.random.default_rng(seed)), size=(640, 480),
                         camera=S.Camera(tilt, 70.0 * seed, k), grey=False, flicker=0.0, noise=0.0, jpeg_quality=None)
        assert sc.camera is not None and sc.camera.tilt_deg == tilt
        full = S.render(sc).astype(np.float32)
        empty = S.render_empty(sc).astype(np.float32)
        tr = S.truth(sc)
        for lb, td in zip(S.labels(sc), tr.dice):
            assert math.dist(lb.center, td.center) < 1e-6  # truth and labels agree
            assert lb.box[0] <= lb.center[0] <= lb.box[2] and lb.box[1] <= lb.center[1] <= lb.box[3]
            if lb.visible < 1.0 or lb.status == "cocked":
                continue
            x, y = (int(round(v)) for v in lb.center)
            r = max(1, int(0.2 * lb.side))
            diff = np.abs(full[y - r:y + r + 1, x - r:x + r + 1] - empty[y - r:y + r + 1, x - r:x + r + 1]).sum(axis=2)
            assert diff.mean() > 20, (seed, lb)
            hits += 1
    assert hits >= 12


def test_label_classes_and_how_much_is_in_view():
    sc = _pool_scene(3, "train", 6, "cocked")
    lbs = S.labels(sc)
    assert len(lbs) == 6
    for lb, d in zip(lbs, sc.dice):
        if d.tilt_deg > S.COCKED_DEG:
            assert lb.cls == S.UNREADABLE_CLASS and lb.status == "cocked"
        else:
            assert lb.cls == S.top_face(d)[0] - 1 and lb.status == "ok"
        assert lb.visible == 1.0 and lb.family == S.style_of(d).family
    off = _pool_scene(4, "train", 5, "off_tray")
    flat_off = [lb for lb, d in zip(S.labels(off), off.dice) if d.where == "off" and d.tilt_deg == 0]
    assert flat_off and all(lb.status == "off_tray" and lb.cls == lb.face - 1 for lb in flat_off)
    # a die half out of the frame
    base = _pool_scene(5, "train", 1, camera=False)
    d = S.DieSpec(2, (0.0, 240.0), 0.0, 40.0, base.dice[0].style, where="off")
    half = S.labels(S.replace(base, dice=(d,)))[0]
    assert 0.4 < half.visible < 0.6
    blur = _pool_scene(6, "train", 5, "blur")
    assert S.UNREADABLE_CLASS in {lb.cls for lb in S.labels(blur)}


def test_die_sizes_span_20_to_120_px():
    sides = []
    rng = np.random.default_rng(8)
    for i in range(60):
        sc = S.random_scene(rng, 5, ((1280, 960), (640, 480))[i % 2], "clean", pool="train")
        sides += [lb.side for lb in S.labels(sc)]
    assert 15 < min(sides) < 26 and 95 < max(sides) < 140


def test_grey_sensor_scenes_are_grey():
    sc = _pool_scene(9, "train", 5, grey=True)
    img = S.render(sc)
    assert np.array_equal(img[..., 0], img[..., 1]) and np.array_equal(img[..., 1], img[..., 2])
    colour = S.render(S.replace(sc, grey=False))
    assert np.abs(colour[..., 0].astype(int) - colour[..., 2]).mean() > 3


def test_pool_scenes_are_deterministic_from_the_seed():
    a, b = _pool_scene(12, "holdout", 6, "cocked"), _pool_scene(12, "holdout", 6, "cocked")
    assert a == b and np.array_equal(S.render(a), S.render(b))
    assert not np.array_equal(S.render(a), S.render(_pool_scene(13, "holdout", 6, "cocked")))


def test_reference_and_empty_frames_match_a_holdout_scene():
    sc = _pool_scene(14, "holdout", 5, "clean", camera=S.Camera(15.0, 30.0, 0.15), noise=0.0, jpeg_quality=None)
    ref = S.reference_scene(np.random.default_rng(2), 5, like=sc)
    for f in ("tray", "lighting", "camera", "grey", "flicker", "size", "camera_height", "pool", "center"):
        assert getattr(ref, f) == getattr(sc, f), f
    assert {S.style_of(d).family for d in ref.dice} <= set(S.DIE_FAMILIES["holdout"])
    full, empty = S.render(sc), S.render_empty(sc)
    diff = np.abs(full.astype(np.int16) - empty.astype(np.int16)).max(axis=2)
    far = np.ones(diff.shape, np.uint8)
    for lb in S.labels(sc):
        cv2.circle(far, (int(lb.center[0]), int(lb.center[1])), int(2.5 * lb.side) + 4, 0, -1)
    assert np.percentile(diff[far.astype(bool)], 99) <= 12  # the same tray under the same camera
    # the floor polygon in frame pixels holds every tray die's centre
    floor = np.array(S.frame_polygons(sc)["floor"])
    inside = [cv2.pointPolygonTest(floor.astype(np.float32), lb.center, False) >= 0 for lb in S.labels(sc)]
    assert all(inside)


def test_pool_overrides_are_checked():
    with pytest.raises(ValueError):
        _pool_scene(1, "sideways")
    with pytest.raises(ValueError):
        _pool_scene(1, "train", floor="carpet")
    with pytest.raises(TypeError):
        _pool_scene(1, "train", bogus=1)
    sc = _pool_scene(1, "train", floor="paper", table="wood", grey=True, camera=False)
    assert sc.tray.floor_look.kind == "paper" and sc.tray.table_look.kind == "wood" and sc.grey and sc.camera is None


def test_mains_flicker_bands_the_rows():
    sc = _pool_scene(15, "train", 5, flicker=0.0, noise=0.0, jpeg_quality=None, grey=False, camera=False)
    flick = S.replace(sc, flicker=0.04, flicker_period=120.0)
    a = S.render(sc).astype(np.float64).mean(axis=(1, 2))
    b = S.render(flick).astype(np.float64).mean(axis=(1, 2))
    ratio = b / np.maximum(a, 1.0)
    assert 0.06 < np.ptp(ratio[5:-5]) < 0.1  # +-4 %
    # periodic along the rows: a row and the one a period later are lit alike
    assert np.abs(ratio[10:300] - ratio[130:420]).max() < 0.02


def test_light_colour_follows_its_temperature():
    warm, cold = P.kelvin_tint(2700.0, 0.0), P.kelvin_tint(6500.0, 0.0)
    assert warm[2] > warm[0] * 1.5 and abs(cold[2] - cold[0]) < 0.1  # BGR: warm light is red
    half = P.kelvin_tint(2700.0, 0.5)
    assert warm[2] / warm[0] > half[2] / half[0] > 1.0  # the white balance takes part of the cast
    lights = [_pool_scene(20 + i, "train").lighting for i in range(12)]
    assert all(2700 <= lt.kelvin <= 6500 and 25 <= lt.elevation_deg <= 85 for lt in lights)


def test_speed_of_the_pools():
    figs = S.speed(n=1, dice=5, pool="train")
    assert figs["pool"] == "train" and figs["render_ms_640x480"] > 0


def test_symbol_dice_and_marks_are_drawn_but_are_no_dice_of_the_game():
    rng = np.random.default_rng(400_004)
    plain = S.random_scene(rng, 5, (640, 480), "clean", pool="train")
    sc = S.with_distractors(plain, np.random.default_rng(1), symbol_dice=2, spots=4)
    sym = [d for d in sc.dice if d.symbols]
    assert len(sym) >= 1 and len(sc.spots) >= 1
    # the truth and the labels are the plain scene's: a symbol die or a mark is no die of the game
    assert S.truth(sc).values == S.truth(plain).values and len(S.labels(sc)) == len(S.labels(plain))
    img, base = S.render(sc), S.render(plain)
    where = S.distractors(sc)
    assert len(where) == len(sym) + len(sc.spots)
    for x, y, side in where:  # each is drawn where it is said to lie (it changes the pixels there)
        a = img[int(y) - 1:int(y) + 2, int(x) - 1:int(x) + 2].astype(int)
        b = base[int(y) - 1:int(y) + 2, int(x) - 1:int(x) + 2].astype(int)
        assert np.abs(a - b).sum(axis=2).max() > 30, (x, y)


def test_a_symbol_die_shows_no_pip_layout():
    """Its faces carry symbols: the pixels of its top face differ from the same die with pips."""
    rng = np.random.default_rng(5)
    sc = S.random_scene(rng, 1, (640, 480), "clean", pool="train")
    d = sc.dice[0]
    pips = S.render(sc)
    sym = S.render(dataclasses.replace(sc, dice=(dataclasses.replace(d, symbols=True),)))
    x, y = (int(v) for v in S.truth(sc).dice[0].center)
    r = int(0.4 * d.size_px)
    assert np.abs(pips[y - r:y + r, x - r:x + r].astype(int) - sym[y - r:y + r, x - r:x + r].astype(int)).mean() > 5
