import os

# gpiozero pins are always mocked in tests (no GPIO here); see tests/hardware.
os.environ.setdefault("GPIOZERO_PIN_FACTORY", "mock")

# tests/train needs PyTorch (the `train` extra): only `make test-train` collects it.
if not os.environ.get("YATZYCAM_TEST_TRAIN"):
    collect_ignore = ["train"]

# The language every command falls back to is the locale's: the tests pin it (English), and
# tests of other languages say so with --lang or their own LANG.
os.environ["LANG"] = "C.UTF-8"
for _k in ("LC_ALL", "LC_MESSAGES"):
    os.environ.pop(_k, None)
