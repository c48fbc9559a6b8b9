"""Composers of the social acts and of wants: greetings, farewells, thanks, how-are-you,
small talk, threats, lines of no act, requests, trade and directions."""

from __future__ import annotations

import datetime as dt
import re

import numpy as np

from npc_brain.memory.records import GameTime
from npc_brain.mind.plan.affordances import affordances, parts
from npc_brain.mind.talk.acts import Act
from npc_brain.mind.talk.realise import sentence
from npc_brain.mind.talk.relations import relationship
from npc_brain.mind.talk.scene import (
    CANDIDATES,
    RELATED,
    Answer,
    Composer,
    Scene,
    doing_now,
    own,
    persona_said,
    place_phrase,
    priced,
    relevant,
)


def first_sentence(text: str) -> str:
    """A text's first sentence ("I'm the quartermaster. I run the depot." -> the first);
    a short capitalised word's full stop ("Dr.", "St.") ends none."""
    for end in re.finditer(r"[.!?](?=\s+[A-Z])", text):
        word = text[: end.start()].rsplit(" ", 1)[-1]
        if not (word[:1].isupper() and len(word) <= 3):
            return text[: end.end()].strip()
    return text.strip()


GRANTS = 0.3  # cosine of a request to a sentence of the role from which the role grants it


async def _greeting(scene: Scene) -> Answer:
    hello = _time_greeting(scene.now)
    first = scene.speaker.split()[0] if scene.speaker else ""
    opening = f"{hello}, {first}!" if first else f"{hello}!"
    met = bool(scene.speaker_id) and bool(
        relationship(scene.world, scene.agent.agent_id, scene.speaker_id)
    )
    who = first_sentence(persona_said(scene).get("identity", ""))  # what it is, not all it does
    intro = "" if met or not who else f"I'm {scene.me.split()[0]}. {who}"
    return Answer((opening, intro) if intro else (opening, "Good to see you."), worded=True)


async def _farewell(scene: Scene) -> Answer:
    first = scene.speaker.split()[0] if scene.speaker else ""
    return Answer((f"Goodbye, {first}!" if first else "Goodbye!", "Take care."), ends=True)


_GRATITUDE = "Thank you for your help."


_PRAISE = "You did a wonderful job."


async def _thanks(scene: Scene) -> Answer:
    vectors = await scene.embed([_GRATITUDE, _PRAISE])
    thanked = float(vectors[0] @ scene.heard.vector) >= float(vectors[1] @ scene.heard.vector)
    said = (
        ("You're welcome.", "Glad to help.") if thanked else ("Thank you!", "That's kind of you.")
    )
    return Answer(said, worded=True)


async def _how_are_you(scene: Scene) -> Answer:
    doing = doing_now(scene)
    return Answer(
        ("I'm well, thank you.", doing) if doing else ("I'm well, thank you.",), worded=True
    )


async def _small_talk(scene: Scene) -> Answer:
    doing = doing_now(scene)
    return Answer(("True enough.", doing) if doing else ("True enough.",), worded=True)


async def _threat(scene: Scene) -> Answer:
    return Answer(("There's no call for that.", "Leave me be, or you'll regret it."))


async def _other(scene: Scene) -> Answer:
    return Answer(("I'm not sure what you mean.",))


async def _request(scene: Scene) -> Answer:
    """Granted when the request is close to what the NPC's role does (its identity,
    routine or doing) or to what it sells (then with the price); else declined, naming
    who of the world does such things."""
    role = [s for key, s in persona_said(scene).items() if key in ("identity", "routine", "doing")]
    recalled = await scene.recall(scene.heard.text, CANDIDATES)
    wares = [m for m in await relevant(scene, recalled) if priced(m) and own(m, scene)]
    if wares:
        return Answer(("Of course.", scene.say(wares[0])), tuple(scene.grounds), answered=True)
    if role:
        vectors = await scene.embed(role)
        likeness = vectors @ scene.heard.vector
        best = int(np.argmax(likeness))
        if float(likeness[best]) >= GRANTS:
            said = ("Of course, I can help with that.", role[best])
            return Answer(said, (role[best],), answered=True)
    declined = ["I'm sorry, I can't help you with that."]
    if other := await _who_does(scene):
        declined.append(f"You could ask {other}.")
    return Answer(tuple(declined), tuple(declined[1:]))


async def _who_does(scene: Scene) -> str:
    """The other agent of the world whose role is nearest the line, if near enough."""
    others = [
        (name, agent.persona.learned)
        for agent_id, name in scene.people.items()
        if (agent := scene.world.store.get_agent(agent_id)) is not None and agent.persona.learned
    ]
    if not others:
        return ""
    vectors = await scene.embed([role for _, role in others])
    likeness = vectors @ scene.heard.vector
    best = int(np.argmax(likeness))
    return others[best][0] if float(likeness[best]) >= GRANTS else ""


async def _trade(scene: Scene) -> Answer:
    """The price of what the line asks about, from the memories that say prices (what
    the game wrote of the NPC's wares); asked about nothing in particular, the first
    few of them."""
    recalled = await scene.recall(scene.heard.text, CANDIDATES)
    found = await relevant(scene, recalled)
    asked = [m for m in found if priced(m)]
    if asked:
        return Answer((scene.say(asked[0]),), tuple(scene.grounds), answered=True)
    wares = [m for m in recalled if priced(m) and own(m, scene)][:WARES]
    if wares:
        return Answer(tuple(scene.say(m) for m in wares), tuple(scene.grounds), answered=True)
    return Answer(("I'm afraid I have nothing like that to sell.",))


WARES = 3  # priced memories said when the line asks about none in particular


async def _directions(scene: Scene) -> Answer:
    """The places the NPC knows that fit what the line looks for, by meaning: each
    place as its parts, what it affords, and the role of whoever works there (a persona
    that names it); with whom to ask there when one does ("You could try the supply
    depot at Ring B. Dela Okafor is there.")."""
    places = [p for p in scene.places if p != scene.agent.persona.home_address] or scene.places
    named = [p for p in scene.heard.places if p in places]
    keepers = {p: _keepers(scene, p) for p in places}
    if not named and places:
        profiles = [
            f"{' '.join(parts(p))}: {', '.join(affordances(p))}. "
            + " ".join(role for _, role in keepers[p])
            for p in places
        ]
        vectors = await scene.embed(profiles)
        likeness = vectors @ scene.heard.vector
        order = np.argsort(-likeness)
        named = [places[int(i)] for i in order[:2] if float(likeness[int(i)]) >= RELATED]
        named = named or [places[int(order[0])]]
    if not named:
        return Answer(("I'm sorry, I don't know my way around well enough to say.",))
    where = " or ".join(dict.fromkeys(place_phrase(p) for p in named[:2]))
    said = [sentence(f"You could try {where}")]
    if len(keepers.get(named[0], [])) == 1:
        said.append(sentence(f"{keepers[named[0]][0][0]} is there"))
    scene.grounds.extend(named)
    return Answer(tuple(said), tuple(named), answered=True)


def _keepers(scene: Scene, address: str) -> list[tuple[str, str]]:
    """Who of the world works at a place (name, role): those whose role names its spot
    ("who runs the supply depot"), else its area ("the keeper of the Red Boar Tavern")."""
    roles = {
        name: agent.persona.learned
        for agent_id, name in scene.people.items()
        if (agent := scene.world.store.get_agent(agent_id)) is not None
    }
    for part in reversed(parts(address)):  # the spot first, then the area
        pattern = rf"\b{re.escape(part.lower())}\b"
        found = [(n, r) for n, r in roles.items() if re.search(pattern, r.lower())]
        if found:
            return found
    return []


def _time_greeting(now: GameTime) -> str:
    hour = dt.datetime.fromtimestamp(now, dt.UTC).hour
    if 5 <= hour < 12:
        return "Good morning"
    if 12 <= hour < 18:
        return "Good afternoon"
    if 18 <= hour < 23:
        return "Good evening"
    return "Hello"


SOCIAL: dict[Act, Composer] = {
    Act.GREETING: _greeting,
    Act.FAREWELL: _farewell,
    Act.THANKS: _thanks,
    Act.HOW_ARE_YOU: _how_are_you,
    Act.SMALL_TALK: _small_talk,
    Act.THREAT: _threat,
    Act.OTHER: _other,
    Act.REQUEST: _request,
    Act.TRADE: _trade,
    Act.DIRECTIONS: _directions,
}
