"""The grammar-checked sampler against llama-cpp-python's own on the real chat model:
the same tokens under greedy decoding, valid answers with temperature, and far fewer
full-vocabulary masks than tokens."""

from __future__ import annotations

import json
from typing import Any

import pytest
from llama_cpp import Llama

from npc_brain.config import DEFAULT_CHAT_MODEL, REPO_MODELS_DIR
from npc_brain.llm.llama import _grammar, _Llama, load_llama
from npc_brain.llm.sampling import GrammarCheckedSampler
from npc_brain.mind.act.prompts import action_messages, action_schema
from npc_brain.mind.plan.prompts import day_plan_schema, steps_schema
from npc_brain.mind.react.prompts import TALK_SCHEMA
from npc_brain.persona import Persona

MODEL = REPO_MODELS_DIR / DEFAULT_CHAT_MODEL
PERSONA = Persona("Isabella Rodriguez", 34, "friendly", "runs Hobbs Cafe", "planning a party")
PLACES = [
    "the Ville:Hobbs Cafe:cafe:counter",
    "the Ville:Isabella Rodriguez's apartment:main room:bed",
    "the Ville:Johnson Park:park:bench",
]
ASK = "Answer with JSON."
CASES = {
    "action": (action_schema(PLACES), action_messages(PERSONA, 1_676_365_200.0, [], PLACES)),
    "steps": (steps_schema(PLACES), f"Break Isabella's next hour at the cafe into steps. {ASK}"),
    "day plan": (day_plan_schema(), f"Plan Isabella's day in broad strokes. {ASK}"),
    "talk": (TALK_SCHEMA, f"Klaus waves at Isabella. Does she talk to him? {ASK}"),
}

pytestmark = pytest.mark.integration


def messages(case: str) -> list[dict[str, str]]:
    prompt = CASES[case][1]
    if isinstance(prompt, str):
        return [
            {"role": "system", "content": PERSONA.describe()},
            {"role": "user", "content": prompt},
        ]
    return [{"role": m.role, "content": m.content} for m in prompt]


def generate(llama: Llama, case: str, temperature: float, seed: int = 0) -> tuple[list[int], str]:
    grammar = _grammar(json.dumps(CASES[case][0]))
    answer: Any = llama.create_chat_completion(
        messages=messages(case), max_tokens=400, temperature=temperature, seed=seed, grammar=grammar
    )
    return list(llama.input_ids[: llama.n_tokens]), answer["choices"][0]["message"]["content"]


@pytest.fixture(scope="module")
def models() -> tuple[Llama, _Llama]:
    if not MODEL.is_file():
        pytest.skip(f"{MODEL} is missing; run `npc-brain models fetch` first")
    options: dict[str, Any] = {"n_ctx": 2048, "n_threads": 1, "verbose": False, "seed": 0}
    return load_llama(Llama, str(MODEL), **options), load_llama(_Llama, str(MODEL), **options)


@pytest.mark.parametrize("case", list(CASES))
def test_greedy_answers_are_token_for_token_those_of_full_masking(
    models: tuple[Llama, _Llama], case: str
) -> None:
    plain, checked = models
    expected, _ = generate(plain, case, 0.0)
    tokens, text = generate(checked, case, 0.0)
    assert tokens == expected
    json.loads(text)
    sampler = checked._sampler  # noqa: SLF001
    assert isinstance(sampler, GrammarCheckedSampler)
    print(case, sampler.masked, sampler.tokens)
    if case != "talk":  # a yes/no answer is too short for the share to mean anything
        assert sampler.masked < sampler.tokens / 2  # most tokens needed one grammar check


def test_sampled_answers_stay_within_the_grammar(models: tuple[Llama, _Llama]) -> None:
    _, checked = models
    for seed in range(3):
        _, text = generate(checked, "action", 0.9, seed)
        answer = json.loads(text)
        assert (
            answer["place"] in PLACES
            and answer["minutes"] in action_schema(PLACES)["properties"]["minutes"]["enum"]
        )  # type: ignore[index]
