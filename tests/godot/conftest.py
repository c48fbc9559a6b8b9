"""Shows what the engine run found in pytest's summary, so CI's log has it even when
the test passes (pytest keeps a passing test's output to itself)."""

from __future__ import annotations

import pytest

ENGINE_LINES = pytest.StashKey[list[str]]()


@pytest.fixture
def engine_report(request: pytest.FixtureRequest) -> list[str]:
    """Lines for the summary's "Godot engine" section."""
    return request.config.stash.setdefault(ENGINE_LINES, [])


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    lines = terminalreporter.config.stash.get(ENGINE_LINES, [])
    if lines:
        terminalreporter.section("Godot engine")
        for line in lines:
            terminalreporter.write_line(line)
