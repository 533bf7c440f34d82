"""vision.thresholds: the cuts it picks on known detections, and its command line."""

from __future__ import annotations

import json

import numpy as np

from vision import bench, reader
from vision import thresholds as T


def test_face_cut_is_the_lowest_whose_upper_bound_is_under_the_rate() -> None:
    rng = np.random.default_rng(0)
    right = np.c_[rng.uniform(0.6, 1.0, 6000), rng.uniform(0.9, 1.0, 6000), np.ones(6000), np.ones(6000)]
    wrong = np.c_[rng.uniform(0.6, 1.0, 300), rng.uniform(0.3, 0.8, 300), np.zeros(300), np.ones(300)]
    false = np.c_[rng.uniform(0.05, 0.3, 500), rng.uniform(0.3, 0.99, 500), np.zeros(500), np.zeros(500)]
    out = T.choose(np.vstack([right, wrong, false]))
    assert out["met"] and 0.3 <= out["die"] <= 0.6  # between the false dice's heat and the real ones'
    assert out["false_dice_kept"] == 0 and out["real_dice_lost"] == 0
    # right faces start at 0.9, wrong ones end at 0.8: the cut may let in the one or two most confident
    # wrong faces as long as the upper bound stays under 1 in 1,000 of the 6,000 passed
    assert 0.75 <= out["face"] <= 0.9 and out["wrong_passed_ok"] <= 2 and out["passed_ok"] >= 6000
    assert out["wrong_face_upper95"] <= 0.001 and out["n"] == 6800
    # the upper bound, not the rate: 0 wrong of 2,000 passed (upper 0.0019) is not safe enough
    few = np.c_[np.ones(2000), np.full(2000, 0.99), np.ones(2000), np.ones(2000)]
    assert not T.choose(few)["met"]
    # ... then the safest cut is written and said to miss the target
    mixed = np.vstack([few, np.c_[np.ones(30), np.full(30, 0.95), np.zeros(30), np.ones(30)]])
    got = T.choose(mixed)
    assert not got["met"] and got["face"] == 0.99 and got["wrong_passed_ok"] == 0 and "instead" in got["why"]
    assert T.choose(few[:20])["face"] is None  # too few dice for any cut


def test_lowest_safe_and_least_errors_on_small_lists() -> None:
    v = np.array([0.9] * 4000 + [0.5, 0.4])
    bad = np.array([False] * 4000 + [True, False])
    cut, n, k = T.lowest_safe(v, bad)
    assert cut == 0.9 and (n, k) == (4000, 0)  # 0.5 would let the bad one in: upper bound 0.0014
    assert bench.wilson(1, 4001)[1] > 0.001
    assert T.lowest_safe(np.array([0.9]), np.array([False])) == (None, 0, 0)
    s = np.array([0.9, 0.8, 0.7, 0.2, 0.15, 0.1])
    good = np.array([True, True, False, True, True, False])
    assert T.least_errors(s, good) == 0.125  # keeps the four real dice and one false die: 1 error
    assert T.least_errors(s[:4], good[:4]) == 0.75  # a tie (one false kept or one real lost): the higher cut


def test_the_face_cut_joins_the_heat_when_that_passes_more_dice_safely() -> None:
    rng = np.random.default_rng(3)
    n = 10_000  # right reads on dice the detector is sure of; 10 wrong ones, sure faces on faint detections
    best = np.r_[rng.uniform(0.98, 0.99999, n), np.full(10, 0.9999)]
    heat = np.r_[np.full(n, 0.99), np.full(10, 0.4)]
    right = np.r_[np.ones(n), np.zeros(10)]
    rows = np.stack([heat, best, right, np.ones(n + 10), np.zeros(n + 10)], 1)
    assert T.lowest_safe(best, right == 0)[1] < 100  # by the face net alone hardly a die passes safely
    got = T.choose(rows)
    assert got["met"] and got["heat_weight"] > 0.0 and got["passed_ok"] > 5000 and got["wrong_passed_ok"] == 0
    sure = reader.sureness(best, heat, got["heat_weight"])
    at_cut = sure >= got["face"]  # the cut is on the joined sureness, written never below the one found
    assert 0.98 * got["passed_ok"] <= int(at_cut.sum()) <= got["passed_ok"] and not at_cut[n:].any()
    same = rows.copy()
    same[:, 0] = 0.9  # the heat says nothing: the face net's probability alone
    assert T.choose(same)["heat_weight"] == 0.0


def test_right_dice_before_the_kth_wrong_one() -> None:
    # (score, best face, right, on a die, dropped), in no order; the die cut 0.5
    rows = np.array([
        [0.9, 0.999, 1, 1, 0], [0.9, 0.998, 0, 1, 0], [0.9, 0.997, 1, 1, 0], [0.9, 0.996, 1, 1, 0],
        [0.9, 0.995, 0, 0, 0], [0.9, 0.99, 1, 1, 0], [0.9, 0.95, 0, 1, 0],
        [0.2, 0.9999, 0, 0, 0],  # under the die cut: never kept
        [0.9, 0.9999, 0, 0, 1],  # dropped ("not a die"): never kept
        [0.9, 0.996, 0, 1, 0],  # a wrong one equal to a right one: the right one does not count before it
    ])
    got = T.right_before_wrong(rows, 0.5, ranks=(1, 2, 3, 4, 5))
    assert got == {"1": 1, "2": 2, "3": 3, "4": 4, "5": 4}  # 5th wrong: none, all 4 right ones
    assert T.right_before_wrong(rows[:0], 0.5, ranks=(1,)) == {"1": 0}
    shuffled = rows[np.random.default_rng(1).permutation(len(rows))]
    assert T.right_before_wrong(shuffled, 0.5, ranks=(1, 2, 3, 4, 5)) == got

    # what the cuts pass of the same rows: kept (heat 0.9 >= 0.5, not dropped) and sure enough
    assert T.at_cut(rows, 0.5, 0.996) == {"passed": 5, "wrong": 2, "wrong_upper95": round(bench.wilson(2, 5)[1], 6)}
    assert T.at_cut(rows, 0.5, 0.9985)["passed"] == 1 and T.at_cut(rows, 0.5, 0.9985)["wrong"] == 0
    assert T.at_cut(rows, 0.95, 0.9)["passed"] == 0  # the die cut keeps none
    assert T.at_cut(rows[:0], 0.5, 0.9) == {"passed": 0, "wrong": 0, "wrong_upper95": 1.0}
    heat = rows.copy()
    heat[:, 0] = 0.4  # a weak heat (under 0.5) joined lowers every sureness: fewer pass the same cut
    assert T.at_cut(heat, 0.3, 0.996, weight=1.0)["passed"] < T.at_cut(heat, 0.3, 0.996)["passed"] == 6


def test_command_line_writes_the_file_the_reader_reads(tmp_path, capsys, monkeypatch) -> None:
    monkeypatch.setattr(bench, "CACHE", tmp_path / "cache")
    monkeypatch.setattr(bench, "jobs", lambda: 1)
    out = tmp_path / "thr.json"
    rc = T.main(["--scenes", "4", "--out", str(out)])
    printed = capsys.readouterr()
    d = json.loads(printed.out)
    assert {"die", "face", "n", "method", "model", "model_sha1"} <= set(d) and d["n"] > 0
    if d["die"] is not None:
        assert set(d["right_before_wrong"]) == {"renders"} and set(d["right_before_wrong"]["renders"]) == {"1", "3", "5", "10", "20"}
        if d["face"] is not None:
            at = d["at_cut"]["renders"]  # at the cut as written (rounded up): at most what the rule passed
            assert set(d["at_cut"]) == {"renders"} and at["passed"] <= d["passed_ok"] and at["wrong"] <= d["wrong_passed_ok"]
    assert "seeds 90000000 up" in d["method"]
    if d["met"]:
        assert rc == 0 and json.loads(out.read_text()) == d
    elif d["face"] is None:  # too few dice for any cut: nothing the reader would trust is written
        assert rc == 1 and not out.exists()
    else:  # the target not shown on 4 scenes: the safest cut is written, said so
        assert rc == 0 and json.loads(out.read_text()) == d and "not met" in printed.err
    assert len(list((tmp_path / "cache").rglob("*.png"))) == 4  # its own renders, cached
    assert min(c.seed for c in bench.cases(4, T.SEED)) > max(c.seed for c in bench.cases(bench.FULL_SCENES + 2000))
    assert T.main(["--model", str(tmp_path / "none.onnx")]) == 2
    assert "no such model file" in capsys.readouterr().err
    assert T.main(["--data", str(tmp_path / "nowhere")]) == 2


def test_real_photos_are_read_by_their_fold_models_only(tmp_path, capsys, monkeypatch) -> None:
    """With --data and --models, each source with a fold model (detector and face net) adds its photos'
    detections; a source without one is left out and says why. Run in two worker processes, as the
    full tool runs."""
    import shutil
    from pathlib import Path

    from vision.detector import MODEL

    monkeypatch.setattr(bench, "CACHE", tmp_path / "cache")
    monkeypatch.setattr(bench, "jobs", lambda: 2)
    folds = tmp_path / "folds"
    folds.mkdir()
    shutil.copy(MODEL, folds / "without-webcam.onnx")
    shutil.copy(MODEL.with_name(MODEL.stem + ".faces.onnx"), folds / "without-webcam.faces.onnx")
    shutil.copy(MODEL, folds / "without-fisheye.onnx")  # a detector without its face net: left out
    (folds / "without-webcam.train.json").write_text(json.dumps({"leave_out": "webcam,crops"}))
    data = Path(__file__).resolve().parents[1] / "data"
    rc = T.main(["--scenes", "2", "--data", str(data), "--models", str(folds), "--out", str(tmp_path / "t.json")])
    d = json.loads(capsys.readouterr().out)
    assert rc in (0, 1)
    real = d["real_photos"]
    n_webcam = len([r for r in bench.photo_records(data, "webcam") if "boxes" in r])
    assert n_webcam > 0 and real["webcam"].startswith(f"{n_webcam} photos, ")
    assert int(real["webcam"].split(", ")[1].split()[0]) > 0  # its photos gave detections
    assert real["fisheye"].startswith("left out") and real["rune55"].startswith("left out")
    n_crops = len(bench.photo_records(data, "crops"))  # single dice, read by the fold that left them out too
    assert n_crops > 0 and real["crops"].startswith(f"{n_crops} crops, ") and "without-webcam.onnx" in real["crops"]
    assert int(real["crops"].split(", ")[1].split()[0]) > 0
    assert "real photos by their fold models" in d["method"]
    assert {"renders", "webcam", "crops"} <= set(d["right_before_wrong"])  # ranking per source read


def test_top_face_boxes_grow_to_the_whole_die() -> None:
    """A webcam box hugs the pips (a one's box is its pip): grown, it is a square of DIE_BOX top-face
    sides about the same centre, so a right read on the die's body matches it; a box of unknown face
    stays as it is."""
    pip = [100.0, 100.0, 110.0, 110.0, 1]  # a one's pip, 10 px
    unknown = [0.0, 0.0, 30.0, 20.0, None]
    grown, same = bench.die_boxes([pip, unknown])
    side = 10.0 * bench.PIP_BOX[1] * bench.DIE_BOX
    assert np.allclose(grown[:4], [105 - side / 2, 105 - side / 2, 105 + side / 2, 105 + side / 2])
    assert grown[4] == 1 and same == unknown
    body = (105.0, 105.0 + 0.4 * 10.0 * bench.PIP_BOX[1])  # 0.4 of a top face below the pip
    assert bench.match_in_boxes(*body, 1, [pip], set()) == "unlabelled"
    assert bench.match_in_boxes(*body, 1, [grown], set()) == "right"
    assert bench.match_in_boxes(*body, 2, [grown], set()) == "wrong_face"


def test_only_webcam_boxes_are_marked_top_only() -> None:
    from pathlib import Path

    data = Path(__file__).resolve().parents[1] / "data"
    for src in ("rune55", "webcam", "fisheye"):
        recs = [r for r in bench.photo_records(data, src) if "boxes" in r]
        assert recs and all(bool(r.get("top_only")) == (src == "webcam") for r in recs)


def test_the_cut_spread_resamples_whole_groups_and_brackets_the_cut() -> None:
    """spread: the face cut over bootstrap resamples of groups (scenes, photos). With many sure right
    faces and a few wrong ones among the surest, the cut moves from draw to draw; the median lies
    near the cut on the whole data, and the same seed gives the same figures."""
    rng = np.random.default_rng(1)
    groups = []
    for i in range(400):  # 400 "photos" of 20 right dice each, one in 40 also holds a fairly sure wrong face
        g = np.c_[np.ones(20), rng.uniform(0.9, 1.0, 20), np.ones(20), np.ones(20), np.zeros(20)]
        if i % 40 == 0:
            g = np.vstack([g, [1.0, rng.uniform(0.9, 0.93), 0.0, 1.0, 0.0]])
        groups.append(g)
    whole = T.choose(np.concatenate(groups))["face"]
    s = T.spread(groups + [np.zeros((0, 5))], 30, seed=3)
    assert s["draws"] == 30 and s["cuts"] == 30
    assert s["p10"] <= s["median"] <= s["p90"] and s["p10"] < s["p90"]  # it does move
    assert s["p10"] <= whole <= s["p90"]
    assert T.spread(groups, 30, seed=3) == s
    assert T.spread([np.zeros((0, 5))], 5) == {"draws": 5, "cuts": 0}


def test_command_line_reports_the_spread_when_asked(tmp_path, capsys, monkeypatch) -> None:
    monkeypatch.setattr(bench, "CACHE", tmp_path / "cache")
    monkeypatch.setattr(bench, "jobs", lambda: 1)
    T.main(["--scenes", "3", "--bootstrap", "4", "--out", str(tmp_path / "t.json")])
    d = json.loads(capsys.readouterr().out)
    assert d["face_cut_spread"]["draws"] == 4
    assert T.main(["--bootstrap", "-1"]) == 2 and "--bootstrap" in capsys.readouterr().err


def test_a_single_die_crop_is_matched_to_its_whole_crop() -> None:
    """A crop (crops/, fisheye's crops) has a face and no boxes: it is read set in its border, and a
    detection on the die is matched to the crop's box (the committed model saw these crops)."""
    from pathlib import Path

    from vision.detector import MODEL

    data = Path(__file__).resolve().parents[1] / "data"
    recs = bench.photo_records(data, "crops")[::5]
    rows = [T._photo_dets((r, str(MODEL))) for r in recs]
    on_die = sum(any(row[3] for row in g) for g in rows)
    right = sum(any(row[2] for row in g) for g in rows)
    assert on_die >= len(recs) - 1 and right >= len(recs) // 2
