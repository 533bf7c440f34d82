"""`make train PHOTOS=DIR` / `python -m vision.train.recipe`: the committed model's whole recipe.

1. render the training scenes (the renderer's train pool; seeds from 0) into a cache folder;
2. pretrain on renders alone;
3. fine-tune on renders and every real source: the committed model, vision/model/dice.onnx;
4. with `--folds DIR`: the same fine-tune once per real source left out, DIR/without-SRC.onnx,
   for `yatzycam bench --models DIR` (fold models stay out of the repository).
"""

from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path

from vision.detector import MODEL
from vision.train import train as T

PRETRAIN_STEPS = 6000
FINETUNE_STEPS = 3000
RENDERS = 6000
FOLDS = ("rune55", "webcam", "fisheye")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m vision.train.recipe", description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", required=True, metavar="DIR", help="the real photo folder (dice-photos layout)")
    ap.add_argument("--work", metavar="DIR", default=os.path.join(tempfile.gettempdir(), "yatzycam-train"),
                    help="renders and checkpoints (default: %(default)s)")
    ap.add_argument("--out", metavar="MODEL.onnx", default=str(MODEL))
    ap.add_argument("--folds", metavar="DIR", help="also train the leave-one-source-out fold models into DIR")
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args(argv)
    work = Path(a.work)
    renders = work / "renders"
    pre = work / "pre.onnx"
    common = ["--renders", str(renders), "--seed", str(a.seed)]
    if not pre.with_suffix(".pt").exists():
        T.main(common + ["--render-count", str(RENDERS), "--steps", str(PRETRAIN_STEPS), "--out", str(pre)])
    tune = common + ["--data", a.data, "--init", str(pre.with_suffix(".pt")), "--steps", str(FINETUNE_STEPS),
                     "--lr", "2e-3"]
    T.main(tune + ["--out", a.out])
    if a.folds:
        for src in FOLDS:
            T.main(tune + ["--leave-out", src, "--out", str(Path(a.folds) / f"without-{src}.onnx")])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
