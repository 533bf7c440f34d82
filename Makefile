# yatzycam: `make demo` (a whole simulated game) and `make test` on a fresh machine.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
DEMO_ARGS ?=

.PHONY: demo test test-fast bench install clean

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

test-fast: $(STAMP)
	$(BIN)/python -m pytest -n 2 -q -m "not slow" < /dev/null

bench: $(STAMP)
	$(BIN)/yatzycam bench

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache
