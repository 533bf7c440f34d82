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

import pytest  # noqa: E402


@pytest.fixture(autouse=True)
def _own_data_home(tmp_path_factory, monkeypatch):
    """Every test gets its own data folder: a command run without --db or a config's [paths] db writes
    its database there, not in the user's ~/.local/share (and two tests run in parallel do not share
    one database and its lock)."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path_factory.mktemp("data-home")))
    monkeypatch.delenv("STATE_DIRECTORY", raising=False)
