"""Composers of the social acts and of wants: greetings, farewells, thanks, how-are-you,
small talk, threats, lines of no act, requests, trade and directions."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

import numpy as np
from lemminflect import getAllLemmas

from npc_brain.lexicon import THANKING
from npc_brain.memory.records import GameTime, MemoryKind, MemoryRecord
from npc_brain.memory.when import anchor
from npc_brain.mind.plan.affordances import affordances, parts
from npc_brain.mind.talk.acts import Act
from npc_brain.mind.talk.answers import names_in
from npc_brain.mind.talk.hindrance import hindrance
from npc_brain.mind.talk.realise import (
    asks_yes_or_no,
    promised,
    sentence,
)
from npc_brain.mind.talk.relations import relationship
from npc_brain.mind.talk.roles import keepers_of, own_work, role_likeness
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
from npc_brain.mind.talk.trade import (
    catalogue,
    holding,
    lemmas_of,
    not_sold,
    offered,
    ordered,
    price_of,
    things_asked,
    total,
    ware,
)
from npc_brain.mind.talk.understand import asks_doing_now, threatens
from npc_brain.words import lower_words, sentences


def introduction(identity: str) -> str:
    """What an NPC says of itself when it introduces itself: what it is, not all it
    does ("I'm the quartermaster of Kestrel Station."), and what it does when what it is
    says little ("I'm a widow. I run the boarding house and cook for the miners.")."""
    said = sentences(identity)
    if len(said) > 1 and len(said[0].split()) <= SHORT_INTRODUCTION:
        return f"{said[0]} {said[1]}"
    return said[0] if said else ""


SHORT_INTRODUCTION = 4  # words of a first sentence that says little ("I'm a widow.")


async def _greeting(scene: Scene) -> Answer:
    hello = time_greeting(scene.now)
    first = scene.speaker.split()[0] if scene.speaker else ""
    opening = f"{hello}, {first}!" if first else f"{hello}!"
    met = bool(scene.speaker_id) and bool(
        relationship(scene.world, scene.agent.agent_id, scene.speaker_id)
    )
    heard = scene.heard
    if asks_doing_now(heard.text, heard.when, scene.now) and (doing := doing_now(scene)):
        return Answer((opening, doing), (doing,), answered=True)  # "Hi! Busy reading?"
    who = introduction(persona_said(scene).get("identity", ""))
    intro = "" if met or not who else f"I'm {scene.me.split()[0]}. {who}"
    return Answer((opening, intro) if intro else (opening, "Good to see you."), worded=True)


async def _farewell(scene: Scene) -> Answer:
    first = scene.speaker.split()[0] if scene.speaker else ""
    return Answer((f"Goodbye, {first}!" if first else "Goodbye!", "Take care."), ends=True)


async def _thanks(scene: Scene) -> Answer:
    words = lower_words(scene.heard.text)
    thanked = any(THANKING & {w, *getAllLemmas(w).get("VERB", ())} for w in words)
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
    """A sure threat is met with a warning; a line only likely one (an alarm, a need in
    rough words: "there's a fight in the bar!") with what would calm either."""
    if threatens(scene.heard):
        return Answer(("There's no call for that.", "Leave me be, or you'll regret it."))
    return Answer(("Easy, now.", "What's this about?"))


async def _other(scene: Scene) -> Answer:
    return Answer(("I'm not sure what you mean.",))


async def _request(scene: Scene) -> Answer:
    """A request is the work of whoever of the world's people its line is nearest by
    role (what they do, their routine, what the places they keep afford): the NPC sees
    to it when that is itself ("Of course, I'll take a look at your arm."), and names
    who does when it is someone else. What the NPC sells it grants with the price."""
    recalled = await scene.recall(scene.heard.text, CANDIDATES)
    if hindered := await hindrance(scene, recalled):  # "Bay 3 stays sealed"
        return hindered
    # with game actions declared, only they grant (deeds.py): words alone promise nothing
    granted = "" if scene.agent.actions else "Of course."
    if sold := _sold(scene, recalled, granted=granted):
        return sold
    wares = [m for m in await relevant(scene, recalled) if priced(m) and own(m, scene)]
    if wares:
        priced_said = (granted, _price(scene, wares[0]))
        return Answer(tuple(s for s in priced_said if s), tuple(scene.grounds), answered=True)
    likeness = await role_likeness(scene)
    mine = likeness.pop(scene.agent.agent_id, -1.0)
    best_other = max(likeness, key=likeness.__getitem__, default="")
    theirs = likeness.get(best_other, -1.0)
    if own_work(mine, theirs) and granted:
        done = promised(scene.heard.text)
        said = sentence(f"Of course, I'll {done}") if done else "Of course, I can help with that."
        return Answer((said,), (), answered=True)
    declined = ["I'm sorry, I can't help you with that."]
    grounds = []
    if best_other and theirs >= REFERS:
        other = scene.people[best_other]
        declined.append(f"You could ask {other}.")
        grounds.append(declined[-1])
        if known := await _known_of(scene, recalled, other):  # "...she's away Friday"
            declined.append(scene.say(known))
            grounds.append(known.description)
    return Answer(tuple(declined), tuple(grounds))


async def _known_of(
    scene: Scene, recalled: Sequence[MemoryRecord], name: str
) -> MemoryRecord | None:
    """What the NPC knows of the one it sends the speaker to that bears on the request:
    the best memory naming them among those the line bears on, else one that says where
    they will be at a time not yet past ("riding to Fort Clay on Friday")."""

    def names(memory: MemoryRecord) -> bool:
        return bool(names_in(memory.description, {name: name}))

    for memory in await relevant(scene, recalled):
        if names(memory):
            return memory
    for memory in await scene.recall(name, CANDIDATES):
        window = anchor(memory.description, memory.created)
        if names(memory) and window is not None and window.end > scene.now:
            return memory
    return None


REFERS = 0.3  # cosine from which the NPC names another whose role it is


async def _trade(scene: Scene) -> Answer:
    """What the wares the line names cost (trade.py: how many of each, and their total;
    an offer below the price is turned down), from the memories that say prices (what
    the game wrote of the NPC's wares); else the price the line bears on; asked about
    nothing in particular, the first few of them."""
    recalled = await scene.recall(scene.heard.text, CANDIDATES)
    if sold := _sold(scene, recalled):
        return sold
    if elsewhere := await _not_sold(scene, recalled):
        return elsewhere
    found = [m for m in await relevant(scene, recalled) if priced(m)]
    if found and not own(found[0], scene):  # a price it knows of another's ("the Gull")
        return Answer((scene.say(found[0]),), tuple(scene.grounds), answered=True)
    mine = [m for m in dict.fromkeys([*found, *recalled]) if own(m, scene)]
    if stock := [w for m in mine if (w := ware(m)) is not None][:WARES]:  # what it has
        scene.grounds.extend(w.grounds for w in stock)
        return Answer((catalogue(stock),), tuple(scene.grounds), answered=True)
    if found:
        return Answer((scene.say(found[0]),), tuple(scene.grounds), answered=True)
    wares = [m for m in mine if priced(m)][:WARES]
    if wares:
        return Answer(tuple(scene.say(m) for m in wares), tuple(scene.grounds), answered=True)
    if selling := _selling(scene):
        return Answer((selling,), (selling,), answered=True)
    return Answer(("I'm afraid I have nothing like that to sell.",))


async def _not_sold(scene: Scene, recalled: Sequence[MemoryRecord]) -> Answer | None:
    """Asked for a thing that none of its wares is ("Do you sell boats?" to a net
    mender), the NPC says it has none, and who else has one when it knows ("Tomas Reyes
    told me that he is selling his boat."), else what it does sell: its wares, or what
    its persona says it sells. A thing its persona says it sells, unpriced, it has.
    None when the line names no thing, or one of its wares."""
    stock = [w for m in recalled if own(m, scene) and (w := ware(m)) is not None]
    things = not_sold(scene.heard.text, stock)
    if not things:
        return None
    heads = {thing[-1] for thing in things_asked(scene.heard.text)}
    selling = _selling(scene)
    if not stock and heads & lemmas_of(selling):  # it has it, at no price the game gave
        yes = ("Yes, I do.",) if asks_yes_or_no(scene.heard.text) else ()
        return Answer((*yes, selling), (selling,), answered=True)
    said = [sentence(f"No, I don't sell {things[0]}")]
    # where it can be had: a memory naming it that is none of the wares (someone else's,
    # or what the NPC learnt of it: "the Magpie has berths at 200 credits"), priced first
    mine = {w.memory_id for w in stock}
    others = [
        m
        for m in recalled
        if m.memory_id not in mine
        and m.kind != MemoryKind.PLAN
        and heads & lemmas_of(m.description)
    ]
    if others:
        said.append(scene.say(min(others, key=lambda m: not priced(m))))
    elif stock:
        said.append(catalogue(stock[:WARES]))
        scene.grounds.extend(w.grounds for w in stock[:WARES])
    elif selling:
        said.append(selling)
        scene.grounds.append(selling)
    return Answer(tuple(said), tuple(scene.grounds), answered=True)


def _selling(scene: Scene) -> str:
    """The sentence of the NPC's persona that says what it sells, unpriced ("I keep
    the ring store, which sells tools, lamps and rations."); '' if none."""
    for said in sentences(persona_said(scene).get("identity", "")):
        words = lower_words(said)
        if any("sell" in getAllLemmas(w).get("VERB", ()) for w in words):
            return said
    return ""


def _price(scene: Scene, memory: MemoryRecord) -> str:
    """A priced memory as said: its ware's price ("A hand net is 6 coins.") when it
    says one of the NPC's wares, else the memory itself."""
    sold = ware(memory) if own(memory, scene) else None
    if sold is None:
        return scene.say(memory)
    scene.grounds.append(memory.description)
    return price_of(sold)


def _sold(scene: Scene, recalled: Sequence[MemoryRecord], granted: str = "") -> Answer | None:
    """The answer to a line that names the NPC's wares: their price, or what an order
    comes to, or the price held against a lower offer; None when it names none."""
    wares = [w for m in recalled if own(m, scene) and (w := ware(m)) is not None]
    orders = ordered(scene.heard.text, wares)
    if not orders:
        return None
    scene.grounds.extend(w.grounds for _, w in orders)
    offer = offered(scene.heard.text, orders)
    if len(orders) == 1 and offer is not None and offer < orders[0][1].price:
        said = holding(orders[0][1])
    elif len(orders) > 1 or orders[0][0] > 1:
        said = total(orders)
    else:
        said = price_of(orders[0][1])
    return Answer((*([granted] if granted else []), said), tuple(scene.grounds), answered=True)


WARES = 3  # priced memories said when the line asks about none in particular


async def _directions(scene: Scene) -> Answer:
    """The places the NPC knows that fit what the line looks for, by meaning: each
    place as its parts, what it affords, and the role of whoever works there (a persona
    that names it); with whom to ask there when one does ("You could try the supply
    depot at Ring B. Dela Okafor is there.")."""
    places = [p for p in scene.places if p != scene.agent.persona.home_address] or scene.places
    named = [p for p in scene.heard.places if p in places]
    keepers = {p: keepers_of(scene, p) for p in places}
    for agent_id in scene.heard.people:  # "how do I get to the herbalist?": where they live
        agent = scene.world.store.get_agent(agent_id)
        if not named and agent is not None and agent.persona.home_address in places:
            named = [agent.persona.home_address]
            keepers[named[0]] = [agent.persona]
    if not named and places:
        # each place by its nearest part: what it is, each thing it affords, who keeps it
        profiles = [
            [" ".join(parts(p)), *affordances(p), *(k.learned for k in keepers[p])] for p in places
        ]
        vectors = iter(await scene.embed([t for texts in profiles for t in texts]))
        likeness = np.array(
            [max(float(next(vectors) @ scene.heard.vector) for _ in texts) for texts in profiles]
        )
        order = np.argsort(-likeness)
        best = float(likeness[int(order[0])])
        named = [
            places[int(i)]
            for i in order[:2]
            if float(likeness[int(i)]) >= max(RELATED, best - ALSO)  # a second as near
        ]
        named = named or [places[int(order[0])]]
    if not named:
        return Answer(("I'm sorry, I don't know my way around well enough to say.",))
    where = " or ".join(dict.fromkeys(place_phrase(p) for p in named[:2]))
    said = [sentence(f"You could try {where}")]
    asked = parts(named[0])
    spot = asked[1].lower() if len(asked) > 1 else ""
    if spot and spot in scene.heard.text.lower() and spot not in asked[0].lower():
        said = [sentence(f"{place_phrase(asked[1])} is at {place_phrase(asked[0])}")]  # asked
    if len(keepers.get(named[0], [])) == 1:
        said.append(sentence(f"{keepers[named[0]][0].name} is there"))
    scene.grounds.extend(named)
    return Answer(tuple(said), tuple(named), answered=True)


ALSO = 0.05  # how much less near a second place may be and still be named


def time_greeting(now: GameTime) -> str:
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
