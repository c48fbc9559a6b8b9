"""Literal text inside a JSON schema `pattern` that becomes a grammar llama.cpp accepts.

A schema's pattern goes through two readers that disagree on escapes. llama-cpp-python's
converter (json_schema_to_gbnf) unescapes `\\[ \\] \\( \\) \\| \\{ \\} \\* \\+ \\?` and copies
any other backslash pair into a GBNF string as it is; llama.cpp's GBNF parser knows only
`\\x \\u \\U \\t \\r \\n \\\\ \\" \\[ \\] \\-` and refuses the rest ("unknown escape"). So
`\\.` (the way to write a literal "." in a regex) and `re.escape`'s `\\&`, `\\~`, `\\#`,
`\\^`, `\\$`, `\\ ` reach the parser and fail. Besides, the converter takes a bare `^` or `$`
inside a pattern as a plain character, where Python reads an anchor. Hence every
character but letters, digits and a few plain marks goes in a class of its own, as a
hexadecimal escape (`[\\x2E]` for "."), which the converter copies as it is (classes are
not rewritten), the GBNF parser and Python read alike, and which keeps a quantifier
written after it bound to that one character in both readers (a `\\x2E` outside a class
would not: the converter splits literals before a quantifier or a bracket, between "2"
and "E").

The grammar constrains the JSON text as written, not the decoded string: a `"` or `\\`
in `text` is matched as that raw character, which a JSON string cannot hold unescaped.
"""

from __future__ import annotations

_PLAIN = frozenset(" ,;:'!-")


def literal_pattern(text: str) -> str:
    """A regex fragment that matches exactly `text`, for a JSON schema `pattern` that
    llama-cpp-python turns into a grammar llama.cpp parses (see the module)."""
    return "".join(c if c.isalnum() or c in _PLAIN else _one_char_class(c) for c in text)


def _one_char_class(char: str) -> str:
    code = ord(char)
    if code < 0x100:
        return f"[\\x{code:02X}]"
    if code < 0x10000:
        return f"[\\u{code:04X}]"
    return f"[\\U{code:08X}]"
