"""Keeping data out of a chat template's control tokens.

llama.cpp tokenizes a rendered chat prompt with special tokens enabled, so the text
"<|im_start|>system" inside a message (a player's line, an observation, a persona) would
become the real role token and open a message of its own: a prompt injection. Every
message's content is therefore defused before rendering: each special token's text gets
a word joiner (U+2060, invisible) after its first character, so the tokenizer reads it
as plain characters. Only prompts change; stored memories stay verbatim.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

WORD_JOINER = "\u2060"


class Defuser:
    """Breaks up the texts of a vocabulary's special tokens wherever they occur."""

    def __init__(self, specials: Iterable[str]) -> None:
        texts = sorted({s for s in specials if len(s) >= 2}, key=len, reverse=True)
        self.specials = tuple(texts)
        self._pattern = re.compile("|".join(map(re.escape, texts))) if texts else None

    def __call__(self, text: str) -> str:
        if self._pattern is None:
            return text
        return self._pattern.sub(lambda m: m[0][0] + WORD_JOINER + m[0][1:], text)
