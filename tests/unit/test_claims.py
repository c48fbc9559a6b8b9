"""Claims in the store and how they spread (real SQLite files and PostgreSQL schemas):
source chains, hops, confidence that falls with hops and rises with independent sources,
who told whom, forgetting, knowledge filters, and databases from before claims."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np
import pytest

from npc_brain.memory.claims import Telling
from npc_brain.memory.diffusion import HOP_CONFIDENCE, HolderRow, holders_of
from npc_brain.memory.migrations import MIGRATIONS
from npc_brain.memory.records import (
    ANYONE,
    PRIVATE,
    MemoryKind,
    MemoryRecord,
    NewMemory,
    Sharing,
)
from npc_brain.memory.store import WorldStore
from npc_brain.memory.stream import AgentStream
from npc_brain.mind.talk.answers import key_terms
from npc_brain.mind.talk.carry import carried, name_terms, reveals
from npc_brain.persona import AgentRecord, Persona
from tests.conftest import OpenStore

T0 = 1_676_275_200.0
DIM = 4


def _row(agent: str, teller: str, hops: int, heard: float, memory: int = 0) -> HolderRow:
    return HolderRow(1, agent, memory, teller, None if not teller else 100, hops, heard)


def test_confidence_falls_with_hops_and_rises_with_independent_sources() -> None:
    rows = [
        _row("isabella", "", 0, T0),
        _row("klaus", "isabella", 1, T0 + 1),
        _row("ayesha", "isabella", 1, T0 + 2),
        _row("maria", "klaus", 2, T0 + 3),
        _row("maria", "ayesha", 2, T0 + 4),  # a second, independent source
        _row("sam", "maria", 3, T0 + 5),
    ]
    holders = {h.agent_id: h for h in holders_of(rows)}
    assert [h.agent_id for h in holders_of(rows)] == ["isabella", "klaus", "ayesha", "maria", "sam"]
    assert holders["isabella"].confidence == 1.0
    assert holders["klaus"].confidence == pytest.approx(HOP_CONFIDENCE)
    two = HOP_CONFIDENCE**2
    assert holders["maria"].confidence == pytest.approx(1 - (1 - two) ** 2)
    assert holders["maria"].confidence > two > holders["sam"].confidence
    assert holders["maria"].sources == ("ayesha", "klaus")
    assert (holders["maria"].heard_from, holders["maria"].since) == ("klaus", T0 + 3)
    assert holders["sam"].chain == ("isabella", "klaus", "maria", "sam")
    assert holders["sam"].confidence == pytest.approx(HOP_CONFIDENCE**3)


def test_an_echo_of_what_a_holder_said_does_not_raise_its_confidence() -> None:
    rows = [
        _row("isabella", "", 0, T0),
        _row("klaus", "isabella", 1, T0 + 1),
        _row("maria", "klaus", 2, T0 + 2),
        _row("klaus", "maria", 3, T0 + 3),  # Maria tells Klaus what he told her
    ]
    klaus = next(h for h in holders_of(rows) if h.agent_id == "klaus")
    assert klaus.confidence == pytest.approx(HOP_CONFIDENCE)
    assert klaus.chain == ("isabella", "klaus") and klaus.sources == ("isabella", "maria")


def test_a_chain_follows_each_teller_as_it_stood_when_it_told() -> None:
    rows = [
        _row("isabella", "", 0, T0),
        _row("klaus", "isabella", 1, T0 + 1),
        _row("maria", "klaus", 2, T0 + 2),
        _row("sam", "maria", 3, T0 + 3),
        _row("maria", "isabella", 1, T0 + 9),  # later, Maria hears it first-hand too
    ]
    holders = {h.agent_id: h for h in holders_of(rows)}
    assert holders["sam"].chain == ("isabella", "klaus", "maria", "sam")
    assert holders["sam"].hops == 3
    assert holders["maria"].chain == ("isabella", "maria") and holders["maria"].hops == 1


def _store(open_store: OpenStore, *agents: str) -> WorldStore:
    store = open_store()
    for agent_id in agents:
        store.upsert_agent(AgentRecord(agent_id, Persona(agent_id.title())))
    return store


def _memory(store: WorldStore, agent_id: str, text: str, sharing: Sharing = ANYONE) -> MemoryRecord:
    memory = NewMemory(MemoryKind.OBSERVATION, text, T0, 5.0, sharing=sharing)
    (stored,) = store.add_memories(agent_id, [memory], np.ones((1, DIM), dtype=np.float32) / 2)
    return stored


def test_tellings_are_stored_durably_and_told_once_per_listener(open_store: OpenStore) -> None:
    store = _store(open_store, "isabella", "klaus", "maria")
    seed = _memory(store, "isabella", "A party on the 14th.")
    said, heard = _memory(store, "isabella", "said"), _memory(store, "klaus", "heard")
    vector = np.ones(DIM, dtype=np.float32) / 2
    telling = Telling("isabella", seed, vector, said.memory_id, "klaus", heard.memory_id, T0)
    (claim,) = store.claims.record([telling])
    assert store.claims.record([telling]) == [claim]  # the same claim, heard once
    again = _memory(store, "klaus", "heard again")
    later = Telling("isabella", said, vector, said.memory_id, "klaus", again.memory_id, T0 + 60)
    assert store.claims.record([later]) == [claim]  # her own line of it tells the same claim
    store.close()

    store = open_store()
    assert store.claims.has_told("isabella", "klaus", claim)
    assert store.claims.heard_from("klaus", "isabella", claim)
    assert not store.claims.has_told("klaus", "isabella", claim)
    assert store.claims.exchanged("klaus", "isabella") == {claim}
    assert store.claims.exchanged("klaus", "maria") == set()
    assert store.claims.of_memories([seed.memory_id, heard.memory_id, said.memory_id]) == {
        seed.memory_id: claim,
        heard.memory_id: claim,
        said.memory_id: claim,
    }
    (klaus,) = [h for h in holders_of(store.claims.holders(claim)) if h.agent_id == "klaus"]
    assert (klaus.memory_id, klaus.since, klaus.hops) == (heard.memory_id, T0, 1)
    found = store.claims.get(claim)
    assert found is not None and found.text == "A party on the 14th."
    assert store.claims.search(vector, 3)[0][0] == found
    # Forgetting what it heard, Klaus holds it no more (and may be told again).
    assert store.forget("klaus", heard.memory_id)
    assert not store.claims.has_told("isabella", "klaus", claim)
    assert [h.agent_id for h in holders_of(store.claims.holders(claim))] == ["isabella"]
    store.close()


def test_sharing_is_stored_and_each_restriction_narrows() -> None:
    only_klaus = Sharing(share_with=("klaus",))
    assert ANYONE.allows("anyone") and not PRIVATE.allows("klaus")
    assert only_klaus.allows("klaus") and not only_klaus.allows("maria")
    assert only_klaus.passed_on("klaus") == PRIVATE  # a confidence stays one
    assert Sharing(share_with=("klaus", "maria")).passed_on("klaus") == Sharing(
        share_with=("maria",)
    )
    assert ANYONE.passed_on("klaus") == ANYONE
    assert ANYONE.narrowed(only_klaus) == only_klaus == only_klaus.narrowed(ANYONE)
    assert only_klaus.narrowed(Sharing(share_with=("maria",))) == PRIVATE
    assert only_klaus.narrowed(PRIVATE) == PRIVATE


def test_a_stream_recalls_for_a_listener_only_what_it_may_be_told(open_store: OpenStore) -> None:
    store = _store(open_store, "klaus")
    kept = [
        _memory(store, "klaus", "public"),
        _memory(store, "klaus", "secret", PRIVATE),
        _memory(store, "klaus", "for maria", Sharing(share_with=("maria",))),
    ]
    stream = AgentStream(DIM)
    stream.add(*store.load_memories("klaus", DIM))
    assert [m.sharing for m in stream.records] == [m.sharing for m in kept]
    assert [m.description for m in stream.withheld_from("maria")] == ["secret"]
    assert [m.description for m in stream.withheld_from("sam")] == ["secret", "for maria"]
    store.close()


def test_thoughts_neither_reset_nor_feed_the_reflection_trigger() -> None:
    stream = AgentStream(DIM)
    vectors = np.ones((3, DIM), dtype=np.float32) / 2
    kinds = (MemoryKind.OBSERVATION, MemoryKind.THOUGHT, MemoryKind.DIALOGUE)
    stream.add(
        [MemoryRecord(kind, "x", T0, 7.0, memory_id=i + 1) for i, kind in enumerate(kinds)],
        vectors,
    )
    assert stream.importance_since_reflection == 14.0
    stream.forget(2)  # forgetting a thought takes nothing off either
    assert stream.importance_since_reflection == 14.0


def test_a_store_from_before_claims_opens_and_its_memories_are_for_anyone(
    tmp_path: Path,
) -> None:
    path = tmp_path / "old.sqlite3"
    db = sqlite3.connect(path, isolation_level=None)
    for number, migration in enumerate(MIGRATIONS[:4], start=1):
        migration(db)
        db.execute(f"PRAGMA user_version={number}")
    db.execute("INSERT INTO agents VALUES ('klaus', ?, 1, 1, '', 1)", ('{"name": "Klaus"}',))
    db.execute(
        "INSERT INTO memories (agent_id, kind, description, subject, predicate, object,"
        " address, source_kind, source_agent_id, created, last_accessed, importance,"
        " evidence_json, depth, embedding) VALUES"
        " ('klaus', 1, 'old news', '', '', '', '', 1, '', ?, ?, 3, '[]', 0, ?)",
        (T0, T0, np.ones(DIM, dtype=np.float32).tobytes()),
    )
    db.close()
    store = WorldStore(path)
    ((memory,), _) = store.load_memories("klaus", DIM)
    assert (memory.description, memory.sharing) == ("old news", ANYONE)
    assert store.claims.exchanged("klaus", "maria") == set()
    store.close()
    (version,) = sqlite3.connect(path).execute("PRAGMA user_version").fetchone()
    assert version == len(MIGRATIONS)


def test_a_line_reveals_a_secret_by_words_the_talk_had_not_brought_up() -> None:
    far = np.zeros(DIM, dtype=np.float32)  # meaning aside: the words decide
    secret = "Klaus stole the golden ring from the mayor's office."
    names = {"klaus", "maria"}

    def leaks(text: str, known: str) -> bool:
        return reveals(text, far, secret, far, f"{known} Klaus Maria", names)

    assert leaks("I went to the mayor's office for the golden ring.", "Hello!")
    assert not leaks("I went to the office.", "Hello!")  # one word of it, off its subject
    assert leaks("I stole it.", "What happened to the ring?")  # on its subject: one is enough
    assert not leaks("I know nothing about a ring.", "What happened to the ring?")
    assert not leaks("Klaus and Maria are here.", "Hi!")  # names are no secret
    close = np.ones(DIM, dtype=np.float32) / 2
    assert reveals("Something else entirely.", close, secret, close, "", names)  # a paraphrase


def test_a_line_carries_the_memory_it_passes_on_a_claim_first() -> None:
    near = np.ones(DIM, dtype=np.float32) / 2
    seed = MemoryRecord(
        MemoryKind.OBSERVATION, "A party at the cafe on Friday.", T0, 5.0, memory_id=1
    )
    heard = MemoryRecord(
        MemoryKind.DIALOGUE, 'Isabella said to Klaus: "A party at the cafe!"', T0, 5.0, memory_id=2
    )
    names = name_terms(["Isabella", "Klaus"])
    both, rows = [seed, heard], np.stack([near, near])
    assert carried("Come to the party at the cafe.", near, both, rows, names, set()) is seed
    assert carried("Come to the party at the cafe.", near, both, rows, names, {2}) is heard
    assert carried("Hi Isabella, hi Klaus.", near, both, rows, names, set()) is None  # names only
    assert (
        carried("Come to the party.", np.zeros(DIM, np.float32), both, rows, names, set()) is None
    )
    # a reply that only echoes what the conversation said passes nothing on
    echoed = names | key_terms("Isabella is opening Hobbs Cafe for a party.")
    assert carried("Oh, a party at the cafe!", near, both, rows, echoed, set()) is None
