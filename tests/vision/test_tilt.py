"""vision.tilt: flat or cocked, from the frame (a few fresh renders: seeds of these tests only)."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from vision import synthetic as S
from vision import tilt

# seeds for these tests only: the bench uses 1000-2999, training 1_000_000-1_999_999,
# the held-out measurement 2_000_000-2_099_999
SEED = 3_000_000


def _scene(k: int, condition: str, size=(640, 480), n=6) -> tuple[S.Scene, np.ndarray, list[S.TruthDie]]:
    sc = S.random_scene(np.random.default_rng(SEED + k), n, size, condition)
    return sc, S.render(sc), list(S.truth(sc).dice)


def _face_px(sc: S.Scene) -> float:
    return sc.die_size * sc.camera_height / (sc.camera_height - sc.die_size)


def _angles(sc: S.Scene, dice: list[S.TruthDie]) -> list[float | None]:
    """Each die's top-face edge direction in the image, as the reader gives it (None for a one)."""
    out = []
    for d, t in zip(sc.dice, dice):
        p = S.die_pose(d)
        ups = np.concatenate([p.rotation[2], -p.rotation[2]])
        j = int(np.argmax(ups))
        k, sgn = j % 3, (1.0 if j < 3 else -1.0)
        c3 = p.position + p.rotation[:, k] * sgn * p.half
        c2, e2 = sc.project(np.array([c3, c3 + p.rotation[:, (k + 1) % 3] * p.half]))
        out.append(None if t.face == 1 else math.atan2(e2[1] - c2[1], e2[0] - c2[0]))
    return out


@pytest.fixture(scope="module")
def scored():
    """Scores and labels of every flat / cocked die in 14 fresh scenes (both frame sizes)."""
    scores, labels = [], []
    for k in range(14):
        size = (1280, 960) if k % 2 else (640, 480)
        sc, img, dice = _scene(k, "cocked" if k % 3 else "clean", size)
        keep = [i for i, d in enumerate(dice) if d.status in ("ok", "cocked")]
        angles = _angles(sc, dice)
        p = tilt.cocked_scores(img, [dice[i].center for i in keep], _face_px(sc), sc.center,
                               [angles[i] for i in keep])
        scores.extend(p.tolist())
        labels.extend(1 if dice[i].status == "cocked" else 0 for i in keep)
    return np.array(scores), np.array(labels)


def test_flat_and_cocked_dice_separate(scored):
    p, y = scored
    assert y.sum() >= 8 and (y == 0).sum() >= 40
    flat, cocked = p[y == 0], p[y == 1]
    thr = tilt.THRESHOLD
    assert np.sum(flat >= thr) == 0, f"flat dice called cocked: {np.sort(flat)[-3:]}"
    assert np.mean(cocked >= thr) >= 0.8, f"cocked scores {np.sort(cocked)}"
    # ranking: nearly every cocked die scores above nearly every flat one
    auc = float(np.mean(cocked[:, None] > flat[None, :]))
    assert auc >= 0.97


def test_shapes_and_range():
    sc, img, dice = _scene(100, "clean")
    cs = [d.center for d in dice]
    p = tilt.cocked_scores(img, cs, _face_px(sc))
    assert p.shape == (len(cs),) and p.dtype == np.float64
    assert np.all((p >= 0) & (p <= 1))
    assert tilt.cocked_scores(img, [], _face_px(sc)).shape == (0,)
    # a grey frame, angles given for some dice, nadir given: same shape, still in range
    grey = img[:, :, 1].copy()
    q = tilt.cocked_scores(grey, cs, _face_px(sc), sc.center, [0.3] + [None] * (len(cs) - 1))
    assert q.shape == (len(cs),) and np.all((q >= 0) & (q <= 1))


def test_yaw_given_or_estimated_agree_on_flat_dice():
    """Without the pips' yaw (a one), the patch's own estimate gives about the same score."""
    sc, img, dice = _scene(101, "clean", (1280, 960))
    cs = [d.center for d in dice]
    with_yaw = tilt.cocked_scores(img, cs, _face_px(sc), sc.center, _angles(sc, dice))
    without = tilt.cocked_scores(img, cs, _face_px(sc), sc.center, None)
    assert np.all(with_yaw < tilt.THRESHOLD) and np.all(without < tilt.THRESHOLD)


def test_die_at_the_frame_edge():
    """A die partly or wholly past the frame's edge gives a score, not an error."""
    sc, img, dice = _scene(102, "clean")
    h, w = img.shape[:2]
    f = _face_px(sc)
    cs = [(1.0, 1.0), (w - 2.0, h / 2), (w / 2, h + 0.4 * f), (-3 * f, -3 * f)]
    p = tilt.cocked_scores(img, cs, f, None, [0.2, None, 1.0, None])
    assert p.shape == (4,) and np.all(np.isfinite(p)) and np.all((p >= 0) & (p <= 1))


def test_threshold_is_the_models():
    """THRESHOLD is the operating point the model was trained for (stored with it)."""
    m = tilt.load_model(tilt.MODEL_PATH)
    assert abs(float(m["threshold"]) - tilt.THRESHOLD) < 1e-6
    assert 0.0 < tilt.THRESHOLD < 1.0
    assert tilt.MODEL_PATH.stat().st_size < 1_000_000


def test_model_loads_as_float32():
    """The first layer is stored as float16 (half the file); it is used as float32."""
    m = tilt.load_model(tilt.MODEL_PATH)
    assert all(np.asarray(m[k]).dtype == np.float32 for k in ("W1", "b1", "W2", "mu", "sd"))


def test_hard_scenes_are_the_ones_leaning_towards_the_nadir():
    """train_tilt's extra hard training scenes: a cocked die leaning towards the nadir or only a little."""
    from vision import train_tilt as tt

    sc = S.random_scene(np.random.default_rng(SEED + 200), 5, (640, 480), "clean")
    nx, ny = sc.center
    flat = S.DieSpec(3, (nx + 200.0, ny), 0.0, 30.0)
    towards = S.DieSpec(3, (nx + 200.0, ny), 0.0, 30.0, tilt_deg=30.0, tilt_dir_deg=170.0)
    away = S.DieSpec(3, (nx + 200.0, ny), 0.0, 30.0, tilt_deg=30.0, tilt_dir_deg=0.0)
    slight = S.DieSpec(3, (nx + 200.0, ny), 0.0, 30.0, tilt_deg=17.0, tilt_dir_deg=0.0)
    assert abs(tt.lean_to_nadir(towards, sc.center) + 10.0) < 1e-6
    assert abs(abs(tt.lean_to_nadir(away, sc.center)) - 180.0) < 1e-6
    with_dice = lambda *ds: dataclasses.replace(sc, dice=tuple(ds))  # noqa: E731
    assert tt.is_hard(with_dice(flat, towards)) and tt.is_hard(with_dice(slight))
    assert not tt.is_hard(with_dice(flat, away)) and not tt.is_hard(with_dice(flat))


def test_side_faces_of_cocked_dice_turn_up_beside_the_top_face():
    """train_tilt's side-face samples: a cocked die's upturned side face, beside its top face,
    on the side away from where it leans; a flat die has none, nor does one too steep to read."""
    from vision import train_tilt as tt

    sc = S.random_scene(np.random.default_rng(SEED + 200), 5, (640, 480), "clean")
    nx, ny = sc.center
    flat = S.DieSpec(3, (nx + 200.0, ny), 0.0, 30.0)
    leaning = S.DieSpec(3, (nx + 200.0, ny), 0.0, 30.0, tilt_deg=35.0, tilt_dir_deg=90.0)  # top leans to +y
    slight = S.DieSpec(3, (nx + 200.0, ny), 0.0, 30.0, tilt_deg=14.0, tilt_dir_deg=90.0)
    with_dice = lambda *ds: dataclasses.replace(sc, dice=tuple(ds))  # noqa: E731
    assert tt.side_meta(with_dice(flat)) == []
    assert tt.side_meta(with_dice(slight), min_view=0.45) == []
    (f,) = tt.side_meta(with_dice(flat, leaning))
    top = S.truth(with_dice(leaning)).dice[0].center
    assert 0.6 * 30.0 < math.dist(f["center"], top) < 1.3 * 30.0
    assert f["center"][1] < top[1]  # on the side away from the lean
    assert f["face"] in (1, 2, 5, 6) and 0.45 <= f["view"] < 0.9


def test_cocked_reason_by_score_face_and_shrunk_face(monkeypatch):
    """The reader's decision: the score against the face's cut, else a two's or three's face shrunk."""
    assert tilt.threshold_for(None) == tilt.threshold_for(3) == tilt.threshold_for(6) == tilt.THRESHOLD
    for v in range(1, 7):
        assert 0.0 < tilt.threshold_for(v) == tilt.BY_VALUE.get(v, tilt.THRESHOLD) < 1.0
    assert tilt.cocked_reason(0.99, 6, 1.0).startswith("tilt")
    assert tilt.cocked_reason(tilt.THRESHOLD, 6, 1.0).startswith("tilt")
    assert tilt.cocked_reason(tilt.THRESHOLD - 0.01, 6, 1.0) == ""
    for v in (1, 3, 4, 5, 6):  # this model: one cut for every face but twos
        assert tilt.cocked_reason(tilt.THRESHOLD, v, None).startswith("tilt")
        assert tilt.cocked_reason(tilt.THRESHOLD - 0.01, v, None) == ""
    # twos cut lower: cocked dice read as twos (steep faces) can score low
    assert tilt.threshold_for(2) < tilt.THRESHOLD
    assert tilt.cocked_reason(0.2, 2, 1.0).startswith("tilt")
    assert tilt.cocked_reason(0.1, 2, 1.0) == ""
    # a face's own cut (BY_VALUE), lower or higher, where a model needs one
    monkeypatch.setattr(tilt, "BY_VALUE", {2: 0.15, 1: 0.6})
    assert tilt.cocked_reason(0.62, 1, None).startswith("tilt")
    assert tilt.cocked_reason(0.55, 1, None) == ""
    assert tilt.cocked_reason(0.2, 6, 1.0) == "" and tilt.cocked_reason(0.55, 6, 1.0).startswith("tilt")
    # a two or three with its pips much closer than a flat die's: foreshortened, cocked
    for v in (2, 3):
        assert tilt.cocked_reason(0.0, v, 0.85).startswith("shrunk")
        assert tilt.cocked_reason(0.0, v, 0.97) == ""  # within a flat die's spread
        assert tilt.cocked_reason(0.0, v, None) == ""  # spacing unknown
    # fours to sixes have the reader's anisotropy check; ones have no spacing
    for v in (1, 4, 5, 6):
        assert tilt.cocked_reason(0.0, v, 0.85) == ""


def test_a_shrunk_face_the_full_resolution_measure_calls_flat_is_not_cocked():
    """SHRUNK's look at the working copy is checked at full resolution (the reader's fine_spacing),
    asked only for a face under SHRUNK that its score does not call cocked already."""
    asked = []
    def fine(q):
        return lambda: asked.append(q) or q
    assert tilt.cocked_reason(0.0, 2, 0.91, fine(tilt.SHRUNK_FINE_FLAT)) == ""  # flat at full resolution
    assert tilt.cocked_reason(0.0, 3, 0.93, fine(0.997)) == ""
    assert tilt.cocked_reason(0.0, 2, 0.91, fine(0.96)).startswith("shrunk")  # shrunk at both
    assert tilt.cocked_reason(0.0, 2, 0.91, fine(None)).startswith("shrunk")  # cannot measure: the first look
    assert asked == [tilt.SHRUNK_FINE_FLAT, 0.997, 0.96, None]
    assert tilt.cocked_reason(0.0, 2, 0.95, fine(0.5)) == "" and tilt.cocked_reason(0.9, 2, 0.9, fine(0.5)).startswith("tilt")
    assert tilt.cocked_reason(0.0, 4, 0.5, fine(0.5)) == ""  # fours to sixes: no SHRUNK
    assert len(asked) == 4  # not asked where SHRUNK does not decide


def test_a_two_the_twos_cut_calls_is_flat_with_a_square_top_measuring_flat(monkeypatch):
    """TWO_SQUARE_FLAT: a two scored from the twos' cut to THRESHOLD is flat when the reader finds a
    flat square top around it and its pips measure flat at full resolution; both are asked only then
    (for twos only: tried with a fives' cut too)."""
    monkeypatch.setattr(tilt, "BY_VALUE", {**tilt.BY_VALUE, 5: 0.25})
    asked = []
    def look(name, v):
        return lambda: asked.append(name) or v
    cut = tilt.threshold_for(2)
    assert cut < 0.3 < tilt.THRESHOLD
    assert tilt.cocked_reason(0.3, 2, 1.0, look("fine", 0.99), look("square", True)) == ""
    assert asked == ["square", "fine"]
    assert tilt.cocked_reason(0.3, 2, 1.0, look("fine", 0.99), look("square", False)).startswith("tilt")
    assert tilt.cocked_reason(0.3, 2, 1.0, look("fine", 0.97), look("square", True)).startswith("tilt")
    assert tilt.cocked_reason(0.3, 2, 1.0, look("fine", None), look("square", True)).startswith("tilt")
    assert tilt.cocked_reason(0.3, 2, 1.0, look("fine", 0.99)).startswith("tilt")  # no square look: the cut
    del asked[:]
    # over THRESHOLD, under the cut, and for other faces: not asked
    assert tilt.cocked_reason(tilt.THRESHOLD, 2, 1.0, look("fine", 0.99), look("square", True)).startswith("tilt")
    assert tilt.cocked_reason(0.3, 5, 1.0, look("fine", 0.99), look("square", True)).startswith("tilt")
    assert tilt.cocked_reason(cut / 2, 2, 1.0, look("fine", 0.99), look("square", True)) == ""
    assert asked == []


def test_neighbour_map_marks_the_other_dice_in_the_patch_frame():
    """A die's neighbour map covers where the other dice's top faces lie in its turned patch, not
    the die itself; by default the other dice are the other centres given; a mirror flips it."""
    img = np.full((400, 400, 3), 90, np.uint8)
    f = 40.0
    me, right, far = (200.0, 200.0), (244.0, 200.0), (380.0, 20.0)
    # nadir straight below: patch-down points at it; the edge direction 0 leaves the patch unturned
    P, geo = tilt.patches(img, [me, right, far], f, nadir=(200.0, 400.0), angles=[0.0, 0.0, 0.0])
    assert geo.shape == (3, 4 + 2 * tilt.THUMB * tilt.THUMB)
    nb = slice(4, 4 + tilt.THUMB * tilt.THUMB)  # the neighbour map (the floor map follows)
    m = geo[0, nb].reshape(tilt.THUMB, tilt.THUMB)
    # the neighbour 1.1 die sides to the right: patch x 24.5 + 22 = 46.5 (cells 8-9), rows 3-6 around the middle
    assert m[4:6, 9].min() == 1.0 and m[4:6, 8].min() > 0.5
    assert m[:, :6].max() == 0.0  # the die itself and the left half: nothing
    assert m[0, :].max() == 0.0 and m[-1, :].max() == 0.0
    # the far die (4.5 die sides away) is off every patch but its own; its own map is empty
    assert geo[2, nb].max() == 0.0
    assert geo[:, 4 + tilt.THUMB * tilt.THUMB:].max() == 0.0  # no floor given: all of it floor
    # given explicitly: no neighbours, no marks
    _, g0 = tilt.patches(img, [me], f, nadir=(200.0, 400.0), angles=[0.0], others=[[]])
    assert g0[0, nb].max() == 0.0
    # a mirror: the neighbour on the left
    _, gm = tilt.mirror(P, geo)
    assert np.array_equal(gm[0, nb].reshape(tilt.THUMB, tilt.THUMB), m[:, ::-1])
    # turned by 90 degrees (the nadir to the right, so frame-right is patch-down): the neighbour
    # to the right is now below the die in its patch
    _, gt = tilt.patches(img, [me, right], f, nadir=(400.0, 200.0), angles=[0.0, 0.0])
    mt = gt[0, nb].reshape(tilt.THUMB, tilt.THUMB)
    assert mt[-1, 4:6].min() == 1.0 and mt[:6, :].max() == 0.0


def test_features_see_the_neighbour_map():
    """The neighbour map is part of the model's input: the same patch with and without a neighbour
    gives different features, and the model's input width is what it was trained on."""
    sc, img, dice = _scene(103, "clean")
    cs = [d.center for d in dice]
    a = tilt.features(img, cs[:1], _face_px(sc), sc.center, None, others=[[]])
    b = tilt.features(img, cs[:1], _face_px(sc), sc.center, None,
                      others=[[(cs[0][0] + _face_px(sc), cs[0][1])]])
    assert a.shape == b.shape == (1, tilt._n_features())
    nb = slice(-2 * tilt.THUMB ** 2, -tilt.THUMB ** 2)
    assert np.array_equal(a[0, :nb.start], b[0, :nb.start])
    assert a[0, nb].max() == 0.0 < b[0, nb].max()
    assert tilt.load_model(tilt.MODEL_PATH)["mu"].shape == (tilt._n_features(),)


def test_floor_map_marks_what_lies_off_the_floor_in_the_patch_frame():
    """A die's floor map covers the cells of its turned patch off the tray floor's polygon (a soft
    edge one cell wide), none on it; a mirror flips it; the model sees it."""
    img = np.full((400, 400, 3), 90, np.uint8)
    f = 40.0
    floor = [(100.0, 100.0), (300.0, 100.0), (300.0, 300.0), (100.0, 300.0)]
    # a die 0.6 die sides from the right wall (its edge 30 px right of its centre: 15 patch px,
    # patch x 39.5, between cells 7 and 8), the nadir below (patch unturned)
    me, mid = (276.0, 200.0), (200.0, 200.0)
    P, geo = tilt.patches(img, [me, mid], f, nadir=(200.0, 400.0), angles=[0.0, 0.0], floor=floor)
    m = geo[0, 4 + tilt.THUMB ** 2:].reshape(tilt.THUMB, tilt.THUMB)
    assert m[:, 8:].min() == 1.0 and m[:, :7].max() == 0.0 and 0.0 < m[0, 7] < 1.0
    assert np.ptp(m, axis=0).max() == 0.0  # a straight wall along the patch's rows
    assert geo[1, 4 + tilt.THUMB ** 2:].max() == 0.0  # 2.5 die sides from every wall: all floor
    _, gm = tilt.mirror(P, geo)
    assert np.array_equal(gm[0, 4 + tilt.THUMB ** 2:].reshape(tilt.THUMB, tilt.THUMB), m[:, ::-1])
    # turned by 90 degrees (the nadir to the left: frame-left is patch-down, frame-right patch-up)
    _, gt = tilt.patches(img, [me], f, nadir=(0.0, 200.0), angles=[0.0], floor=floor)
    mt = gt[0, 4 + tilt.THUMB ** 2:].reshape(tilt.THUMB, tilt.THUMB)
    assert mt[:2, :].min() == 1.0 and mt[7:, :].max() == 0.0
    # a die in the keep zone, off the floor: all of its patch
    _, gk = tilt.patches(img, [(360.0, 360.0)], f, angles=[0.0], floor=floor)
    assert gk[0, 4 + tilt.THUMB ** 2:].min() == 1.0
    # the features carry it (the last block), and the model reads it
    a = tilt.features(img, [me], f, (200.0, 400.0), [0.0])
    b = tilt.features(img, [me], f, (200.0, 400.0), [0.0], floor=floor)
    assert np.array_equal(a[0, :-tilt.THUMB ** 2], b[0, :-tilt.THUMB ** 2])
    assert a[0, -tilt.THUMB ** 2:].max() == 0.0 < b[0, -tilt.THUMB ** 2:].min() + 1.0
    assert not np.isclose(tilt.predict(tilt._load(), a)[0], tilt.predict(tilt._load(), b)[0])
