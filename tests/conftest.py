import importlib.machinery
import os
import sys
from pathlib import Path

# gpiozero pins are always mocked in tests (no GPIO here); see tests/hardware.
os.environ.setdefault("GPIOZERO_PIN_FACTORY", "mock")


class _ThisTreesVision:
    """Under pytest `vision` is the test package tests/vision (its folder, tests/, goes first on
    sys.path), so `vision.reader` and the like are found by the venv's editable install, which maps
    them to the tree it was installed from: a git worktree's tests would test that tree's code, not
    their own. The reader's modules are taken from the tree these tests are in (the same files in the
    tree the venv was installed from)."""

    root = Path(__file__).resolve().parents[1] / "vision"

    @classmethod
    def find_spec(cls, name, path=None, target=None):
        top, _, sub = name.partition(".")
        if top == "vision" and sub and "." not in sub and (cls.root / f"{sub}.py").exists():
            return importlib.machinery.PathFinder.find_spec(name, [str(cls.root)])
        return None


sys.meta_path.insert(0, _ThisTreesVision)

# tests/train needs PyTorch (the `train` extra): only `make test-train` collects it.
if not os.environ.get("YATZYCAM_TEST_TRAIN"):
    collect_ignore = ["train"]
