"""llama.cpp's own `llama-server`, the anchor the batching bench compares against.

Built for the bench only, from the llama.cpp sources vendored in the sdist of the
llama-cpp-python version installed here (fetched from PyPI with `pip download`), into
~/.cache/npc-brain/llama-server/<version>/ (once: a few minutes on 2 cores). `server`
runs it on the default GGUF with N parallel slots (continuous batching) and yields an
`OpenAIChat` for it, the client npc-brain uses for `chat_url`.

    python -m bench.llama_server     # build it (or say why it cannot be built)
"""

from __future__ import annotations

import contextlib
import importlib.metadata
import socket
import subprocess
import sys
import tarfile
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

from npc_brain.llm.openai_compat import OpenAIChat
from npc_brain.llm.openai_http import Endpoint

CACHE = Path.home() / ".cache" / "npc-brain" / "llama-server"
CMAKE_FLAGS = [
    "-G",
    "Ninja",
    "-DCMAKE_BUILD_TYPE=Release",
    "-DLLAMA_BUILD_SERVER=ON",
    "-DLLAMA_BUILD_TOOLS=ON",
    "-DLLAMA_BUILD_TESTS=OFF",
    "-DLLAMA_BUILD_EXAMPLES=OFF",
    "-DLLAMA_CURL=OFF",
    "-DLLAMA_BUILD_UI=OFF",  # no web page: the bench only calls the API
    "-DLLAMA_USE_PREBUILT_UI=OFF",  # and never reaches for a model hub
    "-DBUILD_SHARED_LIBS=OFF",
]


class Unavailable(Exception):
    """llama-server cannot be built or started here; the message says why."""


def binary() -> Path:
    """The llama-server of the installed llama-cpp-python version, built if missing."""
    version = importlib.metadata.version("llama-cpp-python")
    home = CACHE / version
    built = home / "build" / "bin" / "llama-server"
    if built.is_file():
        return built
    home.mkdir(parents=True, exist_ok=True)
    source = _sources(version, home)
    print(f"building llama-server {version} in {home} (a few minutes) ...", flush=True)
    _run(["cmake", "-S", str(source), "-B", str(home / "build"), *CMAKE_FLAGS], "configure")
    _run(["cmake", "--build", str(home / "build"), "--target", "llama-server"], "build")
    if not built.is_file():
        raise Unavailable(f"the build finished without {built}")
    return built


def _sources(version: str, home: Path) -> Path:
    """llama.cpp's sources from the llama-cpp-python sdist, extracted under `home`."""
    source = home / "llama.cpp"
    if (source / "CMakeLists.txt").is_file():
        return source
    with tempfile.TemporaryDirectory() as download:
        _run(
            [
                sys.executable,
                "-m",
                "pip",
                "download",
                "--no-deps",
                "--no-binary",
                ":all:",
                f"llama-cpp-python=={version}",
                "-d",
                download,
            ],
            "fetch the sdist",
        )
        (sdist,) = Path(download).glob("llama_cpp_python-*.tar.gz")
        with tarfile.open(sdist) as archive:
            prefix = f"{archive.getnames()[0].split('/')[0]}/vendor/llama.cpp/"
            members = [m for m in archive.getmembers() if m.name.startswith(prefix)]
            for member in members:
                member.name = member.name[len(prefix) :]
            archive.extractall(source, members=[m for m in members if m.name], filter="data")
    return source


def _run(command: list[str], step: str) -> None:
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode:
        tail = (done.stderr or done.stdout).strip().splitlines()[-5:]
        raise Unavailable(f"could not {step}: " + " | ".join(tail))


@contextlib.contextmanager
def server(
    model: Path, parallel: int, threads: int, ctx_per_slot: int = 1024
) -> Iterator[OpenAIChat]:
    """llama-server on `model` with `parallel` slots (continuous batching), its client."""
    port = _free_port()
    command = [
        str(binary()),
        "-m",
        str(model),
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--parallel",
        str(parallel),
        "-c",
        str(parallel * ctx_per_slot),
        "-t",
        str(threads),
        "--cont-batching",
        "--no-repack",  # its AMX weight layout crashes here (SIGSEGV in ggml_backend_amx_mul_mat)
    ]
    with tempfile.TemporaryFile() as log:
        process = subprocess.Popen(command, stdout=log, stderr=log)
        try:
            _wait_healthy(port, process, log)
            endpoint = Endpoint(f"http://127.0.0.1:{port}/v1", concurrency=parallel)
            yield OpenAIChat(endpoint, "default")
        finally:
            process.terminate()
            process.wait(timeout=30)


def _wait_healthy(port: int, process: subprocess.Popen[bytes], log: object) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise Unavailable(f"llama-server exited with {process.returncode}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.5)
    raise Unavailable("llama-server did not become healthy in 120 s")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


if __name__ == "__main__":
    try:
        print(binary())
    except Unavailable as error:
        print(f"llama-server unavailable: {error}")
