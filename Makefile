# yatzycam: `make demo` (a whole simulated game) and `make test` on a fresh machine.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
DEMO_ARGS ?=

.PHONY: demo test test-fast test-fuzz test-pi test-train train bench install clean

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP): $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(BIN)/yatzycam demo $(DEMO_ARGS) < /dev/null

test: $(STAMP)
	$(BIN)/python -m pytest -n 2 -q < /dev/null

# the property tests with 5,000 generated inputs per kind and 300 panel sequences (about 4 minutes on two cores)
test-fuzz: $(STAMP)
	$(BIN)/python -m pytest -n 2 -q -m fuzz_slow tests/fuzz < /dev/null

test-fast: $(STAMP)
	$(BIN)/python -m pytest -n 2 -q -m "not slow" < /dev/null

# the committed model and the reader under the Pi's own packages: Debian's python3-opencv 4.6 and
# python3-numpy 1.24 (installed with apt-get when missing), /usr/bin/python3: with apt's packages alone (OpenCV's dnn) and
# in a --system-site-packages venv with onnxruntime (as the Pi installer makes it); they must give
# the dice and readings this environment gives on the same frames (tests/pi)
test-pi: $(STAMP)
	tests/pi/run.sh $(BIN)/python < /dev/null

TRAIN_STAMP := $(VENV)/.installed-train

$(TRAIN_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[train,test]'
	touch $(TRAIN_STAMP)

# the training recipe, end to end on a few samples (torch CPU build; not part of `make test`)
test-train: $(TRAIN_STAMP)
	YATZYCAM_TEST_TRAIN=1 $(BIN)/python -m pytest -q -p no:cacheprovider tests/train < /dev/null

# the committed model's recipe: `make train PHOTOS=/path/to/dice-photos` (see vision/model/MODEL_CARD.md)
PHOTOS ?=
train: $(TRAIN_STAMP)
	@test -n "$(PHOTOS)" || { echo "make train needs PHOTOS=/path/to/dice-photos" >&2; exit 2; }
	$(BIN)/python -m vision.train.recipe --data "$(PHOTOS)"

bench: $(STAMP)
	$(BIN)/yatzycam bench

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache
