"""Deciding what an NPC answers, from structured state: one composer per dialogue act.

A composer reads the persona, today's plan, what the NPC thinks of the people named,
the memories that bear on the line (recalled with the act's own query and time window;
only those it may tell the speaker), and the places it knows; it returns the answer as
sentences already realised in the NPC's own voice (talk/realise.py), with what they
rest on. No model call: the model may word one more sentence afterwards (reply.py).
"""

from __future__ import annotations

from npc_brain.mind.talk.acts import Act
from npc_brain.mind.talk.deeds import deed_answer
from npc_brain.mind.talk.questions import QUESTIONS
from npc_brain.mind.talk.scene import Answer, Composer, Scene, doing_now
from npc_brain.mind.talk.social import SOCIAL
from npc_brain.mind.talk.understand import asks_doing_now, asks_of_the_past, tells_a_story

COMPOSERS: dict[Act, Composer] = {**SOCIAL, **QUESTIONS}
# Acts whose words a question of what the NPC is doing may be nearest; the greeting and
# the question of fact answer it themselves.
# (Trade's are not among them: "Are you selling a boat?" asks after a thing to buy.)
DOING_ASKED = frozenset((Act.REQUEST, Act.SMALL_TALK, Act.OTHER))


async def compose(scene: Scene) -> Answer:
    """The answer to the line, by the composer of its act; first, a line of trade, a
    request or a threat that one of the game actions the NPC may do answers (deeds.py).

    A line that asks what the NPC is doing now ("Busy working on the paper?") is that
    question whatever act its words are nearest (a request, small talk): it is answered
    with what the NPC does. A question in the words of trade that the NPC has nothing to
    trade on ("Is anything being auctioned off this week?" to the auction's holder) is
    answered as the question of fact it may be, when the NPC knows the answer."""
    heard = scene.heard
    if deed := await deed_answer(scene):  # what the game can make it do, when asked
        return deed
    asks_doing = heard.act in DOING_ASKED and asks_doing_now(heard.text, heard.when, scene.now)
    if asks_doing and (doing := doing_now(scene)):
        return Answer((doing,), (doing,), answered=True)
    # a story of the past that reads as a request by its words asks for nothing
    act = Act.SMALL_TALK if heard.act is Act.REQUEST and tells_a_story(heard) else heard.act
    answer = await COMPOSERS[act](scene)
    question = heard.text.rstrip().endswith("?")
    if heard.act is Act.TRADE and asks_of_the_past(heard.text):  # "What did I buy?"
        fact = await COMPOSERS[Act.FACT](scene)
        if fact.answered:
            return fact
    if heard.act is Act.TRADE and not answer.answered and question:
        fact = await COMPOSERS[Act.FACT](scene)
        if fact.answered:
            return fact
    return answer
