import os

# gpiozero pins are always mocked in tests (no GPIO here); see tests/hardware.
os.environ.setdefault("GPIOZERO_PIN_FACTORY", "mock")

# tests/train needs PyTorch (the `train` extra): only `make test-train` collects it.
if not os.environ.get("YATZYCAM_TEST_TRAIN"):
    collect_ignore = ["train"]
