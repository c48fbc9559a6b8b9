"""Save slots: SaveWorld snapshots a world while it serves, LoadWorld brings every agent's
mind back to it (changes since are gone), ListSnapshots lists them, and a snapshot file
copied into another data directory loads there."""

from __future__ import annotations

import shutil
import sqlite3
import threading
import time
from pathlib import Path

import grpc
import pytest
from google.protobuf.timestamp_pb2 import Timestamp

from npc_brain.errors import FailedPrecondition
from npc_brain.llm.fakes import HashingEmbedder, ScriptedChat
from npc_brain.memory.records import MemoryKind, NewMemory
from npc_brain.memory.store import WorldStore
from npc_brain.v1 import brain_pb2 as pb
from npc_brain.v1 import brain_pb2_grpc
from tests.conftest import RunningServer, make_brain, start_server
from tests.integration.server_process import stored_memories

T0 = 1_676_275_200


def _at(offset: int) -> Timestamp:
    return Timestamp(seconds=T0 + offset)


def _perceive(stub: brain_pb2_grpc.BrainStub, *texts: str, world: str = "") -> list[str]:
    observations = [pb.Observation(text=t, importance=3) for t in texts]
    request = pb.PerceiveRequest(
        world_id=world, agent_id="isabella", game_time=_at(60), observations=observations
    )
    return list(stub.Perceive(request).memory_ids)


def _memories(stub: brain_pb2_grpc.BrainStub, world: str = "") -> dict[str, str]:
    return stored_memories(stub, "isabella", world)


def _upsert(stub: brain_pb2_grpc.BrainStub, name: str = "Isabella", world: str = "") -> None:
    persona = pb.Persona(name=name, home_address="ville:cafe")
    stub.UpsertAgent(pb.UpsertAgentRequest(world_id=world, agent_id="isabella", persona=persona))


def _code(call: object) -> grpc.StatusCode:
    with pytest.raises(grpc.RpcError) as error:
        call()  # type: ignore[operator]
    return error.value.code()  # type: ignore[no-any-return]


def test_save_change_load_brings_the_saved_minds_back(
    tmp_path: Path, store_settings: dict[str, object]
) -> None:
    running, stop = start_server(make_brain(tmp_path, **store_settings))
    try:
        _save_change_load(running.stub)
    finally:
        stop()


def _save_change_load(stub: brain_pb2_grpc.BrainStub) -> None:
    _upsert(stub)
    kept = _perceive(stub, "Isabella opened the cafe", "Klaus ordered coffee")
    saved_memories = _memories(stub)
    slot = stub.SaveWorld(pb.SaveWorldRequest(label="morning"))
    assert slot.world_id == "default" and slot.label == "morning"
    assert abs(slot.saved_at.seconds - time.time()) < 60, "saved_at is the wall clock"

    _perceive(stub, "the cafe burned down")
    stub.ForgetMemory(pb.ForgetMemoryRequest(agent_id="isabella", memory_id=kept[0]))
    _upsert(stub, name="Isabella the Arsonist")
    stub.UpsertAgent(pb.UpsertAgentRequest(agent_id="klaus", persona=pb.Persona(name="Klaus")))
    assert _memories(stub) != saved_memories

    stub.LoadWorld(pb.LoadWorldRequest(snapshot_id=slot.snapshot_id))
    assert _memories(stub) == saved_memories
    assert stub.GetAgent(pb.GetAgentRequest(agent_id="isabella")).persona.name == "Isabella"
    assert _code(lambda: stub.GetAgent(pb.GetAgentRequest(agent_id="klaus"))) == (
        grpc.StatusCode.NOT_FOUND
    )
    found = stub.Retrieve(
        pb.RetrieveRequest(agent_id="isabella", game_time=_at(120), query="cafe", k=10)
    )
    assert {m.memory.memory_id for m in found.memories} == set(saved_memories)
    assert _perceive(stub, "the cafe is fine")  # the loaded world takes writes


def test_list_snapshots_oldest_first_and_unknown_or_bad_ids(fake_server: RunningServer) -> None:
    stub = fake_server.stub
    _upsert(stub)
    first = stub.SaveWorld(pb.SaveWorldRequest(label="one"))
    second = stub.SaveWorld(pb.SaveWorldRequest(label="two"))
    listed = stub.ListSnapshots(pb.ListSnapshotsRequest()).snapshots
    assert [(s.snapshot_id, s.label) for s in listed] == [
        (first.snapshot_id, "one"),
        (second.snapshot_id, "two"),
    ]
    assert list(stub.ListSnapshots(pb.ListSnapshotsRequest(world_id="w2")).snapshots) == []
    load = stub.LoadWorld
    assert _code(lambda: load(pb.LoadWorldRequest(snapshot_id="nope"))) == (
        grpc.StatusCode.NOT_FOUND
    )
    other = pb.LoadWorldRequest(world_id="w2", snapshot_id=first.snapshot_id)
    assert _code(lambda: load(other)) == grpc.StatusCode.NOT_FOUND, "slots belong to a world"
    missing = pb.SaveWorldRequest(world_id="never-made")
    assert _code(lambda: stub.SaveWorld(missing)) == grpc.StatusCode.NOT_FOUND


def test_a_snapshot_copied_to_another_data_dir_loads_there(tmp_path: Path) -> None:
    here, stop_here = start_server(make_brain(tmp_path / "here"))
    try:
        _upsert(here.stub)
        _perceive(here.stub, "Isabella met the player at the well")
        saved = _memories(here.stub)
        slot = here.stub.SaveWorld(pb.SaveWorldRequest(label="portable"))
    finally:
        stop_here()
    source = tmp_path / "here/data/snapshots/default" / f"{slot.snapshot_id}.sqlite3"
    target = tmp_path / "there/data/snapshots/town"
    target.mkdir(parents=True)
    shutil.copy(source, target)  # only the one file travels

    there, stop_there = start_server(make_brain(tmp_path / "there"))
    try:
        listed = there.stub.ListSnapshots(pb.ListSnapshotsRequest(world_id="town")).snapshots
        assert [(s.snapshot_id, s.label, s.world_id) for s in listed] == [
            (slot.snapshot_id, "portable", "town")
        ]
        there.stub.LoadWorld(pb.LoadWorldRequest(world_id="town", snapshot_id=slot.snapshot_id))
        assert _memories(there.stub, world="town") == saved
    finally:
        stop_there()


@pytest.mark.parametrize("source", ["sqlite", "postgresql"])
def test_a_snapshot_saved_on_one_backend_loads_on_the_other(
    tmp_path: Path, postgres_url: str, source: str
) -> None:
    backends: dict[str, dict[str, object]] = {
        "sqlite": {},
        "postgresql": {"store_url": postgres_url},
    }
    target = "sqlite" if source == "postgresql" else "postgresql"
    here, stop_here = start_server(make_brain(tmp_path / "here", **backends[source]))
    try:
        _upsert(here.stub, world="town")
        _perceive(here.stub, "Isabella opened the cafe at 8 am", world="town")
        _perceive(here.stub, "the baker is ill", world="town")
        (rumour,) = _perceive(here.stub, "a rumour", world="town")
        here.stub.ForgetMemory(  # the newest: its id is above every id the world holds
            pb.ForgetMemoryRequest(world_id="town", agent_id="isabella", memory_id=rumour)
        )
        saved = _memories(here.stub, world="town")
        slot = here.stub.SaveWorld(pb.SaveWorldRequest(world_id="town", label="move"))
    finally:
        stop_here()
    folder = tmp_path / "there/data/snapshots/town"
    folder.mkdir(parents=True)
    shutil.copy(tmp_path / "here/data/snapshots/town" / f"{slot.snapshot_id}.sqlite3", folder)
    there, stop_there = start_server(make_brain(tmp_path / "there", **backends[target]))
    try:
        _upsert(there.stub, name="Someone Else", world="town")
        there.stub.LoadWorld(pb.LoadWorldRequest(world_id="town", snapshot_id=slot.snapshot_id))
        assert _memories(there.stub, world="town") == saved
        agent = there.stub.GetAgent(pb.GetAgentRequest(world_id="town", agent_id="isabella"))
        assert agent.persona.name == "Isabella"
        found = there.stub.Retrieve(
            pb.RetrieveRequest(
                world_id="town", agent_id="isabella", game_time=_at(120), query="baker", k=1
            )
        )
        assert [m.memory.description for m in found.memories] == ["the baker is ill"]
        (new_id,) = _perceive(there.stub, "the cafe reopened", world="town")
        assert int(new_id) > int(rumour), "a forgotten id is never given again"
    finally:
        stop_there()


def test_damaged_or_foreign_snapshots_are_refused_and_change_nothing(tmp_path: Path) -> None:
    running, stop = start_server(make_brain(tmp_path / "a"))
    try:
        _upsert(running.stub)
        before = _memories(running.stub)
        folder = tmp_path / "a/data/snapshots/default"
        folder.mkdir(parents=True)
        (folder / "garbage.sqlite3").write_bytes(b"not a database" * 100)
        listed = running.stub.ListSnapshots(pb.ListSnapshotsRequest()).snapshots
        assert list(listed) == [], "what is not a snapshot is not listed"
        garbage = pb.LoadWorldRequest(snapshot_id="garbage")
        assert _code(lambda: running.stub.LoadWorld(garbage)) == (
            grpc.StatusCode.FAILED_PRECONDITION
        )
        # a save made with another embedding model (64-d here, 32-d there)
        other, stop_other = start_server(
            make_brain(tmp_path / "b", embedder=HashingEmbedder(dimension=32))
        )
        try:
            _upsert(other.stub)
            slot = other.stub.SaveWorld(pb.SaveWorldRequest())
        finally:
            stop_other()
        shutil.copy(tmp_path / "b/data/snapshots/default" / f"{slot.snapshot_id}.sqlite3", folder)
        foreign = pb.LoadWorldRequest(snapshot_id=slot.snapshot_id)
        with pytest.raises(grpc.RpcError) as error:
            running.stub.LoadWorld(foreign)
        assert error.value.code() == grpc.StatusCode.FAILED_PRECONDITION
        assert "embedding model" in error.value.details()
        assert _memories(running.stub) == before
        assert _perceive(running.stub, "still writable")
    finally:
        stop()


def test_a_snapshot_taken_under_a_write_load_is_consistent(fake_server: RunningServer) -> None:
    stub = fake_server.stub
    _upsert(stub)
    written: list[str] = []
    stop = threading.Event()

    def writer() -> None:
        for i in range(100_000):
            if stop.is_set():
                return
            text = f"event number {i}"
            _perceive(stub, text)
            written.append(text)

    thread = threading.Thread(target=writer)
    thread.start()
    slots = []
    try:
        for _ in range(5):
            while len(written) < 10 * (len(slots) + 1):
                time.sleep(0.005)
            acked_before = len(written)
            slots.append((acked_before, stub.SaveWorld(pb.SaveWorldRequest()).snapshot_id))
    finally:
        stop.set()
        thread.join(timeout=30)
    folder = fake_server.brain.settings.data_dir / "snapshots/default"
    for acked_before, snapshot_id in slots:
        with sqlite3.connect(folder / f"{snapshot_id}.sqlite3") as db:
            assert db.execute("PRAGMA quick_check").fetchone() == ("ok",)
            rows = [r for (r,) in db.execute("SELECT description FROM memories ORDER BY 1")]
        texts = sorted(written[: len(rows)])
        assert len(rows) >= acked_before, "every write acknowledged before the save is in it"
        assert rows == texts, "a snapshot holds a prefix of the writes: no torn state"


def test_loading_drops_stale_ann_indexes(tmp_path: Path) -> None:
    """With streams over exact_retrieval_limit, retrieval uses saved FAISS indexes; the
    one saved after more writes does not match the loaded store and is not used."""
    chat = ScriptedChat(default={"rating": 3})
    running, stop = start_server(make_brain(tmp_path, chat, exact_retrieval_limit=100))
    try:
        _upsert(running.stub)
        saved = set(_perceive(running.stub, *(f"saw bird {i}" for i in range(130))))
        slot = running.stub.SaveWorld(pb.SaveWorldRequest())
        later = set(_perceive(running.stub, *(f"saw bird {i} again" for i in range(60))))
        _wait_for_index(running)
    finally:
        stop()  # saves the index, stamped with the store's version after the later writes
    assert list((tmp_path / "data/worlds/default.index").glob("*.hnsw"))
    running, stop = start_server(make_brain(tmp_path, chat, exact_retrieval_limit=100))
    try:
        running.stub.LoadWorld(pb.LoadWorldRequest(snapshot_id=slot.snapshot_id))
        for query in ("saw bird 7 again", "bird 42"):
            found = running.stub.Retrieve(
                pb.RetrieveRequest(agent_id="isabella", game_time=_at(999), query=query, k=100)
            )
            ids = {m.memory.memory_id for m in found.memories}
            assert ids <= saved and not ids & later and len(ids) == 100
    finally:
        stop()


def _wait_for_index(running: RunningServer) -> None:
    world = running.brain._worlds.get("default")  # noqa: SLF001 - test peeks at the cache
    for _ in range(500):
        if world.stream("isabella").ann is not None:
            return
        time.sleep(0.01)
    raise AssertionError("the ANN index was never built")


def test_a_fenced_store_refuses_writes_but_reads(tmp_path: Path) -> None:
    store = WorldStore(tmp_path / "w.sqlite3")
    store.fence("a snapshot is being loaded")
    memory = NewMemory(MemoryKind.OBSERVATION, "x", 0.0, 3.0)
    with pytest.raises(FailedPrecondition, match="being loaded"):
        store.add_memories("a", [memory], HashingEmbedder().embed(["x"]))
    assert store.list_memories("a") == []
    store.unfence()
    store.close()
