"""vision.bench: its counting (Wilson intervals, dice matched to the truth, photo boxes, crops), the
multiply-add counter, and `yatzycam bench --only vision --quick --json`: its keys and counts."""

from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision import bench, reader
from vision.onnxcount import OnnxError, macs

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data"


def test_wilson_interval_of_a_small_source_cannot_show_a_high_rate() -> None:
    lo, hi = bench.wilson(98, 98)
    assert hi == 1.0 and 0.96 < lo < 0.963  # 98 of 98 right: the lower bound is 0.962, not 0.995
    lo, hi = bench.wilson(0, 10_000)
    assert lo == 0.0 and 3.8e-4 < hi < 3.9e-4  # 0 wrong in 10,000: at most 1 in 2,600 at 95%
    assert bench.wilson(0, 0) == (0.0, 1.0)
    f = bench.figure(3, 12)
    assert set(f) == {"k", "n", "rate", "ci95"} and f["rate"] == 0.25 and f["ci95"][0] < 0.25 < f["ci95"][1]


def test_die_tally_counts_a_die_read_ok_on_a_cocked_die_or_nowhere_as_wrong() -> None:
    truth = [{"center": [100, 100], "status": "ok", "face": 3, "value": 3, "size": 40},
             {"center": [300, 100], "status": "cocked", "face": 5, "value": None, "size": 40},
             {"center": [500, 100], "status": "ok", "face": 2, "value": 2, "size": 40}]
    read = [{"center": [104, 98], "status": "ok", "value": 3},      # right
            {"center": [301, 103], "status": "ok", "value": 5},     # a cocked die passed ok: wrong
            {"center": [498, 100], "status": "cocked", "value": 2},  # refused: not counted
            {"center": [700, 300], "status": "ok", "value": 1}]     # no die there: wrong
    res = {"truth_dice": truth, "dice": read}
    assert bench.die_tally(res) == (3, 3, 2)
    assert bench.match_dice(read, truth) == [0, 1, 2, None]
    # one truth die is matched once: a second die read beside it is no die
    assert bench.match_dice([{"center": [100, 100]}, {"center": [110, 100]}], truth[:1]) == [0, None]


def test_score_photo_counts_boxes_of_the_same_face_and_holds_unlabelled_dice_against_precision() -> None:
    boxes = [[0, 0, 40, 40, 3], [100, 0, 140, 40, 5], [200, 0, 210, 10, 2], [300, 0, 340, 40, None]]
    dice = [{"center": [20, 20], "status": "ok", "value": 3},     # right
            {"center": [22, 20], "status": "ok", "value": 3},     # the same box again
            {"center": [120, 20], "status": "ok", "value": 6},    # wrong face
            {"center": [205, 5], "status": "ok", "value": 4},     # a die under 16 px: out of scope
            {"center": [320, 20], "status": "ok", "value": 1},    # face unknown: out of scope
            {"center": [500, 500], "status": "ok", "value": 2},   # in no box (a symbol die)
            {"center": [120, 22], "status": "cocked", "value": None}]
    s = bench.score_photo(dice, boxes)
    assert s == {"right": 1, "double": 1, "wrong_face": 1, "ignored": 2, "unlabelled": 1, "refused": 1,
                 "labelled": 2, "hit": 1}


def test_a_webcam_die_is_scored_against_its_whole_die_not_its_pips() -> None:
    """Webcam's boxes hug the pips (a one's is its pip alone): a die read right with its centre on its
    top face beside the pip is right, and the die's width, not the pip's, puts it in scope."""
    pip = [100.0, 100.0, 112.0, 112.0, 1]  # a one's pip, 12 px: under MIN_PX
    die = {"center": [106.0, 116.0], "status": "ok", "value": 1}  # on the face, below the pip
    assert bench.score_photo([die], [pip]) == {"unlabelled": 1, "labelled": 0, "hit": 0}
    webcam, rune55 = {"boxes": [pip], "top_only": True}, {"boxes": [pip]}
    assert bench.score_photo([die], bench.scored_boxes(webcam)) == {"right": 1, "labelled": 1, "hit": 1}
    assert bench.scored_boxes(rune55) == [pip]  # whole-die boxes stay as they are
    wrong = dict(die, value=2)
    assert bench.score_photo([wrong], bench.scored_boxes(webcam))["wrong_face"] == 1


def test_crop_is_scored_by_the_die_nearest_its_centre() -> None:
    img = np.full((60, 80, 3), 90, np.uint8)
    padded = bench.pad_crop(img)
    assert padded.shape[:2] == (120, 160) and int(padded[0, 0, 0]) == 90
    far = {"center": [5, 5], "status": "ok", "value": 4}
    near = {"center": [82, 58], "status": "ok", "value": 4}
    assert bench.score_crop([far, near], (120, 160), 4) == "right"
    assert bench.score_crop([far], (120, 160), 4) == "refused"
    assert bench.score_crop([{**near, "value": 2}], (120, 160), 4) == "wrong"
    assert bench.score_crop([{**near, "status": "cocked"}], (120, 160), 4) == "refused"
    img[10:50, 20:60] = 200  # the crop's own pixels lie in its box in the padded picture
    same, ((x1, y1, x2, y2, face),) = bench.crop_in_border(img, 4)
    assert np.array_equal(same, padded := bench.pad_crop(img)) and face == 4
    assert np.array_equal(padded[y1:y2, x1:x2], img) and (x1, y1, x2, y2) == (40, 30, 120, 90)


def _pb_varint(v: int) -> bytes:
    out = b""
    while True:
        b, v = v & 0x7F, v >> 7
        out += bytes([b | (0x80 if v else 0)])
        if not v:
            return out


def _pb(num: int, v) -> bytes:
    if isinstance(v, int):
        return _pb_varint(num << 3) + _pb_varint(v)
    return _pb_varint(num << 3 | 2) + _pb_varint(len(v)) + v


def _conv_model(cout: int, cin: int, k: int, stride: int, group: int = 1) -> bytes:
    """A one-Conv ONNX model (weights zero) written here with a protobuf encoder of the test's own."""
    w = np.zeros((cout, cin // group, k, k), np.float32)
    tensor = b"".join(_pb(1, d) for d in w.shape) + _pb(2, 1) + _pb(8, b"W") + _pb(9, w.tobytes())
    attrs = [_pb(1, b"kernel_shape") + _pb(8, k) + _pb(8, k) + _pb(20, 7),
             _pb(1, b"strides") + _pb(8, stride) + _pb(8, stride) + _pb(20, 7),
             _pb(1, b"pads") + b"".join(_pb(8, k // 2) for _ in range(4)) + _pb(20, 7),
             _pb(1, b"group") + _pb(3, group) + _pb(20, 2)]
    node = _pb(1, b"x") + _pb(1, b"W") + _pb(2, b"y") + _pb(4, b"Conv") + b"".join(_pb(5, a) for a in attrs)

    def value_info(name: bytes, shape) -> bytes:
        dims = b"".join(_pb(1, _pb(1, d)) for d in shape)
        return _pb(1, name) + _pb(2, _pb(1, _pb(1, 1) + _pb(2, dims)))

    graph = _pb(1, node) + _pb(2, b"g") + _pb(5, tensor) + _pb(11, value_info(b"x", (1, cin, 64, 64))) + \
        _pb(12, value_info(b"y", (1, cout, 64 // stride, 64 // stride)))
    return _pb(1, 7) + _pb(8, _pb(1, b"") + _pb(2, 12)) + _pb(7, graph)


def test_macs_of_a_conv_by_hand(tmp_path) -> None:
    p = tmp_path / "conv.onnx"
    p.write_bytes(_conv_model(8, 4, 3, 2))
    net = cv2.dnn.readNetFromONNX(str(p))  # a model OpenCV reads: the counter's parser reads the same file
    net.setInput(np.zeros((1, 4, 64, 64), np.float32))
    assert net.forward().shape == (1, 8, 32, 32)
    got = macs(p, (64, 64), channels=4)
    assert got["conv_nodes"] == 1 and got["output"] == (8, 32, 32)
    assert got["macs"] == 8 * 4 * 9 * 32 * 32
    q = tmp_path / "dw.onnx"
    q.write_bytes(_conv_model(16, 16, 3, 1, group=16))  # depthwise: one input channel per output
    assert macs(q, (40, 24), channels=16)["macs"] == 16 * 1 * 9 * 40 * 24
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"\x0a\xff\xff")
    with pytest.raises(OnnxError):
        macs(bad, (64, 64))


def test_macs_of_the_committed_model_grow_with_the_input_area() -> None:
    from vision.detector import MODEL

    a = macs(MODEL, (256, 320))
    b = macs(MODEL, (512, 640))
    assert a["macs"] > 1_000_000 and b["macs"] == 4 * a["macs"]  # fully convolutional
    assert a["output"][1:] == (64, 80)  # the detector's stride-4 grid


def test_macs_of_the_committed_face_net_through_its_global_pooling() -> None:
    from vision import faces
    from vision.detector import MODEL
    from vision.reader import faces_path

    got = macs(faces_path(MODEL), (faces.CROP, faces.CROP))
    assert got["output"] == (faces.N_CLASSES, 1, 1)
    assert 5_000_000 < got["macs"] < 20_000_000  # about 12 million a crop: 8 dice read once stay cheap


def test_own_set_has_the_bench_layout_on_other_seeds_and_lists_what_it_got_wrong(tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.setattr(bench, "CACHE", tmp_path / "v2")
    monkeypatch.setattr(bench, "jobs", lambda: 1)
    mine, theirs = bench.cases(40, 4_300_000), bench.cases(40)
    assert [(c.size, c.n_dice, c.condition) for c in mine] == [(c.size, c.n_dice, c.condition) for c in theirs]
    assert [c.seed for c in mine] == list(range(4_300_000, 4_300_040)) and theirs[0].seed == 1000
    assert [sum(c.condition == k for c in bench.cases(2000)) for k in bench.CONDITIONS] == [1100, 401, 299, 200]
    real = bench._one_scene
    monkeypatch.setattr(bench, "_one_scene", lambda c: {**real(c), "verdict": "reroll", "reasons": ("cocked",)}
                        if c.index == 0 else real(c))
    assert bench.main(["--own", "4300000", "--cases", "3"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("0 seed 4300000 clean 1280x960 5 dice: reroll cocked")
    assert "clean: 1/2" in out or "clean: 0/2" in out
    assert any(line.startswith("silent wrong: ") for line in out)
    assert bench.main(["--own", "1000"]) == 2  # the bench's own seeds are refused
    assert "start at 1000000" in capsys.readouterr().err
    assert bench.main(["--own"]) == 2 and bench.main(["--own", "22000000", "--cases", "x"]) == 2
    assert capsys.readouterr().err.count("usage:") == 2


def test_further_scenes_continue_the_bench_scenes_and_cover_what_is_needed() -> None:
    more = bench.next_cases(2000, 3000, 3.5)
    assert [c.index for c in more] == list(range(2000, 2000 + len(more)))
    assert more == bench.cases(2000 + len(more))[2000:]  # the same scenes on every run
    assert 3000 <= 3.5 * len(more) <= 3000 * 1.06 + 3.5  # enough at that rate, about 5% over
    assert len(bench.next_cases(40, 1, 3.0)) == 16  # never fewer than 16
    assert len(bench.next_cases(40, 100, 0.0)) == 210  # a rate of 0 counts as 0.5 a scene


def test_bench_refuses_a_photo_folder_that_is_not_there(tmp_path) -> None:
    r = subprocess.run([sys.executable, "-m", "controller.cli", "bench", "--only", "vision", "--data",
                        str(tmp_path / "nowhere")], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "no such folder" in r.stderr


@pytest.mark.slow
def test_quick_bench_json_has_every_section_with_its_counts(tmp_path) -> None:
    env = {**os.environ, "YATZYCAM_BENCH_CACHE": str(tmp_path), "YATZYCAM_PHOTOS": ""}
    r = subprocess.run([sys.executable, "-m", "controller.cli", "bench", "--only", "vision", "--quick", "--json",
                        "--data", str(DATA)], capture_output=True, text=True, cwd=ROOT, env=env, timeout=900)
    assert r.returncode == 0, r.stderr[-2000:]
    v = json.loads(r.stdout)["vision"]
    real = v["real_photos_leave_one_source_out"]
    for src in ("rune55", "webcam", "fisheye"):
        sec = real[src]
        assert "TRAINED ON THIS SOURCE" in sec["model"]  # no fold models given: said loudly
        assert sec["photos"] > 0 and sec["recall"]["n"] > 0 and sec["exact_photos"]["n"] == sec["photos"]
        assert sec["precision"]["n"] == sec["precision"]["k"] + (sec["precision"]["n"] - sec["precision"]["k"])
        assert 0.0 <= sec["recall"]["ci95"][0] <= sec["recall"]["ci95"][1] <= 1.0
    assert real["crops"]["crops"]["face_accuracy"]["n"] > 0 and real["fisheye"]["fisheye_crops"]["face_accuracy"]["n"] > 0
    s = v["renders_outside_training"]
    assert s["scenes"] == bench.QUICK_SCENES
    n = [s["clean_read_exactly"]["n"], s["cocked_caught"]["n"], s["off_tray_caught"]["n"], s["missing_caught"]["n"]]
    assert n == [sum(c.condition == k for c in bench.cases(bench.QUICK_SCENES)) for k in bench.CONDITIONS]
    assert s["silent_wrong"]["n"] == bench.QUICK_SCENES and (s["false_rerolls_by_reason"] == "none" or
                                                          sum(s["false_rerolls_by_reason"].values()) >= 1)
    if s["false_rerolls_by_reason"] != "none":  # each false reroll counted once by its dice not read
        false = s["clean_read_exactly"]["n"] - s["clean_read_exactly"]["k"]
        assert false - s["silent_wrong"]["k"] <= sum(s["false_rerolls_dice_not_read"]["by_count"].values()) <= false
        assert s["false_rerolls_faces_read_ok_wrong"]["k"] <= s["false_rerolls_faces_read_ok_wrong"]["n"]
    d = v["wrong_face_per_die"]["renders"]
    assert d["rendered_dice"] == sum(c.visible for c in bench.cases(bench.QUICK_SCENES))
    assert 0 < d["wrong_face_per_ok_die"]["n"] <= d["rendered_dice"] + 8
    sp = v["speed"]
    assert sp["frames_timed"] == {"1280x960": 3, "640x480": 3}
    assert 0 < sp["median_ms_8_dice_640x480"] < 5000 and sp["model_bytes"] > 10_000
    assert sp["net_macs_at_320x256"] > 1_000_000
    # the face net's share counts each read: two a die when the thresholds ask for the mirrored read
    reads = 2 if reader.model().thresholds.mirror else 1
    assert sp["face_net_reads_per_die"] == reads
    assert sp["face_net_macs_per_frame_8_dice"] == sp["face_net_macs_per_crop"] * 8 * reads > 0
    # the renders were cached under the folder given, with their calibrations
    assert len(list(tmp_path.rglob("*-empty.png"))) == bench.QUICK_SCENES
    assert len(list(tmp_path.rglob("cal-*/*.json"))) == bench.QUICK_SCENES


def test_no_photo_folder_skips_that_part_and_says_why(monkeypatch) -> None:
    monkeypatch.delenv("YATZYCAM_PHOTOS", raising=False)
    folder, why = bench.photo_folder(None)
    assert folder is None and "no photo folder given" in why
    folder, why = bench.photo_folder(DATA)
    assert folder == DATA and why == ""


def test_fold_model_of_a_source_left_out_with_another(tmp_path) -> None:
    (tmp_path / "without-rune55.onnx").write_bytes(b"x")
    (tmp_path / "without-webcam.onnx").write_bytes(b"x")
    (tmp_path / "without-webcam.train.json").write_text(json.dumps({"leave_out": "webcam,crops"}))
    assert bench.fold_model("rune55", tmp_path) == (str(tmp_path / "without-rune55.onnx"),
                                                     "fold model without-rune55.onnx: trained without rune55")
    path, note = bench.fold_model("crops", tmp_path)
    assert path == str(tmp_path / "without-webcam.onnx") and "without webcam,crops" in note
    (tmp_path / "without-rune55.faces.onnx").write_bytes(b"x")  # a fold's face net is never taken for a detector
    (tmp_path / "without-rune55.faces.train.json").write_text(json.dumps({"leave_out": "rune55,fisheye"}))
    path, note = bench.fold_model("fisheye", tmp_path)
    assert path is None and "TRAINED ON THIS SOURCE" in note and "without-fisheye.onnx" in note
    assert bench.fold_model("fisheye", None)[0] is None


def test_a_calibration_is_read_as_saved_whether_made_now_or_found_in_the_cache(tmp_path, monkeypatch) -> None:
    """The bench reads a scene with its calibration as the profile file holds it (coordinates
    rounded), on the run that calibrates and on the next, which finds it cached: the same counts."""
    monkeypatch.setattr(bench, "CACHE", tmp_path / "v2")
    c = next(c for c in bench.cases(12) if c.size == (640, 480) and c.condition == "clean")
    frame, empty, ref, _ = bench.render_case(c)
    made = bench.calibrated(c, empty, ref)
    found = bench.calibrated(c, empty, ref)
    assert made[0] is not None and made == found
    assert made[0].to_json() == found[0].to_json()
    raw = bench._calibrate(empty, ref, c.n_dice)[0]
    assert made[0].floor == tuple(tuple(round(v, 2) for v in p) for p in raw.floor)


def test_more_dice_asked_reads_further_scenes_up_to_a_limit_that_grows_with_them(monkeypatch) -> None:
    asked: list[int] = []

    def read_all(todo, workers):  # every scene "not rendered": no die is ever read ok
        asked.append(len(todo))
        return [{"case": c, "unrendered": "test"} for c in todo]

    monkeypatch.setattr(bench, "_read_all", read_all)
    bench._scenes(10, bench.MIN_OK_DICE)
    assert sum(asked) == 30  # at most 3 n scenes for the default count
    asked.clear()
    bench._scenes(10, 2 * bench.MIN_OK_DICE)
    assert sum(asked) == 60  # twice the dice: twice the scenes at most


def test_the_bench_cli_takes_the_dice_count_to_the_vision_section(monkeypatch) -> None:
    from controller.cli.main import main

    seen = {}

    def scenes(n, min_ok=0):
        seen["min_ok"] = min_ok
        return {}, {}

    monkeypatch.setattr(bench, "_scenes", scenes)
    monkeypatch.setattr(bench, "speed", lambda todo: {})
    monkeypatch.setenv("YATZYCAM_PHOTOS", "")
    assert main(["bench", "--only", "vision", "--quick", "--json", "--dice", "1234"]) == 0
    assert seen["min_ok"] == 1234
    assert main(["bench", "--only", "vision", "--dice", "5"]) == 2


def test_a_frame_the_reader_refuses_whole_is_a_refused_scene_not_the_end_of_the_bench(monkeypatch) -> None:
    c = bench.cases(1)[0]
    frame, empty, ref, t = bench.render_case(c)
    grey = np.full_like(frame, 81)  # a frame with nothing in it (the renderer drew one such scene)
    monkeypatch.setattr(bench, "render_case", lambda case: (grey, empty, ref, t))
    res = bench._one_scene(c)
    assert res["verdict"] == "reroll" and res["reasons"] == ("frame",) and res["dice"] == []
    assert not bench.silent_wrong(res) and bench.die_tally(res)[1:] == (0, 0)
