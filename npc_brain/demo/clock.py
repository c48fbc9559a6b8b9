"""Game time as the demo shows it: Unix seconds of the game clock, in UTC."""

from __future__ import annotations

from datetime import UTC, datetime

from npc_brain.demo.errors import DemoError


def clock(game_time: float) -> str:
    """ "2023-02-13 07:10" for the console and the Markdown report."""
    return datetime.fromtimestamp(game_time, UTC).strftime("%Y-%m-%d %H:%M")


def iso(game_time: float) -> str:
    """ "2023-02-13T07:10:00Z" for the JSON report."""
    return datetime.fromtimestamp(game_time, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_time(text: str, option: str = "--start") -> float:
    """An ISO time ("2023-02-13T07:00", "2023-02-13 07:00", with or without a zone;
    none means UTC) as game time."""
    try:
        when = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError as error:
        raise DemoError(f"{option}: {text!r} is not an ISO time like 2023-02-13T07:00") from error
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return when.timestamp()
