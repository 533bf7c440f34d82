"""One ONNX net, run by onnxruntime when it is installed, else by OpenCV's dnn.

The reader's nets are plain ONNX files (opset 12: Conv, ReLU, Add, nearest Resize,
GlobalAveragePool) that both engines read. OpenCV's dnn is always there (Raspberry Pi OS
bookworm's apt has OpenCV 4.6); onnxruntime, where it is installed (on the Pi: a wheel for
aarch64, installed with `--no-deps` beside apt's numpy, see docs/pi.md), runs the same nets in
about half the time on one core (the detector's depthwise convolutions most of all; figures in
vision/model/MODEL_CARD.md). The two give the same outputs to float rounding (`make test-pi`
checks the dice and readings of both under the Pi's packages against this environment's).

$YATZYCAM_DNN=opencv (or onnxruntime) chooses the engine; unset, onnxruntime when it imports.
"""

from __future__ import annotations

import os
from pathlib import Path

import cv2
import numpy as np

ENGINES = ("onnxruntime", "opencv")


class ModelError(RuntimeError):
    """A model file that is missing or that the engine cannot load (one line)."""
    user_error = True


def engine() -> str:
    """The engine nets are run by: $YATZYCAM_DNN if set, else onnxruntime when it imports, else opencv."""
    want = os.environ.get("YATZYCAM_DNN", "").strip().lower()
    if want and want not in ENGINES:
        raise ModelError(f"YATZYCAM_DNN={want!r}: use one of {', '.join(ENGINES)}")
    if want == "opencv":
        return "opencv"
    try:
        import onnxruntime  # noqa: F401
    except ImportError as e:
        if want == "onnxruntime":
            raise ModelError(f"YATZYCAM_DNN=onnxruntime but onnxruntime does not import ({e})") from None
        return "opencv"
    return "onnxruntime"


def describe() -> str:
    """The engine with its version, e.g. "onnxruntime 1.32.0" or "OpenCV dnn 4.6.0"."""
    if engine() == "onnxruntime":
        import onnxruntime

        return f"onnxruntime {onnxruntime.__version__}"
    return f"OpenCV dnn {cv2.__version__}"


class OnnxNet:
    """An ONNX file with one input and (the first of) its outputs: `net(x)` for a float32 NCHW array.
    `threads`: the engine's threads for one run (1: one core, as the reader runs; None: the engine's
    default)."""

    def __init__(self, path: str | os.PathLike, what: str, threads: int | None = 1):
        self.path = Path(path)
        if not self.path.is_file():
            raise ModelError(f"{self.path}: no such model file ({what})")
        self.engine = engine()
        if self.engine == "onnxruntime":
            import onnxruntime as ort

            opts = ort.SessionOptions()
            if threads is not None:
                opts.intra_op_num_threads = threads
                opts.inter_op_num_threads = 1
            opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
            opts.log_severity_level = 3  # errors only: no warnings on stderr at load
            try:
                self.session = ort.InferenceSession(str(self.path), opts, providers=["CPUExecutionProvider"])
            except Exception as e:  # onnxruntime raises its own exception types
                raise ModelError(f"{self.path}: onnxruntime cannot load this model ({str(e).strip().splitlines()[-1]})") from None
            first = self.session.get_inputs()[0]
            self.input = first.name
            #: the input's sides as the file declares them (an int: fixed; a name or None: free)
            self.declared = tuple(first.shape)
        else:
            self.opencv(threads)
        self.threads = threads

    def opencv(self, threads: int | None) -> None:
        """Run this net by OpenCV's dnn from now on."""
        if threads is not None:
            cv2.setNumThreads(threads)
        try:
            self.net = cv2.dnn.readNetFromONNX(str(self.path))
        except cv2.error as e:
            raise ModelError(f"{self.path}: OpenCV cannot load this model ({str(e).strip().splitlines()[-1]})") from None
        self.engine = "opencv"

    def __call__(self, x: np.ndarray) -> np.ndarray:
        x = np.ascontiguousarray(x, dtype=np.float32)
        if self.engine == "onnxruntime":
            if all(not isinstance(d, int) or d == n for d, n in zip(self.declared[2:], x.shape[2:])):
                return self.session.run(None, {self.input: x})[0]
            # a file exported with fixed sides (an older recipe's detector): OpenCV's dnn runs it at any
            # size, onnxruntime only at the declared one
            self.opencv(self.threads)
        self.net.setInput(x)
        return self.net.forward()
