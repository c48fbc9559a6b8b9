"""Shows what the C# run found in pytest's summary, so CI's log has the C# tests' count
even when the test passes (pytest keeps a passing test's output to itself)."""

from __future__ import annotations

import pytest

CSHARP_LINES = pytest.StashKey[list[str]]()


@pytest.fixture
def csharp_report(request: pytest.FixtureRequest) -> list[str]:
    """Lines for the summary's "C# client (Unity package)" section."""
    return request.config.stash.setdefault(CSHARP_LINES, [])


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    lines = terminalreporter.config.stash.get(CSHARP_LINES, [])
    if lines:
        terminalreporter.section("C# client (Unity package)")
        for line in lines:
            terminalreporter.write_line(line)
