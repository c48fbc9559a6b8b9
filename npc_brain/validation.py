"""Checks of request values that every door shares; each failure names its field."""

from __future__ import annotations

import re

from npc_brain.errors import InvalidArgument

ID_PATTERN = re.compile(r"[A-Za-z0-9_\-][A-Za-z0-9_.\-]{0,63}")
MAX_TEXT = 4000
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
