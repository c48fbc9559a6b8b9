"""The SQLite store: round trips, persisted access times, migrations, model binding."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from npc_brain.errors import FailedPrecondition
from npc_brain.memory.records import MemoryKind, NewMemory, Source, SourceKind
from npc_brain.memory.store import MIGRATIONS, WorldStore
from npc_brain.persona import AgentRecord, Persona


def _store(tmp_path: Path) -> WorldStore:
    store = WorldStore(tmp_path / "w.sqlite3")
    store.bind_embedding_model("m", 3)
    store.upsert_agent(AgentRecord("isabella", Persona("Isabella", daily_requirements=("a",))))
    return store


def test_memories_round_trip_with_embeddings_and_provenance(tmp_path: Path) -> None:
    store = _store(tmp_path)
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
    reopened = WorldStore(tmp_path / "w.sqlite3")
    records, vectors = reopened.load_memories("isabella", 3)
    assert records == [stored]
    assert records[0].source == Source(SourceKind.HEARD, "klaus")
    np.testing.assert_array_equal(vectors, [[1, 0, 0]])
    assert reopened.get_agent("isabella") == AgentRecord(
        "isabella", Persona("Isabella", daily_requirements=("a",))
    )


def test_touch_persists_last_accessed(tmp_path: Path) -> None:
    store = _store(tmp_path)
    (stored,) = store.add_memories(
        "isabella", [NewMemory(MemoryKind.OBSERVATION, "x", 5.0, 1.0)], np.ones((1, 3), np.float32)
    )
    store.touch([stored.memory_id], 99.0)
    store.close()
    (record,), _ = WorldStore(tmp_path / "w.sqlite3").load_memories("isabella", 3)
    assert record.last_accessed == 99.0 and record.created == 5.0


def test_migrations_are_numbered_and_recorded(tmp_path: Path) -> None:
    store = _store(tmp_path)
    (version,) = store._db.execute("PRAGMA user_version").fetchone()
    assert version == len(MIGRATIONS)
    assert [m.__name__[:4] for m in MIGRATIONS] == [
        f"m{i:03d}" for i in range(1, len(MIGRATIONS) + 1)
    ]


def test_a_different_embedding_model_is_refused_with_a_clear_message(tmp_path: Path) -> None:
    _store(tmp_path).close()
    store = WorldStore(tmp_path / "w.sqlite3")
    with pytest.raises(FailedPrecondition, match="built with embedding model m"):
        store.bind_embedding_model("other", 768)
    store.bind_embedding_model("m", 3)  # the same model is fine


def test_places_keep_the_order_they_were_learnt(tmp_path: Path) -> None:
    store = _store(tmp_path)
    store.add_places("isabella", ["b", "a", ""], 1.0)
    store.add_places("isabella", ["a", "c"], 2.0)
    assert store.places("isabella") == ["b", "a", "c"]


def test_perceptions_of_several_agents_are_written_together(tmp_path: Path) -> None:
    from npc_brain.memory.store import Perception

    store = _store(tmp_path)
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


def test_memory_ids_rise_in_order_and_are_never_reused(tmp_path: Path) -> None:
    from npc_brain.memory.store import Perception

    store = _store(tmp_path)
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
    reopened = WorldStore(tmp_path / "w.sqlite3")
    (after_reopening,) = reopened.add_memories("klaus", memories[:1], one[:1])
    assert after_reopening.memory_id == later.memory_id + 1


def test_an_id_asked_for_before_its_agent_exists_finds_it_after(tmp_path: Path) -> None:
    store = _store(tmp_path)
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
    assert store._db.execute("PRAGMA wal_autocheckpoint").fetchone() == (0,)
    for _ in range(50):  # ~110 WAL pages (450 kB) a transaction: 22 MB in all
        _hundred_kilobytes(store)
        store._checkpoints.wait()  # the writer pauses: the next one restarts the log
    assert Path(f"{store.path}-wal").stat().st_size < 1_000_000
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
    store._checkpoints.wait()
    assert Path(f"{store.path}-wal").stat().st_size < 3_000_000
    assert len(store.load_memories("isabella", 3)[0]) == 5000


def test_a_failed_checkpoint_after_a_commit_leaves_the_commit_standing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sqlite3

    from npc_brain.memory import checkpoints

    def failing(db: sqlite3.Connection) -> tuple[int, int, int]:
        raise sqlite3.OperationalError("disk I/O error")

    store = _store(tmp_path)
    store._checkpoints._restart_due = True
    monkeypatch.setattr(checkpoints, "_checkpoint", failing)
    _hundred_kilobytes(store)  # no error: the memories are committed
    assert store._checkpoints._restart_due  # tried again after the next commit
    assert len(store.load_memories("isabella", 3)[0]) == 100
