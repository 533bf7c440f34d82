"""vision.onnxnet: the reader's nets run by onnxruntime or by OpenCV's dnn, with the same results;
the engine chosen by $YATZYCAM_DNN; a model file that is bad or declares fixed sides."""

from __future__ import annotations

import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision import faces, onnxnet
from vision.detector import MODEL, Detector
from vision.onnxnet import ModelError, OnnxNet

HERE = Path(__file__).resolve().parent
PHOTOS = HERE.parent / "data"
FIXED = HERE / "fixed_sides.onnx"  # one 3x3 convolution (a Laplacian), its input declared 1x1x16x16


def photo(name: str) -> np.ndarray:
    img = cv2.imread(str(PHOTOS / name), cv2.IMREAD_GRAYSCALE)
    assert img is not None, name
    return img


def first_photo(folder: str) -> str:
    return str(next(p for p in sorted((PHOTOS / folder).rglob("*")) if p.suffix in (".jpg", ".png")).relative_to(PHOTOS))


def test_the_engine_is_chosen_by_yatzycam_dnn(monkeypatch):
    monkeypatch.delenv("YATZYCAM_DNN", raising=False)
    assert onnxnet.engine() == "onnxruntime"  # a runtime dependency: installed here
    monkeypatch.setenv("YATZYCAM_DNN", "opencv")
    assert onnxnet.engine() == "opencv" and OnnxNet(MODEL, "x").engine == "opencv"
    assert onnxnet.describe() == f"OpenCV dnn {cv2.__version__}"
    monkeypatch.setenv("YATZYCAM_DNN", "OnnxRuntime")
    assert OnnxNet(MODEL, "x").engine == "onnxruntime"
    monkeypatch.setenv("YATZYCAM_DNN", "tflite")
    with pytest.raises(ModelError, match="YATZYCAM_DNN='tflite': use one of onnxruntime, opencv") as e:
        OnnxNet(MODEL, "x")
    assert "\n" not in str(e.value)


def test_without_onnxruntime_opencv_runs_the_nets_unless_onnxruntime_is_asked_for(monkeypatch):
    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # import onnxruntime -> ImportError
    monkeypatch.delenv("YATZYCAM_DNN", raising=False)
    assert onnxnet.engine() == "opencv" and Detector().net.engine == "opencv"
    monkeypatch.setenv("YATZYCAM_DNN", "onnxruntime")
    with pytest.raises(ModelError, match="onnxruntime does not import"):
        Detector()


@pytest.mark.parametrize("folder", ["webcam", "images"])
def test_both_engines_find_the_same_dice_and_read_the_same_faces(monkeypatch, folder):
    gray = photo(first_photo(folder))
    found, probs = {}, {}
    for name in onnxnet.ENGINES:
        monkeypatch.setenv("YATZYCAM_DNN", name)
        det = Detector()
        assert det.net.engine == name
        dice = det.detect(gray)
        found[name] = dice
        net = faces.FaceNet(faces.MODEL.with_name("dice.faces.onnx"), mirror=True)
        probs[name] = net.probs(gray, [(d.x, d.y, d.size) for d in dice])
    a, b = found["onnxruntime"], found["opencv"]
    assert len(a) == len(b) >= 1
    for da, db in zip(a, b):
        assert abs(da.x - db.x) < 0.01 and abs(da.y - db.y) < 0.01 and abs(da.score - db.score) < 1e-4
    assert np.abs(probs["onnxruntime"] - probs["opencv"]).max() < 1e-4
    assert (probs["onnxruntime"].argmax(1) == probs["opencv"].argmax(1)).all()


def test_a_net_whose_file_declares_fixed_sides_runs_at_any_size(monkeypatch):
    monkeypatch.delenv("YATZYCAM_DNN", raising=False)
    rng = np.random.default_rng(0)
    kernel = np.array([[0, 1, 0], [1, -4, 1], [0, 1, 0]], np.float32)

    def want(x):  # the same convolution, zero-padded
        return cv2.filter2D(x[0, 0], -1, kernel, borderType=cv2.BORDER_CONSTANT)

    net = OnnxNet(FIXED, "a test net")
    x = rng.random((1, 1, 16, 16), dtype=np.float32)
    assert np.allclose(net(x)[0, 0], want(x), atol=1e-5) and net.engine == "onnxruntime"
    # another size than the file declares: onnxruntime refuses it, so OpenCV's dnn runs the net from now on
    y = rng.random((1, 1, 32, 48), dtype=np.float32)
    assert np.allclose(net(y)[0, 0], want(y), atol=1e-5) and net.engine == "opencv"
    assert np.allclose(net(x)[0, 0], want(x), atol=1e-5)


@pytest.mark.parametrize("engine", onnxnet.ENGINES)
def test_a_missing_or_damaged_model_file_is_one_line_in_either_engine(monkeypatch, tmp_path, engine):
    monkeypatch.setenv("YATZYCAM_DNN", engine)
    with pytest.raises(ModelError, match="no such model file"):
        OnnxNet(tmp_path / "none.onnx", "a test net")
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"\x08\x07" + b"not a model" * 20)
    with pytest.raises(ModelError, match="cannot load this model") as e:
        OnnxNet(bad, "a test net")
    assert "\n" not in str(e.value) and str(bad) in str(e.value)
