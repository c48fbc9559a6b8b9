"""The store, on SQLite and on PostgreSQL: round trips, persisted access times,
migrations, model binding."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from npc_brain.errors import FailedPrecondition
from npc_brain.memory.migrations import MIGRATIONS
from npc_brain.memory.records import MemoryKind, NewMemory, Source, SourceKind
from npc_brain.memory.store import WorldStore
from npc_brain.persona import AgentRecord, Persona
from tests.conftest import OpenStore


def _store(where: Path | OpenStore) -> WorldStore:
    """A world with one agent: a SQLite file in a folder, or one `open_store` opens."""
    store = WorldStore(where / "w.sqlite3") if isinstance(where, Path) else where()
    store.bind_embedding_model("m", 3)
    store.upsert_agent(AgentRecord("isabella", Persona("Isabella", daily_requirements=("a",))))
    return store


def test_memories_round_trip_with_embeddings_and_provenance(open_store: OpenStore) -> None:
    store = _store(open_store)
    memory = NewMemory(
        MemoryKind.DIALOGUE,
        "Klaus said hi",
        100.0,
        4.0,
        address="cafe",
        source=Source(SourceKind.HEARD, "klaus"),
    )
    (stored,) = store.add_memories("isabella", [memory], np.array([[1, 0, 0]], np.float32))
    store.close()
    reopened = open_store()
    records, vectors = reopened.load_memories("isabella", 3)
    assert records == [stored]
    assert records[0].source == Source(SourceKind.HEARD, "klaus")
    np.testing.assert_array_equal(vectors, [[1, 0, 0]])
    assert reopened.get_agent("isabella") == AgentRecord(
        "isabella", Persona("Isabella", daily_requirements=("a",))
    )


def test_touch_persists_last_accessed(open_store: OpenStore) -> None:
    store = _store(open_store)
    (stored,) = store.add_memories(
        "isabella", [NewMemory(MemoryKind.OBSERVATION, "x", 5.0, 1.0)], np.ones((1, 3), np.float32)
    )
    store.touch([stored.memory_id], 99.0)
    store.close()
    (record,), _ = open_store().load_memories("isabella", 3)
    assert record.last_accessed == 99.0 and record.created == 5.0


def test_migrations_are_numbered_and_recorded(tmp_path: Path) -> None:
    store = _store(tmp_path)
    (version,) = store.database._db.execute("PRAGMA user_version").fetchone()
    assert version == len(MIGRATIONS)
    assert [m.__name__[:4] for m in MIGRATIONS] == [
        f"m{i:03d}" for i in range(1, len(MIGRATIONS) + 1)
    ]


def test_a_different_embedding_model_is_refused_with_a_clear_message(open_store: OpenStore) -> None:
    _store(open_store).close()
    store = open_store()
    with pytest.raises(FailedPrecondition, match="built with embedding model m"):
        store.bind_embedding_model("other", 768)
    store.bind_embedding_model("m", 3)  # the same model is fine


def test_places_keep_the_order_they_were_learnt(open_store: OpenStore) -> None:
    store = _store(open_store)
    store.add_places("isabella", ["b", "a", ""], 1.0)
    store.add_places("isabella", ["a", "c"], 2.0)
    assert store.places("isabella") == ["b", "a", "c"]


def test_perceptions_of_several_agents_are_written_together(open_store: OpenStore) -> None:
    from npc_brain.memory.store import Perception

    store = _store(open_store)
    store.upsert_agent(AgentRecord("klaus", Persona("Klaus")))
    rain = NewMemory(MemoryKind.OBSERVATION, "rain", 10.0, 2.0)
    stored = store.add_perceptions(
        [
            Perception("isabella", ["cafe"], 10.0, [rain], np.array([[1, 0, 0]], np.float32)),
            Perception("klaus", ["park", ""], 10.0, [], np.zeros((0, 3), np.float32)),
        ]
    )
    assert [len(s) for s in stored] == [1, 0]
    assert store.load_memories("isabella", 3)[0] == stored[0]
    assert store.places("isabella") == ["cafe"] and store.places("klaus") == ["park"]


def test_memory_ids_rise_in_order_and_are_never_reused(open_store: OpenStore) -> None:
    from npc_brain.memory.store import Perception

    store = _store(open_store)
    store.upsert_agent(AgentRecord("klaus", Persona("Klaus")))
    one = np.ones((2, 3), np.float32)
    memories = [NewMemory(MemoryKind.OBSERVATION, t, 10.0, 2.0) for t in ("a", "b")]
    first, second = store.add_perceptions(
        [
            Perception("isabella", [], 10.0, memories, one),
            Perception("klaus", [], 10.0, memories, None),
        ]
    )
    ids = [m.memory_id for m in first + second]
    assert ids == sorted(ids) and len(set(ids)) == 4
    assert store.forget("klaus", ids[-1])
    (later,) = store.add_memories("klaus", memories[:1], one[:1])
    assert later.memory_id == ids[-1] + 1  # as AUTOINCREMENT: a forgotten id stays unused
    store.close()
    reopened = open_store()
    (after_reopening,) = reopened.add_memories("klaus", memories[:1], one[:1])
    assert after_reopening.memory_id > later.memory_id  # PostgreSQL: after a gap (MemoryIds)


def test_an_id_asked_for_before_its_agent_exists_finds_it_after(open_store: OpenStore) -> None:
    store = _store(open_store)
    assert store.get_agent("klaus") is None  # remembered as absent
    store.upsert_agent(AgentRecord("klaus", Persona("Klaus")))
    assert store.get_agent("klaus") == AgentRecord("klaus", Persona("Klaus"))


def _hundred_kilobytes(store: WorldStore, agent_id: str = "isabella") -> None:
    memories = [NewMemory(MemoryKind.OBSERVATION, "x" * 1000, 1.0, 1.0)] * 100
    store.add_memories(agent_id, memories, np.ones((100, 3), np.float32))


def test_background_checkpoints_keep_the_wal_small(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from npc_brain.memory import checkpoints

    monkeypatch.setattr(checkpoints, "INTERVAL_S", 0.0)
    store = _store(tmp_path)
    assert store.database._db.execute("PRAGMA wal_autocheckpoint").fetchone() == (0,)
    for _ in range(50):  # ~110 WAL pages (450 kB) a transaction: 22 MB in all
        _hundred_kilobytes(store)
        store.database._checkpoints.wait()  # the writer pauses: the next one restarts the log
    assert Path(f"{store.database.path}-wal").stat().st_size < 1_000_000
    assert len(store.load_memories("isabella", 3)[0]) == 5000


def test_writers_that_never_pause_still_restart_the_wal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from npc_brain.memory import checkpoints

    monkeypatch.setattr(checkpoints, "INTERVAL_S", 0.0)
    monkeypatch.setattr(checkpoints, "RESTART_FRAMES", 200)
    store = _store(tmp_path)
    for _ in range(50):  # back to back: a background checkpoint rarely ends in between
        _hundred_kilobytes(store)
    store.database._checkpoints.wait()
    assert Path(f"{store.database.path}-wal").stat().st_size < 3_000_000
    assert len(store.load_memories("isabella", 3)[0]) == 5000


def test_a_failed_checkpoint_after_a_commit_leaves_the_commit_standing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sqlite3

    from npc_brain.memory import checkpoints

    def failing(db: sqlite3.Connection) -> tuple[int, int, int]:
        raise sqlite3.OperationalError("disk I/O error")

    store = _store(tmp_path)
    store.database._checkpoints._restart_due = True
    monkeypatch.setattr(checkpoints, "_checkpoint", failing)
    _hundred_kilobytes(store)  # no error: the memories are committed
    assert store.database._checkpoints._restart_due  # tried again after the next commit
    assert len(store.load_memories("isabella", 3)[0]) == 100


def test_words_find_memories_by_rank_within_a_time_window(open_store: OpenStore) -> None:
    store = _store(open_store)
    texts = ("the Magpie sails at dawn", "bread at the bakery", "the magpie's nest", "rain")
    memories = [NewMemory(MemoryKind.OBSERVATION, t, 10.0 * i, 1.0) for i, t in enumerate(texts)]
    stored = store.add_memories("isabella", memories, np.ones((4, 3), np.float32))
    ids = [m.memory_id for m in stored]
    assert set(store.lexical("isabella", "Where is the Magpie sailing?", 5)[:2]) == {ids[0], ids[2]}
    assert store.lexical("isabella", "magpie", 5, created=(15.0, 100.0)) == [ids[2]]
    assert store.lexical("isabella", "the of and", 5) == []


def test_commitments_come_and_go_with_their_memories(open_store: OpenStore) -> None:
    store = _store(open_store)
    day = 86_400.0
    said = NewMemory(MemoryKind.OBSERVATION, "the fair opens at 10 am tomorrow", 3_600.0, 5.0)
    (memory,) = store.add_memories("isabella", [said], np.ones((1, 3), np.float32))
    (booked,) = store.commitments("isabella", day, 2 * day)
    assert booked[0] == memory.memory_id and booked[1].start == day + 10 * 3_600
    assert store.forget("isabella", memory.memory_id)
    assert store.commitments("isabella", day, 2 * day) == []


def test_relationships_contradictions_offers_and_plans_round_trip(
    open_store: OpenStore,
) -> None:
    from npc_brain.game_actions import ChosenAction, Offer
    from npc_brain.memory.contradictions import Contradiction

    store = _store(open_store)
    store.relationships.save("isabella", "klaus", "a regular", 10.0)
    store.relationships.save("isabella", "klaus", "a friend", 20.0)
    found = Contradiction("isabella", 7, 3, "opens", 1.0, 2.0, 30.0)
    store.contradictions.record(found)
    store.contradictions.record(found)  # noticed again: one row
    chosen = ChosenAction("a1", "sell", {"item": "coffee"}, 3.0, "coins")
    store.add_offer(Offer(chosen, "isabella", "player", "sell a coffee", 40.0))
    store.save_plan("isabella", 0.0, '{"day": 1}')
    store.close()
    store = open_store()
    relationship = store.relationships.get("isabella", "klaus")
    assert relationship is not None
    assert (relationship.summary, relationship.conversations) == ("a friend", 2)
    assert store.contradictions.of("isabella") == [found]
    offer = store.offer("isabella", "a1")
    assert offer is not None and offer[0].chosen == chosen and offer[1] is None
    assert store.load_plan("isabella") == (0.0, '{"day": 1}')
