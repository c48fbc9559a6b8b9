"""The npc-brain server the demo talks to: a child process on a free port with its own
data directory, or one already running at an address."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path
from types import TracebackType

import grpc

from npc_brain.demo.errors import DemoError
from npc_brain.v1 import brain_pb2_grpc

READY_TIMEOUT_S = 120.0


class ChildServer:
    """`npc-brain serve --port 0` on `data_dir`, its log in `log_path`; a context manager
    that stops it (SIGTERM: in-flight calls drain) on the way out."""

    def __init__(
        self,
        data_dir: Path,
        log_path: Path,
        *,
        seed: int,
        chat_model: Path | None = None,
        planner: str | None = None,
    ) -> None:
        args = [sys.executable, "-m", "npc_brain", "serve", "--port", "0", "--http-port", "-1"]
        args += ["--data-dir", str(data_dir), "--seed", str(seed)]
        if chat_model is not None:
            args += ["--chat-model", str(chat_model)]
        if planner is not None:
            args += ["--planner", planner]
        log_path.parent.mkdir(parents=True, exist_ok=True)
        self._log_path = log_path
        self._log = log_path.open("w")
        self.process = subprocess.Popen(
            args,
            stdout=subprocess.PIPE,
            stderr=self._log,
            text=True,
            env=_child_env(),
        )
        assert self.process.stdout is not None
        line = self.process.stdout.readline()  # "npc-brain serving ... on HOST:PORT"
        if "serving npc_brain.v1.Brain" not in line:
            self.stop()
            raise DemoError(f"the npc-brain server did not start; see {log_path}:\n{self._tail()}")
        self.address = line.strip().rsplit(" ", 1)[1]

    def _tail(self, lines: int = 15) -> str:
        text = self._log_path.read_text(errors="replace").splitlines()
        return "\n".join(text[-lines:])

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self.process.stdout is not None:
            self.process.stdout.close()
        self._log.close()

    def __enter__(self) -> ChildServer:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.stop()


def _child_env() -> dict[str, str]:
    """The environment with the server on loopback without a token: only the demo calls it."""
    env = {k: v for k, v in os.environ.items() if k != "NPC_BRAIN_TOKEN"}
    return env | {"PYTHONUNBUFFERED": "1", "NPC_BRAIN_HOST": "127.0.0.1"}


def connect(address: str) -> tuple[grpc.Channel, brain_pb2_grpc.BrainStub]:
    """A channel to the server at HOST:PORT, once it answers (DemoError if it does not)."""
    channel = grpc.insecure_channel(address)
    try:
        grpc.channel_ready_future(channel).result(timeout=READY_TIMEOUT_S)
    except grpc.FutureTimeoutError as error:
        channel.close()
        raise DemoError(f"no npc-brain server answers at {address}") from error
    stub: brain_pb2_grpc.BrainStub = brain_pb2_grpc.BrainStub(channel)  # type: ignore[no-untyped-call]
    return channel, stub
