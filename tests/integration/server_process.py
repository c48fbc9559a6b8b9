"""`npc-brain serve --port 0` as a child process, for tests that need the real thing."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import grpc
from google.protobuf.timestamp_pb2 import Timestamp

from npc_brain.v1 import brain_pb2 as pb
from npc_brain.v1 import brain_pb2_grpc


class ServerProcess:
    """A real server process on a free port, with the default models."""

    def __init__(self, data_dir: Path, *extra_args: str) -> None:
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "npc_brain",
                "serve",
                "--port",
                "0",
                "--data-dir",
                str(data_dir),
                *extra_args,
            ],
            stdout=subprocess.PIPE,
            text=True,
            env=os.environ | {"PYTHONUNBUFFERED": "1"},
        )
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        assert "serving npc_brain.v1.Brain" in line, f"server did not start: {line!r}"
        self.port = int(line.rsplit(":", 1)[1])
        self.channel = grpc.insecure_channel(f"127.0.0.1:{self.port}")
        self.stub = brain_pb2_grpc.BrainStub(self.channel)

    def stop(self) -> int:
        """SIGTERM: drains in-flight calls; returns the exit status."""
        self.channel.close()
        self.process.send_signal(signal.SIGTERM)
        return self.process.wait(timeout=60)

    def kill(self) -> None:
        """SIGKILL: the process dies at once, as in a crash."""
        self.process.kill()
        self.process.wait(timeout=60)
        self.channel.close()


def stored_memories(
    stub: brain_pb2_grpc.BrainStub, agent_id: str, world_id: str = "", **window: Timestamp
) -> dict[str, str]:
    """Every memory of an agent (id -> description), page by page through ListMemories,
    within a `created_after` / `created_before` window if given."""
    stored: dict[str, str] = {}
    token = ""
    while True:
        page = stub.ListMemories(
            pb.ListMemoriesRequest(
                world_id=world_id, agent_id=agent_id, page_size=500, page_token=token, **window
            ),
            timeout=60,
        )
        stored.update({m.memory_id: m.description for m in page.memories})
        if not (token := page.next_page_token):
            return stored
