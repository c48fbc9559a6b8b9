"""The report's measures over memory streams: diffusion, conversations, density."""

from __future__ import annotations

import pytest

from npc_brain.demo.analysis import density, diffusion, edges, knowing_over_time
from npc_brain.demo.cast import Seed
from npc_brain.demo.memories import Line, MemoryView, conversations, knows

T0 = 1_676_271_600.0  # 2023-02-13 07:00 UTC
NAMES = {"isabella": "Isabella Rodriguez", "maria": "Maria Lopez", "sam": "Sam Moore"}
PARTY = Seed(
    "party", "the party", "isabella", "Isabella throws a Valentine's party", ("valentine", "party")
)


def memory(
    n: int, text: str, minutes: int = 0, kind: str = "OBSERVATION", **kw: object
) -> MemoryView:
    return MemoryView(str(n), kind, text, T0 + 60 * minutes, **kw)  # type: ignore[arg-type]


def said(n: int, speaker: str, listener: str, text: str, minutes: int, **kw: object) -> MemoryView:
    return memory(
        n, f'{NAMES[speaker]} said to {NAMES[listener]}: "{text}"', minutes, "DIALOGUE", **kw
    )


STREAMS = {
    "isabella": [
        memory(1, "Isabella throws a Valentine's party", source_kind="AUTHOR"),
        said(5, "isabella", "maria", "Come to my Valentine's Day party!", 20),
        said(
            6, "maria", "isabella", "I will, thanks.", 20, source_kind="HEARD", source_agent="maria"
        ),
    ],
    "maria": [
        memory(2, "Maria Lopez sees a party poster", 30),  # later than the conversation
        said(
            7,
            "isabella",
            "maria",
            "Come to my Valentine's Day party!",
            20,
            source_kind="HEARD",
            source_agent="isabella",
        ),
        said(8, "maria", "isabella", "I will, thanks.", 20),
    ],
    "sam": [memory(3, "Sam Moore is walking; Isabella Rodriguez is reading", 10)],
}


def test_diffusion_finds_each_knower_with_the_earliest_record_that_shows_it() -> None:
    knowers = diffusion(PARTY, STREAMS)
    assert [(k.agent_id, k.since) for k in knowers] == [("isabella", T0), ("maria", T0 + 1200)]
    assert knowers[1].memory.memory_id == "7"
    assert knowers[1].memory.source_agent == "isabella"
    times = [T0, T0 + 600, T0 + 1200, T0 + 3600]
    assert knowing_over_time(knowers, times) == [1, 1, 2, 2]


def test_key_phrases_match_without_case() -> None:
    assert PARTY.mentioned_in("A VALENTINE card")
    assert not PARTY.mentioned_in("Sam Moore runs for mayor")


def test_conversations_are_read_once_from_both_streams_in_order() -> None:
    (talk,) = conversations(STREAMS, NAMES)
    assert talk.created == T0 + 1200
    assert talk.participants == ("isabella", "maria")
    assert talk.lines == (
        Line("isabella", "Come to my Valentine's Day party!"),
        Line("maria", "I will, thanks."),
    )


def test_two_conversations_at_the_same_time_stay_apart() -> None:
    streams = {
        "maria": [
            said(1, "maria", "isabella", "Hi Isabella", 0),
            said(2, "sam", "maria", "Vote for me", 0, source_kind="HEARD", source_agent="sam"),
            memory(3, "not a line of a conversation", 0, "DIALOGUE"),
        ]
    }
    found = conversations(streams, NAMES)
    assert [t.participants for t in found] == [("maria", "isabella"), ("sam", "maria")]


def test_knowing_someone_takes_more_than_seeing_them() -> None:
    sam = STREAMS["sam"]
    assert not knows(sam, "isabella", "Isabella Rodriguez", T0 + 3600)  # a sighting only
    assert knows(STREAMS["maria"], "isabella", "Isabella Rodriguez", T0 + 1200)
    assert not knows(STREAMS["maria"], "isabella", "Isabella Rodriguez", T0 + 1199)  # not yet
    author = [memory(1, "Sam Moore is Jennifer's husband", source_kind="AUTHOR")]
    assert knows(author, "sam", "Sam Moore", T0)
    told = [memory(1, "there is news", source_kind="TOLD", source_agent="sam")]
    assert knows(told, "sam", "Sam Moore", T0)
    plan = [memory(1, "Isabella Rodriguez's plan: meet Sam Moore", kind="PLAN")]
    assert not knows(plan, "sam", "Sam Moore", T0)


def test_edges_need_both_sides_and_density_is_the_papers() -> None:
    assert edges(STREAMS, NAMES, T0) == []  # before they talked
    assert edges(STREAMS, NAMES, T0 + 3600) == [("isabella", "maria")]
    assert density(1, 3) == pytest.approx(1 / 3)
    assert density(3, 3) == 1.0
    assert density(0, 1) == 0.0
    assert density(13, 25) == pytest.approx(2 * 13 / (25 * 24))
