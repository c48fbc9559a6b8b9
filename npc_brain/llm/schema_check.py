"""Checking a model's JSON answer against the JSON schema it was asked to follow.

The embedded model cannot break a schema (it becomes a grammar), but a remote server
may ignore it. This validator covers the subset the cognition schemas use: `type`
(object, array, string, integer, number, boolean), `properties`, `required`,
`additionalProperties: false`, `enum`, `const`, `pattern` (searched, as JSON Schema
says), `minLength` / `maxLength`, `items`, `minItems` / `maxItems`. A keyword outside
the subset is refused up front rather than silently passed.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

SUPPORTED = frozenset(
    {
        "type",
        "properties",
        "required",
        "additionalProperties",
        "enum",
        "const",
        "pattern",
        "minLength",
        "maxLength",
        "items",
        "minItems",
        "maxItems",
        "description",
        "title",
    }
)


class UnsupportedSchema(ValueError):
    """The schema uses a keyword this validator does not know."""


def answer_error(text: str, schema: Mapping[str, Any]) -> str | None:
    """Why `text` is not a JSON document valid under `schema`; None when it is."""
    try:
        value = json.loads(text)
    except ValueError as error:
        return f"the answer is not JSON ({error})"
    return value_error(value, schema)


def value_error(value: Any, schema: Mapping[str, Any], where: str = "$") -> str | None:
    """The first violation of `schema` by `value`, naming its path ($.a[0].b); or None."""
    unknown = set(schema) - SUPPORTED
    if unknown:
        raise UnsupportedSchema(f"{where}: unsupported schema keywords {sorted(unknown)}")
    if "type" in schema and not _has_type(value, schema["type"]):
        return f"{where} must be of type {schema['type']}, not {_json(value)}"
    if "const" in schema and not _same(value, schema["const"]):
        return f"{where} must be {_json(schema['const'])}"
    if "enum" in schema and not any(_same(value, option) for option in schema["enum"]):
        return f"{where} must be one of {_json(schema['enum'])}, not {_json(value)}"
    if isinstance(value, str):
        return _string_error(value, schema, where)
    if isinstance(value, list):
        return _array_error(value, schema, where)
    if isinstance(value, dict):
        return _object_error(value, schema, where)
    return None


def _string_error(value: str, schema: Mapping[str, Any], where: str) -> str | None:
    if len(value) < schema.get("minLength", 0):
        return f"{where} must be at least {schema['minLength']} characters long"
    if "maxLength" in schema and len(value) > schema["maxLength"]:
        return f"{where} must be at most {schema['maxLength']} characters long"
    if "pattern" in schema and _pattern(schema["pattern"]).search(value) is None:
        return f"{where} must match the pattern {schema['pattern']}"
    return None


def _array_error(value: list[Any], schema: Mapping[str, Any], where: str) -> str | None:
    if len(value) < schema.get("minItems", 0):
        return f"{where} must have at least {schema['minItems']} items"
    if "maxItems" in schema and len(value) > schema["maxItems"]:
        return f"{where} must have at most {schema['maxItems']} items"
    items = schema.get("items")
    if isinstance(items, Mapping):
        for i, item in enumerate(value):
            if (error := value_error(item, items, f"{where}[{i}]")) is not None:
                return error
    return None


def _object_error(value: dict[str, Any], schema: Mapping[str, Any], where: str) -> str | None:
    for name in schema.get("required", ()):
        if name not in value:
            return f"{where}.{name} is required"
    properties: Mapping[str, Any] = schema.get("properties", {})
    if schema.get("additionalProperties") is False:
        extra = sorted(set(value) - set(properties))
        if extra:
            return f"{where}.{extra[0]} is not allowed"
    for name, subschema in properties.items():
        if name in value and (error := value_error(value[name], subschema, f"{where}.{name}")):
            return error
    return None


def _has_type(value: Any, expected: str | list[str]) -> bool:
    names = [expected] if isinstance(expected, str) else expected
    return any(_is(value, name) for name in names)


def _is(value: Any, name: str) -> bool:
    if name == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if name == "number":
        return isinstance(value, int | float) and not isinstance(value, bool)
    kinds: dict[str, type | tuple[type, ...]] = {
        "string": str,
        "boolean": bool,
        "object": dict,
        "array": list,
        "null": type(None),
    }
    if name not in kinds:
        raise UnsupportedSchema(f"unsupported type {name!r}")
    return isinstance(value, kinds[name])


def _same(value: Any, option: Any) -> bool:
    """JSON equality: 1 is not true, and 1 equals 1.0."""
    if isinstance(value, bool) or isinstance(option, bool):
        return isinstance(value, bool) and isinstance(option, bool) and value == option
    return bool(type(value) is type(option) or _numbers(value, option)) and value == option


def _numbers(*values: Any) -> bool:
    return all(isinstance(v, int | float) for v in values)


@lru_cache(maxsize=256)
def _pattern(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


def _json(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 80 else text[:77] + "..."
