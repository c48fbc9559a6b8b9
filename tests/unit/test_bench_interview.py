"""bench.interview's TrueSkill ranking of the paper's conditions (each question a match)."""

from __future__ import annotations

from bench.interview import Answer, Question, ranked


def _answers(believable: list[bool]) -> list[Answer]:
    question = Question("memory", "Who did you see?", ("tomas",))
    return [Answer(question, "I saw Tomas." if b else "Hm.", 0.1) for b in believable]


def test_conditions_are_ranked_by_who_answers_believably_per_question() -> None:
    results = {
        "no memory": _answers([False, False, False, True]),
        "full": _answers([True, True, True, True]),
        "no reflection": _answers([True, False, True, True]),
    }
    order = ranked(results)
    assert list(order) == ["full", "no reflection", "no memory"]
    mu, sigma = order["full"]
    assert mu > 25 and sigma < 25 / 3  # moved from the prior, and surer


def test_questions_every_condition_answers_alike_leave_the_ratings_alone() -> None:
    same = {"a": _answers([True, False]), "b": _answers([True, False])}
    assert ranked(same) == {"a": (25.0, 25 / 3), "b": (25.0, 25 / 3)}
