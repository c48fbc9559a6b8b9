"""Both doors (gRPC and HTTP/JSON) to one fake-model brain, on ports picked at random."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from npc_brain.llm.base import ChatModel, Embedder
from npc_brain.llm.fakes import ScriptedChat
from npc_brain.server.app import create_http_gateway
from npc_brain.server.http import HttpServer
from npc_brain.v1 import brain_pb2_grpc
from tests.conftest import RunningServer, make_brain, start_server
from tests.rpc.http_client import HttpDoor


@dataclass
class TwoDoors:
    """A RunningServer (gRPC) plus the HTTP/JSON gateway to the same brain."""

    grpc: RunningServer
    http_port: int
    http: HttpDoor
    gateway: HttpServer

    @property
    def stub(self) -> brain_pb2_grpc.BrainStub:
        return self.grpc.stub

    def door(self) -> HttpDoor:
        """Another HTTP connection (the `http` one is shared by a test's calls)."""
        return HttpDoor(self.http_port)


@contextmanager
def two_doors(
    tmp_path: Path,
    chat: ChatModel,
    cors_origins: str = "",
    embedder: Embedder | None = None,
    **settings: object,
) -> Iterator[TwoDoors]:
    """Serves a fresh fake-model brain in `tmp_path` over gRPC and HTTP until the block ends.

    `settings` (token, limits, TLS files...) go to the brain's Settings, which both
    servers read."""
    running, stop_grpc = start_server(make_brain(tmp_path, chat, embedder, **settings))
    gateway = asyncio.run_coroutine_threadsafe(
        create_http_gateway(running.brain, "127.0.0.1", 0, cors_origins), running.loop
    ).result(timeout=30)
    both = TwoDoors(running, gateway.port, HttpDoor(gateway.port), gateway)
    try:
        yield both
    finally:
        both.http.close()
        asyncio.run_coroutine_threadsafe(gateway.stop(None), running.loop).result(timeout=30)
        stop_grpc()


@pytest.fixture
def doors(tmp_path: Path, chat: ScriptedChat) -> Iterator[TwoDoors]:
    """gRPC and HTTP/JSON servers on port 0 sharing one brain that thinks with fakes."""
    with two_doors(tmp_path, chat) as both:
        yield both
