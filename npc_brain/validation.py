"""Checks of request values that every door shares; each failure names its field."""

from __future__ import annotations

import re
from collections.abc import Sequence

from npc_brain.errors import InvalidArgument
from npc_brain.memory.records import Observation

ID_PATTERN = re.compile(r"[A-Za-z0-9_\-][A-Za-z0-9_.\-]{0,63}")
MAX_TEXT = 4000
MAX_SHORT_TEXT = 500
DEFAULT_WORLD = "default"


def world_id(value: str) -> str:
    """The world id, "default" when empty."""
    return DEFAULT_WORLD if value == "" else identifier("world_id", value)


def identifier(field: str, value: str) -> str:
    if not value:
        raise InvalidArgument(field, "is required")
    if not ID_PATTERN.fullmatch(value):
        raise InvalidArgument(
            field, "must be 1-64 characters of A-Z a-z 0-9 _ . - and not start with '.'"
        )
    return value


def text(field: str, value: str, *, required: bool = True, limit: int = MAX_TEXT) -> str:
    if required and not value.strip():
        raise InvalidArgument(field, "is required")
    if len(value) > limit:
        raise InvalidArgument(field, f"is longer than {limit} characters")
    if "\x00" in value:
        raise InvalidArgument(field, "contains a NUL character")
    return value


def int_range(field: str, value: int, low: int, high: int) -> int:
    if not low <= value <= high:
        raise InvalidArgument(field, f"must be between {low} and {high}, got {value}")
    return value


def number_range(field: str, value: float, low: float, high: float) -> float:
    if not low <= value <= high:
        raise InvalidArgument(field, f"must be between {low:g} and {high:g}, got {value:g}")
    return value


def observations(items: Sequence[Observation], visible: Sequence[str], prefix: str = "") -> None:
    """Checks observations and visible addresses; fields are named with `prefix`."""
    for i, o in enumerate(items):
        field = f"{prefix}observations[{i}]"
        text(f"{field}.text", o.text)
        for name in ("subject", "predicate", "object", "address"):
            text(f"{field}.{name}", getattr(o, name), required=False, limit=MAX_SHORT_TEXT)
        if o.importance is not None:
            number_range(f"{field}.importance", o.importance, 1, 10)
        if o.source.agent_id:
            identifier(f"{field}.source.agent_id", o.source.agent_id)
    for i, address in enumerate(visible):
        text(f"{prefix}visible_addresses[{i}]", address, limit=MAX_SHORT_TEXT)
