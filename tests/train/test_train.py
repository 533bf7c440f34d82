"""`make test-train`: the training recipe runs end to end on a few samples (needs the `train` extra).

A few steps on a few rendered scenes and real test photos, export to ONNX, load it with OpenCV's
dnn, and check the net there gives what PyTorch gives; the same seed gives the same weights.
"""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

torch = pytest.importorskip("torch")  # this folder is collected only by `make test-train`

from vision import detector  # noqa: E402
from vision.train import train as T  # noqa: E402
from vision.train.data import augment, render_cache, render_samples, targets  # noqa: E402

DATA = Path(__file__).resolve().parents[1] / "data"  # a few real photos in the dice-photos layout


@pytest.fixture(scope="module")
def renders(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("renders")
    render_cache(out, range(3), workers=1)
    return out


def _args(renders: Path, out: Path, seed: int = 0, steps: int = 4, batch: int = 4) -> list[str]:
    """A few steps of the detector's training (add "--crop", "96"), or of the face net's."""
    a = ["--renders", str(renders), "--out", str(out), "--steps", str(steps), "--batch", str(batch),
         "--threads", "1", "--seed", str(seed), "--log-every", "2"]
    if DATA.is_dir():
        a += ["--data", str(DATA), "--limit", "4"]
    return a


def test_targets_put_each_die_at_its_cell():
    dice = np.array([[41.0, 22.0, 24.0, 2], [10.0, 70.0, 20.0, 6]], np.float32)
    t = targets(dice, np.full((96, 96), 255, np.uint8), 96)
    assert t["centre"].sum() == 2
    assert t["centre"][22 // 4, 41 // 4] == 1 and t["cls"][22 // 4, 41 // 4] == 2
    assert t["cls"][70 // 4, 10 // 4] == detector.NOT_READABLE
    assert np.isclose(np.exp(t["size"][22 // 4, 41 // 4]) * detector.STRIDE, 24.0)
    assert t["heat"].max() <= 1.0 and t["heat"][22 // 4, 41 // 4] > 0.9


def test_augment_keeps_labels_on_the_dice(renders):
    s = next(x for x in render_samples(renders) if len(x.dice))
    rng = np.random.default_rng(3)
    for _ in range(5):
        g, d, m = augment(s, rng, 96)
        assert g.shape == (96, 96) and m.shape == (96, 96)
        sizes = d[:, 2]
        assert np.all(sizes > 0)


def test_a_short_training_exports_a_model_cv2_reads(renders, tmp_path):
    out = tmp_path / "m.onnx"
    assert T.main(_args(renders, out) + ["--crop", "96"]) == 0
    info = json.loads(out.with_suffix(".train.json").read_text())
    assert info["steps"] == 4 and info["data"]["render"] >= 1
    det = detector.Detector(out)
    img = cv2.imread(str(next(renders.glob("*.png"))), cv2.IMREAD_GRAYSCALE)
    g = detector.pad_to(cv2.resize(img, (160, 128)))
    net_out = det.run(g)
    assert net_out.shape == (1, 4 + detector.N_CLASSES, 128 // 4, 160 // 4)
    # traced at 320x256, its sides declared free: onnxruntime (not the fallback to OpenCV's dnn) ran it at 160x128
    assert det.net.engine == "onnxruntime" and det.net.declared[2:] == ("h", "w")
    from vision.train.model import DiceNet

    m = DiceNet()
    m.load_state_dict(torch.load(out.with_suffix(".pt")))
    m.eval()
    with torch.no_grad():
        ref = m(torch.from_numpy(g.astype(np.float32)[None, None] / 255.0)).numpy()
    assert np.abs(ref - net_out).max() < 1e-3
    det.detect(img)  # the pyramid runs on the trained file


def test_the_same_seed_gives_the_same_weights(renders, tmp_path):
    a, b = tmp_path / "a.onnx", tmp_path / "b.onnx"
    T.main(_args(renders, a, seed=5, steps=2) + ["--crop", "96"])
    T.main(_args(renders, b, seed=5, steps=2) + ["--crop", "96"])
    wa, wb = torch.load(a.with_suffix(".pt")), torch.load(b.with_suffix(".pt"))
    assert all(torch.equal(wa[k], wb[k]) for k in wa)


def _face_args(renders: Path, out: Path, seed: int = 0, steps: int = 4) -> list[str]:
    return _args(renders, out, seed, steps, batch=16) + ["--detector", str(detector.MODEL)]


@pytest.fixture(scope="module")
def bank(renders):
    from vision.train.faces import load_bank, parser

    return load_bank(parser().parse_args(_face_args(renders, Path("unused.onnx"))), log=None)


def test_the_face_bank_holds_dice_and_every_kind_of_negative(bank):
    from vision import faces
    from vision.train.faces import BASE, KINDS

    n = len(bank["y"])
    assert bank["x"].shape == (n, BASE, BASE) and bank["x"].dtype == np.uint8
    assert len(bank["src"]) == len(bank["kind"]) == len(bank["turn"]) == n
    names = list(bank["sources"])
    crops = bank["src"] == names.index("crops")  # single-die crops: no picture around them, no turn
    photos = np.isin(bank["src"], [names.index("render"), names.index("rune55"), names.index("webcam")])
    assert np.isnan(bank["turn"][crops]).all() and not np.isnan(bank["turn"][photos]).any()
    assert {names[i] for i in set(bank["src"].tolist())} >= {"render", "rune55", "webcam"}
    assert faces.NOT_A_DIE in bank["y"] and (bank["y"] < faces.NOT_READABLE).any()
    kinds = {KINDS[k] for k in set(bank["kind"].tolist())}
    assert {"die", "background", "pip", "off_centre"} <= kinds
    neg = bank["y"] == faces.NOT_A_DIE
    assert np.all(bank["kind"][neg] != KINDS.index("die")) and np.all(bank["kind"][~neg] == KINDS.index("die"))


def test_a_training_view_is_the_readers_crop(renders):
    """The plain view of a bank window (no detector error, no turn) is what the reader cuts from the
    picture for the same die: the net learns on what it will see."""
    from vision import faces
    from vision.train.faces import views, window

    s = next(x for x in render_samples(renders) if len(x.dice))
    h, w = s.gray.shape
    for x, y, side in s.dice[:3, :3].astype(float):
        turn = faces.toward_centre(x, y, w, h)
        v = views(torch, window(s.gray, x, y, side)[None], np.random.default_rng(0), [turn], jitter=False)
        got = (v[0, 0].numpy() * 255.0).astype(int)
        want = faces.crop(s.gray, x, y, side, turn).astype(int)
        assert got.shape == want.shape == (faces.CROP, faces.CROP)
        assert np.abs(got - want).mean() < 6.0


def test_face_batches_are_normalised_and_hold_every_label(bank):
    from vision import faces
    from vision.train.faces import Sampler, batch

    idx = Sampler(bank, 0).draw(256)
    x, y = batch(torch, bank, idx, np.random.default_rng(1))
    assert tuple(x.shape) == (256, 1, faces.CROP, faces.CROP) and x.dtype == torch.float32
    assert set(y.tolist()) <= set(range(faces.N_CLASSES)) and faces.NOT_A_DIE in y.tolist()
    assert torch.allclose(x.mean(dim=(1, 2, 3)), torch.zeros(256), atol=1e-3)  # each crop normalised


def test_a_part_of_a_die_is_taught_as_no_die(renders):
    """A part view is the die seen larger than it is and off its centre (as a detector's die of half
    the size shows two rows of a six): it is not the plain view, and batches teach it "not a die"."""
    from vision import faces
    from vision.train import faces as FT

    s = next(x for x in render_samples(renders) if len(x.dice))
    x, y, side = s.dice[0, :3].astype(float)
    w = FT.window(s.gray, x, y, side)[None]
    whole = FT.views(torch, w, np.random.default_rng(0), [0.0], jitter=True, part=np.array([False]))[0, 0].numpy()
    part = FT.views(torch, w, np.random.default_rng(0), [0.0], jitter=True, part=np.array([True]))[0, 0].numpy()
    assert np.abs(whole - part).mean() > 0.02  # the same draws but for the part's size and place

    bank = {"x": np.repeat(w, 400, 0), "turn": np.zeros(400), "y": np.full(400, 2, np.uint8)}
    _, got = FT.batch(torch, bank, np.arange(400), np.random.default_rng(5), parts=FT.PART_SHARE)
    share = float((got == faces.NOT_A_DIE).float().mean())
    assert abs(share - FT.PART_SHARE) < 0.04 and set(got.tolist()) == {2, faces.NOT_A_DIE}
    _, plain_y = FT.batch(torch, bank, np.arange(400), np.random.default_rng(5))
    assert set(plain_y.tolist()) == {2}


def test_small_dice_are_taught_only_as_small_as_asked(renders):
    """A quarter of the views are shrunk to a crop side from the asked ranges and no smaller: in
    scope, never under 24 px (a die under 15 px); all, down to 10; the views not shrunk are untouched."""
    from vision.train import faces as FT

    s = next(x for x in render_samples(renders) if len(x.dice))
    x, y, side = s.dice[0, :3].astype(float)
    w = np.repeat(FT.window(s.gray, x, y, side)[None], 600, 0)
    v = FT.views(torch, w, np.random.default_rng(0), np.zeros(600), jitter=False)
    seen = {}
    for name in ("all", "in-scope"):
        out, sides = FT.small_dice(torch, v.clone(), np.random.default_rng(3), FT.SMALL_CROPS[name])
        shrunk = sides > 0
        assert 0.18 < shrunk.mean() < 0.32
        lo, hi = FT.SMALL_CROPS[name][0][0], FT.SMALL_CROPS[name][-1][1]
        assert sides[shrunk].min() >= lo and sides[shrunk].max() < hi
        assert torch.equal(out[torch.from_numpy(~shrunk)], v[torch.from_numpy(~shrunk)])
        assert float((out[torch.from_numpy(shrunk)] - v[torch.from_numpy(shrunk)]).abs().mean()) > 0.002
        seen[name] = sides[shrunk].min()
    assert seen["all"] < 16 and seen["in-scope"] >= 24


def test_a_fold_leaves_its_source_out_of_the_bank(bank):
    from vision.train.faces import without

    names = list(bank["sources"])
    cut = without(bank, "webcam")
    assert names.index("webcam") not in set(cut["src"].tolist())
    assert len(cut["y"]) == len(bank["y"]) - int((bank["src"] == names.index("webcam")).sum())


def test_a_short_face_training_exports_a_model_cv2_reads(renders, tmp_path):
    from vision import faces
    from vision.train import faces as TF
    from vision.train.model import FaceCNN

    out = tmp_path / "m.faces.onnx"
    bank_file = ["--bank", str(tmp_path / "bank.npz")]
    assert TF.main(_face_args(renders, out) + bank_file) == 0
    info = json.loads(out.with_suffix(".train.json").read_text())
    assert info["steps"] == 4 and info["data"]["render"] >= 1
    net = faces.FaceNet(out)
    crops = np.random.default_rng(2).integers(0, 255, (5, faces.CROP, faces.CROP), np.uint8)
    got = net.logits(crops)
    assert got.shape == (5, faces.N_CLASSES)
    m = FaceCNN()
    m.load_state_dict(torch.load(out.with_suffix(".pt")))
    m.eval()
    with torch.no_grad():
        ref = m(torch.from_numpy(faces.normalise(crops)))[:, :, 0, 0].numpy()
    assert np.abs(ref - got).max() < 1e-3  # any batch size, the same as PyTorch
    a, b = tmp_path / "a.faces.onnx", tmp_path / "b.faces.onnx"
    TF.main(_face_args(renders, a, seed=5, steps=2) + bank_file)
    TF.main(_face_args(renders, b, seed=5, steps=2) + bank_file)
    wa, wb = torch.load(a.with_suffix(".pt")), torch.load(b.with_suffix(".pt"))
    assert all(torch.equal(wa[k], wb[k]) for k in wa)


def test_a_renders_symbol_dice_and_marks_are_taught_as_no_die(tmp_path):
    from vision import faces
    from vision.train.data import iter_render_samples
    from vision.train.faces import KINDS, sample_items

    render_cache(tmp_path, range(400_001, 400_004), workers=1, distract=True)
    samples = list(iter_render_samples(tmp_path))
    assert samples and all(s.others is not None for s in samples)
    assert sum(len(s.others) for s in samples) >= 3
    rng = np.random.default_rng(0)
    for s in samples:
        items = sample_items(s, None, rng)
        taught = [it for it in items if it[2] == "distractor"]
        assert len(taught) == sum(1 for o in s.others if o[2] >= 8.0)
        assert all(cls == faces.NOT_A_DIE for _, cls, _, _ in taught) and "distractor" in KINDS


def test_a_short_floor_training_exports_a_net_cv2_reads(tmp_path):
    """The floor net's recipe: a few frames rendered, a few steps, export; cv2's dnn gives what PyTorch
    gives, and the outline comes back in the frame's pixels."""
    from vision import floornet
    from vision.train import floor as FL
    from vision.train.model import FloorNet

    renders, out = tmp_path / "floors", tmp_path / "floor.onnx"
    assert FL.main(["--renders", str(renders), "--render", "3", "3", "--steps", "3", "--batch", "2",
                    "--out", str(out), "--log-every", "1"]) == 0
    assert len(list(renders.glob("trays-*.mask.png"))) == 3 and len(list(renders.glob("pool-*.mask.png"))) == 3
    img = cv2.imread(str(next(renders.glob("trays-*[0-9].png"))), cv2.IMREAD_COLOR)
    big = cv2.resize(img, (640, 480))
    p = floornet.probability(big, out)
    assert p.shape == (480, 640)
    m = FloorNet()
    m.load_state_dict(torch.load(out.with_suffix(".pt")))
    m.eval()
    small = cv2.resize(big, (floornet.IN_W, floornet.IN_H), interpolation=cv2.INTER_AREA)
    with torch.no_grad():
        ref = m(torch.from_numpy(small.astype(np.float32).transpose(2, 0, 1)[None] / 255.0)).numpy()[0, 0]
    net = cv2.dnn.readNetFromONNX(str(out))
    net.setInput(cv2.dnn.blobFromImage(small, 1.0 / 255.0))
    assert np.abs(net.forward()[0, 0] - ref).max() < 1e-3
    info = json.loads(out.with_suffix(".train.json").read_text())
    assert info["steps"] == 3 and info["images"] == 6


def test_the_recipe_trains_only_folds_for_a_detector_that_is_there(tmp_path, capsys):
    """`--only-folds` leaves the committed models alone: it needs --folds and cuts the face banks with
    the detector at --out, so that must be there; --fold names a fold of the recipe's."""
    from vision.train import recipe

    for argv, says in ((["--only-folds"], "--only-folds needs --folds"),
                       (["--only-folds", "--folds", str(tmp_path), "--out", str(tmp_path / "none.onnx")], "is not there"),
                       (["--folds", str(tmp_path), "--fold", "crops"], "invalid choice")):
        with pytest.raises(SystemExit) as e:
            recipe.main(["--data", str(DATA), "--work", str(tmp_path / "work")] + argv)
        assert e.value.code == 2 and says in capsys.readouterr().err
    assert not (tmp_path / "work").exists()  # nothing rendered before the arguments were checked


def test_things_on_the_floor_mark_the_floor_and_leave_the_far_table():
    """Training's things lying on the floor: they change the floor's pixels (over many draws, most of
    its area), never a pixel far from it, and a frame with no floor comes back as it was."""
    from vision.train.floor import things_on_floor

    h, w = 240, 960
    img = np.full((h, w, 3), 90, np.uint8)
    img[60:180, 80:240] = (40, 120, 40)  # a green floor on a grey table
    m = np.zeros((h, w), np.uint8)
    m[60:180, 80:240] = 255
    rng = np.random.default_rng(0)
    touched = np.zeros((h, w), bool)
    for _ in range(40):
        out = things_on_floor(img, m, rng)
        assert out.shape == img.shape and out.dtype == np.uint8
        touched |= np.any(out != img, axis=2)
    assert touched[m > 0].mean() > 0.5
    reach = int(0.3 * min(h, w) * 2.0) + 2  # a thing's radius, its soft edge blurred by up to 4 sigma
    far = cv2.dilate(m, np.ones((2 * reach + 1, 2 * reach + 1), np.uint8)) == 0
    assert far.any() and not touched[far].any()
    assert np.array_equal(things_on_floor(img, np.zeros_like(m), rng), img)


def test_the_recipe_resumes_a_stopped_run_and_keeps_the_models_at_out(tmp_path, monkeypatch):
    """`--resume` skips each fold or work-folder model that a finished stage wrote (the model and its
    .train.json), trains what is missing or only half written, and always trains the models at --out."""
    from vision.train import recipe

    calls = []
    monkeypatch.setattr("vision.train.data.render_cache", lambda *a, **k: None)
    monkeypatch.setattr(recipe.T, "main", lambda argv: calls.append(("det", argv[argv.index("--out") + 1])))
    monkeypatch.setattr(recipe.FT, "main", lambda argv: calls.append(("face", argv[argv.index("--out") + 1])))
    monkeypatch.setattr(recipe.FL, "main", lambda argv: calls.append(("floor", argv[argv.index("--out") + 1])))
    work, folds, out = tmp_path / "work", tmp_path / "folds", tmp_path / "model" / "dice.onnx"
    for p in (work / "pre.pt", work / "finetuned.onnx", work / "finetuned.train.json", out,
              folds / "without-rune55.onnx", folds / "without-rune55.train.json",
              folds / "without-rune55.faces.onnx", folds / "without-rune55.faces.train.json",
              work / "without-webcam.faces.first.onnx", work / "without-webcam.faces.first.train.json",
              folds / "without-fisheye.onnx"):  # fisheye's detector: no .train.json, stopped while writing
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(b"x")
    argv = ["--data", str(DATA), "--work", str(work), "--folds", str(folds), "--out", str(out)]
    recipe.main(argv + ["--resume"])
    names = [(kind, Path(o).name) for kind, o in calls]
    assert ("det", "dice.onnx") in names and ("face", "dice.faces.onnx") in names and ("floor", "floor.onnx") in names
    assert ("det", "finetuned.onnx") not in names
    assert not any("rune55" in n for _, n in names)
    assert ("det", "without-webcam.onnx") in names and ("face", "without-webcam.faces.first.onnx") not in names
    assert ("face", "without-webcam.faces.onnx") in names
    assert ("det", "without-fisheye.onnx") in names and ("face", "without-fisheye.faces.first.onnx") in names
    calls.clear()
    recipe.main(argv)  # without --resume every stage trains again
    names = [Path(o).name for _, o in calls]
    assert "finetuned.onnx" in names and "without-rune55.onnx" in names and "without-rune55.faces.onnx" in names
