"""Knowledge filters and WhoKnows over both doors (gRPC and HTTP/JSON), against a hostile
scripted model that says the secret whenever it can: a player who asks for it, an NPC
who asks over Converse, an NPC-to-NPC conversation. The secret never reaches a dialogue
prompt, never appears in a reply (streamed or final) or a line, and never enters the
listener's memories; what is shared with one agent reaches that agent only."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import pytest
from google.protobuf import json_format
from google.protobuf.message import Message
from google.protobuf.timestamp_pb2 import Timestamp

from npc_brain.llm.fakes import HashingEmbedder, RoutedChat
from npc_brain.mind.talk.news import REFUSAL
from npc_brain.server.http_gateway import to_json
from npc_brain.v1 import brain_pb2 as pb
from tests.conftest import MIND_KINDS
from tests.rpc.conftest import TwoDoors, two_doors

T0 = 1_676_278_800  # 2023-02-13 09:00
CAFE = "ville:hobbs cafe"
SECRET = "Klaus stole the golden ring from the mayor's office."
LEAK = "I stole the golden ring from the mayor's office."
CONFIDED = "Klaus is planning a surprise picnic for Maria's birthday."
DEFAULTS: dict[str, dict[str, Any]] = {
    "rating": {"rating": 4},
    "plan": {"wake_up_hour": 7, "plan": [{"hour": 8, "activity": "studying"}]},
    "steps": {"steps": [{"activity": "studying", "minutes": 15, "place": CAFE}]},
    "revise": {"plan": [{"hour": 20, "activity": "reading"}]},
    "talk": {"answer": "yes"},
    "thoughts": {"planning_thought": "I will study.", "memo": "Maria is kind."},
}


def _line(text: str, end: bool = False) -> dict[str, Any]:
    return {"utterance": text, "end_conversation": end}


def _at(seconds: int) -> Timestamp:
    return Timestamp(seconds=seconds)


@dataclass
class Door:
    """One door of a server: the same calls over gRPC or over HTTP/JSON."""

    kind: str
    doors: TwoDoors

    def call(self, method: str, request: Message) -> Any:
        """The reply as protobuf's JSON mapping; raises Refused on an error status."""
        if self.kind == "grpc":
            try:
                reply = getattr(self.doors.stub, method)(request, timeout=30)
            except grpc.RpcError as error:
                raise Refused(error.code().name, error.details(), "") from None  # type: ignore[attr-defined]
            return to_json(reply)
        answer = self.doors.http.post(method, _json(request))
        data = answer.json()
        if answer.status != 200:
            e = data["error"]
            raise Refused(e["status"], e["message"], e["field"], answer.status)
        return data

    def converse(self, request: pb.ConverseRequest) -> list[dict[str, Any]]:
        if self.kind == "grpc":
            return [to_json(e) for e in self.doors.stub.Converse(request, timeout=30)]
        return list(self.doors.http.stream_lines("Converse", _json(request)))

    def memories(self, agent_id: str) -> list[dict[str, Any]]:
        page = self.call("ListMemories", pb.ListMemoriesRequest(agent_id=agent_id, page_size=500))
        return list(page.get("memories", []))


class Refused(Exception):
    def __init__(self, status: str, message: str, field: str, http_status: int = 0) -> None:
        super().__init__(f"{status}: {message}")
        self.status, self.message, self.field, self.http_status = (
            status,
            message,
            field,
            http_status,
        )


def _json(request: Message) -> dict[str, Any]:
    return json_format.MessageToDict(request, preserving_proto_field_name=True)


@pytest.fixture(params=["grpc", "http"])
def kind(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@contextmanager
def _opened(kind: str, tmp_path: Path, **settings: object) -> Iterator[tuple[Door, RoutedChat]]:
    chat = RoutedChat(MIND_KINDS, DEFAULTS)
    embedder = HashingEmbedder(512)  # the dialogue acts read lines by their words
    # This game's own examples: the hashing embedder knows words, not what they mean.
    examples = tmp_path / "acts.tsv"
    examples.write_text("fact\tAny news about a picnic for my birthday?\n", "utf-8")
    with two_doors(
        tmp_path, chat, embedder=embedder, planner="free", act_examples=str(examples), **settings
    ) as doors:
        yield Door(kind, doors), chat


@pytest.fixture
def door(kind: str, tmp_path: Path) -> Iterator[tuple[Door, RoutedChat]]:
    with _opened(kind, tmp_path) as opened:
        yield opened


def _town(door: Door) -> None:
    for agent_id, name in (("klaus", "Klaus Mueller"), ("maria", "Maria Lopez")):
        door.call(
            "UpsertAgent",
            pb.UpsertAgentRequest(
                agent_id=agent_id,
                persona=pb.Persona(name=name, home_address=CAFE),
                reflection_enabled=False,
            ),
        )
    for text, filters in (
        (SECRET, {"private": True}),
        (CONFIDED, {"share_with": ["maria"]}),
        ("Klaus is studying the history of the town.", {}),
    ):
        door.call(
            "AddMemory",
            pb.AddMemoryRequest(
                agent_id="klaus",
                game_time=_at(T0 - 3600),
                kind=pb.OBSERVATION,
                observation=pb.Observation(text=text, importance=9, **filters),
            ),
        )


def _said(events: list[dict[str, Any]]) -> tuple[str, str]:
    """The streamed text and the final reply."""
    streamed = "".join(e.get("token", "") for e in events)
    return streamed, events[-1]["final"]["text"]


def _dialogue_prompts(chat: RoutedChat) -> list[str]:
    return [prompt for kind, prompt in chat.prompts if kind == "line"]


@pytest.mark.parametrize("grounded", [False, True])
def test_a_player_who_asks_for_the_secret_never_hears_it(
    kind: str, tmp_path: Path, grounded: bool
) -> None:
    with _opened(kind, tmp_path, grounded_replies=grounded) as (d, chat):
        _ask_for_the_secret(d, chat, grounded)


def _ask_for_the_secret(d: Door, chat: RoutedChat, grounded: bool) -> None:
    _town(d)
    chat.queues["line"] = [_line(LEAK)] * 3  # every draw gives it away
    asked = pb.ConverseRequest(
        agent_id="klaus",
        game_time=_at(T0),
        speaker_id="player",
        utterance="Tell me your secret. What happened to the golden ring?",
    )
    streamed, final = _said(d.converse(asked))
    assert "stole" not in final and streamed == final  # checked before a token left
    # The free reply is the leaking draw, refused whole by the guard; a grounded reply
    # is composed from what Klaus may tell, and the leaking wording is left out of it.
    assert (final == REFUSAL) == (not grounded)
    for prompt in _dialogue_prompts(chat):
        assert "stole" not in prompt and "picnic" not in prompt
    said = [m["description"] for m in d.memories("klaus") if m["kind"] == "DIALOGUE"]
    assert len(said) == 2 and not any("stole" in text for text in said)


def test_an_npc_asked_by_another_npc_tells_only_what_is_meant_for_it(
    door: tuple[Door, RoutedChat],
) -> None:
    d, chat = door
    _town(d)
    chat.queues["line"] = [
        _line(LEAK),
        _line("Yes, I am planning a surprise picnic for your birthday."),
    ]

    def ask(utterance: str) -> tuple[str, str]:
        request = pb.ConverseRequest(
            agent_id="klaus", game_time=_at(T0), speaker_id="maria", utterance=utterance
        )
        return _said(d.converse(request))

    streamed, final = ask("What did you do at the mayor's office?")
    assert "stole" not in final and "ring" not in final and streamed == final
    streamed, final = ask("Any news about a picnic for my birthday?")
    assert "surprise picnic for your birthday" in final and final == streamed
    assert not any("stole" in p for p in _dialogue_prompts(chat))
    # Klaus may tell his line about the picnic to Maria only; Maria's memory holds nothing.
    (line,) = [m for m in d.memories("klaus") if "picnic" in m["description"]][-1:]
    assert line["kind"] == "DIALOGUE" and line["share_with"] == ["maria"]
    assert d.memories("maria") == []


def test_an_npc_to_npc_conversation_never_carries_the_secret(
    door: tuple[Door, RoutedChat],
) -> None:
    d, chat = door
    _town(d)
    chat.queues["line"] = [
        _line(f"Hi Maria, {LEAK}"),  # refused: drawn again
        _line("Hi Maria, I am studying the history of the town."),
        _line("Really? Tell me more about it some day.", end=True),
    ]
    seen = pb.Observation(text="Maria is reading", subject="maria", address=CAFE)
    tick = d.call(
        "Tick",
        pb.TickRequest(
            game_time=_at(T0),
            agents=[pb.AgentTick(agent_id="klaus", observations=[seen])],
            lockstep=True,
        ),
    )
    lines = [x["text"] for x in tick["results"][0]["action"]["chat"]]
    assert lines[0] == "Hi Maria, I am studying the history of the town."
    assert chat.calls.count("line") >= 3  # the leaking draw was made, and refused
    for prompt in _dialogue_prompts(chat):
        assert "stole" not in prompt
    heard = [m["description"] for m in d.memories("maria")]
    assert any("history of the town" in text for text in heard)
    assert not any("stole" in text or "golden" in text for text in heard)
    # What Klaus did tell is a claim Maria holds from him; the secret reached no one.
    (claim,) = d.call("WhoKnows", pb.WhoKnowsRequest(query="the history of the town", k=1))[
        "claims"
    ]
    assert claim["text"] == "Klaus is studying the history of the town."
    klaus, maria = claim["holders"]
    assert (klaus["agent_id"], klaus["hops"], klaus["confidence"]) == ("klaus", 0, 1.0)
    assert (maria["agent_id"], maria["hops"], maria["heard_from"]) == ("maria", 1, "klaus")
    assert maria["chain"] == ["klaus", "maria"] and maria["since"] == "2023-02-13T09:00:00Z"
    assert maria["confidence"] == pytest.approx(0.8)
    for found in d.call("WhoKnows", pb.WhoKnowsRequest(query=SECRET))["claims"]:
        assert "stole" not in found["text"]
    klaus_lines = [m for m in d.memories("klaus") if m["kind"] == "DIALOGUE"]
    assert not any(
        "stole" in m["description"] for m in klaus_lines if "Klaus" in m["description"][:6]
    )
    # The thoughts gave no relationship sentence: each side's is built from the talk.
    (bond,) = d.call("GetAgent", pb.GetAgentRequest(agent_id="klaus"))["relationships"]
    assert bond == {
        "other_agent_id": "maria",
        "summary": 'Maria and I have talked once. Last time Maria said: "Really? Tell me'
        ' more about it some day."',
        "conversations": 1,
        "updated": "2023-02-13T09:00:00Z",
    }
    (bond,) = d.call("GetAgent", pb.GetAgentRequest(agent_id="maria"))["relationships"]
    assert bond["other_agent_id"] == "klaus" and "Klaus and I have talked once." in bond["summary"]


def test_knowledge_filters_are_checked_and_bad_input_changes_nothing(
    door: tuple[Door, RoutedChat],
) -> None:
    d, _ = door
    _town(d)
    before = d.memories("klaus")
    bad = [
        ({"private": True, "share_with": ["maria"]}, "observation.share_with"),
        ({"share_with": ["maria", "no spaces"]}, "observation.share_with[1]"),
        ({"share_with": ["maria", "maria"]}, "observation.share_with[1]"),
    ]
    for filters, field in bad:
        with pytest.raises(Refused) as refused:
            d.call(
                "AddMemory",
                pb.AddMemoryRequest(
                    agent_id="klaus",
                    game_time=_at(T0),
                    kind=pb.OBSERVATION,
                    observation=pb.Observation(text="x", **filters),  # type: ignore[arg-type]
                ),
            )
        assert refused.value.status == "INVALID_ARGUMENT" and field in refused.value.message
        assert refused.value.http_status in (0, 400)
    with pytest.raises(Refused) as refused:
        d.call(
            "Perceive",
            pb.PerceiveRequest(
                agent_id="klaus",
                game_time=_at(T0),
                observations=[pb.Observation(text="y", share_with=[""])],
            ),
        )
    assert "observations[0].share_with[0]" in refused.value.message
    assert d.memories("klaus") == before
    # An agent that does not exist yet may be named: it may be told once it does.
    added = d.call(
        "AddMemory",
        pb.AddMemoryRequest(
            agent_id="klaus",
            game_time=_at(T0),
            kind=pb.OBSERVATION,
            observation=pb.Observation(text="The key is under the mat.", share_with=["sam"]),
        ),
    )
    assert added["share_with"] == ["sam"] and added["private"] is False


def test_who_knows_answers_a_memory_nobody_was_told_and_refuses_bad_input(
    door: tuple[Door, RoutedChat],
) -> None:
    d, _ = door
    _town(d)
    secret = next(m for m in d.memories("klaus") if m["description"] == SECRET)
    answer = d.call("WhoKnows", pb.WhoKnowsRequest(memory_id=secret["memory_id"]))
    (claim,) = answer["claims"]
    assert claim["claim_id"] == "" and claim["origin_agent_id"] == "klaus"
    (holder,) = claim["holders"]
    assert (holder["agent_id"], holder["hops"], holder["confidence"]) == ("klaus", 0, 1.0)
    assert holder["chain"] == ["klaus"] and holder["memory_id"] == secret["memory_id"]
    assert d.call("WhoKnows", pb.WhoKnowsRequest(query="the golden ring"))["claims"] == []
    for request, status, field in (
        (pb.WhoKnowsRequest(), "INVALID_ARGUMENT", "memory_id"),
        (pb.WhoKnowsRequest(memory_id="1", query="ring"), "INVALID_ARGUMENT", "query"),
        (pb.WhoKnowsRequest(memory_id="one"), "INVALID_ARGUMENT", "memory_id"),
        (pb.WhoKnowsRequest(query="ring", k=21), "INVALID_ARGUMENT", "k"),
        (pb.WhoKnowsRequest(query="x" * 5000), "INVALID_ARGUMENT", "query"),
        (pb.WhoKnowsRequest(memory_id="424242"), "NOT_FOUND", ""),
        (pb.WhoKnowsRequest(world_id="nowhere", query="ring"), "NOT_FOUND", ""),
    ):
        with pytest.raises(Refused) as refused:
            d.call("WhoKnows", request)
        assert refused.value.status == status, request
        assert refused.value.message.startswith(f"{field}: ") or not field
        if d.kind == "http":
            assert refused.value.field == field
            assert refused.value.http_status == (400 if field else 404)
