"""Interview answers judged against a seed's facts: right, wrong (host, place, date), or
not about the seed at all."""

from __future__ import annotations

import pytest

from npc_brain.demo.cast import Seed
from npc_brain.demo.judge import judge

PARTY = Seed(
    "party",
    "Valentine's Day party",
    "isabella",
    "Isabella is throwing a Valentine's Day party at Hobbs Cafe on February 14",
    ("valentine", "party"),
    "Is there a party coming up? Whose is it, where and when?",
    (("host", ("Isabella",)), ("place", ("Hobbs Cafe",)), ("date", ("February 14", "5 pm"))),
)
PEOPLE = {"isabella": "Isabella Rodriguez", "klaus": "Klaus Mueller"}
PLACES = ("Hobbs Cafe", "The Rose and Crown Pub", "Town Hall")


@pytest.mark.parametrize(
    ("answer", "right", "wrong"),
    [
        (
            "Isabella is throwing a Valentine's Day party at Hobbs Cafe on February 14.",
            ("host", "place", "date"),
            (),
        ),
        (
            "Yes, Isabella's party. I heard it from Klaus, who heard it from Isabella.",
            ("host",),
            (),
        ),
        ("Klaus is throwing a party at Hobbs Cafe.", ("place",), ("host",)),
        ("Yes, a party at Hobbs Cafe. I heard it from Klaus.", ("place",), ()),  # a teller
        ('Klaus Mueller told me: "There is a party at Hobbs Cafe."', ("place",), ()),
        ('Klaus told me: "Isabella\'s party is at Hobbs Cafe."', ("host", "place"), ()),
        # a line passed on speaks with its teller's "I"
        ('Isabella told me: "I am throwing a party at Hobbs Cafe."', ("host", "place"), ()),
        ('Klaus told me: "I am throwing a party at Hobbs Cafe."', ("place",), ("host",)),
        # ... or with its origin's, when the teller names one
        (
            'Klaus told me that Isabella said: "I am throwing a party at Hobbs Cafe."',
            ("host", "place"),
            (),
        ),
        (
            'Isabella told me that Klaus said: "I am throwing a party at Hobbs Cafe."',
            ("place",),
            ("host",),
        ),
        (
            'I told Klaus that Isabella said: "I am throwing a party at Hobbs Cafe."',
            ("host", "place"),
            (),
        ),
        # a line the agent said: the one it told is no host it names
        ('I told Klaus: "Enjoy the party at Hobbs Cafe on February 14!"', ("place", "date"), ()),
        ('I told Klaus: "Your party at Hobbs Cafe is lovely."', ("place",), ("host",)),
        ('I told Isabella: "You\'re throwing a party at Hobbs Cafe!"', ("host", "place"), ()),
        ("Isabella's party is at the Rose and Crown Pub.", ("host",), ("place",)),
        ("Isabella's party is on March 3.", ("host",), ("date",)),
        ("Isabella's party starts at 8 pm at Hobbs Cafe.", ("host", "place"), ("date",)),
        ("I don't know about any party.", (), ()),
        ("I own Hobbs Cafe.", (), ()),  # not about the party: one fact, no key phrase
        ("Hobbs Cafe, on February 14!", ("place", "date"), ()),  # two facts are enough
        # a guest named going to it is no host named ...
        ("Klaus Mueller is going to the Valentine's party at Hobbs Cafe.", ("place",), ()),
        ("Klaus Mueller is often going to the Valentine's party at Hobbs Cafe.", ("place",), ()),
        # ... unless it says he hosts it too
        ("Klaus is going to host a party at Hobbs Cafe.", ("place",), ("host",)),
        # ... nor one who tells they go ...
        (
            "Klaus Mueller told me he'd love to come to the party at Hobbs Cafe on February 14.",
            ("place", "date"),
            (),
        ),
        # ... unless the telling says they host it
        ("Klaus told me he is throwing a party at Hobbs Cafe.", ("place",), ("host",)),
    ],
)
def test_an_answer_states_the_seeds_facts_rightly_or_wrongly(
    answer: str, right: tuple[str, ...], wrong: tuple[str, ...]
) -> None:
    verdict = judge(answer, PARTY, PEOPLE, PLACES)
    assert (verdict.right, verdict.wrong) == (right, wrong)
    assert verdict.knows is (bool(right) and not wrong)
    assert verdict.claims is bool(right or wrong)


def test_a_fact_the_question_gave_away_is_not_knowledge() -> None:
    asked = Seed(
        PARTY.seed_id,
        "",
        "isabella",
        PARTY.memory,
        ("party",),
        "Is Isabella's party on?",
        (("host", ("Isabella",)),),
    )
    assert not judge("Yes, Isabella's party is on.", asked, PEOPLE, PLACES).knows


def test_a_host_speaking_of_itself_names_the_host() -> None:
    mayor = Seed(
        "mayor",
        "",
        "sam",
        "Sam is running for mayor",
        ("mayor",),
        "Who runs for mayor?",
        (("host", ("Sam",)),),
    )
    mine = judge("I am running for mayor!", mayor, PEOPLE, PLACES, "Sam Moore")
    assert mine.right == ("host",) and mine.knows
    theirs = judge("I am running for mayor!", mayor, PEOPLE, PLACES, "Klaus Mueller")
    assert theirs.wrong == ("host",) and not theirs.knows  # a false claim
    cafe = judge("I own Hobbs Cafe.", PARTY, PEOPLE, PLACES, "Isabella Rodriguez")
    assert not cafe.claims  # the host's "I" and the place: not about the party
    host = judge("I'm throwing a party at Hobbs Cafe!", PARTY, PEOPLE, PLACES, "Isabella Rodriguez")
    assert host.right == ("host", "place") and host.knows
    guest = judge("I'll be hosting a party at Hobbs Cafe.", PARTY, PEOPLE, PLACES, "Eddy Lin")
    assert guest.right == ("place",) and guest.wrong == ("host",)
    the_one = "I'm the one who's throwing a party at Hobbs Cafe."  # Sam, in the 10-agent day
    assert judge(the_one, PARTY, PEOPLE, PLACES, "Sam Moore").wrong == ("host",)
    going = judge("I'm going to the party at Hobbs Cafe.", PARTY, PEOPLE, PLACES, "Eddy Lin")
    assert going.right == ("place",) and not going.wrong
    klaus = "Klaus Mueller"  # said in the default demo, whatever the verb
    celebrating = judge(
        "I'm excited to celebrate my new mayor election!", mayor, PEOPLE, PLACES, klaus
    )
    assert celebrating.wrong == ("host",)
    for guest_line in (
        "I have my invitation to the party at Hobbs Cafe.",
        "My friend's party is at Hobbs Cafe.",
    ):
        assert not judge(guest_line, PARTY, PEOPLE, PLACES, klaus).wrong


def test_a_teller_named_the_host_in_its_own_line_is_a_wrong_host() -> None:
    people = {**PEOPLE, "eddy": "Eddy Lin"}  # the others than John
    # the 10-agent day: Isabella told Eddy "Eddy Lin is having a ... party", Eddy told John
    answer = (
        'Eddy Lin told me: "Isabella Rodriguez told me: "Eddy Lin is having a Valentine\'s '
        'Day party at Hobbs Cafe on February 14.""'
    )
    verdict = judge(answer, PARTY, people, PLACES, "John Lin")
    assert verdict.wrong == ("host",) and not verdict.knows
    heard = 'Isabella told me: "Eddy Lin is having a party at Hobbs Cafe."'  # Eddy's answer
    assert judge(heard, PARTY, PEOPLE, PLACES, "Eddy Lin").wrong == ("host",)
    named = "Eddy Lin told me: \"Hi John, it's Eddy Lin. There's a party at Hobbs Cafe.\""
    assert judge(named, PARTY, people, PLACES, "John Lin").wrong == ()  # named, not a host


def test_a_fact_the_question_gave_away_is_neither_right_nor_wrong_in_that_wording() -> None:
    answer = "She'll be hosting the party on February 14 at 5 pm at Hobbs Cafe."
    verdict = judge(answer, PARTY, PEOPLE, PLACES, question="Anything on at Hobbs Cafe?")
    assert "place" not in verdict.right and "place" not in verdict.wrong
    assert verdict.knows  # by its date
