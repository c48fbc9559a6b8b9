"""Typed reading of TOML tables, with errors that name the file and the field."""

from __future__ import annotations

import re
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from npc_brain.demo.errors import DataError

ID_PATTERN = re.compile(r"^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,63}$")


def read_toml(path: Path) -> dict[str, Any]:
    """The file's tables; a missing or malformed file is a DataError naming it."""
    try:
        with path.open("rb") as file:
            return tomllib.load(file)
    except FileNotFoundError as error:
        raise DataError(str(path), "file", "does not exist") from error
    except tomllib.TOMLDecodeError as error:
        raise DataError(str(path), "file", f"is not valid TOML ({error})") from error


class Fields:
    """The fields of one table; each read is checked, and `done()` refuses leftovers
    (a misspelt key is an error, not a silent default)."""

    def __init__(self, table: object, where: str, source: str) -> None:
        if not isinstance(table, Mapping):
            raise DataError(source, where or "file", "must be a table")
        self._table: Mapping[str, Any] = table
        self._where = where
        self._source = source
        self._read: set[str] = set()

    def name(self, key: str) -> str:
        """The dotted name of `key` in this table ("" names the table itself)."""
        if not key:
            return self._where
        return f"{self._where}.{key}" if self._where else key

    def error(self, key: str, problem: str) -> DataError:
        return DataError(self._source, self.name(key), problem)

    def raw(self, key: str) -> Any:
        self._read.add(key)
        return self._table.get(key)

    def text(self, key: str, *, required: bool = False) -> str:
        value = self.raw(key)
        if value is None:
            if required:
                raise self.error(key, "is required")
            return ""
        if not isinstance(value, str):
            raise self.error(key, f"must be a string, not {type(value).__name__}")
        if required and not value.strip():
            raise self.error(key, "must not be empty")
        return value.strip()

    def identifier(self, key: str) -> str:
        value = self.text(key, required=True)
        if not ID_PATTERN.match(value):
            raise self.error(key, f"{value!r} must be 1-64 characters from [A-Za-z0-9_.-]")
        return value

    def integer(self, key: str, default: int, low: int, high: int) -> int:
        value = self.raw(key)
        if value is None:
            return default
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.error(key, f"must be an integer, not {type(value).__name__}")
        if not low <= value <= high:
            raise self.error(key, f"{value} is outside {low}..{high}")
        return value

    def texts(self, key: str, *, required: bool = False) -> tuple[str, ...]:
        value = self.raw(key)
        if value is None:
            value = []
        if not isinstance(value, list):
            raise self.error(key, "must be a list of strings")
        for i, item in enumerate(value):
            if not isinstance(item, str) or not item.strip():
                raise DataError(
                    self._source, f"{self.name(key)}[{i}]", "must be a non-empty string"
                )
        if required and not value:
            raise self.error(key, "must list at least one item")
        return tuple(item.strip() for item in value)

    def tables(self, key: str, *, required: bool = True) -> list[Fields]:
        value = self.raw(key)
        if value is None and not required:
            return []
        if not isinstance(value, list) or (required and not value):
            raise self.error(key, "must be a non-empty array of tables ([[" + key + "]])")
        return [
            Fields(item, f"{self.name(key)}[{i}]", self._source) for i, item in enumerate(value)
        ]

    def done(self) -> None:
        unknown = sorted(set(self._table) - self._read)
        if unknown:
            raise self.error(unknown[0], "is not a known key")
