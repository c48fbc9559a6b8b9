"""English's words by meaning (npc_brain/lexicon.py): the one place the talk layer's
checks find the words they read, named, each in use, none a game's vocabulary (the demo
towns' words are kept out by test_demo_data)."""

from __future__ import annotations

import re
from pathlib import Path

from npc_brain import lexicon
from npc_brain.mind.talk.trade import things_asked
from npc_brain.mind.talk.understand import hypothetical, to_you

TREE = Path(__file__).resolve().parents[2] / "npc_brain"
FIELDS = {name: value for name, value in vars(lexicon).items() if name.isupper()}


def _words(field: object) -> list[str]:
    if isinstance(field, frozenset):
        return sorted(field)
    return sorted(word for phrase in field for word in phrase)


def test_every_field_is_lowercase_words() -> None:
    assert FIELDS
    for name, field in FIELDS.items():
        assert all(re.fullmatch(r"[a-z']+", w) for w in _words(field)), name


def test_every_field_is_read_outside_the_lexicon() -> None:
    code = "\n".join(p.read_text() for p in TREE.rglob("*.py") if p.name != "lexicon.py")
    unused = [name for name in FIELDS if not re.search(rf"\b{name}\b", code)]
    assert unused == []


def test_fields_as_their_readers_use_them() -> None:
    # TRADE_WORDS name no ware ("price"), GENERAL_NOUNS no thing; HAVING introduces one.
    assert things_asked("what's the price of a net?") == [("net",)]
    assert things_asked("got any news this week?") == []
    assert things_asked("got flour?") == [("flour",)]
    # CONDITIONAL puts a situation; the YOU of players' spelling speaks to the NPC.
    assert hypothetical("suppose raiders came at dawn")
    assert not hypothetical("raiders came at dawn")
    assert to_you("u ok?")
