"""What a spoken line carries: which of the speaker's memories it passes on, whether it
gives away one the listener may not be told, and how a source chain is said. Pure.

A line carries a memory when their embeddings are close (cosine >= CARRIES) and they
share a content word besides the people's names and the town's places (`place_terms`:
"a regular at the Red Boar" passes nothing on of a feast there); a dialogue memory is
compared by the words quoted in it. A line reveals a withheld memory when it says two
of the memory's content words that the conversation had not brought up (one, if it has
only one, or if the conversation touched the memory's subject: a content word of it
besides names), or
is close to it in meaning (cosine >= REVEALS). Set on MiniLM (tests/integration/
test_carry_thresholds.py): lines passing on a party invitation scored 0.71-0.80 with
it, other lines about the cafe or the day at most 0.44; paraphrases of a secret
0.57-0.62, denials and unrelated replies at most 0.37. A false "reveals" costs a
redraw (or a refusal), a false "carries" a claim record.
"""

from __future__ import annotations

from collections.abc import Sequence, Set

import numpy as np
from numpy.typing import NDArray

from npc_brain.memory.records import MemoryKind, MemoryRecord, SourceKind
from npc_brain.mind.talk.answers import key_terms, said_words

CARRIES = 0.5
REVEALS = 0.55


def spoken(memory: MemoryRecord) -> str:
    """What a memory says: the quoted words of a dialogue line, else its description."""
    return (
        said_words(memory.description) if memory.kind == MemoryKind.DIALOGUE else memory.description
    )


def own_line(memory: MemoryRecord) -> bool:
    """Whether a memory is its agent's record of a line it said itself."""
    return memory.kind == MemoryKind.DIALOGUE and memory.source.kind == SourceKind.SEEN


def name_terms(names: Sequence[str]) -> set[str]:
    """The words of people's names, which every line about them shares."""
    return key_terms(" ".join(names))


def place_terms(addresses: Sequence[str]) -> set[str]:
    """The words of places' addresses ("Oakvale:Red Boar:tavern"), which any line about
    the town may say."""
    return key_terms(" ".join(addresses).replace(":", " "))


def carried(
    text: str,
    vector: NDArray[np.float32],
    candidates: Sequence[MemoryRecord],
    vectors: NDArray[np.float32],
    names: set[str],
    linked: set[int],
) -> MemoryRecord | None:
    """The memory `text` carries among the candidates (rows of `vectors`: the
    embeddings of their spoken words): of those it carries, one already holding a claim
    (`linked`) first, then the closest. `names`: words that carry nothing (the people's
    names, and what the conversation said already)."""
    words = key_terms(text) - names
    best: tuple[bool, float, MemoryRecord] | None = None
    for memory, row in zip(candidates, vectors, strict=True):
        likeness = float(row @ vector)
        if likeness < CARRIES or not words & key_terms(spoken(memory)):
            continue
        rank = (memory.memory_id in linked, likeness, memory)
        if best is None or rank[:2] > best[:2]:
            best = rank
    return None if best is None else best[2]


def reveals(
    text: str,
    vector: NDArray[np.float32],
    secret: str,
    secret_vector: NDArray[np.float32],
    known: str,
    names: Set[str] = frozenset(),
) -> bool:
    """Whether `text` gives away `secret`, beyond what was `known` (the conversation so
    far, the people's `names`)."""
    secret_terms, known_terms = key_terms(secret), key_terms(known)
    new = secret_terms - known_terms
    said = key_terms(text) & new
    touched = bool(secret_terms & known_terms - names)  # the talk is on its subject
    if said and len(said) >= min(1 if touched else 2, len(new)):
        return True
    return float(vector @ secret_vector) >= REVEALS


def source_sentence(chain: Sequence[str]) -> str:
    """How a holder names its source chain (names, the first holder first, the holder
    itself last): "I heard it from Bram, who heard it from Vera."."""
    tellers = list(reversed(chain[:-1]))
    if not tellers:
        return ""
    sentence = f"I heard it from {tellers[0]}"
    for teller in tellers[1:]:
        sentence += f", who heard it from {teller}"
    return sentence + "."
