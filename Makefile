# The README's two commands: `make run` (set up, then the demo) and `make test` (set up, then
# every check CI runs). Both work on a fresh machine: they make the virtualenv, install the
# package (llama-cpp-python compiles once, then pip's wheel cache serves it) and fetch models.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test setup models lint proto browser godot-web csharp postgres unity-messages

run: models
	$(BIN)/npc-brain demo

test: models lint browser godot-web csharp postgres
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

# What the Unity package's C# tests need (tests/unity): Mono, Json.NET and NUnit (apt).
csharp:
	sh tests/unity/setup.sh

# The PostgreSQL server the tests start, throwaway, in a temporary directory (apt, as root on CI).
postgres:
	sh tests/postgres/setup.sh

# What the Godot addon's tests need to run in a real engine (tests/godot): Chromium (apt)
# and Godot's web export template (npm, pinned by version and SHA-256), fetched once.
godot-web:
	godot_addon/tests/web/setup.sh

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

# Regenerates the Unity package's C# messages from the proto (tests fail if they are stale).
unity-messages: $(STAMP)
	$(BIN)/python unity/generate_messages.py
