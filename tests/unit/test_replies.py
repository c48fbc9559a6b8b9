"""What the talk layer reads in a line (npc_brain/mind/talk/answers.py): unusable lines,
content words as Snowball stems, lines that turn the question around or echo it."""

from __future__ import annotations

from npc_brain.mind.talk.answers import broken, degenerate, echoes, key_terms, turned_around
from npc_brain.persona import Persona

VERA = Persona("Vera Stone", age=44, learned="captain of the town guard of Thornbury")


def test_degenerate_replies_are_recognised() -> None:
    assert degenerate("A: 123s, 123s, 123s, 123s", VERA) == "a role tag"
    assert degenerate("so good, so good, so good, so good", VERA) == "a repetition loop"
    assert degenerate("123s, 123s, 123s, 123s, 123s", VERA) == "number soup"
    assert degenerate("Bram Holt, 2031.02.01 13:54:32.54.006", VERA) == "number soup"
    assert degenerate("Brian Bram Holt", VERA) == "a bare name"
    assert degenerate("Vera Stone", VERA) == "only a name"
    assert degenerate('{"utterance": "hi"}', VERA) == "a markup or JSON fragment"
    assert degenerate("Yes", VERA) == "too short"
    assert broken("Vera Stone: Hi Ana! What's new?") == "a role tag"
    assert broken("Hi Ana! What's new?") is None
    line = "I'm sorry, I'm not a human. I'm a virtual character created to explore the world."
    assert broken(line) == "out of character"
    assert broken("As an AI, I cannot go to parties.") == "out of character"
    assert broken("I'm an AI model trained to help you.") == "out of character"
    assert broken("I'm not a morning person, but the cafe opens at 8.") is None
    assert broken("The virtual tour of the museum starts at noon.") is None
    echoed = "What you know that bears on this:\n- Vera is planning a feast.\n- You're up?"
    assert degenerate(echoed, VERA) == "a list (the prompt's facts echoed)"
    assert degenerate("The feast starts at 5:00 pm, do come along!", VERA) is None


def test_a_reply_that_turns_the_question_around_or_echoes_it_is_recognised() -> None:
    asked = "Have you been invited to the harvest feast?"
    assert turned_around("No, you have not been invited to the feast.", asked)
    assert not turned_around("No, I have not been invited yet.", asked)
    assert echoes("Have you been invited to the harvest feast? Yes.", asked)
    assert not echoes("Yes, the steward asked me yesterday.", asked)


def test_a_word_and_its_inflections_are_one_term() -> None:
    assert "run" in key_terms("Have you heard of anyone running for the council?")
    assert key_terms("planning, shopping, sitting") == key_terms("plan, shop, sit")
    assert key_terms("dressing, calling, meeting") == {"dress", "call", "meet"}
    assert key_terms("the boats, a boat") == {"boat"}


def test_a_number_in_words_and_in_digits_is_one_term() -> None:
    assert key_terms("bay three's all locked up") & key_terms("Sealed Docking Bay 3") == {
        "bay",
        "3",
    }
    assert key_terms("twelve crates") == {"12", "crate"}
    assert "one" in key_terms("no one came")  # "one" is also someone
