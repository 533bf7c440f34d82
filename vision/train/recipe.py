"""`make train PHOTOS=DIR` / `python -m vision.train.recipe`: the committed model's whole recipe.

1. render the training scenes into a work folder: CLASSIC scenes of the renderer's classic pool
   (seeds 0 up) and TRAIN_POOL scenes of its widened train pool (seeds 100000 up); never its
   holdout pool, which the bench keeps for dice styles, floors and settings the model never saw;
2. pretrain on the classic renders alone (PRETRAIN_STEPS);
3. fine-tune on both render sets and every real source (FINETUNE_STEPS), then go on for
   FURTHER_STEPS more on the same data (seed 1): the committed detector;
4. train the face net (vision.train.faces) on die crops of the same renders and photos
   (FACE_STEPS): NAME.faces.onnx beside the detector NAME.onnx;
5. with `--folds DIR`: the FINETUNE_STEPS fine-tune and the face net once per fold of FOLDS left
   out, DIR/without-SRC.onnx and DIR/without-SRC.faces.onnx, for `yatzycam bench --models DIR`
   (fold models stay out of the repository). The fold detectors stop before the further steps
   (time on two cores), so their figures are, if anything, below the committed model's.

On two cores: rendering about 5 minutes, pretraining about 15, each detector fine-tune 10-25,
each face net 10-20.
"""

from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path

from vision.detector import MODEL
from vision.reader import faces_path
from vision.train import faces as FT
from vision.train import train as T

CLASSIC = 2400
TRAIN_POOL = 2274
PRETRAIN_STEPS = 3000
FINETUNE_STEPS = 1400
FURTHER_STEPS = 3000
FACE_STEPS = 4000
#: the leave-out folds: each real source with whole photos; crops/ (single dice, no photos) is left
#: out with webcam, so that its face accuracy is also measured by a model that never saw it
FOLDS = ("rune55", "webcam,crops", "fisheye")


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
    classic, train_pool = work / "renders-classic", work / "renders-train"
    pre = work / "pre.onnx"
    seed = ["--seed", str(a.seed)]
    from vision.train.data import render_cache

    render_cache(classic, range(0, CLASSIC), pool="classic")
    render_cache(train_pool, range(100000, 100000 + TRAIN_POOL), pool="train")
    if not pre.with_suffix(".pt").exists():
        T.main(["--renders", str(classic), "--steps", str(PRETRAIN_STEPS), "--threads", "2", "--out", str(pre)] + seed)
    tune = ["--renders", f"{classic},{train_pool}", "--data", a.data, "--init", str(pre.with_suffix(".pt")),
            "--steps", str(FINETUNE_STEPS), "--lr", "2e-3", "--threads", "1"] + seed
    first = work / "finetuned.onnx"
    T.main(tune + ["--out", str(first)])
    T.main(["--renders", f"{classic},{train_pool}", "--data", a.data, "--init", str(first.with_suffix(".pt")),
            "--steps", str(FURTHER_STEPS), "--lr", "2e-3", "--threads", "2", "--seed", str(a.seed + 1),
            "--out", a.out])
    faces = ["--renders", f"{classic},{train_pool}", "--data", a.data, "--steps", str(FACE_STEPS),
             "--threads", "2"] + seed
    FT.main(faces + ["--out", str(faces_path(a.out))])
    if a.folds:
        for src in FOLDS:
            fold = Path(a.folds) / f"without-{src.split(',')[0]}.onnx"
            T.main(tune + ["--leave-out", src, "--out", str(fold)])
            FT.main(faces + ["--leave-out", src, "--out", str(faces_path(fold))])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
