"""Shared fixtures: repository paths, a real gRPC server on port 0 in a thread, and a
throwaway real PostgreSQL server (tests/postgres)."""

from __future__ import annotations

import asyncio
import itertools
import os
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import grpc
import pytest

from npc_brain.action import Line
from npc_brain.brain import Brain
from npc_brain.config import Settings
from npc_brain.llm.base import ChatModel, Embedder
from npc_brain.llm.fakes import HashingEmbedder, ScriptedChat
from npc_brain.memory.store import WorldStore
from npc_brain.memory.stores import stores_from_settings
from npc_brain.mind.world import WorldRegistry
from npc_brain.server.app import create_server
from npc_brain.v1 import brain_pb2_grpc

if TYPE_CHECKING:
    from tests.postgres.server import TemporaryPostgres

REPO = Path(__file__).resolve().parents[1]


@dataclass
class RunningServer:
    """A Brain served over gRPC on 127.0.0.1:<port> by a thread with its own event loop."""

    port: int
    brain: Brain
    loop: asyncio.AbstractEventLoop
    channel: grpc.Channel

    @property
    def stub(self) -> brain_pb2_grpc.BrainStub:
        return brain_pb2_grpc.BrainStub(self.channel)


def start_server(brain: Brain) -> tuple[RunningServer, Callable[[], None]]:
    loop = asyncio.new_event_loop()
    ready: dict[str, object] = {}
    started = threading.Event()

    async def boot() -> None:
        server, port = await create_server(brain, "127.0.0.1:0")
        ready.update(server=server, port=port)
        started.set()

    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    asyncio.run_coroutine_threadsafe(boot(), loop).result(timeout=30)
    started.wait()
    channel = grpc.insecure_channel(f"127.0.0.1:{ready['port']}")
    running = RunningServer(int(ready["port"]), brain, loop, channel)  # type: ignore[arg-type]

    def stop() -> None:
        channel.close()
        server = ready["server"]
        asyncio.run_coroutine_threadsafe(server.stop(None), loop).result(timeout=30)  # type: ignore[attr-defined]
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=30)
        brain.close()

    return running, stop


# How RoutedChat tells the mind's questions apart: the fields each kind's schema has
# (a day plan has a `plan` field too, so "plan" comes before "revise").
MIND_KINDS: dict[str, set[str]] = {
    "talk": {"answer"},
    "reaction": {"decision"},
    "line": {"utterance"},
    "thoughts": {"planning_thought"},
    "rating": {"rating"},
    "plan": {"wake_up_hour"},
    "revise": {"plan"},
    "steps": {"steps"},
}


def make_brain(
    tmp_path: Path,
    chat: ChatModel | None = None,
    embedder: Embedder | None = None,
    **settings: object,
) -> Brain:
    embedder = embedder or HashingEmbedder()
    # Fakes script the chat model's ratings ({"rating": 9}), so importance asks the model
    # here unless a test picks another estimator (the server's default is the anchors).
    settings.setdefault("importance_estimator", "model")
    # ... and they script NPC conversations' lines, so the model words small talk too.
    settings.setdefault("npc_small_talk", "model")
    config = Settings(data_dir=tmp_path / "data", **settings)  # type: ignore[arg-type]
    return Brain(
        chat=chat or ScriptedChat(default={"rating": 3}),
        embedder=embedder,
        worlds=WorldRegistry(
            config.data_dir,
            embedder.model_id,
            embedder.dimension,
            config.exact_retrieval_limit,
            stores_from_settings(config),
        ),
        settings=config,
    )


def conversed(brain: Brain, world: str, agent: str, at: float, line: str) -> tuple[str, Line]:
    """What an agent streamed to a player's line, and its final line."""

    async def go() -> tuple[str, Line]:
        streamed, final = "", None
        async for event in brain.converse(world, agent, at, "player", line):
            if isinstance(event, str):
                streamed += event
            else:
                final = event
        assert final is not None
        return streamed, final

    return asyncio.run(go())


@pytest.fixture(autouse=True, scope="session")
def free_http_port_for_servers() -> Iterator[None]:
    """Server processes that tests start pick a free HTTP gateway port (unless a test says
    otherwise), so they never collide with each other or with a running `npc-brain serve`."""
    name = "NPC_BRAIN_HTTP_PORT"
    before = os.environ.get(name)
    os.environ[name] = "0"
    yield
    if before is None:
        del os.environ[name]
    else:
        os.environ[name] = before


@pytest.fixture
def chat() -> ScriptedChat:
    return ScriptedChat(default={"rating": 3})


@pytest.fixture
def fake_server(tmp_path: Path, chat: ScriptedChat) -> Iterator[RunningServer]:
    """A real gRPC server on port 0 whose brain thinks with fakes."""
    running, stop = start_server(make_brain(tmp_path, chat))
    yield running
    stop()


@pytest.fixture(scope="session")
def postgres() -> Iterator[TemporaryPostgres]:
    """One throwaway real PostgreSQL server for the session (tests/postgres/server.py). No
    PostgreSQL here fails the tests that use it, never skips them: run
    `sh tests/postgres/setup.sh`."""
    from tests.postgres.server import TemporaryPostgres

    try:
        server = TemporaryPostgres()
    except RuntimeError as missing:
        problem = str(missing)
    else:
        problem = ""
    if problem:
        pytest.fail(problem, pytrace=False)
    with server:
        yield server


_databases = itertools.count(1)


@pytest.fixture
def postgres_url(postgres: TemporaryPostgres, request: pytest.FixtureRequest) -> Iterator[str]:
    """The URL of a fresh, empty database (named after the test) on the session's server;
    dropped afterwards."""
    from tests.postgres.server import database_name

    name = database_name(request.node.name, next(_databases))
    yield postgres.create_database(name)
    if postgres.running:
        postgres.drop_database(name)


OpenStore = Callable[..., WorldStore]


@pytest.fixture(params=["sqlite", "postgresql"])
def open_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[OpenStore]:
    """Opens (or opens again) a world's store, `open_store("w")`, on each backend: a
    SQLite file in tmp_path, or a schema of a fresh database on the session's real
    PostgreSQL (through one pool, without leases)."""
    if request.param == "sqlite":
        yield lambda world_id="w": WorldStore(tmp_path / f"{world_id}.sqlite3")
        return
    from npc_brain.memory.postgres import PostgresDatabase, connect

    pool = connect(request.getfixturevalue("postgres_url"), max_connections=4, timeout_s=10)
    yield lambda world_id="w": WorldStore(PostgresDatabase(pool, world_id))
    pool.close()


@pytest.fixture(params=["sqlite", "postgresql"])
def store_settings(request: pytest.FixtureRequest) -> dict[str, object]:
    """make_brain's settings for each backend: SQLite files in its data_dir, or a fresh
    database on the session's real PostgreSQL (`store_url`)."""
    if request.param == "sqlite":
        return {}
    return {"store_url": request.getfixturevalue("postgres_url")}
