# The README's two commands: `make run` (set up, then the demo) and `make test` (set up, then
# every check CI runs). Both work on a fresh machine: they make the virtualenv, install the
# package (llama-cpp-python compiles once, then pip's wheel cache serves it) and fetch models.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test setup models lint proto browser

run: models
	$(BIN)/npc-brain demo

test: models lint browser
	$(BIN)/python -m pytest

# The headless Chromium the memory inspector's browser tests drive (apt-get, as root on CI).
browser:
	sh tests/browser/setup.sh

setup: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --editable '.[dev]'
	touch $(STAMP)

models: $(STAMP)
	$(BIN)/npc-brain models fetch

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy npc_brain
	find godot_addon -name '*.gd' -print0 | xargs -0 $(BIN)/gdparse
	find godot_addon -name '*.gd' -print0 | xargs -0 $(BIN)/gdlint

# Regenerates npc_brain/v1 from the proto (tests fail if the committed code is stale).
proto: $(STAMP)
	$(BIN)/python -m grpc_tools.protoc -I proto --python_out=. --grpc_python_out=. \
		--pyi_out=. proto/npc_brain/v1/brain.proto
