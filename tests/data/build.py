"""How this folder was made: `python tests/data/build.py DICE_PHOTOS_DIR` copies a fixed, spread
subset of a dice-photos folder here (the same layout, labels.jsonl per source, the sources' LICENSE
files). Photos are copied unchanged except the fisheye ones, which are halved in size (960x540,
JPEG quality 85) with their boxes scaled, to keep the folder small."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import cv2

HERE = Path(__file__).resolve().parent
PICK = {"": 24, "oblique": 12, "webcam": 24, "fisheye": 12}
CROPS_PER_FACE = {"crops": 5, "fisheye/crops": 4}


def _spread(rows: list, k: int) -> list:
    return [rows[round(i * (len(rows) - 1) / max(1, k - 1))] for i in range(min(k, len(rows)))]


def main(argv: list[str]) -> int:
    if len(argv) != 1 or not Path(argv[0], "labels.jsonl").is_file():
        print("usage: python tests/data/build.py DICE_PHOTOS_DIR (a folder with labels.jsonl)", file=sys.stderr)
        return 2
    src = Path(argv[0])
    for sub, k in PICK.items():
        rows = [json.loads(x) for x in (src / sub / "labels.jsonl").read_text().splitlines() if x.strip()]
        rows = _spread(sorted(rows, key=lambda r: r["image"]), k)
        out_rows = []
        for r in rows:
            dst = HERE / sub / r["image"]
            dst.parent.mkdir(parents=True, exist_ok=True)
            if sub == "fisheye":
                img = cv2.imread(str(src / sub / r["image"]))
                img = cv2.resize(img, (img.shape[1] // 2, img.shape[0] // 2), interpolation=cv2.INTER_AREA)
                cv2.imwrite(str(dst), img, [cv2.IMWRITE_JPEG_QUALITY, 85])
                r = {**r, "boxes": [[b[0] / 2, b[1] / 2, b[2] / 2, b[3] / 2, b[4]] for b in r["boxes"]]}
            else:
                shutil.copyfile(src / sub / r["image"], dst)
            out_rows.append(r)
        (HERE / sub / "labels.jsonl").write_text("".join(json.dumps(r) + "\n" for r in out_rows))
        if (src / sub / "LICENSE").is_file() and sub:
            shutil.copyfile(src / sub / "LICENSE", HERE / sub / "LICENSE")
    for sub, k in CROPS_PER_FACE.items():
        for face in range(1, 7):
            files = sorted((src / sub / str(face)).iterdir())
            for p in _spread(files, k):
                dst = HERE / sub / str(face) / p.name
                dst.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(p, dst)
    shutil.copyfile(src / "crops" / "LICENSE", HERE / "crops" / "LICENSE")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
