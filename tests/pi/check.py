"""`make test-pi`, step 2: under the Pi's own packages (Debian's python3-opencv 4.6 and python3-numpy
1.24, /usr/bin/python3, the repository on PYTHONPATH, no venv), the committed model must find the same
dice on the frames tests/pi/frames.py wrote as the main environment did: the same dice with equal
faces, centres within 0.5 px, heat and class confidences within 0.01; and the reader (its runtime
modules imported here) must give the same readings, but for a die whose score or face probability
lies within that 0.01 of the reader's threshold (which a difference inside the tolerance may tip); and
on the renders' empty frames the floor net's outline and the floor found must overlap the main
environment's by IoU 0.99 or more.

    PYTHONPATH=. /usr/bin/python3 tests/pi/check.py FRAMES_DIR
"""

from __future__ import annotations

import json
import math
import platform
import sys
from pathlib import Path

import cv2
import numpy as np

from common import detections, floor, reading, thresholds  # tests/pi, this script's folder

CENTRE_PX = 0.5
CONF = 0.01
FLOOR_IOU = 0.99  # the floor net's outline and the floor found, against the main environment's
LEAST_FRAMES = 20


def compare(want: list[dict], got: list[dict]) -> list[str]:
    """What differs between two frames' dice (matched by nearest centre), as lines."""
    bad = []
    if len(want) != len(got):
        bad.append(f"{len(got)} dice, the main environment found {len(want)}")
    left = list(got)
    for w in want:
        if not left:
            break
        g = min(left, key=lambda g: math.hypot(g["x"] - w["x"], g["y"] - w["y"]))
        left.remove(g)
        d = math.hypot(g["x"] - w["x"], g["y"] - w["y"])
        at = f"die at ({w['x']:.1f}, {w['y']:.1f})"
        if d > CENTRE_PX:
            bad.append(f"{at}: centre {d:.2f} px away")
        if g["face"] != w["face"]:
            bad.append(f"{at}: face {g['face']}, main environment {w['face']}")
        for k in ("score", "conf"):
            if abs(g[k] - w[k]) > CONF:
                bad.append(f"{at}: {k} {g[k]:.4f}, main environment {w[k]:.4f}")
    return bad


def compare_floor(want: dict, got: dict, size: tuple[int, int]) -> list[str]:
    """What differs between the floor net's outlines and the floors found on an empty frame."""
    from vision import tray

    bad = []
    for k in ("net", "found"):
        if (want[k] is None) != (got[k] is None):
            bad.append(f"floor {k}: {got[k] is not None}, main environment {want[k] is not None}")
        elif want[k] is not None:
            v = tray.iou(tuple(map(tuple, want[k])), tuple(map(tuple, got[k])), size)
            if v < FLOOR_IOU:
                bad.append(f"floor {k}: IoU {v:.3f} with the main environment's")
    if abs(want["unsure"] - got["unsure"]) > CONF:
        bad.append(f"floor net unsure share {got['unsure']:.4f}, main environment {want['unsure']:.4f}")
    return bad


def on_the_edge(want: dict, got: dict, dets: list[dict], th: tuple[float, float] | None) -> bool:
    """Do two readings differ only in dice whose detection lies within CONF of a threshold (the die
    score or the face probability), where a difference inside the tolerance may tip the reader?"""
    if th is None:
        return False
    def unmatched(one: list, other: list) -> list:
        """Dice of `one` with no die of the same value and status within CENTRE_PX in `other`."""
        return [d[2:] for d in one if not any(d[:2] == o[:2] and math.dist(d[2:], o[2:]) <= CENTRE_PX
                                              for o in other)]

    for x, y in unmatched(want["dice"], got["dice"]) + unmatched(got["dice"], want["dice"]):
        near = [d for d in dets if math.hypot(d["x"] - x, d["y"] - y) <= 1.0]
        if not any(abs(d["score"] - th[0]) <= CONF or abs(d["conf"] - th[1]) <= CONF for d in near):
            return False
    return True


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: PYTHONPATH=. /usr/bin/python3 tests/pi/check.py FRAMES_DIR", file=sys.stderr)
        return 2
    from calibration.profile import Calibration
    from vision import reader
    from vision.detector import MODEL

    folder = Path(argv[0])
    try:
        expected = json.loads((folder / "expected.json").read_text())
    except (OSError, ValueError) as e:
        print(f"tests/pi/check.py: {folder}/expected.json: {e} (run tests/pi/frames.py first)", file=sys.stderr)
        return 2
    from vision.onnxnet import describe

    print(f"Pi side: Python {platform.python_version()}, OpenCV {cv2.__version__}, numpy {np.__version__}, "
          f"nets run by {describe()}; main side: Python {expected['python']}, OpenCV {expected['opencv']}, "
          f"numpy {expected['numpy']}, nets run by {expected.get('engine', 'OpenCV dnn')}")
    cv2.setNumThreads(1)
    det = reader.model()
    frames = expected["frames"]
    failed = dice = edge = 0
    th = thresholds()
    for name, want in sorted(frames.items()):
        img = cv2.imread(str(folder / f"{name}.png"), cv2.IMREAD_COLOR)
        if img is None:
            print(f"{name}: cannot read {name}.png")
            failed += 1
            continue
        calp = folder / f"{name}.cal.json"
        cal = Calibration.from_json(json.loads(calp.read_text())) if calp.exists() else None
        got = detections(det, img, cal)
        bad = compare(want["dice"], got)
        n = None if cal is None else cal.n_dice
        r = reading(img, cal, n)
        if r != want["reading"]:
            if on_the_edge(want["reading"], r, want["dice"], th):
                edge += 1
            else:
                bad.append(f"reader: {r}, main environment {want['reading']}")
        if "floor" in want:
            bad += compare_floor(want["floor"], floor(cv2.imread(str(folder / f"{name}.empty.png"), cv2.IMREAD_COLOR)),
                                 img.shape[1::-1])
        dice += len(want["dice"])
        if bad:
            failed += 1
            print(f"{name}: " + "; ".join(bad[:6]))
    if len(frames) < LEAST_FRAMES:
        print(f"only {len(frames)} frames (at least {LEAST_FRAMES} asked)")
        return 1
    if failed:
        print(f"FAILED: {failed} of {len(frames)} frames differ from the main environment ({MODEL.name})")
        return 1
    tipped = f" ({edge} differing only in a die within {CONF} of a threshold)" if edge else ""
    floors = sum("floor" in f for f in frames.values())
    print(f"ok: {len(frames)} frames, {dice} dice: the same dice (faces equal, centres within {CENTRE_PX} px, "
          f"confidences within {CONF}) and the same readings{tipped} as the main environment ({MODEL.name}); "
          f"{floors} empty frames: the same floors (IoU >= {FLOOR_IOU})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
