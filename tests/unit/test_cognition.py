"""Cognition calls with a scripted model: constrained schemas, and odd answers handled."""

from __future__ import annotations

import json

import numpy as np
import pytest

from npc_brain.importance.prompted import (
    IMPORTANCE_SCHEMA,
    NEUTRAL_RATING,
    parse_rating,
    rate_importance,
)
from npc_brain.llm.fakes import ScriptedChat
from npc_brain.mind.act.prompts import (
    DURATIONS,
    action_schema,
    decide_action,
    parse_decision,
)
from npc_brain.mind.emoji import EMOJIS, nearest_emojis
from npc_brain.mind.talk.prompts import (
    REPLY_SCHEMA,
    UtteranceExtractor,
    decode_partial_string,
    reply_messages,
    stream_reply,
)
from npc_brain.persona import Persona

PERSONA = Persona("Isabella Rodriguez", home_address="ville:home")
PLACES = ["ville:home", "ville:cafe"]


def test_importance_uses_the_ten_rating_schema() -> None:
    chat = ScriptedChat()
    chat.enqueue({"rating": 8})
    assert rate_importance(chat, "Isabella", "a party is planned").value == 8
    assert chat.history[-1].schema == IMPORTANCE_SCHEMA
    assert IMPORTANCE_SCHEMA["properties"]["rating"]["enum"] == list(range(1, 11))


def test_idle_observations_get_1_without_a_model_call() -> None:
    chat = ScriptedChat()
    assert rate_importance(chat, "Isabella", "the stove is idle").value == 1
    assert chat.history == []


@pytest.mark.parametrize("answer", ['{"rating": 11}', '{"rating": "7"}', "", "[1]", '{"rat'])
def test_an_unusable_rating_gives_the_neutral_rating(answer: str) -> None:
    assert parse_rating(answer) == NEUTRAL_RATING


def test_action_place_is_constrained_to_known_places() -> None:
    schema = action_schema(PLACES)
    props = schema["properties"]
    assert props["place"] == {"enum": PLACES}  # type: ignore[index]
    assert props["minutes"] == {"enum": DURATIONS}  # type: ignore[index]
    assert "emoji" not in props  # chosen from the activity's meaning, not generated


def test_decision_is_parsed_from_the_constrained_answer() -> None:
    chat = ScriptedChat()
    chat.enqueue({"activity": "brewing coffee", "place": "ville:cafe", "minutes": 30})
    decision, _ = decide_action(chat, PERSONA, 0.0, [], PLACES)
    assert (decision.activity, decision.address, decision.duration_minutes) == (
        "brewing coffee",
        "ville:cafe",
        30,
    )


@pytest.mark.parametrize(
    "answer",
    [
        '{"activity": "flying", "place": "the moon", "minutes": 30}',
        '{"activity": "", "place": "ville:cafe", "minutes": 7}',
        "not json",
        "[]",
    ],
)
def test_odd_decisions_fall_back_field_by_field(answer: str) -> None:
    decision = parse_decision(answer, PERSONA, PLACES)
    assert decision.address in PLACES
    assert decision.duration_minutes in DURATIONS
    assert decision.emoji in EMOJIS
    assert decision.activity


def test_each_activity_gets_the_emoji_of_its_nearest_meaning() -> None:
    meanings = np.eye(len(EMOJIS), dtype=np.float32)
    activities = np.zeros((3, len(EMOJIS)), dtype=np.float32)
    activities[0, 3] = activities[1, 0] = 1.0
    activities[2, [5, 6]] = [0.6, 0.8]
    assert nearest_emojis(activities, meanings) == [EMOJIS[3], EMOJIS[0], EMOJIS[6]]
    assert nearest_emojis(activities[:0], meanings) == []


def test_reply_streams_the_utterance_text_and_parses_the_end_flag() -> None:
    chat = ScriptedChat(chunk=2)
    chat.enqueue('{"utterance": "Come to my \\"party\\"!\\n", "end_conversation": true}')
    pieces: list[str] = []
    reply = stream_reply(
        chat,
        reply_messages(PERSONA, 0.0, [], "Klaus", "Hi"),
        max_tokens=50,
        temperature=0.7,
        seed=1,
        on_text=pieces.append,
    )
    assert len(pieces) > 3
    assert "".join(pieces) == 'Come to my "party"!\n'
    assert reply.text == 'Come to my "party"!'
    assert reply.end_conversation is True
    assert chat.history[-1].schema == REPLY_SCHEMA


def test_a_reply_its_length_limit_cut_ends_at_its_last_whole_sentence_or_clause() -> None:
    opening = "My plan for February"
    plan = f"{opening} 14: study at the library at 9 am, work on the paper, meet Maria at 3 pm"
    cut = {
        f"{plan}, and write the research paper about the effects of gentrification on the"
        " small businesses of the town, while.": f"{plan}, and write the research paper"
        " about the effects of gentrification on the small businesses of the town.",
        f"{plan}. I will then write the paper about gentrification and its effects on the"
        " shops and the people of the town, my l.": f"{plan}.",
        f"{opening}  14: open the cafe.": f"{opening} 14: open the cafe.",  # not cut
    }
    for drawn, kept in cut.items():
        chat = ScriptedChat()
        chat.enqueue({"utterance": drawn, "end_conversation": False})
        messages = reply_messages(PERSONA, 0.0, [], "Klaus", "What are your plans?")
        reply = stream_reply(
            chat,
            messages,
            max_tokens=120,
            temperature=0.0,
            seed=1,
            on_text=lambda _: None,
            opening=opening,
        )
        assert reply.text == kept


def test_a_truncated_reply_keeps_its_text_and_does_not_end() -> None:
    chat = ScriptedChat()
    chat.enqueue('{"utterance": "Hello the')
    reply = stream_reply(chat, [], max_tokens=5, temperature=0, seed=1, on_text=lambda _: None)
    assert (reply.text, reply.end_conversation) == ("Hello the", False)


def test_extractor_waits_for_split_escapes_and_joins_surrogate_pairs() -> None:
    raw = json.dumps({"utterance": "caf\u00e9 \U0001f389 ok"}, ensure_ascii=True)
    extractor = UtteranceExtractor()
    for char in raw:
        extractor.feed(char)
    assert extractor.text == "caf\u00e9 \U0001f389 ok"


def test_lone_surrogates_become_replacement_characters() -> None:
    assert decode_partial_string('\\udc00x"') == "\ufffdx"
    assert decode_partial_string('\\ud800\\u0041"') == "\ufffdA"
