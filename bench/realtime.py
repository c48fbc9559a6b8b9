"""Real time: how long a player waits for an NPC's first word while the town thinks.

    python -m bench.realtime [--questions 8] [--busy-agents 6]

A real server (`npc-brain serve --port 0`, the default models) per arm: the player
talks to Isabella (Converse, a fresh question each time) first on an idle server, then
while `--busy-agents` other agents plan (Act on a new day: a day plan, then its hours)
and reflect (Reflect), each in a loop of its own, so the model always has a job running.
Time to first token is from sending the request to the first token event (with grounded
replies, the reply's opening, which code chooses before the model starts), and time to
the whole reply to its final Utterance (the model's draws and their checks). The arms, in
one run: continuous batching (`chat_slots` 4: the town's calls decoded together, a
player's line read first and on a slot kept for it); one call at a time with
`player_first` (a player's line interrupts the running job between two tokens or
64-token prompt chunks); and the serial scheduler (the line waits for the running job
to end), the baseline. Also given: the background model calls each arm completed while
busy (what the player costs the town, and what batching gives it).

llama.cpp's own `llama-server --parallel N` is the anchor of `bench.batching` (built by
bench/llama_server.py from the sources in llama-cpp-python's sdist); a player's first
token is a matter of the server's scheduling, so here the serial scheduler is the
baseline.
"""

from __future__ import annotations

import argparse
import itertools
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from google.protobuf.timestamp_pb2 import Timestamp

from bench.server_suite import ISABELLA, pb_persona
from npc_brain.v1 import brain_pb2 as pb
from npc_brain.v1 import brain_pb2_grpc
from tests.integration.server_process import ServerProcess

T0 = 1_676_275_200  # 2023-02-13 08:00 UTC
DAY = 86_400
TOWN = [
    "the Ville:Hobbs Cafe:cafe:counter",
    "the Ville:Oak Hill College:library:study table",
    "the Ville:Johnson Park:park:bench",
    "the Ville:Harvey Oak Supply Store:store:shelf",
]
QUESTIONS = [
    "Good morning! What are you up to today?",
    "Is anything special happening in town this week?",
    "Who is Klaus Mueller?",
    "What do you like most about your cafe?",
    "When do you open the cafe?",
    "Have you been invited to any event?",
    "What would you do if it started to rain?",
    "What matters most to you?",
    "Do you know Maria Lopez?",
    "What did you do yesterday?",
]
MEMORIES = [
    "Klaus Mueller is a sociology student who studies at Hobbs Cafe in the morning",
    "Maria Lopez works part-time at Hobbs Cafe",
    "the coffee machine at Hobbs Cafe is brewing coffee",
    "Sam Moore is running for mayor of the Ville",
    "Isabella Rodriguez is planning a Valentine's Day party at Hobbs Cafe on February 14",
    "a customer asked about the new pastries",
]


@dataclass(frozen=True)
class Arm:
    name: str
    flags: tuple[str, ...]


ARMS = (
    Arm("batched, 4 slots", ("--chat-slots", "4")),
    Arm("one at a time, player_first", ("--chat-slots", "1", "--player-first")),
    Arm("serial", ("--chat-slots", "1", "--no-player-first")),
)


@dataclass(frozen=True)
class Result:
    idle: list[float]  # seconds to the first token
    busy: list[float]
    background_per_min: float  # model calls of the town while busy
    idle_whole: list[float]  # seconds to the final Utterance
    busy_whole: list[float]


def at(seconds: float) -> Timestamp:
    return Timestamp(seconds=int(seconds))


def first_token(stub: brain_pb2_grpc.BrainStub, question: str, game_time: int) -> float:
    """Seconds from sending a player's line to the reply's first event."""
    return ask(stub, question, game_time)[0]


def ask(stub: brain_pb2_grpc.BrainStub, question: str, game_time: int) -> tuple[float, float]:
    """Seconds from sending a player's line to the reply's first event, and to its final
    Utterance (the whole reply is read, as a game would)."""
    start = time.perf_counter()
    request = pb.ConverseRequest(
        agent_id="isabella", speaker_id="player", utterance=question, game_time=at(game_time)
    )
    first = None
    for _ in stub.Converse(request, timeout=600):
        first = first or time.perf_counter() - start
    whole = time.perf_counter() - start
    return first or whole, whole


class Town:
    """Agents planning and reflecting in loops of their own until stopped."""

    def __init__(self, stub: brain_pb2_grpc.BrainStub, agents: int) -> None:
        self._stub = stub
        self._ids = [f"villager{i}" for i in range(agents)]
        self._stop = threading.Event()
        self._threads = [threading.Thread(target=self._live, args=(a,)) for a in self._ids]
        for i, agent_id in enumerate(self._ids):
            persona = pb.Persona(
                name=f"Villager {i}",
                age=30 + i,
                innate="curious, hard-working",
                learned=f"works at the {['cafe', 'library', 'park', 'store'][i % 4]}",
                lifestyle="wakes up at 7 am, goes to bed at 11 pm",
            )
            stub.UpsertAgent(pb.UpsertAgentRequest(agent_id=agent_id, persona=persona))
            for j, text in enumerate(MEMORIES):
                stub.AddMemory(
                    pb.AddMemoryRequest(
                        agent_id=agent_id,
                        game_time=at(T0 - 3600 + 60 * j),
                        kind=pb.OBSERVATION,
                        observation=pb.Observation(text=text),
                    )
                )
            stub.Perceive(
                pb.PerceiveRequest(agent_id=agent_id, game_time=at(T0), visible_addresses=TOWN)
            )

    def __enter__(self) -> Town:
        for thread in self._threads:
            thread.start()
        time.sleep(3)  # the queue fills
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join()

    def _live(self, agent_id: str) -> None:
        for day in itertools.count(1):
            if self._stop.is_set():
                return
            now = at(T0 + day * DAY + 3600)
            try:
                self._stub.Act(pb.ActRequest(agent_id=agent_id, game_time=now, max_wait_ms=30_000))
                self._stub.Reflect(pb.ReflectRequest(agent_id=agent_id, game_time=now))
            except Exception:  # noqa: BLE001 - a refused job (queue full) is part of load
                time.sleep(0.1)


def calls(stub: brain_pb2_grpc.BrainStub, agent_id: str = "") -> int:
    """Model calls of the world, or of one agent."""
    return int(stub.GetStats(pb.GetStatsRequest(agent_id=agent_id)).model_calls)


def measure(arm: Arm, args: argparse.Namespace) -> Result:
    with tempfile.TemporaryDirectory() as folder:
        server = ServerProcess(Path(folder), "--http-port", "-1", *arm.flags)
        stub = server.stub
        try:
            isabella = pb_persona(ISABELLA)
            stub.UpsertAgent(pb.UpsertAgentRequest(agent_id="isabella", persona=isabella))
            questions = itertools.cycle(QUESTIONS)
            first_token(stub, "Hello!", T0)  # warm: the model's first call
            idle_times = [ask(stub, next(questions), T0) for _ in range(args.questions)]
            town = Town(stub, args.busy_agents)
            before, started = calls(stub), time.perf_counter()
            player_before = calls(stub, "isabella")  # a reply makes 0 to 3 model calls
            with town:
                busy_times = []
                for _ in range(args.questions):
                    busy_times.append(ask(stub, next(questions), T0))
                    time.sleep(1.0)  # the town takes the model back
                background = calls(stub) - before - (calls(stub, "isabella") - player_before)
                minutes = (time.perf_counter() - started) / 60
        finally:
            server.stop()
    idle, idle_whole = ([t[i] for t in idle_times] for i in (0, 1))
    busy, busy_whole = ([t[i] for t in busy_times] for i in (0, 1))
    return Result(idle, busy, background / minutes, idle_whole, busy_whole)


def p50_p95(samples: list[float]) -> tuple[float, float]:
    p50, p95 = np.percentile(np.asarray(samples), [50, 95])
    return float(p50), float(p95)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=8, help="player lines per condition")
    parser.add_argument("--busy-agents", type=int, default=6)
    args = parser.parse_args()
    results = []
    for arm in ARMS:
        print(f"measuring {arm.name} ...", flush=True)
        results.append(measure(arm, args))
    serial = results[-1]
    names = " | ".join(arm.name for arm in ARMS)
    print(f"\n| measure | {names} |\n|---|{'---|' * len(ARMS)}")
    for label, attribute in (
        ("player Converse, first token, idle (p50 / p95)", "idle"),
        (f"... while {args.busy_agents} agents plan and reflect", "busy"),
        ("player Converse, the whole reply, idle (p50 / p95)", "idle_whole"),
        (f"... while {args.busy_agents} agents plan and reflect", "busy_whole"),
    ):
        (b50, b95) = p50_p95(getattr(serial, attribute))
        cells = []
        for result in results:
            a50, a95 = p50_p95(getattr(result, attribute))
            cells.append(f"{a50:.2f} / {a95:.2f} s ({b50 / a50:.1f}x / {b95 / a95:.1f}x)")
        print(f"| {label} | {' | '.join(cells)} |")
    busy_idle = [p50_p95(r.busy)[1] / p50_p95(r.idle)[1] for r in results]
    print(f"| busy / idle, p95 | {' | '.join(f'{x:.1f}x' for x in busy_idle)} |")
    town = [r.background_per_min for r in results]
    print(
        f"| the town's model calls a minute, while busy | {' | '.join(f'{x:.1f}' for x in town)} |"
    )
    print("\n(x: serial / the arm, from the serial arm measured in this run)")


if __name__ == "__main__":
    main()
