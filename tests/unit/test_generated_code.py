"""The committed gRPC code is exactly what grpcio-tools makes from the proto."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_generated_code_matches_the_proto(tmp_path: Path) -> None:
    subprocess.run(
        [
            sys.executable,
            "-m",
            "grpc_tools.protoc",
            "-I",
            str(REPO / "proto"),
            f"--python_out={tmp_path}",
            f"--grpc_python_out={tmp_path}",
            f"--pyi_out={tmp_path}",
            str(REPO / "proto/npc_brain/v1/brain.proto"),
        ],
        check=True,
    )
    for name in ("brain_pb2.py", "brain_pb2.pyi", "brain_pb2_grpc.py"):
        fresh = (tmp_path / "npc_brain/v1" / name).read_text()
        committed = (REPO / "npc_brain/v1" / name).read_text()
        assert fresh == committed, f"{name} is stale or edited by hand: run `make proto`"
