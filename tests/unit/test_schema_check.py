"""The validator that stands in for a grammar when a model server ignores the schema:
every schema the cognition calls send, good answers pass, each kind of break is named."""

from __future__ import annotations

import json
from typing import Any

import pytest

from npc_brain.importance.prompted import IMPORTANCE_SCHEMA
from npc_brain.llm.schema_check import UnsupportedSchema, answer_error, value_error
from npc_brain.mind.act.prompts import action_schema
from npc_brain.mind.plan.prompts import day_plan_schema, steps_schema
from npc_brain.mind.reflect.prompts import insights_schema, questions_schema
from npc_brain.mind.talk.prompts import REPLY_SCHEMA

PLACES = ["the Ville:cafe:counter", "the Ville:home:bed"]


def cognition_schemas() -> list[dict[str, Any]]:
    return [
        dict(IMPORTANCE_SCHEMA),
        dict(REPLY_SCHEMA),
        action_schema(PLACES),
        day_plan_schema(),
        steps_schema(PLACES),
        questions_schema(),
        insights_schema(4),
    ]


@pytest.mark.parametrize("schema", cognition_schemas(), ids=lambda s: ",".join(s["required"]))
def test_every_cognition_schema_is_within_the_supported_subset(schema: dict[str, Any]) -> None:
    assert value_error({}, schema) is not None  # checked, not refused as unsupported


@pytest.mark.parametrize(
    ("schema", "answer"),
    [
        (IMPORTANCE_SCHEMA, {"rating": 7}),
        (REPLY_SCHEMA, {"utterance": "Hello!", "end_conversation": False}),
        (
            action_schema(PLACES),
            {"activity": "brewing coffee", "place": PLACES[0], "minutes": 15},
        ),
        (
            insights_schema(4),
            {"insights": [{"insight": "Klaus likes the cafe a lot.", "because_of": [1, 4]}]},
        ),
        (questions_schema(), {"questions": ["Who is Klaus to her?"] * 3}),
    ],
)
def test_good_answers_pass(schema: dict[str, Any], answer: Any) -> None:
    assert answer_error(json.dumps(answer), schema) is None


@pytest.mark.parametrize(
    ("schema", "answer", "error"),
    [
        (IMPORTANCE_SCHEMA, "Sure, 7", "not JSON"),
        (IMPORTANCE_SCHEMA, {}, "$.rating is required"),
        (IMPORTANCE_SCHEMA, {"rating": 11}, "$.rating must be one of"),
        (IMPORTANCE_SCHEMA, {"rating": 7.5}, "$.rating must be of type integer"),
        (IMPORTANCE_SCHEMA, {"rating": True}, "$.rating must be of type integer"),
        (IMPORTANCE_SCHEMA, [7], "$ must be of type object"),
        (REPLY_SCHEMA, {"utterance": "x" * 401, "end_conversation": True}, "at most 400"),
        (REPLY_SCHEMA, {"utterance": "hi", "end_conversation": "no"}, "type boolean"),
        (
            action_schema(PLACES),
            {"activity": "napping", "place": "the moon", "minutes": 15},
            "$.place must be one of",
        ),
        (
            insights_schema(4),
            {"insights": [{"insight": "Klaus likes the cafe.", "because_of": [5]}]},
            "$.insights[0].because_of[0] must be one of",
        ),
        (insights_schema(4), {"insights": []}, "at least 1 items"),
        (questions_schema(), {"questions": ["Who is Klaus to her?"] * 4}, "at most 3 items"),
        (
            questions_schema(),
            {"questions": ["who is klaus?", "Why?", "Is it so?"]},
            "$.questions[0] must match the pattern",
        ),
    ],
)
def test_each_break_is_named_with_its_path(schema: dict[str, Any], answer: Any, error: str) -> None:
    text = answer if isinstance(answer, str) else json.dumps(answer)
    found = answer_error(text, schema)
    assert found is not None and error in found, found


def test_const_additional_properties_and_json_equality() -> None:
    schema = {
        "type": "object",
        "properties": {"kind": {"const": 1}},
        "additionalProperties": False,
    }
    assert value_error({"kind": 1.0}, schema) is None  # JSON numbers: 1 == 1.0
    assert value_error({"kind": True}, schema) == "$.kind must be 1"  # but true is not 1
    assert value_error({"kind": 1, "extra": 2}, schema) == "$.extra is not allowed"


def test_a_keyword_outside_the_subset_is_refused_not_ignored() -> None:
    with pytest.raises(UnsupportedSchema, match="oneOf"):
        value_error(1, {"oneOf": [{"type": "integer"}]})
