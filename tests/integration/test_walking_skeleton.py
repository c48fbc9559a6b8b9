"""The whole path with the real default models, a real `npc-brain serve` process and a
client built from nothing but grpcio and the .proto: perceive, retrieve, converse
(streamed), then a restart on the same data directory keeps the memory."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from npc_brain.config import DEFAULT_CHAT_MODEL, DEFAULT_EMBED_MODEL, REPO_MODELS_DIR
from tests.integration.server_process import ServerProcess

REPO = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def client_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder with the client script and stubs freshly generated from proto/."""
    for name in (DEFAULT_CHAT_MODEL, DEFAULT_EMBED_MODEL):
        if not (REPO_MODELS_DIR / name).exists():
            pytest.fail(f"{name} is missing: run `npc-brain models fetch` (make test does)")
    folder = tmp_path_factory.mktemp("client")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "grpc_tools.protoc",
            "-I",
            str(REPO / "proto"),
            f"--python_out={folder}",
            f"--grpc_python_out={folder}",
            str(REPO / "proto/npc_brain/v1/brain.proto"),
        ],
        check=True,
    )
    for package in (folder / "npc_brain", folder / "npc_brain/v1"):
        (package / "__init__.py").touch()
    shutil.copy(Path(__file__).with_name("grpc_only_client.py"), folder)
    return folder


@pytest.fixture
def data_dir(tmp_path: Path) -> Iterator[Path]:
    yield tmp_path / "data"


def run_client(folder: Path, port: int, phase: str) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "grpc_only_client.py", str(port), phase],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def test_isabella_remembers_the_party_talks_about_it_and_keeps_it(
    client_dir: Path, data_dir: Path
) -> None:
    server = ServerProcess(data_dir)
    try:
        result = run_client(client_dir, server.port, "flow")
    finally:
        assert server.stop() == 0, "SIGTERM must drain and exit 0"

    assert result["top_ids"][0] == result["party_id"], result  # type: ignore[index]
    kinds = result["kinds"]
    assert kinds[-1] == "final" and kinds.count("token") >= 1, kinds  # type: ignore[union-attr]
    # What streams is what stays: the tokens, joined, are the final Utterance's text.
    assert result["tokens"] == result["final"] != ""
    assert result["speaker"] == "isabella"

    restarted = ServerProcess(data_dir)
    try:
        after = run_client(client_dir, restarted.port, "recall")
    finally:
        restarted.stop()
    assert after["top_id"] == result["party_id"]
    assert "Valentine's Day party" in after["top_description"]  # type: ignore[operator]
