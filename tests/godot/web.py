"""godot_addon/tests/web/run.py (a script, not a package) as a module: the page server,
the fault gateway and the engine runner, for the suites that need them (tests/godot,
tests/unity)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

WEB = Path(__file__).resolve().parents[2] / "godot_addon" / "tests" / "web"


def web_run() -> ModuleType:
    spec = importlib.util.spec_from_file_location("godot_web_run", WEB / "run.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module
