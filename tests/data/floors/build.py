"""How the real empty-tray frames here were made: `python tests/data/floors/build.py DICE_PHOTOS_DIR`.

For each photo named in PICK (from the dice-photos folder: rune55 `images/`, `webcam/`, `fisheye/`) the
dice are painted out (cv2.inpaint, Telea, over each die's box grown by a third each way; webcam boxes
cover only the top face, so they are first grown about their centre to the whole die: 2.2x), the frame is
downscaled to a longest side of 640 px and written as JPEG (quality 85). The floor polygons in
`floors.json` were drawn by hand on these written frames (frame pixels), looking at each one; this
script does not touch them.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import cv2
import numpy as np

HERE = Path(__file__).resolve().parent
LONG = 640
GROW = 1.0 / 3.0  # each die's box grown by a third (each side by a sixth of its size)
TOP_TO_DIE = 2.2  # webcam: a top-face box to the whole die's (side faces show around it)

PICK = {
    "images": [
        "00004_jpg.rf.062eb840e84b0978d0c605e5c86d3c6b.jpg",
        "00008_jpg.rf.0b09594c26ed502caec86f340b1d3e69.jpg",
        "00014_jpg.rf.8f16bd937d37e9863fea34f267d57daf.jpg",
        "00028_jpg.rf.07133d1f6cae1aed27d7e53655fa9757.jpg",
        "00033_jpg.rf.516dd7676f47a5aa48018f2c8f307b41.jpg",
        "00041_jpg.rf.14e623fa36849b39df8aad2da5433dbb.jpg",
        "00043_jpg.rf.26e7027cb4d5daa34025a94767d394d4.jpg",
        "00063_jpg.rf.0785eddd4bcf252bf418139cb0b22de4.jpg",
        "00068_jpg.rf.1d44328cef7517cf0eeab1663e8b0157.jpg",
        "00083_jpg.rf.41e715c55a5d52b9ffe9f52b90e38fba.jpg",
        "00097_jpg.rf.760d7fac5e20155acc6ba498d72030de.jpg",
        "00100_jpg.rf.060ab56f2965dc04c650622cc5b33041.jpg",
        "00104_jpg.rf.270a97167f1e4a2e91d28ea0237bddd3.jpg",
    ],
    "webcam": [
        "dice_1.jpg",
        "five_3.jpg",
        "four_14.jpg",
        "six_2.jpg",
        "six_5.jpg",
        "valid_15.jpg",
        "valid_37.jpg",
        "four_29.jpg",
    ],
    "fisheye": [
        "WIN_20221210_14_48_34_Pro.jpg",
        "WIN_20221210_14_48_59_Pro.jpg",
        "WIN_20221211_13_08_15_Pro.jpg",
        "WIN_20221211_13_08_58_Pro.jpg",
        "WIN_20221210_14_47_18_Pro.jpg",
        "WIN_20221210_14_49_24_Pro.jpg",
        "WIN_20221210_14_49_38_Pro.jpg",
        "WIN_20221211_13_07_25_Pro.jpg",
        "WIN_20221211_13_07_45_Pro.jpg",
        "WIN_20221211_13_08_36_Pro.jpg",
        "WIN_20221211_13_09_23_Pro.jpg",
        "WIN_20221211_13_06_57_Pro.jpg",
    ],
}


def _rows(src: Path, sub: str) -> dict:
    base = src if sub == "images" else src / sub
    out = {}
    for line in (base / "labels.jsonl").read_text().splitlines():
        if line.strip():
            r = json.loads(line)
            out[Path(r["image"]).name] = (base / r["image"], r["boxes"])
    return out


def empty_frame(img: np.ndarray, boxes, whole: float = 1.0) -> np.ndarray:
    """The frame with every die painted out."""
    h, w = img.shape[:2]
    m = np.zeros((h, w), np.uint8)
    for x0, y0, x1, y1, *_ in boxes:
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        bw, bh = (x1 - x0) * whole * (1 + GROW), (y1 - y0) * whole * (1 + GROW)
        cv2.rectangle(m, (int(cx - bw / 2), int(cy - bh / 2)), (int(np.ceil(cx + bw / 2)), int(np.ceil(cy + bh / 2))), 255, -1)
    r = max(3, int(0.01 * max(h, w)))
    return cv2.inpaint(img, m, r, cv2.INPAINT_TELEA)


def main(argv: list[str]) -> int:
    if len(argv) != 1 or not Path(argv[0], "labels.jsonl").is_file():
        print("usage: python tests/data/floors/build.py DICE_PHOTOS_DIR (a folder with labels.jsonl)", file=sys.stderr)
        return 2
    src = Path(argv[0])
    for sub, names in PICK.items():
        rows = _rows(src, sub)
        for name in names:
            path, boxes = rows[name]
            img = cv2.imread(str(path), cv2.IMREAD_COLOR)
            img = empty_frame(img, boxes, TOP_TO_DIE if sub == "webcam" else 1.0)
            h, w = img.shape[:2]
            k = LONG / max(h, w)
            if k < 1:
                img = cv2.resize(img, (round(w * k), round(h * k)), interpolation=cv2.INTER_AREA)
            dst = HERE / f"{sub}-{Path(name).stem[:40]}.jpg"
            cv2.imwrite(str(dst), img, [cv2.IMWRITE_JPEG_QUALITY, 85])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
