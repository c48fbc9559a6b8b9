"""llama-cpp-python's own OpenAI-compatible server (`python -m llama_cpp.server`, the
package's `server` extra) serving a GGUF on a free loopback port, for tests of the
remote backend."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from npc_brain.config import DEFAULT_CHAT_MODEL, DEFAULT_EMBED_MODEL, REPO_MODELS_DIR


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class LlamaCppServer:
    """A llama_cpp.server process; `url` is its API root (http://127.0.0.1:PORT/v1)."""

    def __init__(self, model: Path, alias: str, *, embedding: bool = False) -> None:
        if not model.exists():
            raise FileNotFoundError(f"{model} is missing: run `npc-brain models fetch`")
        self.alias = alias
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/v1"
        self._log = tempfile.NamedTemporaryFile(prefix="llama-server-", suffix=".log")  # noqa: SIM115
        args = ["--model", str(model), "--model_alias", alias, "--host", "127.0.0.1"]
        args += ["--port", str(self.port), "--n_ctx", "512" if embedding else "2048"]
        # Several npc-brain workers may stream at once: a new request must not cut
        # a running one short (the server's default).
        args += ["--interrupt_requests", "false", "--embedding", str(embedding).lower()]
        threads = str(os.cpu_count() or 1)  # as the embedded models (its default: half)
        args += ["--n_threads", threads, "--n_threads_batch", threads]
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tests.integration.llama_server_plain", *args],
            stdout=self._log,
            stderr=subprocess.STDOUT,
            env=os.environ | {"PYTHONUNBUFFERED": "1"},
        )
        self._wait_ready(timeout_s=120)

    def _wait_ready(self, timeout_s: float) -> None:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"llama_cpp.server exited:\n{self.log_tail()}")
            try:
                with urllib.request.urlopen(f"{self.url}/models", timeout=2) as answer:
                    if json.loads(answer.read())["data"]:
                        return
            except OSError:
                time.sleep(0.2)
        self.stop()
        raise TimeoutError(f"llama_cpp.server did not start:\n{self.log_tail()}")

    def log_tail(self) -> str:
        return Path(self._log.name).read_text(errors="replace")[-3000:]

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=30)
        self._log.close()


def chat_server() -> LlamaCppServer:
    return LlamaCppServer(REPO_MODELS_DIR / DEFAULT_CHAT_MODEL, "smollm2-135m")


def embedding_server() -> LlamaCppServer:
    return LlamaCppServer(REPO_MODELS_DIR / DEFAULT_EMBED_MODEL, "minilm-l6", embedding=True)
