"""Act and Perceive latency over gRPC with the real default models: idle, and while the
model is busy generating a player dialogue, measured side by side in one run.

    python -m bench.tick_latency [--calls 300]

Act asks with max_wait_ms=0 (a game tick); Perceive carries an importance override, so
neither needs the model. The ratio busy/idle shows what the model's work costs the tick.
"""

from __future__ import annotations

import argparse
import tempfile
import threading
import time
from pathlib import Path

import numpy as np
from google.protobuf.timestamp_pb2 import Timestamp

from npc_brain.v1 import brain_pb2 as pb
from npc_brain.v1 import brain_pb2_grpc
from tests.integration.server_process import ServerProcess

T0 = 1_676_275_200


def measure(stub: brain_pb2_grpc.BrainStub, calls: int, offset: int) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {"Act": [], "Perceive": []}
    for i in range(calls):
        when = Timestamp(seconds=T0 + offset + i)
        start = time.perf_counter()
        stub.Act(pb.ActRequest(agent_id="klaus", game_time=when, max_wait_ms=0))
        times["Act"].append(time.perf_counter() - start)
        start = time.perf_counter()
        stub.Perceive(
            pb.PerceiveRequest(
                agent_id="klaus",
                game_time=when,
                observations=[pb.Observation(text=f"the clock ticks {offset + i}", importance=1)],
            )
        )
        times["Perceive"].append(time.perf_counter() - start)
    return times


def keep_talking(stub: brain_pb2_grpc.BrainStub, stop: threading.Event) -> int:
    """Player dialogue with Isabella, one Converse after another, until told to stop."""
    replies = 0
    while not stop.is_set():
        for _ in stub.Converse(
            pb.ConverseRequest(
                agent_id="isabella",
                game_time=Timestamp(seconds=T0),
                speaker_id="player",
                utterance=f"Tell me a long story about the cafe, part {replies}",
            )
        ):
            pass
        replies += 1
    return replies


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=300)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as data:
        server = ServerProcess(Path(data), "--http-port", "-1")
        stub = server.stub
        for agent_id, name in (("isabella", "Isabella Rodriguez"), ("klaus", "Klaus Mueller")):
            stub.UpsertAgent(
                pb.UpsertAgentRequest(
                    agent_id=agent_id, persona=pb.Persona(name=name, home_address="the Ville:home")
                )
            )
        idle = measure(stub, args.calls, 0)
        stop = threading.Event()
        talker = threading.Thread(target=keep_talking, args=(stub, stop), daemon=True)
        talker.start()
        time.sleep(1.0)  # the dialogue is generating
        busy = measure(stub, args.calls, args.calls)
        stop.set()
        talker.join(timeout=120)
        server.stop()
    print("| RPC | idle p50 / p99 ms | model busy p50 / p99 ms | busy / idle (p99) |")
    print("|---|---|---|---|")
    labels = {"Act": "Act (max_wait_ms=0)", "Perceive": "Perceive (importance given)"}
    for rpc, label in labels.items():
        i50, i99 = (float(np.percentile(idle[rpc], q)) * 1000 for q in (50, 99))
        b50, b99 = (float(np.percentile(busy[rpc], q)) * 1000 for q in (50, 99))
        print(f"| {label} | {i50:.2f} / {i99:.2f} | {b50:.2f} / {b99:.2f} | {b99 / i99:.1f}x |")


if __name__ == "__main__":
    main()
