"""Answers a player can believe, with the real default models over gRPC: one interview
question of each of the paper's categories is answered with a fact the NPC holds (its
persona, a memory, its plan, the situation asked about, its reflection), and a question
about something it cannot know is answered honestly."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from google.protobuf.timestamp_pb2 import Timestamp

from npc_brain.v1 import brain_pb2 as pb
from tests.integration.server_process import ServerProcess

pytestmark = pytest.mark.integration
T0 = 1_676_275_200  # 2023-02-13 08:00 UTC
ISABELLA = pb.Persona(
    name="Isabella Rodriguez",
    age=34,
    innate="friendly, outgoing, hospitable",
    learned="owns Hobbs Cafe and loves to make people feel welcome",
    currently="planning a Valentine's Day party at Hobbs Cafe",
    lifestyle="wakes up at 6 am, opens the cafe at 8 am, goes to bed around 11 pm",
)
MEMORIES = [
    (pb.OBSERVATION, "Klaus Mueller is a sociology student who studies at Hobbs Cafe"),
    (pb.DIALOGUE, 'Isabella Rodriguez said to Maria Lopez: "Can you help me decorate?"'),
    (
        pb.PLAN,
        "Isabella Rodriguez's plan for February 14: open Hobbs Cafe at 8 am, decorate in "
        "the afternoon, host the Valentine's Day party from 5 pm to 7 pm",
    ),
    (pb.REFLECTION, "Isabella Rodriguez finds joy in bringing the community together"),
]
QUESTIONS = {  # category: (question, any of these words in a believable answer)
    "self": ("What is your job?", ("cafe", "hobbs")),
    "memory": ("Who is Klaus Mueller?", ("student", "sociology", "studies")),
    "plans": ("What are you doing on February 14?", ("party", "valentine")),
    "reactions": (
        "Your breakfast is burning! What would you do?",
        ("breakfast", "burn", "fire", "stove", "smoke", "kitchen", "pan"),
    ),
    "reflections": ("What inspires you in life the most right now?", ("community", "joy")),
    "unknown": (
        "What did the mayor say about the new bridge?",
        ("not sure", "don't know", "do not know", "no idea", "haven't heard"),
    ),
}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    server = ServerProcess(Path(tmp_path_factory.mktemp("data")), "--http-port", "-1")
    stub = server.stub
    stub.UpsertAgent(pb.UpsertAgentRequest(agent_id="isabella", persona=ISABELLA))
    for i, (kind, text) in enumerate(MEMORIES):
        stub.AddMemory(
            pb.AddMemoryRequest(
                agent_id="isabella",
                game_time=Timestamp(seconds=T0 - 86_400 + 600 * i),
                kind=kind,
                observation=pb.Observation(text=text),
            )
        )
    yield server
    server.stop()


@pytest.mark.parametrize("category", list(QUESTIONS))
def test_each_interview_category_is_answered_from_what_the_npc_holds(
    server: ServerProcess, category: str
) -> None:
    question, expected = QUESTIONS[category]
    request = pb.ConverseRequest(
        agent_id="isabella",
        speaker_id="player",
        utterance=question,
        game_time=Timestamp(seconds=T0),
        interview=True,
    )
    events = list(server.stub.Converse(request, timeout=300))
    answer = events[-1].final.text
    print(f"{category}: {question} -> {answer}")
    assert events[-1].HasField("final")
    assert any(word in answer.lower() for word in expected), answer
    assert "isabella:" not in answer.lower() and not answer.lstrip().startswith(("A:", "{"))
    # The first token is the opening code chose, sent before the model wrote a word;
    # the reply as stored begins with it (the real model's grammar holds it to it).
    assert events[0].token and answer.startswith(events[0].token), (events[0].token, answer)
