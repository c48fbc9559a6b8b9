"""The composed planner's pure parts: a persona's skeleton, remembered commitments, the
day laid out on the waking hours, what places afford, and the choices' fallbacks."""

from __future__ import annotations

from npc_brain.mind.plan.affordances import (
    affordances,
    describe,
    for_staff_only,
    is_sleeping_place,
    works_at,
)
from npc_brain.mind.plan.choices import Option, parse_chosen_steps, parse_hours
from npc_brain.mind.plan.skeleton import (
    commitments,
    compose,
    day_plan,
    imperative,
    is_activity,
    settle,
    skeleton_of,
)
from npc_brain.mind.prompts import progressive
from npc_brain.persona import Persona

FEB_14 = 1_676_332_800.0  # 2023-02-14 00:00 UTC, a Tuesday
ISABELLA = Persona(
    "Isabella Rodriguez",
    lifestyle="wakes up at 6 am, opens the cafe at 8 am, goes to bed around 11 pm",
    daily_requirements=("open Hobbs Cafe at 8 am", "serve the customers"),
)
COUNTER = "the Ville:Hobbs Cafe:cafe:counter"


def test_wake_and_bed_hours_and_timed_requirements_come_from_the_persona() -> None:
    skeleton = skeleton_of(ISABELLA)
    assert (skeleton.wake, skeleton.bed) == (6, 23)
    items = {i.activity: i for i in skeleton.items}
    assert items["open Hobbs Cafe"].hour == 8
    assert items["serve the customers"].hour is None
    assert "open the cafe" not in items  # the lifestyle's own "opens the cafe at 8 am"


def test_bedtime_past_midnight_and_parts_of_the_day() -> None:
    night_owl = Persona(
        "Eddy",
        lifestyle="wakes up at 8 am, paints in the morning, goes to bed at 1 am",
    )
    skeleton = skeleton_of(night_owl)
    assert (skeleton.wake, skeleton.bed) == (8, 25)
    assert [(i.activity, i.window) for i in skeleton.items] == [("paint", (8, 11))]
    assert skeleton_of(Persona("Nobody")).waking_hours == range(7, 23)


def test_third_person_phrases_become_activities() -> None:
    assert imperative("opens the cafe") == "open the cafe"
    assert imperative("studies at the library") == "study at the library"
    assert imperative("has coffee") == "have coffee"
    assert imperative("watches the stars") == "watch the stars"


def test_activities_are_seen_in_the_progressive() -> None:
    # what a game says an agent is doing: "Isabella is inviting people", not "is invite"
    assert progressive("invite people to the party") == "inviting people to the party"
    assert progressive("opens the cafe") == "opening the cafe"
    assert progressive("have breakfast") == "having breakfast"
    assert progressive("shop for groceries") == "shopping for groceries"
    assert progressive("lie down") == "lying down"
    assert progressive("see a friend") == "seeing a friend"
    assert progressive("sleeping") == "sleeping"


def test_times_greetings_and_non_activities_are_not_activities() -> None:
    for text in ("10:00", "morning", "woke-up-at-10am", "Hello Klaus", "good evening", "no"):
        assert not is_activity(text), text
    for text in ("open Hobbs Cafe", "take a break", "study physics"):
        assert is_activity(text), text


def test_commitments_for_the_day_are_found_with_their_hours() -> None:
    texts = [
        "Isabella is throwing a Valentine's Day party at Hobbs Cafe on February 14 "
        "from 5 pm to 7 pm",
        "Maria invited Klaus to a study session at the library on February 14 at 3 pm",
        "Sam has a meeting at Town Hall on February 20 at 9 am",  # another day
        "Klaus likes the party at Hobbs Cafe",  # no time
    ]
    found = [(i.activity, i.hour, i.hours) for i in commitments(texts, FEB_14)]
    assert found == [
        ("go to the Valentine's Day party at Hobbs Cafe", 17, 2),
        ("go to the study session at the library", 15, 1),
    ]


def test_the_day_is_laid_out_meals_and_duties_in_their_hours() -> None:
    skeleton = skeleton_of(ISABELLA)
    party = commitments(["a party at Hobbs Cafe on February 14 from 5 pm to 7 pm"], FEB_14)
    candidates = ["serve the customers", "read a book", "take a walk", "meet friends"]
    fit = {"serve the customers": 1.0, "read a book": 0.5, "take a walk": 0.4}
    fixed, free = compose(skeleton, party, candidates, fit)
    assert fixed[6] == "have breakfast" and fixed[8] == "open Hobbs Cafe"
    assert fixed[9] == "serve the customers"  # after opening, not before
    assert fixed[12] == "have lunch" and fixed[18] == "go to the party at Hobbs Cafe"
    assert fixed[19] == "have dinner"
    assert set(fixed) | set(free) == set(range(6, 23))
    assert "serve the customers" not in free[7]  # no duty before the first commitment
    for options in free.values():
        assert 1 <= len(options) <= 3
    plan = day_plan(skeleton, {**fixed, **{h: o[0] for h, o in free.items()}})
    assert plan.wake_hour == 6 and plan.blocks[-1].activity == "sleeping"
    assert plan.blocks[-1].hour == 23
    assert len({b.activity for b in plan.blocks}) >= 5


def test_places_afford_what_is_done_there() -> None:
    assert "serving customers" in affordances(COUNTER)
    assert "studying" in affordances("the Ville:Oak Hill College:library")
    assert affordances("the Ville:Somewhere:attic:telescope") == ("using the telescope",)
    assert describe(COUNTER) == "the counter of the cafe at Hobbs Cafe"
    assert is_sleeping_place("the Ville:Dorm:Klaus's room:bed")


def test_odd_answers_fall_back_to_the_best_options() -> None:
    free = {9: ["read a book", "take a walk"], 10: ["take a walk"]}
    assert parse_hours('{"9:00": "take a walk"}', free) == {9: "take a walk", 10: "take a walk"}
    assert parse_hours("not json", free) == {9: "read a book", 10: "take a walk"}
    options = [Option("open Hobbs Cafe", COUNTER), Option("making coffee", COUNTER)]
    steps = parse_chosen_steps('{"steps": [{"step": "dancing (moon)", "minutes": 5}]}', options)
    assert [s.activity for s in steps] == ["open Hobbs Cafe", "making coffee"] * 2
    good = (
        '{"steps": [{"step": "making coffee (counter)", "minutes": 10},'
        ' {"step": "open Hobbs Cafe (counter)", "minutes": 5},'
        ' {"step": "making coffee (counter)", "minutes": 99}]}'
    )
    steps = parse_chosen_steps(good, options)
    assert [(s.activity, s.minutes) for s in steps] == [
        ("making coffee", 10),
        ("open Hobbs Cafe", 5),
        ("making coffee", 15),
    ]


def test_a_requirement_that_names_a_meal_is_that_meal_and_one_offs_happen_once() -> None:
    klaus = Persona(
        "Klaus",
        lifestyle="wakes up at 7 am, goes to bed at midnight",
        daily_requirements=("have breakfast at Hobbs Cafe", "work on the research paper"),
    )
    skeleton = skeleton_of(klaus)
    candidates = ["work on the research paper", "have coffee", "read a book", "relax at home"]
    candidates += ["take a walk", "meet friends", "tidy up at home", "call a friend"]
    candidates += ["write notes", "do research", "play chess", "cook", "go shopping", "paint"]
    fit = {"have coffee": 2.0, "work on the research paper": 1.0, "read a book": 0.5}
    evening = ["relax at home", "tidy up at home", "call a friend"]
    fixed, free = compose(skeleton, [], candidates, fit, evening)
    assert fixed[7] == "have breakfast at Hobbs Cafe"
    assert "have breakfast" not in fixed.values()
    assert free[20][0] in evening and free[21][0] in evening
    # the model chose the same one-off for every free hour: it is done once
    hours = settle(fixed, free, {h: "have coffee" for h in free})
    assert list(hours.values()).count("have coffee") == 1
    assert set(hours) == set(range(7, 24))


def test_staff_objects_are_for_those_who_work_there() -> None:
    assert for_staff_only(COUNTER) and not for_staff_only("the Ville:Hobbs Cafe:cafe")
    assert works_at("owns Hobbs Cafe", COUNTER)
    assert not works_at("a retired navy officer", COUNTER)


def test_a_commitment_said_relative_to_when_it_was_heard_is_for_that_day() -> None:
    """A harbour town: "tomorrow at 6 am", heard the evening before, is today's; heard two
    days before, it is not; "7-9 pm" is a span of two hours."""
    evening_before = FEB_14 - 5 * 3600
    said = "Nils Berg invited Ada Holm to the market at the fish quay tomorrow at 6 am"
    assert [(i.hour, i.hours) for i in commitments([said], FEB_14, [evening_before])] == [(6, 1)]
    assert commitments([said], FEB_14, [evening_before - 86400]) == []
    span = commitments(["the feast at the Long Hall on February 14, 7-9 pm"], FEB_14)
    assert [(i.activity, i.hour, i.hours) for i in span] == [
        ("go to the feast at the Long Hall", 19, 2)
    ]
