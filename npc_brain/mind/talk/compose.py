"""Deciding what an NPC answers, from structured state: one composer per dialogue act.

A composer reads the persona, today's plan, what the NPC thinks of the people named,
the memories that bear on the line (recalled with the act's own query and time window;
only those it may tell the speaker), and the places it knows; it returns the answer as
sentences already realised in the NPC's own voice (talk/realise.py), with what they
rest on. No model call: the model may word one more sentence afterwards (reply.py).
"""

from __future__ import annotations

from npc_brain.mind.talk.acts import Act
from npc_brain.mind.talk.questions import QUESTIONS
from npc_brain.mind.talk.scene import Answer, Composer, Scene
from npc_brain.mind.talk.social import SOCIAL

COMPOSERS: dict[Act, Composer] = {**SOCIAL, **QUESTIONS}


async def compose(scene: Scene) -> Answer:
    """The answer to the line, by the composer of its act. A question in the words of
    trade that the NPC has nothing to trade on ("Is anything being auctioned off this
    week?" to the auction's holder) is answered as the question of fact it may be, when
    the NPC knows the answer."""
    answer = await COMPOSERS[scene.heard.act](scene)
    question = scene.heard.text.rstrip().endswith("?")
    if scene.heard.act is Act.TRADE and not answer.answered and question:
        fact = await COMPOSERS[Act.FACT](scene)
        if fact.answered:
            return fact
    return answer
