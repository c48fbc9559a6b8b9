"""Lexical recall: an agent's memories that share words with a query, ranked by BM25 in
SQLite's own full-text index (FTS5 with Porter stems, migration m008, kept by triggers
in the same transaction as the memories); on PostgreSQL by ts_rank over a GIN index of
English stems. Names, numbers and rare words ("the Magpie",
"bay 4", "saffron") are found even where an embedding misses them; retrieval.fuse
merges this ranking with the embedding's."""

from __future__ import annotations

import math

from npc_brain.memory.database import Connection, dialect_of
from npc_brain.memory.migrations import POSTGRES_WORDS
from npc_brain.words import closed_class, lower_words

MAX_TERMS = 16  # a query's longest OR of terms (a pasted paragraph is not a question)


def match_expression(text: str) -> str:
    """The FTS5 query for a text: any of its content words, each quoted (so no word is
    read as FTS5 syntax); '' when it has none."""
    return " OR ".join(f'"{term}"' for term in terms(text))


def terms(text: str) -> list[str]:
    """A text's content words, lowercase, once each, in order (at most MAX_TERMS):
    English's small words (words.closed_class: "the", "I'm", "would") match nearly every
    memory and rank none; a possessive's "s" is no word of its own."""
    kept = (w for w in lower_words(text) if not closed_class(w))
    parts = (part for w in kept for part in w.replace("’", "'").split("'"))
    words = dict.fromkeys(p for p in parts if len(p) > 1 or p.isdecimal())
    return list(words)[:MAX_TERMS]


def search(
    db: Connection,
    agent_id: str,
    text: str,
    limit: int,
    created: tuple[float, float] = (-math.inf, math.inf),
    common: set[str] | None = None,
) -> list[int]:
    """The ids of the agent's memories that share content words with `text`, best BM25
    first, at most `limit`, created in [`created`). A word in more than COMMON memories
    of the world is left out: its BM25 weight is small, and ranking every memory that
    holds it is what costs (a town's "cafe" in 16,000 of 100,000 memories: 17 ms).
    `common`, if given, keeps the words found common, which stay so (a world's memories
    only grow, but for a few forgotten), so each is counted once."""
    common = set() if common is None else common
    rare = [t for t in terms(text) if t not in common]
    for term in [t for t in rare if _common(db, t)]:
        if len(common) < MAX_COMMON_KEPT:
            common.add(term)
        rare.remove(term)
    if not rare or limit <= 0:
        return []
    if dialect_of(db) == "postgresql":
        query = " || ".join(["plainto_tsquery('english', ?)"] * len(rare))
        rows = db.execute(
            f"SELECT memory_id FROM memories, (SELECT {query}) AS q(query)"
            f" WHERE {POSTGRES_WORDS} @@ q.query AND agent_id = ?"
            " AND created >= ? AND created < ?"
            f" ORDER BY ts_rank({POSTGRES_WORDS}, q.query) DESC, memory_id"
            " LIMIT ?",
            (*rare, agent_id, *created, limit),
        ).fetchall()
        return [int(memory_id) for (memory_id,) in rows]
    rows = db.execute(
        "SELECT m.memory_id FROM memories_fts JOIN memories m ON m.memory_id = memories_fts.rowid"
        " WHERE memories_fts MATCH ? AND m.agent_id = ? AND m.created >= ? AND m.created < ?"
        " ORDER BY memories_fts.rank LIMIT ?",
        (" OR ".join(f'"{t}"' for t in rare), agent_id, *created, limit),
    ).fetchall()
    return [int(memory_id) for (memory_id,) in rows]


COMMON = 1000  # memories of a world from which a word is too common to search by
MAX_COMMON_KEPT = 10_000  # common words a store remembers as such


def _common(db: Connection, term: str) -> bool:
    """Whether more than COMMON memories of the world hold `term` (counted up to it)."""
    if dialect_of(db) == "postgresql":
        (count,) = db.execute(
            f"SELECT count(*) FROM (SELECT 1 FROM memories WHERE {POSTGRES_WORDS}"
            " @@ plainto_tsquery('english', ?) LIMIT ?) AS holding",
            (term, COMMON + 1),
        ).fetchone()
        return int(count) > COMMON
    (count,) = db.execute(
        "SELECT count(*) FROM (SELECT rowid FROM memories_fts WHERE memories_fts MATCH ? LIMIT ?)",
        (f'"{term}"', COMMON + 1),
    ).fetchone()
    return int(count) > COMMON
