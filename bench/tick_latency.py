"""The tick path over gRPC with the real default models: a bare round trip (health
Check), Act, Perceive of never-seen texts and a Tick of 100 agents, idle and while the
model is busy generating a player dialogue, for each arm side by side in one run.

    python -m bench.tick_latency [--calls 200] [--ticks 60] [--rounds 3]
        [--baseline-code DIR] [--nice-arm]

Arms: the server as configured ("answers after the write": Perceive answers once its
memories are durable, embedding them in the background), and the same code with
`--wait-for-embedding` (Perceive answers after the embedding, as before).
`--baseline-code DIR` adds a third arm: a server run from another checkout's code (the
main branch, say), to compare a change before and after in the same run. `--nice-arm`
adds the configured server with its model threads at nice 10 (`model_nice` is 0).

Act asks with max_wait_ms=0 (a game tick). "Perceive, new text" sends a text never seen
before each call, with an importance override (only the embedding is missing); "rated"
leaves the rating to the default anchors (embedding + numpy). The Tick sends 100 agents
one observation each from a pool the embedder already knows (a game's steady state).
Every figure is printed beside the health Check of the same server in the same state.
The arms' servers run side by side and take turns, in rounds, so a machine whose load
drifts (shared cores) weighs on every arm alike.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import grpc
from google.protobuf.timestamp_pb2 import Timestamp
from grpc_health.v1 import health_pb2, health_pb2_grpc

from bench.common import latencies, p50_p99
from bench.server_suite import observation_pool
from npc_brain.v1 import brain_pb2 as pb
from npc_brain.v1 import brain_pb2_grpc
from tests.integration.server_process import ServerProcess

T0 = 1_676_275_200
AGENTS = 100
Samples = dict[str, list[float]]


class Arm:
    """One server and the calls timed on it."""

    def __init__(self, data: Path, code: str | None, *flags: str) -> None:
        saved, here = os.environ.get("PYTHONPATH"), os.getcwd()
        if code is not None:  # `python -m` puts the working directory first on sys.path
            os.environ["PYTHONPATH"] = code
            os.chdir(code)
        try:
            args = ("--http-port", "-1", "--reflection-threshold", "100000", *flags)
            self.server = ServerProcess(data, *args)
        finally:
            os.chdir(here)
            if code is not None:
                if saved is None:
                    del os.environ["PYTHONPATH"]
                else:
                    os.environ["PYTHONPATH"] = saved
        self.stub: brain_pb2_grpc.BrainStub = self.server.stub
        self.health = health_pb2_grpc.HealthStub(self.server.channel)
        self.pool = observation_pool()
        self.ids = [f"a{i:03d}" for i in range(AGENTS)]
        self.calls = 0
        for agent_id, name in (("isabella", "Isabella Rodriguez"), ("klaus", "Klaus Mueller")):
            self.upsert(agent_id, name)
        for agent_id in self.ids:
            self.upsert(agent_id, f"Villager {agent_id}", home="")
        for i, text in enumerate(self.pool):  # the embedder knows the pool
            obs = [pb.Observation(text=text)]
            self.stub.Perceive(
                pb.PerceiveRequest(agent_id="klaus", game_time=when(i), observations=obs)
            )
        for i in range(3):
            self.tick(i)  # every agent has a state

    def upsert(self, agent_id: str, name: str, home: str = "the Ville:home") -> None:
        """Villagers have no places, so acting never asks the model for them."""
        persona = pb.Persona(name=name, home_address=home)
        self.stub.UpsertAgent(pb.UpsertAgentRequest(agent_id=agent_id, persona=persona))

    def check(self, i: int) -> None:
        self.health.Check(health_pb2.HealthCheckRequest())

    def act(self, i: int) -> None:
        self.stub.Act(pb.ActRequest(agent_id="klaus", game_time=when(i), max_wait_ms=0))

    def perceive(self, rated: bool) -> Callable[[int], None]:
        def call(i: int) -> None:
            self.calls += 1
            text = f"the clock on the wall ticks for the {self.calls}th time"
            obs = pb.Observation(text=text) if rated else pb.Observation(text=text, importance=1)
            self.stub.Perceive(
                pb.PerceiveRequest(agent_id="klaus", game_time=when(i), observations=[obs])
            )

        return call

    def tick(self, i: int) -> None:
        agents = [
            pb.AgentTick(agent_id=a, observations=[pb.Observation(text=self.pool[(i + k) % 120])])
            for k, a in enumerate(self.ids)
        ]
        self.stub.Tick(pb.TickRequest(game_time=when(i), agents=agents, max_wait_ms=0))

    def measure(self, calls: int, ticks: int) -> Samples:
        return {
            "check": latencies(self.check, calls),
            "act": latencies(self.act, calls),
            "perceive": latencies(self.perceive(False), calls),
            "perceive rated": latencies(self.perceive(True), calls),
            "tick": latencies(self.tick, ticks),
        }

    @contextmanager
    def saturated(self) -> Iterator[None]:
        """Player dialogue with Isabella, one Converse after another, until the block
        ends and the reply under way is finished."""
        stop = threading.Event()
        current: list[grpc.Future] = []

        def talk() -> None:
            k = 0
            while not stop.is_set():
                request = pb.ConverseRequest(
                    agent_id="isabella",
                    game_time=when(0),
                    speaker_id="player",
                    utterance=f"Tell me a long story about the cafe, part {k}",
                    interview=True,
                )
                call = self.stub.Converse(request)
                current[:] = [call]
                with contextlib.suppress(grpc.RpcError):
                    for _ in call:
                        pass
                k += 1

        talker = threading.Thread(target=talk, daemon=True)
        talker.start()
        time.sleep(1.0)  # the reply is generating
        try:
            yield
        finally:
            stop.set()  # the reply under way runs to its end: the next arm measures on
            talker.join(timeout=300)  # a quiet model (a cancelled call's job would not stop)
            for call in current:
                call.cancel()

    def stop(self) -> None:
        try:
            self.server.stop()
        except subprocess.TimeoutExpired:
            self.server.kill()


def when(i: int) -> Timestamp:
    return Timestamp(seconds=T0 + i)


def run_arms(
    plan: list[tuple[str, str | None, tuple[str, ...]]], calls: int, ticks: int, rounds: int
) -> dict[str, dict[str, Samples]]:
    """Every arm's server at once; `rounds` rounds, each measuring every arm in turn (idle,
    then with its own model saturated), so the arms share the machine's drifting load."""
    with contextlib.ExitStack() as stack:
        arms = {}
        for name, code, flags in plan:
            data = Path(stack.enter_context(tempfile.TemporaryDirectory()))
            arms[name] = Arm(data, code, *flags)
            stack.callback(arms[name].stop)
        out: dict[str, dict[str, Samples]] = {name: {"idle": {}, "busy": {}} for name in arms}
        for r in range(rounds):
            for name, arm in arms.items():
                _extend(out[name]["idle"], arm.measure(calls // rounds, ticks // rounds))
                with arm.saturated():
                    _extend(out[name]["busy"], arm.measure(calls // rounds, ticks // rounds))
            print(f"after round {r + 1} of {rounds}:\n{table(out)}", file=sys.stderr, flush=True)
        return out


def _extend(into: Samples, more: Samples) -> None:
    for key, samples in more.items():
        into.setdefault(key, []).extend(samples)


LABELS = {
    "check": "health Check (bare round trip)",
    "act": "Act (max_wait_ms=0)",
    "perceive": "Perceive, new text (importance given)",
    "perceive rated": "Perceive, new text (rated by the anchors)",
    "tick": f"Tick, {AGENTS} agents, known texts",
}


def table(arms: dict[str, dict[str, Samples]]) -> str:
    lines = [
        "| arm | RPC | idle p50 / p99 ms | x Check (p99) | model busy p50 / p99 ms"
        " | x Check (p99) |",
        "|---|---|---|---|---|---|",
    ]
    for name, runs in arms.items():
        for rpc, label in LABELS.items():
            cells = []
            for state in ("idle", "busy"):
                p50, p99 = p50_p99(runs[state][rpc])
                base = p50_p99(runs[state]["check"])[1]
                cells += [f"{p50:.2f} / {p99:.2f}", f"{p99 / base:.1f}x"]
            lines.append(f"| {name} | {label} | {' | '.join(cells)} |")
    return "\n".join(lines)


def ratios(arms: dict[str, dict[str, Samples]], new: str) -> str:
    """p99 of every other arm over the new arm's, per RPC and state."""
    lines = []
    for name, runs in arms.items():
        if name == new:
            continue
        for rpc, label in LABELS.items():
            parts = []
            for state in ("idle", "busy"):
                theirs = p50_p99(runs[state][rpc])[1]
                ours = p50_p99(arms[new][state][rpc])[1]
                parts.append(f"{state} {theirs / ours:.2f}x")
            lines.append(f"- {label}: {name} p99 / {new} p99 = {', '.join(parts)}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=200, help="calls of each RPC and state")
    parser.add_argument("--ticks", type=int, default=60, help="Ticks of each state")
    parser.add_argument("--rounds", type=int, default=3, help="turns the arms take")
    parser.add_argument("--baseline-code", help="another checkout whose server to add as an arm")
    parser.add_argument(
        "--nice-arm", action="store_true", help="add an arm whose model threads run at nice 10"
    )
    args = parser.parse_args()
    plan: list[tuple[str, str | None, tuple[str, ...]]] = [
        ("answers after the write", None, ()),
        ("waits for the embedding", None, ("--wait-for-embedding",)),
    ]
    if args.nice_arm:
        plan.append(("model threads at nice 10", None, ("--model-nice", "10")))
    if args.baseline_code:
        plan.append((f"code of {args.baseline_code}", args.baseline_code, ()))
    arms = run_arms(plan, args.calls, args.ticks, args.rounds)
    print(table(arms))
    print()
    print(ratios(arms, plan[0][0]))


if __name__ == "__main__":
    main()
