"""The memory inspector's page loads for an agent with 10,000 memories, beside the bare
RPCs they are built on, measured in the same run.

    python -m bench.inspector [--memories 10000] [--calls 50]

A server (the HTTP door with its inspector, a token, fake models: a page's cost does not
depend on the model; 384-dimensional vectors like MiniLM's) holds one agent with
`--memories` memories (one in 100 a reflection citing three earlier ones) and four
agents with a few. Each page is fetched `--calls` times over one keep-alive connection,
as a browser would, with the token; the baseline is the RPC the page is built on, over
the same door: `ListMemories` (a page of 50, JSON) for the agent's stream,
`Retrieve` for "why this memory". Target: an agent's page loads in under 200 ms.

The agent's page is measured twice: first before its stream is in RAM (after a restart,
before the agent perceives or recalls anything: its memory summary is read from SQLite,
every row of the agent), then with the stream in RAM, as in a running game.
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import json
import tempfile
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from urllib.parse import urlencode

from bench.common import Row, latencies, p50_p99, render
from npc_brain.brain import Brain
from npc_brain.config import Settings
from npc_brain.llm.fakes import HashingEmbedder, ScriptedChat
from npc_brain.memory.records import MemoryKind, NewMemory, Source, SourceKind
from npc_brain.mind.world import WorldRegistry
from npc_brain.persona import Persona
from npc_brain.server.app import create_http_gateway

TOKEN = "bench-token"
T0 = 1_676_275_200.0  # 2023-02-13 08:00 game time
PAGE = 50
TARGET_MS = 200.0
NAMES = ["Isabella", "Klaus", "Maria", "Sam", "Tom", "Carmen", "Eddy", "Latoya"]
DOINGS = [
    "brewing coffee",
    "reading a book about gentrification",
    "planning a Valentine's Day party",
    "painting at the easel",
    "talking about the mayoral election",
    "wiping the counter",
    "writing a research paper",
    "walking in Johnson Park",
]
PLACES = ["Hobbs Cafe", "Oak Hill College", "Johnson Park", "the pub", "the town hall"]


def text(i: int) -> str:
    name, doing, place = NAMES[i % 8], DOINGS[(i // 8) % 8], PLACES[(i // 64) % 5]
    return f"{name} is {doing} at {place} (day {i // 320 + 1}, moment {i % 320})"


async def seed(brain: Brain, memories: int) -> None:
    """One agent with `memories` memories, four with a few, straight into the store."""
    for agent_id in ("isabella", "klaus", "maria", "sam", "tom"):
        persona = Persona(agent_id.title(), home_address="the Ville:home:room")
        await brain.upsert_agent("", agent_id, persona, T0)
    world = brain._worlds.get("default")  # noqa: SLF001 - seeding 10,000 rows fast
    embedder = HashingEmbedder(384)
    stored: list[int] = []
    for start in range(0, memories, 1000):
        batch = []
        for i in range(start, min(start + 1000, memories)):
            created = T0 + i * 60.0
            if i % 100 == 99 and len(stored) >= 3:
                evidence = tuple(stored[-3:])
                batch.append(
                    NewMemory(
                        MemoryKind.REFLECTION,
                        f"insight {i}: {NAMES[i % 8]} cares about {PLACES[i % 5]}",
                        created,
                        7.0,
                        evidence_ids=evidence,
                        depth=1,
                    )
                )
            else:
                source = Source(SourceKind.HEARD, "maria") if i % 7 == 0 else Source()
                batch.append(
                    NewMemory(
                        MemoryKind.OBSERVATION,
                        text(i),
                        created,
                        float(1 + i % 9),
                        source=source,
                        address="the Ville:Hobbs Cafe:cafe",
                    )
                )
        vectors = embedder.embed([m.description for m in batch])
        stored += [m.memory_id for m in world.remember("isabella", batch, vectors)]
    for agent_id in ("klaus", "maria", "sam", "tom"):
        few = [NewMemory(MemoryKind.OBSERVATION, text(i), T0 + i, 3.0) for i in range(20)]
        world.remember(agent_id, few, embedder.embed([m.description for m in few]))


class Door:
    """GETs and POSTs over one keep-alive connection, with the token."""

    def __init__(self, port: int) -> None:
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)

    def get(self, path: str) -> bytes:
        self.connection.request("GET", path, headers={"Authorization": f"Bearer {TOKEN}"})
        return self._read(path)

    def post(self, method: str, body: Mapping[str, object]) -> bytes:
        headers = {"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"}
        self.connection.request("POST", f"/v1/{method}", json.dumps(body), headers)
        return self._read(method)

    def _read(self, what: str) -> bytes:
        response = self.connection.getresponse()
        body = response.read()
        if response.status != 200:
            raise RuntimeError(f"{what}: {response.status} {body[:300]!r}")
        return body


def measure(
    calls: int, page: Callable[[], bytes], baseline: Callable[[], bytes]
) -> tuple[float, float, float, float]:
    """p50 and p99 ms of the page, then of the baseline, interleaved run by run."""
    page(), baseline()  # warm: the first call loads the stream, the world, caches
    pages: list[float] = []
    bases: list[float] = []
    for _ in range(calls):
        pages += latencies(lambda i: page(), 1)
        bases += latencies(lambda i: baseline(), 1)
    return (*p50_p99(pages), *p50_p99(bases))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--memories", type=int, default=10_000)
    parser.add_argument("--calls", type=int, default=50)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as folder:
        settings = Settings(data_dir=Path(folder), token=TOKEN, importance_estimator="model")
        embedder = HashingEmbedder(384)
        worlds = WorldRegistry(settings.data_dir, embedder.model_id, embedder.dimension)
        brain = Brain(
            chat=ScriptedChat(default={"rating": 3}),
            embedder=embedder,
            worlds=worlds,
            settings=settings,
        )
        loop = asyncio.new_event_loop()
        thread = threading.Thread(target=loop.run_forever, daemon=True)
        thread.start()
        started = time.perf_counter()
        asyncio.run_coroutine_threadsafe(seed(brain, args.memories), loop).result(timeout=600)
        seeded = time.perf_counter() - started
        gateway = asyncio.run_coroutine_threadsafe(
            create_http_gateway(brain, "127.0.0.1", 0), loop
        ).result(timeout=60)
        door = Door(gateway.port)
        last_page = str(args.memories - PAGE)  # ids are 1.. in creation order here
        reflection = str(args.memories - args.memories % 100 - 1)

        def agent(**query: str) -> Callable[[], bytes]:
            path = "/inspect/agent?" + urlencode({"world": "default", "agent": "isabella", **query})
            return lambda: door.get(path)

        def memories(**extra: object) -> Callable[[], bytes]:
            body = {"agent_id": "isabella", "page_size": PAGE, **extra}
            return lambda: door.post("ListMemories", body)

        first = agent()()
        assert first.count(b'class="memory-link"') == PAGE, "the agent page shows a page of 50"
        why = urlencode({"world": "default", "agent": "isabella", "q": "the party at the cafe"})
        now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(T0 + args.memories * 60))
        retrieve = {"agent_id": "isabella", "game_time": now, "query": "the party at the cafe"}

        async def unload() -> None:  # as after a restart, before the agent does anything
            brain._worlds.get("default").streams.pop("isabella")  # noqa: SLF001

        asyncio.run_coroutine_threadsafe(unload(), loop).result(timeout=60)
        cases = [
            (
                "agent page, first 50 memories, stream not in RAM yet",
                agent(),
                memories(),
                "ListMemories, first 50",
            ),
            ("agent page, first 50 memories", agent(), memories(), "ListMemories, first 50"),
            (
                "agent page, last 50 memories",
                agent(page=last_page),
                memories(page_token=last_page),
                "ListMemories, last 50",
            ),
            (
                "agent page, reflections only",
                agent(kind="REFLECTION"),
                memories(kinds=["REFLECTION"]),
                "ListMemories, reflections",
            ),
            (
                "memory page of a reflection (evidence tree)",
                lambda: door.get(f"/inspect/memory?world=default&agent=isabella&id={reflection}"),
                memories(),
                "ListMemories, first 50",
            ),
            (
                "world page (5 agents)",
                lambda: door.get("/inspect/world?world=default"),
                lambda: door.post("GetStats", {}),
                "GetStats of the world",
            ),
            (
                "why this memory (top 10 + 5 left out)",
                lambda: door.get(f"/inspect/why?{why}&time={now}"),
                lambda: door.post("Retrieve", retrieve),
                "Retrieve, top 10",
            ),
        ]
        rows = []
        for number, (measure_name, page, baseline, baseline_name) in enumerate(cases):
            if number == 1:  # the stream in RAM, as in a running game (Retrieve loads it)
                door.post("Retrieve", retrieve)
            p50, p99, b50, b99 = measure(args.calls, page, baseline)
            target = ""
            if measure_name.startswith("agent page"):
                met = "met" if p99 < TARGET_MS else "NOT met"
                target = f"< {TARGET_MS:.0f} ms: {met}"
            rows.append(
                Row(
                    "inspector",
                    f"{measure_name}, {args.memories:,} memories (p50 / p99)",
                    f"{p50:.1f} / {p99:.1f} ms",
                    f"{b50:.1f} / {b99:.1f} ms {baseline_name}",
                    f"{p50 / b50:.1f}x / {p99 / b99:.1f}x",
                    target,
                )
            )
        door.connection.close()
        asyncio.run_coroutine_threadsafe(gateway.stop(None), loop).result(timeout=30)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=30)
        brain.close()
    print(f"seeded {args.memories:,} memories in {seeded:.1f} s; {args.calls} calls each")
    print(render(rows))


if __name__ == "__main__":
    main()
