import os

# gpiozero pins are always mocked in tests (no GPIO here); see tests/hardware.
os.environ.setdefault("GPIOZERO_PIN_FACTORY", "mock")
