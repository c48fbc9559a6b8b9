"""A small world for the memory inspector's tests: both doors of a fake-model brain with a
token, two agents with memories (a reflection citing its evidence among them), their
current actions, and an agent whose memories and persona are hostile markup."""

from __future__ import annotations

import asyncio
import http.client
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from google.protobuf.timestamp_pb2 import Timestamp

from npc_brain.action import Action
from npc_brain.llm.base import Completion
from npc_brain.llm.fakes import HashingEmbedder, ScriptedChat
from npc_brain.memory.records import MemoryKind, NewMemory
from npc_brain.mind.plan.prompts import Block, DayPlan
from npc_brain.v1 import brain_pb2 as pb
from tests.rpc.conftest import TwoDoors, two_doors

T0 = 1_676_275_200  # 2023-02-13 08:00 game time
TOKEN = "inspector-test-token"
AUTH = (("authorization", f"Bearer {TOKEN}"),)
HOSTILE = (
    "<script>window.pwned = 'script'</script> Klaus whispered a secret",
    '<img src="x" onerror="window.pwned = \'img\'"> a picture of the party',
    '"><svg onload="window.pwned = \'svg\'"> an attribute breakout',
)

ISABELLA = [  # text, importance, minutes after T0, source
    ("Isabella is opening Hobbs Cafe for the morning", 3, 0, pb.Source()),
    ("Klaus is reading a book about gentrification", 2, 10, pb.Source()),
    ("Isabella is planning a Valentine's Day party at Hobbs Cafe", 8, 20, pb.Source()),
    ("the cafe's coffee machine is broken", 6, 30, pb.Source()),
    (
        "Maria said she will bring her friends to the party",
        7,
        40,
        pb.Source(kind=pb.HEARD, agent_id="maria"),
    ),
    ("Isabella's mother called: she is in hospital", 9, 50, pb.Source()),
    ("Isabella is wiping the counter", 1, 60, pb.Source()),
    ("Isabella is brewing coffee for the customers", 2, 70, pb.Source()),
    ("a customer asked for oat milk", 2, 80, pb.Source()),
    ("Tom is sitting at the window table", 1, 90, pb.Source()),
]
REFLECTION = "Isabella's party is drawing her friends in"


@dataclass
class Town:
    doors: TwoDoors
    ids: dict[str, str]  # memory text -> id
    reflection_id: str
    evidence_ids: tuple[str, str]

    @property
    def port(self) -> int:
        return self.doors.http_port

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def memories(self, agent_id: str = "isabella") -> list[pb.Memory]:
        """The agent's whole stream, through the gRPC door."""
        page = self.doors.stub.ListMemories(
            pb.ListMemoriesRequest(agent_id=agent_id, page_size=500), metadata=AUTH
        )
        return list(page.memories)


def at(minutes: float) -> Timestamp:
    return Timestamp(seconds=int(T0 + minutes * 60))


@contextmanager
def town(tmp_path: Path, *, hostile: bool = False, **settings: object) -> Iterator[Town]:
    """Serves the town until the block ends; `settings` go to the brain's Settings.
    `hostile` adds mallory, whose persona and memories are markup."""
    settings.setdefault("token", TOKEN)
    chat = ScriptedChat(default={"rating": 3})
    with two_doors(tmp_path, chat, "", **settings) as doors:
        yield seed(doors, hostile)


def seed(doors: TwoDoors, hostile: bool = False) -> Town:
    stub = doors.stub
    agents = [
        ("isabella", "Isabella Rodriguez", "the Ville:Isabella's apartment:main room"),
        ("klaus", "Klaus Mueller", "the Ville:Klaus's room:desk"),
    ]
    if hostile:
        agents.append(
            ("mallory", '<b onmouseover="window.pwned = 1">Mallory</b>', "the Ville:<i>attic</i>")
        )
    for agent_id, name, home in agents:
        persona = pb.Persona(
            name=name, age=34, innate="friendly, curious", home_address=home, currently="busy"
        )
        stub.UpsertAgent(pb.UpsertAgentRequest(agent_id=agent_id, persona=persona), metadata=AUTH)
    ids = {}
    for text, importance, minutes, source in ISABELLA:
        observation = pb.Observation(
            text=text, importance=importance, address="the Ville:Hobbs Cafe:cafe", source=source
        )
        request = pb.PerceiveRequest(
            agent_id="isabella", game_time=at(minutes), observations=[observation]
        )
        (ids[text],) = stub.Perceive(request, metadata=AUTH).memory_ids
    stub.Perceive(
        pb.PerceiveRequest(
            agent_id="klaus",
            game_time=at(15),
            observations=[pb.Observation(text="Klaus is writing his paper")],  # rated
        ),
        metadata=AUTH,
    )
    for i, text in enumerate(HOSTILE if hostile else ()):
        stub.Perceive(
            pb.PerceiveRequest(
                agent_id="mallory",
                game_time=at(i),
                observations=[
                    pb.Observation(text=text, importance=5, address="the Ville:<i>attic</i>")
                ],
            ),
            metadata=AUTH,
        )
    evidence = (ids[ISABELLA[2][0]], ids[ISABELLA[4][0]])
    reflection_id = _reflect(doors, "isabella", REFLECTION, evidence, minutes=95)
    _doing(
        doors,
        "isabella",
        Action(
            "serving coffee to the customers",
            "the Ville:Hobbs Cafe:cafe",
            T0 + 95 * 60,
            30,
            "\u2615",
        ),
    )
    _doing(
        doors,
        "klaus",
        Action(
            "writing his research paper",
            "the Ville:Klaus's room:desk",
            T0 + 90 * 60,
            60,
            "\u270f",
        ),
    )
    _usage(doors)
    _plan(
        doors,
        "isabella",
        7,
        [
            (8, "open Hobbs Cafe"),
            (9, "serve the morning customers"),
            (12, "lunch"),
            (13, "plan the Valentine's Day party"),
            (17, "close the cafe"),
            (22, "sleep"),
        ],
    )
    return Town(doors, ids, reflection_id, evidence)


def on_loop(doors: TwoDoors, work: Any) -> Any:
    """Runs a coroutine on the server's event loop (where the brain's state lives)."""
    return asyncio.run_coroutine_threadsafe(work, doors.grpc.loop).result(timeout=30)


def _reflect(
    doors: TwoDoors, agent_id: str, text: str, evidence: tuple[str, str], minutes: float
) -> str:
    """Stores a reflection citing `evidence`, as the Reflector would (no model script)."""
    brain = doors.grpc.brain

    async def store() -> str:
        world = brain._worlds.get("default")  # noqa: SLF001 - a test's shortcut
        vectors = HashingEmbedder().embed([text])
        memory = NewMemory(
            kind=MemoryKind.REFLECTION,
            description=text,
            created=T0 + minutes * 60,
            importance=8.0,
            evidence_ids=tuple(int(e) for e in evidence),
            depth=1,
        )
        (stored,) = world.remember(agent_id, [memory], vectors)
        return str(stored.memory_id)

    result: str = on_loop(doors, store())
    return result


def _doing(doors: TwoDoors, agent_id: str, action: Action) -> None:
    brain = doors.grpc.brain

    async def do() -> None:
        brain._worlds.get("default").mind(agent_id).do(action)  # noqa: SLF001

    on_loop(doors, do())


def _plan(doors: TwoDoors, agent_id: str, wake: int, blocks: list[tuple[int, str]]) -> None:
    """Gives the agent today's plan, as the planner would."""
    brain = doors.grpc.brain

    async def plan() -> None:
        mind = brain._worlds.get("default").mind(agent_id)  # noqa: SLF001
        mind.plan = DayPlan(wake, tuple(Block(hour, activity) for hour, activity in blocks))
        mind.plan_day = float(T0 - 8 * 3600)  # the midnight before T0

    on_loop(doors, plan())


def _usage(doors: TwoDoors) -> None:
    """Model calls over the morning, as the agents' thinking would have recorded them."""
    usage = doors.grpc.brain.usage
    per_hour = {"plan": 1, "decompose": 3, "reaction": 1, "dialogue": 4}
    for hour in range(3):
        for kind, count in per_hour.items():
            if kind == "plan" and hour:
                continue
            for agent_id in ("isabella", "klaus"):
                for _ in range(count + hour):
                    completion = Completion("{}", 300, 20)
                    usage.record("default", agent_id, kind, completion, T0 - 3600 + hour * 3600)


def set_action(doors: TwoDoors, agent_id: str, action: Action) -> None:
    _doing(doors, agent_id, action)


# A plain HTTP client that keeps the inspector's cookies -------------------------------


class Browserless:
    """GETs and POSTs to the inspector over http.client, keeping its cookies."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.cookies: dict[str, str] = {}

    def request(
        self, method: str, path: str, body: str = "", headers: dict[str, str] | None = None
    ) -> tuple[int, dict[str, str], str, list[str]]:
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        sent = dict(headers or {})
        if self.cookies:
            sent["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        if method == "POST":
            sent.setdefault("Content-Type", "application/x-www-form-urlencoded")
        connection.request(method, path, body=body.encode("utf-8"), headers=sent)
        response = connection.getresponse()
        text = response.read().decode("utf-8")
        set_cookies = [v for k, v in response.getheaders() if k.lower() == "set-cookie"]
        for cookie in set_cookies:
            name, _, rest = cookie.partition("=")
            self.cookies[name] = rest.split(";", 1)[0]
        connection.close()
        headers_in = {k.lower(): v for k, v in response.getheaders()}
        return response.status, headers_in, text, set_cookies

    def get(self, path: str, **headers: str) -> tuple[int, dict[str, str], str, list[str]]:
        return self.request("GET", path, headers=headers)

    def log_in(self) -> None:
        status, _, _, _ = self.get(f"/inspect?token={TOKEN}")
        assert status == 303


def csrf_of(page: str) -> str:
    match = re.search(r'name="csrf" value="([0-9a-f]+)"', page)
    assert match is not None, "the page has no form with a CSRF token"
    return match.group(1)
