"""`npc-brain interview`: ask an agent about its life; it answers from its memories and
stores nothing (Converse with interview=true), as in the paper's evaluation."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import TextIO

import grpc

from npc_brain.config import DEFAULT_CHAT_MODEL
from npc_brain.demo.clock import parse_time
from npc_brain.demo.errors import DemoError
from npc_brain.demo.run import DATA_DIR
from npc_brain.demo.server import ChildServer, connect
from npc_brain.demo.simulation import INTERVIEWER, stamp
from npc_brain.demo.writing import REPORT_JSON, read_report
from npc_brain.v1 import brain_pb2 as pb

DEFAULT_SEED = 1234  # the demo's


def interview(
    agent_id: str,
    question: str,
    *,
    out: Path,
    server: str | None = None,
    world_id: str | None = None,
    at: str | None = None,
    seed: int | None = None,
    stdout: TextIO = sys.stdout,
) -> str:
    """Streams the agent's answer to `stdout` and returns it. A reply is streamed as it
    is drawn and checked after (mind/talk/reply.py); when the checks refused the draft,
    the answer said instead follows it.

    Without `server`, a server is started on the data a demo run left in `out`, with that
    run's model, world, end time and seed, so it answers as the run's own interview did
    (`world_id`, `at` and `seed` override them).
    """
    model: Path | None = None
    if server is None or at is None or world_id is None:
        if not (out / REPORT_JSON).is_file():
            if server is None:
                raise DemoError(f"--out: no demo report in {out}; run `npc-brain demo` first")
            raise DemoError("--time and --world-id are needed with --server and no report")
        config = read_report(out)["config"]
        world_id = world_id or config["world_id"]
        at = at or config["end"]
        seed = int(config.get("seed", DEFAULT_SEED)) if seed is None else seed
        if config["model"] != DEFAULT_CHAT_MODEL and server is None:
            model = Path(config["model"])
    assert world_id is not None and at is not None
    request = pb.ConverseRequest(
        world_id=world_id,
        agent_id=agent_id,
        game_time=stamp(parse_time(at, "--time")),
        speaker_id=INTERVIEWER,
        utterance=question,
        interview=True,
    )
    with ExitStack() as stack:
        if server is None:
            assert seed is not None  # the run's, read with its report above
            child = ChildServer(out / DATA_DIR, out / "interview.log", seed=seed, chat_model=model)
            stack.enter_context(child)
            server = child.address
        channel, stub = connect(server)
        stack.callback(channel.close)
        answer = streamed = ""
        try:
            events: Iterator[pb.ConverseEvent] = stub.Converse(request)
            for event in events:
                if event.HasField("final"):
                    answer = event.final.text
                else:
                    streamed += event.token
                    print(event.token, end="", file=stdout, flush=True)
        except grpc.RpcError as error:
            raise DemoError(
                f"the server answered {error.code().name}: {error.details()}"
            ) from error
        print(file=stdout)
        if answer.strip() != streamed.strip():
            print(f"(refused by the checks; said instead:) {answer}", file=stdout)
    return answer
