"""Saved prompt states: where a prompt's repeating parts end, which state may be reused,
admission on the second sight, and the byte budget."""

from __future__ import annotations

import pytest

from npc_brain.llm.prompt_cache import PromptStates, SavedState, lasting_ends, prompt_boundaries


def chars(text: str) -> list[int]:
    """A tokenizer with one token per character (so positions are character offsets)."""
    return [ord(c) for c in text]


def render(messages: list[str]) -> str:
    return "".join(f"<{i}>{m}</{i}>" for i, m in enumerate(messages)) + "<reply>"


def test_boundaries_follow_the_first_messages_paragraphs_and_the_last_message() -> None:
    messages = ["Name: Ada\nAge: 3\n\nIt is noon.\n\nPlaces: home", "What now?"]
    prompt = render(messages)
    tokens = chars(prompt)
    ends = prompt_boundaries(prompt, messages, tokens, chars)
    persona_end = prompt.index("It is noon")
    places = prompt.index("Places")
    first_end = prompt.index("</0>")
    question = prompt.index("What now?")
    assert ends == [persona_end, places, first_end, question]
    # a first message that is a persona alone ends where the persona paragraph does
    alone = ["Name: Ada\nAge: 3", "What now?"]
    text = render(alone)
    assert prompt_boundaries(text, alone, chars(text), chars)[0] == text.index("</0>")


def test_a_token_straddling_a_boundary_ends_the_prefix_before_it() -> None:
    messages = ["Name: Ada\n\nIt is noon.", "Go?"]
    prompt = render(messages)

    def merging(text: str) -> list[int]:  # "\n\nIt" is one token, like a BPE merge
        out, i = [], 0
        while i < len(text):
            if text.startswith("\n\nIt", i):
                out.append(-1)
                i += 4
            else:
                out.append(ord(text[i]))
                i += 1
        return out

    tokens = merging(prompt)
    ends = prompt_boundaries(prompt, messages, tokens, merging)
    assert ends[0] == prompt.index("\n\nIt")  # before the merged token, not inside it
    assert all(0 < e < len(tokens) for e in ends)


def test_single_message_prompts_and_missing_contents_give_no_bad_boundaries() -> None:
    prompt = render(["just one"])
    assert prompt_boundaries(prompt, ["just one"], chars(prompt), chars) == []
    assert prompt_boundaries(prompt, ["not in it", "nor this"], chars(prompt), chars) == []


def state(tokens: tuple[int, ...], ends: tuple[int, ...], size: int) -> SavedState:
    return SavedState(tokens, ends, b"x" * size)


def test_deepest_state_must_match_prefix_and_splits() -> None:
    states = PromptStates(1000)
    prompt = tuple(range(20))
    states.put(state(prompt[:5], (5,), 10))
    states.put(state(prompt[:12], (5, 12), 10))
    states.put(state(prompt[:8], (3, 8), 10))  # computed with other splits
    found = states.deepest(prompt, [5, 12, 15])
    assert found is not None and found.tokens == prompt[:12]
    found = states.deepest(prompt, [5, 8])
    assert found is not None and found.tokens == prompt[:5]  # (3, 8) != (5, 8)
    other = (99, *prompt[1:])
    assert states.deepest(other, [5, 12]) is None


def test_a_prefix_is_worth_saving_the_second_time_or_the_first_as_a_persona() -> None:
    states = PromptStates(1000)
    prefix, persona = (1, 2, 3), (7, 8)
    assert not states.worth_saving(prefix)
    assert states.worth_saving(prefix)
    states.put(state(prefix, (3,), 10))
    assert not states.worth_saving(prefix)  # stored already
    assert not PromptStates(0).worth_saving(prefix) and not PromptStates(0).worth_saving(prefix)
    assert states.worth_saving(persona, lasting=True)  # where its lasting part ends: at once
    states.put(state(persona, (2,), 10))
    assert not states.worth_saving(persona, lasting=True)
    assert not PromptStates(0).worth_saving(persona, lasting=True)


def test_least_recently_used_states_leave_past_the_byte_budget() -> None:
    states = PromptStates(100)
    a, b, c = (1,), (2,), (3,)
    states.put(state(a, (1,), 40))
    states.put(state(b, (1,), 40))
    assert states.deepest((1, 9), [1]) is not None  # a is now the most recently used
    states.put(state(c, (1,), 40))
    assert len(states) == 2 and states.size_bytes == 80
    assert states.deepest((2, 9), [1]) is None and states.deepest((1, 9), [1]) is not None
    states.put(state((4,), (1,), 101))  # larger than the whole budget: not kept
    assert len(states) == 2
    with pytest.raises(ValueError, match="capacity_bytes"):
        PromptStates(-1)


def test_the_persona_and_the_end_of_the_lasting_part_are_saved_at_first_sight() -> None:
    ends = [10, 25, 40, 60]
    assert lasting_ends(ends, 1) == {10}  # the persona
    assert lasting_ends(ends, 3) == {10, 40}  # and a conversation turn's standing part
    assert lasting_ends(ends, 9) == {10, 60}
    assert lasting_ends(ends, 0) == lasting_ends([], 1) == frozenset()
