"""The fuzzing profile, the servers fuzzed, and the tally printed after the run.

`NPC_BRAIN_FUZZ_PROFILE=fuzz-deep` runs many more examples (and random ones); the default
`fuzz-ci` runs a fixed set (derandomized), about 150 requests per RPC and door.
"""

from __future__ import annotations

import shutil
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from google.protobuf.timestamp_pb2 import Timestamp
from hypothesis import HealthCheck, settings

from npc_brain.llm.fakes import ScriptedChat
from npc_brain.v1 import brain_pb2 as pb
from tests.rpc.conftest import TwoDoors, two_doors

_COMMON = {
    "deadline": None,
    "database": None,
    "suppress_health_check": [HealthCheck.too_slow, HealthCheck.data_too_large],
}
settings.register_profile("fuzz-ci", max_examples=150, derandomize=True, **_COMMON)
settings.register_profile("fuzz-deep", max_examples=2000, **_COMMON)

# door -> status -> count, filled by the fuzz tests and printed at the end of the session
TALLY: dict[str, Counter[str]] = {
    "gRPC": Counter(),
    "gRPC wire bytes": Counter(),
    "HTTP/JSON": Counter(),
}
KNOWN_SNAPSHOT = "20230213T080000Z-00000000"


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    for door, counts in TALLY.items():
        if counts:
            statuses = ", ".join(f"{name} {n}" for name, n in counts.most_common())
            terminalreporter.write_line(
                f"fuzzed {door}: {sum(counts.values())} requests; statuses: {statuses}"
            )


@pytest.fixture(scope="module")
def fuzzed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TwoDoors]:
    """Both doors to one fake-model brain holding two worlds, agents, memories and a save
    slot with a known id, so fuzzed requests that name them reach the deep code."""
    tmp = tmp_path_factory.mktemp("fuzz")
    with two_doors(tmp, ScriptedChat(default={"rating": 3})) as doors:
        now = Timestamp(seconds=1_676_275_200)
        for world in ("default", "w2"):
            for agent in ("isabella", "klaus"):
                doors.stub.UpsertAgent(
                    pb.UpsertAgentRequest(
                        world_id=world,
                        agent_id=agent,
                        persona=pb.Persona(name=agent.title(), home_address="ville:home"),
                    )
                )
                doors.stub.Perceive(
                    pb.PerceiveRequest(
                        world_id=world,
                        agent_id=agent,
                        game_time=now,
                        observations=[pb.Observation(text=f"{agent} woke up", importance=2)],
                    )
                )
        saved = doors.stub.SaveWorld(pb.SaveWorldRequest(label="fuzz"))
        folder = Path(tmp) / "data" / "snapshots" / "default"
        shutil.copy(folder / f"{saved.snapshot_id}.sqlite3", folder / f"{KNOWN_SNAPSHOT}.sqlite3")
        yield doors
