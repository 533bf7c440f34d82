"""`make test-pi`, step 1 (the main environment): frames for the Pi check and what the detector finds on them.

    python tests/pi/frames.py OUT_DIR

Writes OUT_DIR/NAME.png (rendered scenes at 1280x960 and 640x480, and a few photos of tests/data,
decoded here and saved losslessly so both sides read the same pixels), OUT_DIR/NAME.cal.json (the
rendered scenes' calibrations, OUT_DIR/NAME.empty.png their empty frames) and OUT_DIR/expected.json:
per frame, the detector's dice (at the calibrated die size for renders, over the pyramid for photos),
the reader's verdict and faces, and for renders the floor net's outline and the floor found.
Step 2, tests/pi/check.py, runs the same under the Pi's Python, OpenCV and numpy and compares.
"""

from __future__ import annotations

import json
import platform
import sys
from pathlib import Path

import cv2
import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))

from common import detections, floor, reading  # noqa: E402  (tests/pi, this script's folder)

N_RENDERS = 20
PHOTOS = 6
SEED = 7_700_000  # renders for this check only


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python tests/pi/frames.py OUT_DIR", file=sys.stderr)
        return 2
    from calibration import CalibrationError, calibrate
    from calibration.profile import Calibration
    from vision import synthetic as S
    from vision import reader

    out = Path(argv[0])
    out.mkdir(parents=True, exist_ok=True)
    cv2.setNumThreads(1)
    det = reader.model()
    frames = []
    for i in range(N_RENDERS):
        rng = np.random.default_rng(SEED + i)
        size = ((1280, 960), (640, 480))[i % 2]
        n = (5, 6, 8)[i % 3]
        scene = S.random_scene(rng, n, size, ("clean", "cocked", "off_tray", "missing")[i % 4])  # missing: a short throw, read beyond the region too
        ref = S.reference_scene(rng, n, size, like=scene)
        img, empty = S.render(scene), S.render_empty(scene)
        try:
            cal = calibrate(empty, S.render(ref), n)
        except CalibrationError:  # as the bench does: from the empty tray alone
            cal = calibrate(empty)
        cal = Calibration.from_json(cal.to_json())  # as the Pi side loads it (the file rounds its figures)
        name = f"render{i:02d}"
        cv2.imwrite(str(out / f"{name}.png"), img)
        cv2.imwrite(str(out / f"{name}.empty.png"), empty)
        (out / f"{name}.cal.json").write_text(json.dumps(cal.to_json()))
        frames.append((name, img, cal, n))
    data = HERE.parent / "data"
    photos = sorted(p for p in data.rglob("*.jpg"))
    step = max(1, len(photos) // PHOTOS)
    for k, p in enumerate(photos[::step][:PHOTOS]):
        img = cv2.imread(str(p), cv2.IMREAD_COLOR)
        name = f"photo{k:02d}"
        cv2.imwrite(str(out / f"{name}.png"), img)
        frames.append((name, img, None, None))
    from vision.onnxnet import describe

    expected = {"python": platform.python_version(), "opencv": cv2.__version__, "numpy": np.__version__,
                "engine": describe(), "frames": {}}
    for name, img, cal, n in frames:
        expected["frames"][name] = {"dice": detections(det, img, cal), "reading": reading(img, cal, n)}
        if cal is not None:
            expected["frames"][name]["floor"] = floor(cv2.imread(str(out / f"{name}.empty.png"), cv2.IMREAD_COLOR))
    (out / "expected.json").write_text(json.dumps(expected, indent=1))
    total = sum(len(f["dice"]) for f in expected["frames"].values())
    print(f"tests/pi/frames.py: {len(frames)} frames, {total} dice detected (OpenCV {cv2.__version__}, "
          f"numpy {np.__version__}, nets run by {expected['engine']}) in {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
