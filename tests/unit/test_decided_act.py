"""How a line's act is decided from the classifier's votes (understand.decided_act): a
farewell ends the talk only when the vote is sure of it, or the line closes with one."""

from __future__ import annotations

import pytest

from npc_brain.mind.talk.acts import Act, Vote
from npc_brain.mind.talk.understand import aimed, decided_act, last_sentence


def vote(**shares: float) -> Vote:
    label = max(shares, key=lambda k: shares[k])
    return Vote(label, shares, "")


def test_an_unsure_farewell_is_taken_for_the_runner_up() -> None:
    # "Fair day to you, ferryman." at the start of a talk: a greeting as much as a goodbye
    assert decided_act("Fair day to you.", vote(farewell=0.38, greeting=0.3)) == Act.GREETING
    assert decided_act("Safe travels!", vote(farewell=0.45, greeting=0.3)) == Act.FAREWELL


def test_a_line_that_closes_with_a_farewell_is_one() -> None:
    whole = vote(request=0.4, farewell=0.3)
    assert decided_act("The shaft lift is stuck. Later.", whole, vote(farewell=0.8)) == Act.FAREWELL
    # a last sentence that is only maybe a farewell does not overrule the line
    assert decided_act("Open the vault. NOW.", whole, vote(farewell=0.45)) == Act.REQUEST


def test_a_question_like_no_act_asks_a_fact_unless_it_is_surely_nothing() -> None:
    assert decided_act("Who keeps the lighthouse?", vote(other=0.4, fact=0.3)) == Act.FACT
    assert decided_act("Are you a robot?", vote(other=0.8, fact=0.1)) == Act.OTHER


def test_the_last_sentence_of_a_line() -> None:
    assert last_sentence("I must get back to the mine. See you!") == "See you!"
    assert last_sentence("See you!") == "See you!"


@pytest.mark.parametrize(
    ("line", "threatens"),
    [
        ("you're a washed-up old drunk", True),
        ("shut up nerd", True),
        ("witch", True),
        ("give me the boat for 50 or I sink her tonight", True),
        ("I'll burn ur shack down", True),
        ("Took a goblin's club on the flat of my sword and now it's bent", False),
        ("some thug just stole my purse by the well!! lock him up!", False),
        ("two bowls of stew and be quick about it, I'm starving", False),
    ],
)
def test_a_threat_is_aimed_at_the_listener(line: str, threatens: bool) -> None:
    """A line read as a threat is taken for its runner-up act unless it speaks to the
    listener, opens with an order or is a word or three."""
    assert aimed(line) is threatens


class _Needs:
    """A need classifier that knows its lines' votes by heart."""

    def __init__(self, votes: dict[str, Vote]) -> None:
        self.votes = votes

    def vote(self, text: str, vector: object) -> Vote:
        return self.votes.get(text, vote(none=0.6, work=0.1))


def _need_of(line: str, votes: dict[str, Vote]) -> Vote:
    import asyncio
    from types import SimpleNamespace

    import numpy as np

    from npc_brain.mind.talk.understand import Understanding

    async def embed(texts: list[str]) -> np.ndarray:
        return np.zeros((len(texts), 3), np.float32)

    understanding = Understanding(SimpleNamespace(embed=embed))  # type: ignore[arg-type]
    understanding.needs = _Needs(votes)  # type: ignore[assignment]
    return asyncio.run(understanding._need(line, np.zeros(3, np.float32)))


def test_a_need_one_phrase_shows_plainly_is_the_rambling_lines_as_surely() -> None:
    """A long line blurs its need; the phrase that says it lends it its share, for the
    need the whole line is nearest (not food, which another phrase shows)."""
    line = "i'm skint, not eaten since monday, whatever grunt work you've got i'll do it"
    votes = {
        line: vote(work=0.26, food_drink=0.16, none=0.1),
        "not eaten since monday": vote(food_drink=0.79, none=0.1),
        "whatever grunt work you've got i'll do it": vote(work=0.54, none=0.1),
    }
    need = _need_of(line, votes)
    assert (need.label, need.confidence) == ("work", 0.54)
    # a phrase showing it less surely than NEED_SURE lends nothing
    votes["whatever grunt work you've got i'll do it"] = vote(work=0.3, none=0.5)
    assert _need_of(line, votes).confidence == 0.26
    # nor does a line of one phrase
    assert _need_of("grunt work", {"grunt work": vote(work=0.2, none=0.1)}).confidence == 0.2


def test_a_negated_auxiliary_typed_without_its_apostrophe_opens_no_order() -> None:
    """ "cant use it like this and the winter wood wont chop itself" is no ultimatum."""
    from npc_brain.mind.talk.understand import consequence, imperative

    assert not imperative("cant") and not imperative("wont") and imperative("pour")
    assert consequence("cant use it like this and the winter wood wont chop itself") is None
    assert consequence("pour me another and this stool goes through your window") is not None


def test_a_polite_condition_does_not_make_an_order_a_question() -> None:
    """The deal is read without the phrases that open with "if"."""
    import asyncio
    from types import SimpleNamespace

    import numpy as np

    from npc_brain.mind.talk.understand import Understanding

    line = "I'd like to buy one of your saddles, if you have one for sale."
    votes = {
        line: vote(ask=0.73, order=0.27),
        "I'd like to buy one of your saddles": vote(order=0.9),
    }

    async def embed(texts: list[str]) -> np.ndarray:
        return np.zeros((len(texts), 3), np.float32)

    understanding = Understanding(SimpleNamespace(embed=embed))  # type: ignore[arg-type]
    understanding.deals = _Needs(votes)  # type: ignore[assignment]
    deal = asyncio.run(understanding._deal(line, np.zeros(3, np.float32)))
    assert deal.label == "order"
    alone = asyncio.run(understanding._deal("if you have one for sale", np.zeros(3, np.float32)))
    assert alone.label == "none"  # a line of nothing but a condition is read whole


@pytest.mark.parametrize(
    ("line", "denied"),
    [
        ("I'm not leaving till you put me to work", True),
        ("i wont leave without my money", True),
        ("we aint going nowhere", True),
        ("I have to go now", False),
        ("don't go anywhere, I'll be back", False),  # the listener's going
    ],
)
def test_a_speaker_who_says_it_is_not_leaving_says_no_farewell(line: str, denied: bool) -> None:
    from npc_brain.mind.talk.understand import denies_leaving

    assert denies_leaving(line) is denied


def test_a_roleplay_emote_is_done_before_the_listener() -> None:
    from npc_brain.mind.talk.understand import aimed

    assert aimed("*pulls a pistol* empty the register, now")
    assert aimed("*draws a knife and lunges at the guard*")
    assert not aimed("Took a club on my sword last night and now it's bent like a hook")
    assert not aimed("that comes to 5*2 coins, by my reckoning")
    assert not aimed("*stumbles in clutching my arm* burned it on a live conduit, doc")
