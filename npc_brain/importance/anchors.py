"""Rated anchor sentences: the shipped set, a game's own, merged.

Files are TSV (`rating<TAB>text` or `rating<TAB>category<TAB>text`, `#` comments) or
JSON (a list of {"text": ..., "rating": ...} or an object mapping text to rating).
A game's anchor with the same text as a shipped one (ignoring case, spaces and final
punctuation) replaces it.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from npc_brain.errors import InvalidArgument

SHIPPED = "anchors.tsv"


@dataclass(frozen=True)
class Anchor:
    """A sentence and its rating 1..10; the category is for coverage reports only."""

    text: str
    rating: float
    category: str = ""


def normalise_text(text: str) -> str:
    """Lowercase, single-spaced, without final punctuation (for duplicate checks)."""
    return re.sub(r"\s+", " ", text.lower()).strip().rstrip(".!?").strip()


def shipped_anchors() -> list[Anchor]:
    """The anchors that ship with npc-brain (package data)."""
    data = resources.files("npc_brain.importance").joinpath("data", SHIPPED)
    return parse_tsv(data.read_text(encoding="utf-8"))


def load_anchors(path: Path, setting: str = "importance_anchors") -> list[Anchor]:
    """A game's anchors file (TSV or JSON); InvalidArgument naming `setting` if unusable."""
    try:
        content = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise InvalidArgument(setting, f"cannot read {path}: {exc.strerror}") from exc
    try:
        if path.suffix.lower() == ".json":
            return parse_json(json.loads(content))
        return parse_tsv(content)
    except ValueError as exc:
        raise InvalidArgument(setting, f"{path}: {exc}") from exc


def parse_tsv(content: str) -> list[Anchor]:
    """Anchors from TSV lines; ValueError naming the line for a malformed one."""
    anchors = []
    for number, line in enumerate(content.splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        fields = line.split("\t")
        if len(fields) not in (2, 3):
            raise ValueError(f"line {number}: expected rating<TAB>[category<TAB>]text")
        category = fields[1].strip() if len(fields) == 3 else ""
        anchors.append(_anchor(fields[-1], fields[0], category, f"line {number}"))
    return anchors


def parse_json(value: Any) -> list[Anchor]:
    """Anchors from a JSON list of {"text", "rating"[, "category"]} or a text->rating map."""
    if isinstance(value, dict):
        return [_anchor(text, rating, "", repr(text)) for text, rating in value.items()]
    if not isinstance(value, list):
        raise ValueError("expected a list of {text, rating} or an object of text: rating")
    anchors = []
    for i, item in enumerate(value):
        if not isinstance(item, dict) or "text" not in item or "rating" not in item:
            raise ValueError(f"item {i}: expected {{'text': ..., 'rating': ...}}")
        anchors.append(_anchor(item["text"], item["rating"], item.get("category", ""), f"[{i}]"))
    return anchors


def _anchor(text: Any, rating: Any, category: Any, where: str) -> Anchor:
    if not isinstance(text, str) or not text.strip():
        raise ValueError(f"{where}: the text is empty")
    try:
        value = float(rating)
    except (TypeError, ValueError):
        raise ValueError(f"{where}: rating {rating!r} is not a number") from None
    if not 1 <= value <= 10:
        raise ValueError(f"{where}: rating {value:g} is outside [1, 10]")
    return Anchor(text.strip(), value, str(category))


def merge(base: Iterable[Anchor], extra: Iterable[Anchor]) -> list[Anchor]:
    """`base` then `extra`; an extra anchor replaces a base one with the same text."""
    merged = {normalise_text(a.text): a for a in base}
    merged.update({normalise_text(a.text): a for a in extra})
    return list(merged.values())


def fingerprint(anchors: Sequence[Anchor]) -> str:
    """A short hash of the anchors' texts and ratings (keys the embedding cache)."""
    digest = hashlib.sha256()
    for a in anchors:
        digest.update(f"{a.rating:g}\t{a.text}\n".encode())
    return digest.hexdigest()[:16]
