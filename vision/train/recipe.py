"""`make train PHOTOS=DIR` / `python -m vision.train.recipe`: the committed models' whole recipe.

1. render the training scenes into a work folder (never the renderer's holdout pool, which the
   bench keeps for dice styles, floors and settings the models never saw): CLASSIC scenes of its
   classic pool (seeds 0 up), TRAIN_POOL scenes of its widened train pool (seeds 100000 up), MORE
   further train-pool scenes (seeds 102274 up), COCKED train-pool scenes that hold cocked dice
   and odd faces (seeds 300000 up) and DISTRACT train-pool scenes that also hold symbol dice and
   dark marks, no dice of the game (seeds 400000 up);
2. the detector: pretrain on the classic renders alone (PRETRAIN_STEPS); fine-tune on the classic
   and first train-pool renders and every real source (FINETUNE_STEPS), then go on for
   FURTHER_STEPS more on the same data (seed 1): the committed detector NAME.onnx;
3. the face net (vision.train.faces): a bank of every die of the renders but DISTRACT and of the
   photos, read where the committed detector finds it, with that detector's false dice; FACE_STEPS
   steps on it; then FACE_TUNE_STEPS more from those weights on a bank that adds the DISTRACT
   scenes (their symbol dice and marks as "not a die"): NAME.faces.onnx beside the detector;
4. with `--folds DIR` (`--only-folds`: these alone, for the committed models; `--fold SRC`: one of
   them): once per fold of FOLDS left out, the detector's FINETUNE_STEPS fine-tune and
   FOLD_FACE_STEPS of the face net, then FOLD_FACE_TUNE_STEPS with the DISTRACT scenes,
   DIR/without-SRC.onnx and DIR/without-SRC.faces.onnx, for
   `yatzycam bench --models DIR` and `python -m vision.thresholds --models DIR` (fold models stay
   out of the repository). The fold models stop before the main models' further steps (time on two
   cores), so their figures are, if anything, below the committed models'.
5. the calibration's floor net (vision.train.floor): FLOOR_RENDERS frames of the calibration's tray
   kinds and as many empty train-pool frames, FLOOR_STEPS steps: floor.onnx beside the detector.

Then `python -m vision.thresholds --mirror --data DIR --models DIR` sets the reader's cuts. A run stopped
part way (the whole recipe takes hours on two cores) goes on with `--resume`: renders and face banks
in the work folder are reused anyway, and the fold models and the work folder's own models that are
already there are not trained again.
On two cores: rendering about 18 minutes, pretraining about 15, each detector fine-tune 10-25,
each face bank about 6, the face net about 25 and its second part about 10, each fold's face net
about 15 and its second part about 10; the floor net about 15.
"""

from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path

from vision.detector import MODEL
from vision.reader import faces_path
from vision.train import faces as FT
from vision.train import floor as FL
from vision.train import train as T

CLASSIC = 2400
TRAIN_POOL = 2274
MORE = 5726
COCKED = 4000
COCKED_MIX = {"cocked": 0.85, "odd_face": 0.15}
DISTRACT = 3000
PRETRAIN_STEPS = 3000
FINETUNE_STEPS = 1400
FURTHER_STEPS = 3000
FACE_STEPS = 16000
FOLD_FACE_STEPS = 10000
FACE_TUNE_STEPS, FOLD_FACE_TUNE_STEPS, FACE_TUNE_LR = 4000, 3000, "1e-3"
#: the leave-out folds: each real source with whole photos; crops/ (single dice, no photos) is left
#: out with webcam, so that its face accuracy is also measured by a model that never saw it
FOLDS = ("rune55", "webcam,crops", "fisheye")
FLOOR_RENDERS, FLOOR_STEPS = 2500, 3000


def trained(out: Path | str) -> bool:
    """A model file that a finished stage wrote: the ONNX file and, written after it, its .train.json."""
    out = Path(out)
    return out.is_file() and out.with_suffix(".train.json").is_file()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m vision.train.recipe", description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", required=True, metavar="DIR", help="the real photo folder (dice-photos layout)")
    ap.add_argument("--work", metavar="DIR", default=os.path.join(tempfile.gettempdir(), "yatzycam-train"),
                    help="renders and checkpoints (default: %(default)s)")
    ap.add_argument("--out", metavar="MODEL.onnx", default=str(MODEL))
    ap.add_argument("--folds", metavar="DIR", help="also train the leave-one-source-out fold models into DIR")
    ap.add_argument("--only-folds", action="store_true",
                    help="train only the fold models; their face banks are cut with the detector at --out, "
                         "which must be there (the committed one by default)")
    ap.add_argument("--fold", action="append", choices=[f.split(",")[0] for f in FOLDS], metavar="SOURCE",
                    help="with --folds: only this fold (repeatable; default: %s)" % ", ".join(f.split(",")[0] for f in FOLDS))
    ap.add_argument("--resume", action="store_true",
                    help="go on where a stopped run left off: the fold models and the work folder's own models "
                         "that are already there, each with its .train.json, are not trained again (renders and "
                         "face banks are reused anyway; the models at --out are always trained)")
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args(argv)
    if a.only_folds and not a.folds:
        ap.error("--only-folds needs --folds DIR")
    if a.only_folds and not Path(a.out).is_file():
        ap.error(f"--only-folds cuts the face banks with the detector {a.out}, which is not there")
    work = Path(a.work)
    classic, train_pool = work / "renders-classic", work / "renders-train"
    more, cocked = work / "renders-train2", work / "renders-cocked"
    distract = work / "renders-distract"
    pre = work / "pre.onnx"
    seed = ["--seed", str(a.seed)]
    from vision.train.data import render_cache

    render_cache(classic, range(0, CLASSIC), pool="classic")
    render_cache(train_pool, range(100000, 100000 + TRAIN_POOL), pool="train")
    render_cache(more, range(100000 + TRAIN_POOL, 100000 + TRAIN_POOL + MORE), pool="train")
    render_cache(cocked, range(300000, 300000 + COCKED), pool="train", mix=COCKED_MIX)
    render_cache(distract, range(400000, 400000 + DISTRACT), pool="train", distract=True)

    def todo(out: Path | str) -> bool:
        """Whether the stage that writes `out` (in the work or folds folder) is still to run: always,
        unless --resume finds it done."""
        return not (a.resume and trained(out))

    if not pre.with_suffix(".pt").exists():
        T.main(["--renders", str(classic), "--steps", str(PRETRAIN_STEPS), "--threads", "2", "--out", str(pre)] + seed)
    tune = ["--renders", f"{classic},{train_pool}", "--data", a.data, "--init", str(pre.with_suffix(".pt")),
            "--steps", str(FINETUNE_STEPS), "--lr", "2e-3", "--threads", "1"] + seed
    if not a.only_folds:
        first = work / "finetuned.onnx"
        if todo(first):
            T.main(tune + ["--out", str(first)])
        T.main(["--renders", f"{classic},{train_pool}", "--data", a.data, "--init", str(first.with_suffix(".pt")),
                "--steps", str(FURTHER_STEPS), "--lr", "2e-3", "--threads", "2", "--seed", str(a.seed + 1),
                "--out", a.out])
    renders = [train_pool, classic, more, cocked]
    faces = ["--renders", ",".join(str(p) for p in renders), "--data", a.data,
             "--detector", a.out, "--bank", str(work / "face-bank.npz"), "--threads", "2"] + seed
    tune_faces = ["--renders", ",".join(str(p) for p in renders + [distract]), "--data", a.data,
                  "--detector", a.out, "--bank", str(work / "face-bank-distract.npz"), "--threads", "2",
                  "--lr", FACE_TUNE_LR] + seed

    def face_net(out: Path, steps: int, tune_steps: int, leave: list[str]) -> None:
        first = work / f"{out.stem}.first.onnx"  # the first part stays in the work folder
        if leave and not todo(out):  # a fold's face net that is there (--resume)
            return
        if todo(first):
            FT.main(faces + ["--steps", str(steps), "--out", str(first)] + leave)
        FT.main(tune_faces + ["--steps", str(tune_steps), "--init", str(first.with_suffix(".pt")),
                              "--out", str(out)] + leave)

    if not a.only_folds:
        face_net(faces_path(a.out), FACE_STEPS, FACE_TUNE_STEPS, [])
        FL.main(["--renders", str(work / "renders-floor"), "--render", str(FLOOR_RENDERS), str(FLOOR_RENDERS),
                 "--steps", str(FLOOR_STEPS), "--threads", "2", "--workers", "2",
                 "--out", str(Path(a.out).with_name("floor.onnx"))] + seed)
    if a.folds:
        for src in FOLDS:
            if a.fold and src.split(",")[0] not in a.fold:
                continue
            fold = Path(a.folds) / f"without-{src.split(',')[0]}.onnx"
            if todo(fold):
                T.main(tune + ["--leave-out", src, "--out", str(fold)])
            face_net(faces_path(fold), FOLD_FACE_STEPS, FOLD_FACE_TUNE_STEPS, ["--leave-out", src])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
