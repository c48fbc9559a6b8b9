"""The suite's measurements through a real server: `npc-brain serve --port 0` as a child
process with the default models, called over gRPC.

Agents here have no places, so acting never asks the model: model work is made on
purpose, by a player dialogue (Converse) generating without pause on another agent
("model saturated"). Reflection's threshold is raised so no reflection starts midway.
"""

from __future__ import annotations

import json
import os
import random
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from google.protobuf.timestamp_pb2 import Timestamp
from grpc_health.v1 import health_pb2, health_pb2_grpc
from llama_cpp import Llama

from bench.common import Row, faster, latencies, mib, ms, p50_p99, rss_bytes, slower
from npc_brain.config import Settings
from npc_brain.llm.llama import _grammar, load_llama
from npc_brain.mind.talk.prompts import REPLY_SCHEMA, UtteranceExtractor, reply_messages
from npc_brain.persona import Persona
from npc_brain.v1 import brain_pb2 as pb
from tests.integration.server_process import ServerProcess

T0 = 1_676_365_200  # 2023-02-14 09:00 UTC
SCALES = (1, 5, 25, 100)
SPEAKER = "player"
ISABELLA = Persona(
    "Isabella Rodriguez",
    34,
    "friendly, outgoing, hospitable",
    "Isabella runs Hobbs Cafe and loves to make people feel welcome",
    "planning a Valentine's Day party at the cafe",
    "goes to bed around 11pm, wakes up around 6am",
)
NAMES = ["Isabella", "Klaus", "Maria", "Sam", "Jennifer", "Tom", "Carmen", "Eddy", "Ryan"]
DOINGS = ["is brewing coffee", "is reading a book", "is painting", "is eating breakfast"]
DOINGS += ["is jogging", "is playing the guitar", "is waiting for the bus", "is sleeping"]
PLACES = ["at Hobbs Cafe", "in the park", "at the library", "at home", "at the store"]


@dataclass(frozen=True)
class Counts:
    """How many calls each measurement makes (--quick makes fewer), and the chat model's
    CPU threads (0: all cores) for the server and the raw baseline alike."""

    rpc: int
    tick: int
    converse: int
    memories: int
    threads: int = 0

    @classmethod
    def of(cls, quick: bool, threads: int = 0) -> Counts:
        return cls(60, 10, 2, 200, threads) if quick else cls(200, 30, 4, 1000, threads)

    def flags(self) -> tuple[str, ...]:
        return ("--threads", str(self.threads))


def observation_pool(size: int = 120) -> list[str]:
    """What NPCs see, over and over: a few dozen doings in a few places."""
    rng = random.Random(3)
    texts = {f"{rng.choice(NAMES)} {rng.choice(DOINGS)} {rng.choice(PLACES)}" for _ in range(999)}
    return sorted(texts)[:size]


def pb_persona(p: Persona) -> pb.Persona:
    fields = ("name", "age", "innate", "learned", "currently", "lifestyle")
    return pb.Persona(**{f: getattr(p, f) for f in fields})


def when(i: int) -> Timestamp:
    return Timestamp(seconds=T0 + i)


class Bench:
    """A running server and the calls the suite times on it."""

    def __init__(self, data: Path, *flags: str) -> None:
        args = ("--http-port", "-1", "--reflection-threshold", "100000", *flags)
        self.server = ServerProcess(data, *args)
        self.stub = self.server.stub
        self.health = health_pb2_grpc.HealthStub(self.server.channel)
        self.pool = observation_pool()
        self.rng = random.Random(5)
        self.health.Check(health_pb2.HealthCheckRequest())

    def rss(self) -> int:
        return rss_bytes(self.server.process.pid)

    def add_agents(self, ids: list[str], persona: Persona | None = None) -> None:
        for agent_id in ids:
            p = persona or Persona(f"Villager {agent_id}", 30, "curious", "", "walking around")
            self.stub.UpsertAgent(pb.UpsertAgentRequest(agent_id=agent_id, persona=pb_persona(p)))

    def observation(self) -> pb.Observation:
        return pb.Observation(text=self.rng.choice(self.pool))

    def see_every_text(self) -> None:
        """Agent a000 perceives each pool text once, so the embedder knows them all: the
        steady state of a game that has run a while (its rating is cached too)."""
        for i, text in enumerate(self.pool):
            obs = [pb.Observation(text=text)]
            self.stub.Perceive(
                pb.PerceiveRequest(agent_id="a000", game_time=when(i), observations=obs)
            )

    def check(self, i: int) -> None:
        self.health.Check(health_pb2.HealthCheckRequest())

    def get_agent(self, i: int) -> None:
        self.stub.GetAgent(pb.GetAgentRequest(agent_id="a000"))

    def perceive(self, i: int) -> None:
        obs = [self.observation()]
        self.stub.Perceive(pb.PerceiveRequest(agent_id="a000", game_time=when(i), observations=obs))

    def act(self, i: int) -> None:
        self.stub.Act(pb.ActRequest(agent_id="a000", game_time=when(i), max_wait_ms=0))

    def tick(self, ids: list[str]) -> Callable[[int], None]:
        def call(i: int) -> None:
            agents = [pb.AgentTick(agent_id=a, observations=[self.observation()]) for a in ids]
            self.stub.Tick(pb.TickRequest(game_time=when(i), agents=agents, max_wait_ms=0))

        return call

    @contextmanager
    def saturated(self) -> Iterator[None]:
        """The model generating a player dialogue without pause, on agent "talker"."""
        self.add_agents(["talker"], ISABELLA)
        stop = threading.Event()

        def talk() -> None:
            k = 0
            while not stop.is_set():
                request = converse_request("talker", f"Tell me a long story, part {k}")
                for _ in self.stub.Converse(request):
                    pass
                k += 1

        talker = threading.Thread(target=talk, daemon=True)
        talker.start()
        time.sleep(1.0)  # the reply is generating
        try:
            yield
        finally:
            stop.set()
            talker.join(timeout=300)

    def stop(self) -> None:
        self.server.stop()


def converse_request(agent_id: str, utterance: str) -> pb.ConverseRequest:
    return pb.ConverseRequest(
        agent_id=agent_id,
        game_time=when(0),
        speaker_id=SPEAKER,
        utterance=utterance,
        interview=True,  # nothing is remembered: every call has the same kind of prompt
    )


def embedding_cache_runs(counts: Counts) -> dict[str, list[float]]:
    """Perceive of repeated observations, idle and saturated, with and without the
    embedding cache (one server each, the same observations in the same order)."""
    out: dict[str, list[float]] = {}
    for label, flags in (("off", ("--embedding-cache-size", "0")), ("on", ())):
        with tempfile.TemporaryDirectory() as data:
            bench = Bench(Path(data), *counts.flags(), *flags)
            bench.add_agents(["a000"])
            bench.see_every_text()
            out[f"{label} idle"] = latencies(bench.perceive, counts.rpc)
            with bench.saturated():
                out[f"{label} busy"] = latencies(bench.perceive, counts.rpc)
            bench.stop()
    return out


def embedding_cache_rows(runs: dict[str, list[float]]) -> list[Row]:
    return [
        Row(
            "embedding cache",
            f"Perceive of repeated observations, {state} (p50 / p99)",
            ms(runs[f"on {state}"]),
            f"{ms(runs[f'off {state}'])} without the cache",
            f"{faster(runs[f'off {state}'], runs[f'on {state}'])} faster",
        )
        for state in ("idle", "busy")
    ]


def server_runs(counts: Counts) -> tuple[list[Row], dict[str, Any]]:
    """Latency idle and saturated, scaling with agents, memory, Converse throughput."""
    rows: list[Row] = []
    detail: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as data:
        bench = Bench(Path(data), *counts.flags())
        time.sleep(0.5)
        rss0 = bench.rss()
        check_idle = latencies(bench.check, counts.rpc)
        ids = [f"a{i:03d}" for i in range(max(SCALES))]
        bench.add_agents(ids[:1])
        bench.see_every_text()
        scaling: dict[int, dict[str, Any]] = {}
        made = 0
        for n in SCALES:
            bench.add_agents(ids[made:n])
            made = n
            latencies(bench.tick(ids[:n]), 3)  # every agent has a state
            scaling[n] = {
                "rss": bench.rss(),
                "tick": latencies(bench.tick(ids[:n]), counts.tick),
                "perceive": latencies(bench.perceive, counts.rpc // 2),
                "act": latencies(bench.act, counts.rpc // 2),
            }
        get_idle = latencies(bench.get_agent, counts.rpc)
        with bench.saturated():
            busy = {
                "check": latencies(bench.check, counts.rpc),
                "perceive": latencies(bench.perceive, counts.rpc),
                "act": latencies(bench.act, counts.rpc),
                "tick": latencies(bench.tick(ids), counts.tick),
            }
        per_thousand = memory_slope(bench, counts.memories)
        rows += latency_rows(scaling, busy, check_idle, get_idle)
        rows += scaling_rows(scaling, rss0, check_idle)
        per_agent = (scaling[max(SCALES)]["rss"] - rss0) / max(SCALES)
        rows.append(
            Row(
                "memory",
                f"RSS per agent ({max(SCALES)} agents) / per 1,000 memories",
                f"{mib(per_agent)} / {mib(per_thousand)}",
                f"{mib(rss0)} the process with zero agents",
                f"{100 * per_agent / rss0:.2f}% / {100 * per_thousand / rss0:.1f}%",
            )
        )
        converse = converse_runs(bench, counts.converse, counts.threads)
        rows.append(converse_row(converse))
        detail["converse"] = converse
        bench.stop()
    return rows, detail


def memory_slope(bench: Bench, count: int) -> float:
    """RSS bytes per 1,000 memories: `count` distinct observations perceived by agent m000,
    50 to a request, after a first 100 (which pay the one-off buffers of batches)."""
    bench.add_agents(["m000"])
    texts = [f"{bench.pool[i % len(bench.pool)]} (day {i})" for i in range(count + 100)]
    rss = 0
    for start in range(0, len(texts), 50):
        if start == 100:
            rss = bench.rss()
        obs = [pb.Observation(text=t, importance=3) for t in texts[start : start + 50]]
        bench.stub.Perceive(
            pb.PerceiveRequest(agent_id="m000", game_time=when(start), observations=obs)
        )
    return (bench.rss() - rss) * 1000 / count


def latency_rows(
    scaling: dict[int, dict[str, Any]],
    busy: dict[str, list[float]],
    check_idle: list[float],
    get_idle: list[float],
) -> list[Row]:
    one, top, n = scaling[1], scaling[max(SCALES)], max(SCALES)

    def row(measure: str, samples: list[float], saturated: bool, target: str = "") -> Row:
        base = busy["check"] if saturated else check_idle
        label = "health Check saturated" if saturated else "health Check idle"
        return Row(
            "tick path", measure, ms(samples), f"{ms(base)} {label}", slower(samples, base), target
        )

    return [
        Row("tick path", "gRPC health Check (bare round trip), idle", ms(check_idle), "", ""),
        row("GetAgent, idle", get_idle, False),
        row("Perceive, idle", one["perceive"], False),
        row("Perceive, model saturated", busy["perceive"], True, "p99 < 5 ms"),
        row("Act (max_wait_ms=0), idle", one["act"], False),
        row("Act (max_wait_ms=0), model saturated", busy["act"], True),
        row(f"Tick, {n} agents, idle", top["tick"], False, "< 20 ms"),
        row(f"Tick, {n} agents, model saturated", busy["tick"], True, "< 20 ms"),
    ]


def scaling_rows(scaling: dict[int, dict[str, Any]], rss0: int, check: list[float]) -> list[Row]:
    rows = []
    for n, s in scaling.items():
        tick50, tick99 = p50_p99(s["tick"])
        rows.append(
            Row(
                "scaling",
                f"{n} agents: Tick p50 / p99; Perceive, Act p99; RSS",
                f"{tick50:.2f} / {tick99:.2f} ms; {p50_p99(s['perceive'])[1]:.2f}, "
                f"{p50_p99(s['act'])[1]:.2f} ms; {mib(s['rss'])}",
                f"health Check p99 {p50_p99(check)[1]:.2f} ms; RSS {mib(rss0)} at 0 agents",
                f"Tick {tick99 / max(1e-9, p50_p99(check)[1]):.1f}x; "
                f"RSS +{100 * (s['rss'] - rss0) / rss0:.1f}%",
            )
        )
    return rows


def converse_runs(bench: Bench, rounds: int, threads: int) -> dict[str, Any]:
    """Converse through the server and the same prompt on raw llama-cpp-python, taking
    turns; tokens/s = generated tokens / wall seconds of the whole call in both."""
    settings = Settings()
    bench.add_agents(["isabella"], ISABELLA)
    raw = load_llama(
        Llama,
        model_path=str(settings.chat_model_path()),
        n_ctx=settings.chat_context,
        n_threads=threads or os.cpu_count() or 1,
        seed=settings.seed,
        verbose=False,
    )
    runs: dict[str, Any] = {"server": [], "raw": [], "identical": 0}
    for k in range(rounds + 1):  # the first round of each warms up and is not counted
        utterance = f"What is happening at the cafe this week? (question {k})"
        if k % 2:  # taking turns at going first, so drifting load hits both alike
            direct = raw_reply(raw, settings, utterance)
            server = server_reply(bench, utterance)
        else:
            server = server_reply(bench, utterance)
            direct = raw_reply(raw, settings, utterance)
        if k:
            runs["server"].append(server[1:])
            runs["raw"].append(direct[1:])
            runs["identical"] += server[0] == direct[0]
    return runs


def server_reply(bench: Bench, utterance: str) -> tuple[str, int, float]:
    stats = pb.GetStatsRequest(agent_id="isabella")
    before = bench.stub.GetStats(stats).completion_tokens
    start = time.perf_counter()
    text = ""
    for event in bench.stub.Converse(converse_request("isabella", utterance)):
        if event.HasField("final"):
            text = event.final.text
    seconds = time.perf_counter() - start
    return text, bench.stub.GetStats(stats).completion_tokens - before, seconds


def raw_reply(raw: Llama, settings: Settings, utterance: str) -> tuple[str, int, float]:
    """The server's prompt, grammar, max_tokens, temperature and seed, straight to
    llama-cpp-python; tokens counted as the server counts them (pieces of text)."""
    messages: Any = [
        {"role": m.role, "content": m.content}
        for m in reply_messages(ISABELLA, T0, [], SPEAKER, utterance)
    ]
    start = time.perf_counter()
    chunks: Any = raw.create_chat_completion(
        messages=messages,
        max_tokens=settings.reply_max_tokens,
        temperature=settings.temperature,
        seed=settings.seed,
        grammar=_grammar(json.dumps(REPLY_SCHEMA)),
        stream=True,
    )
    extractor, tokens = UtteranceExtractor(), 0
    for chunk in chunks:
        piece = chunk["choices"][0]["delta"].get("content") or ""
        if piece:
            tokens += 1
            extractor.feed(piece)
    return extractor.text.strip() or "...", tokens, time.perf_counter() - start


def converse_row(runs: dict[str, Any]) -> Row:
    def rate(pairs: list[tuple[int, float]]) -> float:
        return sum(t for t, _ in pairs) / sum(s for _, s in pairs)

    server, raw = rate(runs["server"]), rate(runs["raw"])
    n = len(runs["server"])
    return Row(
        "model",
        f"Converse tokens/s through gRPC ({n} replies; identical text {runs['identical']}/{n})",
        f"{server:.1f} tok/s",
        f"{raw:.1f} tok/s raw llama-cpp-python",
        f"{server / raw:.2f}",
        ">= 0.95",
    )
