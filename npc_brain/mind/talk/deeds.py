"""Which of the game actions an NPC may do (declared by the game: game_actions.py) a
player's line asks for, with what arguments, and words that agree with the choice.

Code decides, the model only picks among declared values:
- a line of trade or a request that names a ware of a declared selling action (an ITEM
  argument's option, read by trade.ordered with how many), or counts what it is sold by
  ("three days" of "a day's docking"), buys it: the action, that
  option, a NUMBER argument's count, and the total price, said as trade says prices; a
  question about a price or a ware ("how much is a lantern?", "do you sell rope?", "the
  harbour dues for a week?") is answered from the declared prices and chooses nothing;
- a request chooses the action whose description (or example line, less
  EXAMPLE_LIFT) its embedding is nearest (MiniLM cosine from FITS, ahead of the next
  by MARGIN), or one that stands out of several (from DISTINCT_FITS, DISTINCT_MARGIN
  ahead), as does a line whose act the classifier is unsure of (a threat at less than
  FAINT_THREAT of the vote among them: a rough order); a line showing a need (a
  trouble: "caught my hand in the winch") is as near the action that stands for it
  as a line must be that is no request (_needed), and nearer than any other when it
  shows it surely and names no ware; a need several actions meet alike asks for the
  one the line is well nearest (DISTINCT_MARGIN), else is offered them all ("I can
  stitch and dress your wound or set your broken bone. Which do you need?"); a threat, or a demand
  whose "or ..." clause is one, the action that answers threats (refusing, arresting,
  fighting) nearest the line, where the game declared such;
- each argument takes the option the line names, else its only option, else the
  speaker when it may be one, else the option whose label the line is nearest by well
  ahead (OPTION_MARGIN), else the model's pick constrained by grammar to the declared
  values (Scene.pick); a NUMBER, the number the line says within its bounds.
Nothing here invents an action, an argument or a price.
"""

from __future__ import annotations

import itertools
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import cache

import numpy as np
from numpy.typing import ArrayLike, NDArray

from npc_brain.game_actions import (
    ActionArgument,
    ActionOption,
    ArgumentType,
    ChosenAction,
    GameAction,
)
from npc_brain.lexicon import LIGHT_VERBS, SERVED, TRADE_VERBS
from npc_brain.memory.records import MemoryRecord
from npc_brain.memory.when import past_tense
from npc_brain.mind.talk.acts import Act, Deal, Need, shipped
from npc_brain.mind.talk.answers import content_word
from npc_brain.mind.talk.hindrance import barred_options, hindrance
from npc_brain.mind.talk.realise import join_clauses, promised, sentence
from npc_brain.mind.talk.roles import services
from npc_brain.mind.talk.scene import CANDIDATES, Answer, Scene
from npc_brain.mind.talk.trade import (
    NUMERALS,
    Ware,
    amount,
    catalogue,
    counted,
    halved,
    holding,
    not_sold,
    noun_lemma,
    offered,
    ordered,
    party,
    price_of,
    total,
    unwanted,
    wanted_part,
)
from npc_brain.mind.talk.understand import (
    NEED_SURE,
    SURE,
    SURE_ORDER,
    Heard,
    a_question,
    asks_of_the_past,
    asks_why,
    imperative,
    last_sentence,
    shows,
    surely,
    tells_a_story,
    threatens,
)
from npc_brain.mind.talk.wh import Slot, asked_for, wh_opened
from npc_brain.words import (
    CLOSED_CLASS,
    DEMONSTRATIVES,
    DETERMINERS,
    NUMBER_WORDS,
    OF_THE_STOCK,
    PERSONAL,
    POSSESSIVES,
    PREPOSITIONS,
    QUANTIFIERS,
    YOU,
    all_lemmas,
    lower_words,
    names,
    phrases,
    sentences,
    stem,
    verb_only,
)

FITS = 0.35  # cosine of a request to an action's description from which it asks for it
MARGIN = 0.03  # how far ahead of the next action the nearest must be
WARES = 3  # declared wares listed when a line asks about none of them
# The ways of answering a threat, in plain words, one a kind: a declared action near
# one of them (from THREAT_FITS) is one the NPC may answer a threat with. On the
# bench's 47 declared actions, every hostile one is at 0.44 or more, and the nearest of
# the others (posting a guard, writing a pass with the guard's seal) at 0.39.
ANSWERS_TO_A_THREAT = (
    "refuse someone and send them away",
    "arrest someone and lock them up",
    "fight someone",
    "throw someone out",
    "call security on someone",
)
THREAT_FITS = 0.42


@dataclass(frozen=True)
class Deed:
    """A declared action chosen for a line: with its arguments' values, its price, and
    what the NPC agreed to, ending with the word before whom for ("sell a horseshoe
    to", "shoe the customer's horse for"), for its memory once done."""

    action: GameAction
    arguments: dict[str, str]
    price: float
    agreed: str

    def chosen(self) -> ChosenAction:
        """The choice as the game receives it, with a new id."""
        return ChosenAction(
            uuid.uuid4().hex, self.action.name, self.arguments, self.price, self.action.currency
        )


async def deed_answer(scene: Scene) -> Answer | None:
    """The answer to a line from the NPC's game actions (its Answer carries the Deed);
    None when they have nothing to say to it.

    The act read from the line decides less than the actions do: a line whose meaning
    is near one action's description asks for it whatever act its words are nearest
    ("horse needs new shoes" is small talk by its words), from STRONG_FITS when it is not
    a request, or when it stands out of the others and the act is unsure (less than
    understand.SURE of the vote: players put needs as troubles, alarms and situations
    that the classifier spreads over small talk, facts and feelings); a sure order
    (SURE_ORDER of the deal's vote) buys the ware it names, as does an unsure line
    naming a ware of the action it is nearest ("just a loaf, and quick").
    A hostile answer needs a sure threat (understand.SURE of the act's vote) or an
    ultimatum; a line less surely one is taken as asking. A question about a price or a
    ware says it and chooses nothing, as does a sure question of fact (unless it shows
    a need more surely: _rather_needs), a question in the past tense ("What did I
    buy from you?") and a story of the past (understand.tells_a_story); a sure
    greeting or farewell asks nothing of the NPC's hands."""
    actions = scene.agent.actions
    heard, line = scene.heard, scene.heard.text
    if (
        not actions
        or surely(heard, *_SOCIAL)
        or asks_of_the_past(line)
        or asks_why(line)
        or tells_a_story(heard)
    ):
        return None
    wares = declared_wares(actions)
    if (kept := wanted_part(line, wares)) != line:  # "Dont need a pickaxe, just a bunk"
        (vector,) = await scene.embed([kept])
        scene = replace(scene, heard=replace(heard, text=kept, vector=vector))
        heard, line = scene.heard, kept
    stems, counts, named = _stems_of(line), _counted(line), ordered(line, wares)
    nouns = _stems_of(line, nouns_only=True)
    # not a ware for sale that is only ever the speaker's own ("a can of O2 for my suit")
    named = [o for o in named if not _only_owned_for_sale(actions, line, o[1])]
    # a ware named by its head before one only counted by its measure ("five days of
    # chow ... one pack a day" is of ration packs, not of "a vac suit for a day")
    headed = [o for o in named if _head_named(o[1], line, nouns)]
    orders = headed + [o for o in named if o not in headed and _measure(o[1]) & counts]
    likeness = await _likeness(scene)
    nearest = actions[int(np.argmax(likeness))]
    if heard.ultimatum:  # "let me have her for fifty or she might catch fire": no haggling
        return await _threatened(scene, likeness)
    if _asks_about(heard) or orders and wh_opened(last_sentence(line)):  # "what's the figure?"
        # a price asked by the measure a ware is sold by is of that ware ("the harbour
        # dues for a week?" of "a week's mooring")
        asked = orders or [o for o in named if _measure(o[1]) & stems]
        return _told(scene, asked, wares, _pricing(line, actions, likeness, asked))
    if surely(heard, Act.FACT) and a_question(line) and not _rather_needs(heard):
        return None  # "is the causeway passable?" asks what is so, not for the ferry
    # a threat misread is near what it demands; not near fighting back ("I challenge
    # you to a duel, captain. Draw your sword." is a threat, as near the attack as 0.6)
    hostile = await _answer_threats(scene)
    demanded = max((x for x, h in zip(likeness, hostile, strict=True) if not h), default=-1.0)
    if threatens(heard) and demanded < MISREAD_THREAT:
        return await _threatened(scene, likeness, hostile)
    # past the threats, no hostile action is granted ("any odd jobs round the tavern?"
    # is near throwing a troublemaker out of the tavern by its words)
    likeness = [-1.0 if h else x for x, h in zip(likeness, hostile, strict=True)]
    serving = await _serving(scene, hostile)
    worded = list(likeness)  # as near as its words are, before a need leads
    needed = _needed(serving)
    if needed is not None and not await _for_one_of(scene, actions[needed]):
        needed = None  # sleeplessness is none of the ailments a remedy is brewed for
    if needed is not None:  # "caught my hand in the winch"
        likeness[needed] = max(likeness[needed], NEED_FITS)
        if surely_needs(heard) and not orders:  # "any way a fellow could earn his supper?"
            others = max((x for i, x in enumerate(likeness) if i != needed), default=-1.0)
            likeness[needed] = max(likeness[needed], others + MARGIN)
    nearest = actions[int(np.argmax(likeness))]
    asking = heard.act in (Act.REQUEST, Act.TRADE)
    unsure = heard.vote.confidence < SURE
    denied = unwanted(line, wares)
    wanted = [w for w in wares if w not in denied]  # not "dont need a room"
    if not orders and (asking or unsure) and (meant := await _ware_meant(scene, wanted, likeness)):
        orders = [(_said_number(line), meant)]
    if orders and orders[0][0] == 1 and (many := party(line)) > 1:  # "for me n my 2 mates"
        orders = [(many, orders[0][1]), *orders[1:]]
    ordering = _surely_ordered(heard)
    threat = heard.act is Act.THREAT and heard.vote.confidence >= FAINT_THREAT
    # an unsure line naming a ware of the action it is nearest buys it, unless it reads
    # as a threat and no order ("these buns are stale as driftwood, ashamed charging
    # money for them"; "could I take four of your lobster traps off your hands?" buys)
    wanting = not threat or _an_order(heard)
    plainly = unsure and wanting and bool(orders) and nearest.name == orders[0][1].action
    # a trouble told of a thing an action hands out or works on, not sells, asks for it
    # ("pulled the filter and it's caked black, can barely breathe in there")
    troubled = (
        unsure
        and not threat
        and bool(orders)
        and heard.act not in _SOCIAL
        and not a_question(line)
        and not _from_stock(line)  # "gimme one of them little choppin axes" picks one
        and not _sells(actions[_selling(actions, orders[0][1])])
    )
    if orders and (
        asking
        or ordering
        or plainly
        or troubled
        or max(likeness) >= STRONG_FITS
        or orders[0][0] > 1
    ):
        # a ware named is bought, unless the line asks for another action on it ("mend
        # my hand net" to one who sells and mends nets, "I'd like to see the boat before
        # I decide" to one who sells it and shows it), or is far nearer another, or
        # names one of its options whole ("would you bake her a birthday cake?" or "do
        # us a seed cake" to one who sells honey cakes and bakes to order)
        selling = _selling(actions, orders[0][1])
        nearer = max(likeness) - likeness[selling] >= FAR_NEARER
        # or is well nearer, by its words, the action that meets the need it shows
        # ("might I see the Gull down at the slipway before I decide?")
        if needed is not None and actions[needed] is nearest:
            nearer = nearer or worded[needed] >= worded[selling] + DISTINCT_MARGIN
        if nearest.name != orders[0][1].action and (
            _said_of(heard, nearest, *orders[0]) or nearer or _named_whole(nearest, line)
        ):
            return await _granted(scene, nearest)
        # a need names what is done with the ware when its action takes the ware ("put a
        # loaf by for me?"), or when it is surely shown and its action is the nearest
        # ("I'd like to see the boat before I decide"); not a need less sure ("gimme a
        # hatchet, need to chop firewood" is no blade to sharpen)
        if (
            needed is not None
            and needed != selling
            and (
                _takes(actions[needed], orders[0][1])
                or actions[needed] is nearest
                and surely_needs(heard)
                and not _other_items(actions[needed], orders[0][1])
            )
        ):
            return await _granted(scene, actions[needed], orders[0][0])
        return await _bought(scene, orders)
    best = _fitting(actions, likeness, FITS if asking else STRONG_FITS, MARGIN)
    if (
        best is None
        and (asking or unsure and not threat and heard.act not in _SOCIAL and not _no_need(heard))
        and len(actions) > 1
    ):
        best = _fitting(actions, likeness, DISTINCT_FITS, DISTINCT_MARGIN) or _naming(
            scene, likeness
        )
    if (
        best is None
        and not a_question(line)
        and not threat
        and heard.act not in _SOCIAL
        and not _no_need(heard)
        and len(actions) > 1
    ):  # a trouble told: "my knots slip every single time, never learned a proper one"
        told = _fitting(actions, likeness, DISTINCT_FITS, DISTINCT_MARGIN)
        # not the sale of a ware it names ("your water skins are the best in the desert")
        best = None if told is None or orders and told.name == orders[0][1].action else told
    if best is None and not threat and len(bidden := _bidden(line, actions, hostile)) == 1:
        best = bidden[0]  # "chief, hauler's loaded and fuelled. clear me out"
    if best is not None and (item := _priced_unnamed(scene, best)) is not None:
        if _sells(best):  # which is the buyer's to say
            said = catalogue([w for w in wares if w.action == best.name][:WARES])
            return Answer((said,), (said,), answered=True)
        if await _option_meant(scene, item.options) is None:  # "fix the wheel?" to a smith
            return _which(best, item)
    if best is not None and (choice := await _other_choice(scene, best)) is not None:
        return _choices(best, choice)  # "brew me a love potion" to one who brews remedies
    if best is not None:
        return await _granted(scene, best)
    if offers := _meeting(actions, serving):  # "rattler got me on the ankle" to a doctor
        near = [likeness[actions.index(a)] for a in offers]
        at, nearest_offer, next_offer = _top_two(near)  # one the line is well nearest
        if nearest_offer >= next_offer + DISTINCT_MARGIN:
            return await _granted(scene, offers[at])
        return _offered(offers)
    if heard.act is Act.TRADE and wares:
        return _told(scene, orders, wares, None)
    return None


# The threat's share of the vote under which a line read as a threat asks like any line
# the classifier is unsure of: rough orders and troubles ("pint of your best, been a
# long road", "Teach me that bowline") come out threats at 0.25 to 0.33 of the vote.
FAINT_THREAT = 0.35


# Acts that ask nothing of the NPC's hands: greetings and farewells, when sure ("Morning!
# Two loaves please." is as much an order as a greeting).
_SOCIAL = (Act.GREETING, Act.FAREWELL)
STRONG_FITS = 0.5  # cosine from which a line that is not a request asks for an action
# cosine from which a line read as a threat is a request for the action after all (a
# threat demands a thing, and is near what gives it, but rarely so near)
MISREAD_THREAT = 0.6
# A request, or a line the act classifier is unsure of ("the Wren's loaded and
# fuelled, clear us to undock?"), asks for an action that stands out of several: from
# DISTINCT_FITS, and DISTINCT_MARGIN ahead of every other one.
DISTINCT_FITS = 0.3
DISTINCT_MARGIN = 0.1
FAR_NEARER = 0.2  # how much nearer another action must be than the one selling a ware named


def _bidden(line: str, actions: Sequence[GameAction], hostile: Sequence[bool]) -> list[GameAction]:
    """The actions, but answers to threats, whose declared verb opens one of the line's
    sentences or phrases as an order ("clear me out" of clearing a ship to leave)."""
    opening = {stem(w[0]) for p in phrases(line) if (w := lower_words(p)) and imperative(w[0])}
    opening -= _LIGHT  # "give me ..." is no order to give work
    return [a for a, h in zip(actions, hostile, strict=True) if not h and _verbs(a) & opening]


_LIGHT = frozenset(stem(v) for v in LIGHT_VERBS)  # as verbs are compared: stemmed


def _only_owned_for_sale(actions: Sequence[GameAction], line: str, ware: Ware) -> bool:
    """Whether a ware for sale that no other action takes is named only as the speaker's
    own ("a can of O2 for my suit": not the suit; "my shrimping net" is still for the
    one who mends nets to hear)."""
    if not _sells(actions[_selling(actions, ware)]) or not _only_owned(line, ware):
        return False
    return not any(_takes(a, ware) for a in actions if a.name != ware.action)


def _selling(actions: Sequence[GameAction], ware: Ware) -> int:
    """Where in the declared actions the one is that takes a declared ware."""
    return next(i for i, a in enumerate(actions) if a.name == ware.action)


def _pricing(
    line: str,
    actions: Sequence[GameAction],
    likeness: Sequence[float],
    asked: Sequence[tuple[int, Ware]],
) -> GameAction | None:
    """The action whose price a question may ask instead of a ware's (_told): the one
    priced action that sells nothing whose verb the line says ("how much to get a pony
    shod?" of shoeing a horse), else the one the line is nearest, from FITS; when the
    line names a ware of another action, only if it is DISTINCT_MARGIN nearer than that
    action ("how much to get a busted drone working again?" of the repair, not of the
    refurbished drone sold)."""
    at, best = int(np.argmax(likeness)), max(likeness)
    # not a word of the ware asked ("one of your rebuilt repair drones", "mended nets")
    of_ware = {word for _, ware in asked for word in ware.words}
    words = lower_words(line)
    modifying = {  # "mended trawl nets", not "a trawl net mended"
        i for i, w in enumerate(words[:-1]) if {noun_lemma(w), noun_lemma(words[i + 1])} <= of_ware
    }
    said = " ".join(w for i, w in enumerate(words) if i not in modifying)
    saying = [  # not a light verb ("what would it run me" asks no diagnostic run)
        a for a in actions if not _sells(a) and _says_verb(said, a, _LIGHT) and _has_price(a)
    ]
    if len(saying) == 1:  # "how much u want to fix a drone that fried itself?"
        return saying[0]
    if best < FITS:
        return None
    if asked and actions[at].name != asked[0][1].action:
        return (
            actions[at]
            if best >= likeness[_selling(actions, asked[0][1])] + DISTINCT_MARGIN
            else None
        )
    return actions[at]


async def _ware_meant(scene: Scene, wares: Sequence[Ware], actions: Sequence[float]) -> Ware | None:
    """The ware a request or order means without naming it ("a bed for two nights" of
    "a room for the night", "bottles of oxygen" of "an oxygen canister", "a couple of
    stims" of "a stim shot"): the one whose words are nearest the line, from WARE_FITS
    and MARGIN ahead of the next, or standing out of several (from DISTINCT_FITS and
    WARE_MARGIN ahead), unless another action's description is nearer still
    (`actions`: each one's cosine)."""
    if not wares:
        return None
    called = [(i, name) for i, ware in enumerate(wares) for name in ware.names]
    vectors = await scene.embed([name for _, name in called])
    cosines = np.full(len(wares), -1.0)  # each ware's nearest name
    for (i, _), cosine in zip(called, vectors @ scene.heard.vector, strict=True):
        cosines[i] = max(cosines[i], float(cosine))
    names = [a.name for a in scene.agent.actions]
    near = dict(zip(names, actions, strict=True))
    at, best, second = _top_two(cosines)
    if len(wares) > 1:
        # the same thing to two actions, as near the line ("my trawl" to one who sells
        # a mended trawl net and mends a trawl net): the action the line is nearer says
        runner = int(np.argsort(cosines)[-2])
        if wares[runner].action != wares[at].action and best - second < WARE_MARGIN:
            if near[wares[runner].action] > near[wares[at].action]:
                at, runner, best = runner, at, second
            rest = (float(x) for i, x in enumerate(cosines) if i not in (at, runner))
            second = max(rest, default=-1.0)  # the two are one thing
    ware = wares[at]
    other = max((x for n, x in near.items() if n != ware.action), default=-1)
    fits = best >= WARE_FITS and best >= second + MARGIN
    stands_out = len(wares) > 1 and best >= DISTINCT_FITS and best >= second + WARE_MARGIN
    return ware if (fits or stands_out) and best > other else None


WARE_FITS = 0.5  # cosine of a line to a ware's words from which it means that ware
WARE_MARGIN = 0.15  # how far ahead of the next ware one below WARE_FITS must be


def _said_number(line: str) -> int:
    """The first number a line says of what it asks for ("a bed for two nights": 2);
    not "two of the fingers", some of a thing named, nor the "three" of a sum ("three
    hundred"), nor a number in a sentence of the past ("hasn't slept in three nights.
    I'll take something to put him under."); 1 when none."""
    words = lower_words(" ".join(s for s in sentences(line) if not past_tense(s)))
    of_some = {
        i
        for i in range(len(words) - 2)
        if words[i + 1] == "of" and words[i + 2] in _SOME and not _pointing(words[i + 2 :])
    }
    sums = {
        j
        for i in range(len(words) - 1)
        if _number_word(words[i]) and NUMBER_WORDS.get(words[i + 1], 0) >= 100
        for j in (i, i + 1)
    }
    kept = [w if i not in of_some | sums else "" for i, w in enumerate(words)]
    found = _first_number(kept, 1, MOST)
    return 1 if found is None else found


def _number_of(word: str) -> int | None:
    """The number a word says ("3", "three", "dozen", "a"), None for any other word."""
    return int(word) if word.isdecimal() else NUMERALS.get(word)


def _number_word(word: str) -> bool:
    return word.isdecimal() or word in NUMBER_WORDS


# "two of the fingers", "three of my crew"; "four of your lobster traps" are wares
_SOME = (DETERMINERS | PERSONAL) - YOU


def _pointing(words: Sequence[str]) -> bool:
    """Whether words open with a demonstrative, which points at the wares in view: "two
    of those pies", and "3 of them ration bricks" (but not "two of them are sick")."""
    return words[0] in DEMONSTRATIVES or (
        words[0] == "them" and len(words) > 1 and words[1] not in CLOSED_CLASS
    )


MOST = 1000  # a number said above this is no quantity (a year, a bay number)


async def _likeness(scene: Scene) -> list[float]:
    """Each action's cosine to the line: to its description and what it may take, to
    the nearest of its example lines where it has them (less EXAMPLE_LIFT), and to the
    nearest of the services people of the NPC's occupation are asked for that stand for
    it (roles.services: a medic's "treat your wound" and "see to your injury" stand for
    treating the patient's injury; a service is a request as a line is, so no lift)."""
    actions = scene.agent.actions
    asked = services(scene.agent.persona.learned)
    texts = [_described(a) for a in actions] + [x for a in actions for x in a.examples]
    vectors = await scene.embed([*texts, *asked])
    cosines = vectors @ scene.heard.vector
    likeness, at = [], len(actions)
    for i, action in enumerate(actions):
        examples = cosines[at : at + len(action.examples)]
        at += len(action.examples)
        likeness.append(float(max([cosines[i], *(examples - EXAMPLE_LIFT)])))
    if asked and len(actions) > 1:
        for service, cosine in zip(vectors[at:], cosines[at:], strict=True):
            i, best, second = _top_two(vectors[: len(actions)] @ service)
            if best >= SERVICE_FITS and best >= second + MARGIN:
                likeness[i] = max(likeness[i], float(cosine))
    return likeness


async def _serving(scene: Scene, hostile: Sequence[bool]) -> NDArray[np.float64] | None:
    """How near each declared action's description is to the services of the need the
    line shows (need_services: the nearest of them), or None when it shows none from
    NEED_SURE of its vote: "caught my hand in the winch" shows an injury, whose "treat an
    injury" is near the medic's "treat the patient's injury", and far from what the
    medic sells. No answer to a threat (`hostile`) meets a need ("send the asker away"
    is near "give the asker work" in words): those are at -1."""
    need, actions = scene.heard.need, scene.agent.actions
    if need is None or need.label == Need.NONE or need.confidence < NEED_SURE:
        return None
    wanted = need_services()[Need(need.label)]
    vectors = await scene.embed([*(a.description for a in actions), *wanted])
    described, services = vectors[: len(actions)], vectors[len(actions) :]
    serving = np.asarray((described @ services.T).max(axis=1), dtype=np.float64)
    serving[list(hostile)] = -1.0  # no need is met by refusing or fighting
    return serving


def _needed(serving: NDArray[np.float64] | None) -> int | None:
    """Where in the declared actions the one is that stands for the need the line shows
    (_serving), which is then at least NEED_FITS near the line: the nearest its
    services, from SERVICE_FITS and NEED_MARGIN ahead of the next."""
    if serving is None:
        return None
    i, best, second = _top_two(serving)
    return i if best >= SERVICE_FITS and best >= second + NEED_MARGIN else None


async def _for_one_of(scene: Scene, action: GameAction) -> bool:
    """Whether the line is about one of the choices each of an action's CHOICE arguments
    offers, when it offers several: one it names or means (_option_meant). A need met
    only for the choices declared is not met for another: "i need something to put me
    under at night" shows an illness, and is no cough, stomach ache or headache that
    the herbalist brews a remedy for."""
    for argument in _choice_arguments(action):
        if not await _chosen_in(scene, argument):
            return False
    return True


def _choice_arguments(action: GameAction) -> list[ActionArgument]:
    """An action's CHOICE arguments that offer several options."""
    return [a for a in action.arguments if a.type is ArgumentType.CHOICE and len(a.options) > 1]


async def _chosen_in(scene: Scene, argument: ActionArgument) -> bool:
    """Whether the line names or means (_option_meant) one of an argument's options."""
    if _options_named(argument, _stems_of(scene.heard.text), scene.heard.text):
        return True
    return await _option_meant(scene, argument.options) is not None


def _meeting(
    actions: Sequence[GameAction], serving: NDArray[np.float64] | None
) -> list[GameAction]:
    """The declared actions that meet the need a line shows as well as each other
    (_serving: from SERVICE_FITS, within NEED_MARGIN of the nearest), when several do: a
    doctor who stitches wounds and sets bones, to "a rattler got me on the ankle"."""
    if serving is None:
        return []
    best = float(serving.max())
    close = [
        a
        for a, x in zip(actions, serving, strict=True)
        if x >= max(SERVICE_FITS, best - NEED_MARGIN)
    ]
    return close if len(close) > 1 else []


def _offered(actions: Sequence[GameAction]) -> Answer:
    """What the NPC can do about a need several of its actions meet, asked which
    ("I can stitch a wound or set a broken bone. Which do you need?"); nothing chosen."""
    done = [_to_you(a.description) for a in actions[:OFFERED]]
    said = sentence(f"I can {', '.join(done[:-1])} or {done[-1]}")
    return Answer(
        (said, "Which do you need?"), tuple(a.description for a in actions), answered=True
    )


OFFERED = 3  # actions offered at most


def _to_you(description: str) -> str:
    """A description said to the one it serves: "the customer's horse" is "your horse",
    "a patient's wound" is "your wound", "give the asker work" is "give you work"."""
    said: list[str] = []
    for word in description.split():
        if said and said[-1].lower() in ("the", "a", "an") and (served := _served(word)):
            said[-1] = served  # the article goes with the noun
        else:
            said.append(word)
    return " ".join(said)


def _served(word: str) -> str | None:
    """ "your" for a noun of the one an action serves in the possessive ("patient's"),
    "you" for it bare; None for any other word."""
    bare, possessive = word.removesuffix("'s"), word.endswith("'s")
    if bare.lower() not in SERVED:
        return None
    return "your" if possessive else "you"


def _rather_needs(heard: Heard) -> bool:
    """Whether a line shows a need surely, and more surely than its act is read: "I'm
    skint. Any odd jobs going round the tavern?" asks what is so by its words (0.52),
    and shows a need of work (0.85); "is the road to the pass safe at night?" is a
    question (0.75) before it is a need of passage (0.57)."""
    need = heard.need
    return need is not None and need.confidence >= SURE and need.confidence > heard.vote.confidence


def _no_need(heard: Heard) -> bool:
    """Whether a line surely shows no need of a service ("is it true the goblins got
    Fenwick's sheep?"): an act the classifier is unsure of then asks for none."""
    return shows(heard.need, Need.NONE, SURE)


def surely_needs(heard: Heard) -> bool:
    """Whether a line shows a need by a sure vote (understand.SURE)."""
    return heard.need is not None and heard.need.confidence >= SURE


# How near a line is to the action its need stands for: as near as a line that is no
# request must be (STRONG_FITS), not so near that it outweighs a ware named
# (FAR_NEARER) or an action the line says in its own words.
NEED_FITS = STRONG_FITS
NEED_MARGIN = 0.1  # how much nearer one of its services the action must be than the next


@cache
def need_services() -> dict[Need, tuple[str, ...]]:
    """What each need asks an NPC to do (data/need_services.tsv)."""
    found: dict[Need, list[str]] = {need: [] for need in Need}
    for example in shipped("need_services.tsv", tuple(Need)):
        found[Need(example.label)].append(example.text)
    return {need: tuple(texts) for need, texts in found.items()}


SERVICE_FITS = 0.4  # cosine of a service to an action's description from which it stands for it


# How much nearer a line is to an example line than to a description of the same
# meaning: lines and examples are alike in form, which a description is not.
EXAMPLE_LIFT = 0.15


def _stems_of(text: str, nouns_only: bool = False) -> set[str]:
    """A text's content words as stems; with `nouns_only`, not those that can only be a
    verb ("whatever you've got bottled" says no bottle)."""
    return {
        stem(w) for w in lower_words(text) if content_word(w) and not (nouns_only and verb_only(w))
    }


def _head(ware: Ware) -> set[str]:
    """The stems that name a declared ware: the heads of all its names (_heads)."""
    return _head_stems(ware.names)


def _head_stems(names: Sequence[str]) -> set[str]:
    """The stems of the heads of a thing's names (_heads)."""
    return {stem(word) for word in _heads(names)}


def _heads(names: Sequence[str]) -> set[str]:
    """The words that name a thing, in each of its names: the last word before an aside
    ("room" of "a room for the night", "net" of "hand net"), and before "of" too
    ("bottle" and "brandy" of "a bottle of plum brandy")."""
    heads = set()
    for name in names:
        words = lower_words(name)
        words = words[: next((i for i, w in enumerate(words) if w in _ASIDE), len(words))]
        parts = [words, words[: words.index("of")]] if "of" in words else [words]
        heads |= {last for part in parts for last in [w for w in part if content_word(w)][-1:]}
    return heads


def _head_named(ware: Ware, line: str, stems: set[str]) -> bool:
    """Whether a line (its content `stems`) names a ware by a head of its names, or by
    the head of its label as the last part of a closed compound ("four shoes for my
    mare" of "a horseshoe")."""
    return bool(_head(ware) & stems) or any(
        names(noun_lemma(word), head) for word in lower_words(line) for head in _heads([ware.item])
    )


_ASIDE = PREPOSITIONS - {"of"}  # "a room for the night", "a bed in the loft"


def _measure(ware: Ware) -> set[str]:
    """The stems of what a ware is sold by, which a line counts to name it: the noun of
    a measure before "'s" ("day" of "a day's docking") and the last word of an aside
    ("crate" of "hauling for one crate", "night" of "a room for the night")."""
    words = lower_words(ware.item)
    measured = {stem(w) for w in words if w.endswith("'s")}
    aside = next((i for i, w in enumerate(words) if w in _ASIDE), None)
    if aside is not None and (after := [w for w in words[aside + 1 :] if content_word(w)]):
        measured.add(stem(after[-1]))
    return measured


def _counted(line: str) -> set[str]:
    """The stems of the words a line counts two or more of ("three days", "six
    crates", "two weeks' berth")."""
    words = lower_words(line)
    return {
        stem(after)
        for word, after in itertools.pairwise(words)
        if (n := _number_of(word)) is not None and n > 1
    }


def _takes(action: GameAction, ware: Ware) -> bool:
    """Whether an action takes a ware as an argument: an option of the same value or
    of all its words ("hand net" to mend of a "hand net" to sell; not "birthday cake"
    to bake of a "honey cake"); or, taking none, names it in its description ("walk a
    buyer down to the slipway to look over the Gull" of "the Gull" for sale)."""
    if not action.arguments:
        return bool(_head(ware) & _stems_of(action.description))
    words = _stems_of(ware.item)
    options = [o for a in action.arguments for o in a.options]
    return any(o.value == ware.value or words <= _stems(o) for o in options)


def _naming(scene: Scene, likeness: Sequence[float]) -> GameAction | None:
    """The one action a line names an argument option of, other than a ware ("PRESSURE
    ALARM on Ring C!" of patching a breach in one of the rings), when it is also the
    action nearest the line, from NAMED_FITS."""
    actions, said = scene.agent.actions, _stems_of(scene.heard.text)
    naming = [
        i
        for i, action in enumerate(actions)
        for argument in action.arguments
        if argument.type not in (ArgumentType.ITEM, ArgumentType.NUMBER)
        and _options_named(argument, said, scene.heard.text)
    ]
    if len(set(naming)) != 1 or likeness[naming[0]] < max(NAMED_FITS, *likeness):
        return None
    return actions[naming[0]]


NAMED_FITS = 0.25  # cosine from which a line naming an action's option asks for it


def _fitting(
    actions: Sequence[GameAction], likeness: Sequence[float], floor: float, margin: float
) -> GameAction | None:
    """The action nearest the line, if from `floor` and `margin` ahead of the next."""
    at, best, second = _top_two(likeness)
    return actions[at] if best >= floor and best >= second + margin else None


def _top_two(values: ArrayLike) -> tuple[int, float, float]:
    """Where the largest of `values` is, it, and the next largest (-1 when it is alone)."""
    array = np.asarray(values, dtype=float)
    order = np.argsort(-array)
    second = float(array[order[1]]) if len(array) > 1 else -1.0
    return int(order[0]), float(array[order[0]]), second


def declared_wares(actions: Sequence[GameAction]) -> list[Ware]:
    """The options of every declared ITEM argument, as wares at their price (or their
    action's), each keeping its action's name in `grounds`."""
    wares = []
    for action in actions:
        for option in action.items:
            price = option.price or action.price
            verb = action.name.replace("_", " ")
            grounds = f"I {verb} {option.said} for {amount(price, action.currency)}"
            wares.append(
                Ware(
                    grounds,
                    option.said,
                    price,
                    action.currency,
                    0,
                    option.value,
                    action.name,
                    option.aliases,
                )
            )
    return wares


def _asks_about(heard: Heard) -> bool:
    """Whether a line asks about prices or wares rather than for one: its deal, read
    from labelled examples (data/deals.tsv: "what's the damage?", "whatcha want for
    that", "do you sell rope?"), or a question of amount ("how much for a net?")."""
    deal = heard.deal
    if deal is not None and deal.label == Deal.ASK and deal.confidence >= SURE_ASK:
        return True
    return asked_for(heard.text) in (Slot.AMOUNT, Slot.COUNT)


# The deal's share from which a line asks rather than orders: on the bench's train split,
# with data/deals.tsv's second round, every price question is read as one at 0.88 or
# more (but "whats a room go for these days", told by its wh-word), and orders and
# threats that ask something on the way at 0.50 or less; this is the middle of the gap.
SURE_ASK = 0.67


def _told(
    scene: Scene,
    orders: Sequence[tuple[int, Ware]],
    wares: Sequence[Ware],
    nearest: GameAction | None,
) -> Answer:
    """Prices and wares said, nothing chosen: of the wares named, unless the action the
    line is nearest is another one that has a price ("what would a cake to order cost?"
    to one who sells cakes and bakes them to order), and one that takes the ware only
    when the line says its verb ("what's a hand net cost?" to one who sells and mends
    them asks the price of one; "what do you charge to mend a hand net?", of mending);
    else what it sells."""
    line = scene.heard.text
    if orders and not _prices_another(line, orders[0][1], nearest):
        free = all(ware.price == 0 for _, ware in orders)
        said = sentence(f"{orders[0][1].item} is free") if free else _priced_said(orders)
        return Answer((said,), (said,), answered=True)
    if nearest is not None and (price := _priced(nearest, _named(scene, nearest))):
        said = sentence(f"It's {amount(price, nearest.currency)}")
        return Answer((said,), (nearest.description,), answered=True)
    things = not_sold(line, wares)
    listed = [sentence(f"No, I don't sell {things[0]}")] if things else []
    if wares:
        listed.append(catalogue(wares[:WARES]))
    return Answer(tuple(listed), tuple(listed), answered=True) if listed else Answer(())


def _said_of(heard: Heard, action: GameAction, count: int, ware: Ware) -> bool:
    """Whether a line asks another action of `count` of a ware it names: the action
    takes the ware, and the line says its verb ("keep a fish pie back for me"), names
    the thing as the speaker's own ("a seal chewed the mesh out of my hand net"), or is
    not surely an order by its deal (SURE_ORDER) and asks for one ("save me a fish pie
    for tonight?"), shows no need to buy (_buying) and picks none from stock.
    "I'll have one of your fish pies", "we'll need three hand nets" and "need an O2
    canister" buy, though keeping one aside, mending nets or finding the missing
    canisters takes them too. A sale is asked the other way round: by an order, a need
    to buy or a pick from stock, never by their lack ("*sets a dagger on the anvil*
    bought this off you in the spring and the tip snapped" is for the smith to mend)."""
    if _sells(action):  # one of its own of the same name ("sell me one of your drones")
        if not _sells_alike(action, ware):
            return False
        ordering = _an_order(heard) or _buying(heard) or _from_stock(heard.text)
        return ordering or _says_verb(heard.text, action)
    if not _takes(action, ware):
        return False
    if _says_verb(heard.text, action):
        return True
    return _owned(heard.text, ware) or (
        not _surely_ordered(heard)
        and count == 1
        and not _buying(heard)
        and not _from_stock(heard.text)
    )


def _sells_alike(action: GameAction, ware: Ware) -> bool:
    """Whether a selling action sells the ware, or one of the same head ("a refurbished
    repair drone" of "a broken drone" to mend)."""
    head = _head(ware)
    return _takes(action, ware) or any(
        head & _head_stems([o.said, *o.aliases]) for o in action.items
    )


def _surely_ordered(heard: Heard) -> bool:
    """Whether a line's deal is surely an order (SURE_ORDER)."""
    deal = heard.deal
    return deal is not None and deal.label == Deal.ORDER and deal.confidence >= SURE_ORDER


def _from_stock(line: str) -> bool:
    """Whether a line picks some of the wares in the NPC's stock: a number, or "some"
    or "a few", of the ones there ("one of the cyber eyes", "two of your pies")."""
    words = lower_words(line)
    return any(
        (_number_of(a) is not None or a in QUANTIFIERS) and b == "of" and c in OF_THE_STOCK
        for a, b, c in zip(words, words[1:], words[2:], strict=False)
    )


def _buying(heard: Heard) -> bool:
    """Whether a line surely shows a need to buy a thing (Need.GOODS: "need an O2
    canister for my EVA tomorrow"), whatever its deal reads."""
    return shows(heard.need, Need.GOODS, NEED_SURE)


def _an_order(heard: Heard) -> bool:
    """Whether a line's deal is read as an order, however surely."""
    return heard.deal is not None and heard.deal.label == Deal.ORDER


def _named_whole(action: GameAction, line: str) -> bool:
    """Whether a line names an option of the action (other than a ware it sells) by all
    its words ("a seed cake")."""
    said = _stems_of(line)
    options = [o for a in action.arguments if a.type is not ArgumentType.ITEM for o in a.options]
    return any(_stems(o) <= said for o in options)


def _owned(line: str, ware: Ware) -> bool:
    """Whether a line names a ware as the speaker's own or another's it speaks of: a
    possessive not the listener's comes before the ware's head ("my hand net", "our
    trawl net"; not "your fish pies")."""
    return _possessed(line, ware)[:1] == [True]


def _possessed(line: str, ware: Ware) -> list[bool]:
    """For each time a line names a ware's head, whether a possessive not the
    listener's comes before it (within OWNER_REACH words)."""
    words, head, mine = lower_words(line), _head(ware), POSSESSIVES - YOU
    return [
        bool(mine & set(words[max(0, i - OWNER_REACH) : i]))
        for i, word in enumerate(words)
        if stem(word) in head
    ]


OWNER_REACH = 3  # words before a ware's head a possessive may be ("my old hand net")


def _only_owned(line: str, ware: Ware) -> bool:
    """Whether every time a line names a ware's head it is the speaker's own or
    another's ("a can of O2 for my suit"; not "lost my lantern, need a new lantern")."""
    possessed = _possessed(line, ware)
    return bool(possessed) and all(possessed)


def _prices_another(line: str, ware: Ware, nearest: GameAction | None) -> bool:
    """Whether a question that names a ware asks the price of the other action it is
    nearest; of one that takes the ware too, only when the line says its verb."""
    if nearest is None or nearest.name == ware.action:
        return False
    return not _takes(nearest, ware) or _says_verb(line, nearest)


def _priced_unnamed(scene: Scene, action: GameAction) -> ActionArgument | None:
    """The ITEM argument of an action, when it has several priced options and the line
    names none of them."""
    item = action.argument(ArgumentType.ITEM)
    if item is None or len(item.options) < 2 or not any(o.price for o in item.options):
        return None
    return None if item.name in _named(scene, action) else item


async def _other_choice(scene: Scene, action: GameAction) -> ActionArgument | None:
    """The CHOICE argument of several options whose place the thing a request asks the
    action for takes, when that thing is none of them: no option is named or meant, and
    the nouns of what is asked ("brew me a love potion for the miller's daughter") say
    none of the options, the argument, or the action's own words ("brew a remedy to
    order for an ailment": a cough, a stomach ache or a headache)."""
    asked = lower_words(promised(scene.heard.text))[1:]  # past the verb
    nouns = _stems_of(" ".join(asked), nouns_only=True)
    if not nouns:
        return None
    for argument in _choice_arguments(action):
        own = _stems_of(f"{argument.name.replace('_', ' ')} {action.description}")
        if nouns & (own | {s for o in argument.options for s in _stems(o)}):
            continue
        if not await _chosen_in(scene, argument):
            return argument
    return None


def _choices(action: GameAction, choice: ActionArgument) -> Answer:
    """What an action is done for, said as the choices a request asked for none of ("I
    can brew a remedy to order for an ailment: a cough, a stomach ache or a headache."):
    nothing chosen."""
    options = join_clauses([o.said for o in choice.options], "or")
    said = sentence(f"I can {_to_you(action.description)}: {options}")
    return Answer((said,), (action.description,), answered=True)


def _which(action: GameAction, item: ActionArgument) -> Answer:
    """What an action that works on a thing can take, priced, asked which ("I can repair
    a sword for 6 coins, a dagger for 4 coins or an axe for 3 coins. Which is it?"):
    nothing chosen, as the model would have to guess."""
    verb = lower_words(action.description)[:1]
    things = [
        f"{o.said} for {amount(o.price or action.price, action.currency)}" for o in item.options
    ]
    said = sentence(f"I can {' '.join(verb)} {join_clauses(things, 'or')}")
    return Answer((said, "Which is it?"), (action.description,), answered=True)


def _priced_said(orders: Sequence[tuple[int, Ware]]) -> str:
    """What wares ordered cost ("Two loaves of bread come to 2 coins."); free ones are
    handed over ("Here's a pressure valve.")."""
    if all(ware.price == 0 for _, ware in orders):
        things = [counted(n, ware.item) for n, ware in orders]
        verb = "is" if len(things) == 1 and orders[0][0] == 1 else "are"
        return sentence(f"Here {verb} {join_clauses(things)}")
    if len(orders) > 1 or orders[0][0] > 1:
        return total(orders)
    return price_of(orders[0][1])


def _named(scene: Scene, action: GameAction) -> dict[str, str]:
    """The options of an action's arguments that the line names, by argument."""
    said = _stems_of(scene.heard.text)
    named = {}
    for argument in action.arguments:
        found = _options_named(argument, said, scene.heard.text)
        if len(found) == 1:
            named[argument.name] = found[0].value
    return named


def _options_named(argument: ActionArgument, said: set[str], line: str = "") -> list[ActionOption]:
    """The options of an argument that stems `said` name by what sets each apart, or
    that the `line` says whole ("ring A" of "Ring A", whose letter is no content word),
    or one of whose aliases it says whole ("the mill" of "the old mill")."""
    words = " ".join(lower_words(line))
    return [
        o
        for o in argument.options
        if _distinct(o, argument) & said
        or (line and _said_whole(o, words))
        or any(f" {' '.join(lower_words(alias))} " in f" {words} " for alias in o.aliases)
    ]


def _said_whole(option: ActionOption, words: str) -> bool:
    """Whether lowercase `words` say an option's label of two or more words whole, less
    the determiner it opens with ("the docking ring")."""
    label = lower_words(option.said)
    label = label[1:] if label[:1] and label[0] in DETERMINERS else label
    return len(label) > 1 and f" {' '.join(label)} " in f" {words} "


async def _bought(scene: Scene, orders: Sequence[tuple[int, Ware]]) -> Answer:
    """The first ware ordered, bought with the action that sells it, at its price times
    how many (within a NUMBER argument's bounds, when the action has one); an offer
    below its price is turned down and chooses nothing."""
    count, ware = orders[0]
    offer = offered(scene.heard.text, orders)
    if offer is not None and offer < ware.price:
        said = holding(ware)
        return Answer((said,), (said,), answered=True)
    action = scene.agent.actions[_selling(scene.agent.actions, ware)]
    item = action.argument(ArgumentType.ITEM)
    assert item is not None
    arguments = {item.name: ware.value}
    quantity = action.argument(ArgumentType.NUMBER)
    if quantity is not None:  # else the game learns how many by the price alone
        count = min(max(count, quantity.low), quantity.high)
        arguments[quantity.name] = str(count)
    arguments |= await _rest(scene, action, arguments)
    said = _priced_said([(count, ware)])
    if ware.price and not _sells(action):  # "mend my trawl": not "A trawl net is 12 coins."
        done = _promise(scene.heard.text, action)
        agreed = [sentence(f"Of course, I'll {done}") if done else "Of course."]
        said = sentence(f"That's {amount(count * ware.price, action.currency)}")
    else:
        agreed = ["Of course."]
    verb = action.name.split("_")[0]
    deed = Deed(action, arguments, count * ware.price, f"{verb} {counted(count, ware.item)} to")
    # one action a reply: the other wares ordered are asked for again, not dropped unsaid
    rest = [w.item for _, w in orders[1:] if w is not ware]
    then = [sentence(f"Then ask me for {join_clauses(rest)}")] if rest else []
    return Answer((*agreed, said, *then), (said,), answered=True, deed=deed)


def _has_price(action: GameAction) -> bool:
    """Whether an action costs something, itself or by an option of its arguments."""
    return action.price > 0 or any(o.price > 0 for a in action.arguments for o in a.options)


def _other_items(action: GameAction, ware: Ware) -> bool:
    """Whether an action takes things, but not the ware named: a baker who keeps back
    loaves and fish pies keeps back no honey cake ("put a honey cake by for me?")."""
    items = [a for a in action.arguments if a.type is ArgumentType.ITEM]
    return bool(items) and not _takes(action, ware)


def _sells(action: GameAction) -> bool:
    """Whether an action trades its ITEM for a price, by the verb its description opens
    with ("sell nets and rope", "charge for docking"), rather than does something to it
    ("mend a torn net", "repair a damaged weapon")."""
    first = lower_words(action.description)[:1]
    return bool(first) and bool(all_lemmas(first[0]) & TRADE_VERBS)


async def _granted(scene: Scene, action: GameAction, count: int = 1) -> Answer:
    """A request granted with the action: its arguments, its price said (for `count` of
    the ware the line names, when the action takes no NUMBER: "put two loaves by for
    me"); refused with its reason when the NPC's own state keeps it from it
    (hindrance.py: "open the east gate tomorrow" to the captain who shuts it all day
    tomorrow)."""
    recalled = await scene.recall(scene.heard.text, CANDIDATES)
    if hindered := await hindrance(scene, recalled):
        return hindered
    arguments = await _rest(scene, action, {}, recalled)
    done = _promise(scene.heard.text, action)
    said = [sentence(f"Of course, I'll {done}") if done else "Of course."]
    if picked := _picked(scene.heard.text, action, arguments):  # "Bay 5 it is."
        said.append(sentence(f"{join_clauses(picked)} it is"))
    price = _priced(action, arguments, count)
    if price:
        said.append(sentence(f"That's {amount(price, action.currency)}"))
    deed = Deed(action, arguments, price, _agreed(action, arguments))
    return Answer(tuple(said), (action.description,), answered=True, deed=deed)


def _picked(line: str, action: GameAction, arguments: dict[str, str]) -> list[str]:
    """The labels of the options the NPC chose where the line named none of several
    ("where do you want me to put her?": bay 5), which the player must be told; not an
    agent (the speaker)."""
    stems = _stems_of(line)
    return [
        o.said
        for a in action.arguments
        if len(a.options) > 1 and a.type is not ArgumentType.AGENT
        for o in a.options
        if arguments.get(a.name) == o.value and not _options_named(a, stems, line)
    ]


def _promise(line: str, action: GameAction) -> str:
    """What the NPC promises in the line's own words ("mend your net"), only when its
    verb is one the action is declared with (the first word of its name, of its
    description, or of what its example lines ask): else the words might promise what
    the game was not asked to do ("I'll open the armoury" for an escort), and "Of
    course." says enough."""
    done = promised(line)
    return done if (said := lower_words(done)) and stem(said[0]) in _verbs(action) else ""


def _says_verb(line: str, action: GameAction, besides: frozenset[str] = frozenset()) -> bool:
    """Whether a line says a verb the action is declared with, in any of its forms
    ("mend" of mend_net, "shod" of shoe_horse), other than the verb stems `besides`."""
    said = {stem(lemma) for w in lower_words(line) if content_word(w) for lemma in all_lemmas(w)}
    return bool(_verbs(action) & (said | _stems_of(line)) - besides)


def _verbs(action: GameAction) -> set[str]:
    """The stems of the verbs an action is declared with: the first word of its name, of
    its description, and of what its example lines ask."""
    phrases = (action.name.replace("_", " "), action.description, *map(promised, action.examples))
    return {stem(words[0]) for words in map(lower_words, phrases) if words}


def _priced(action: GameAction, arguments: dict[str, str], count: int = 1) -> float:
    """What the action costs with these arguments: a chosen ITEM option's price (times
    a NUMBER argument's count, else `count`: the game learns how many by the price, as
    of a sale), else the action's own price."""
    numbers = [a.name for a in action.arguments if a.type is ArgumentType.NUMBER]
    count = int(arguments.get(numbers[0]) or 1) if numbers else count
    item = action.argument(ArgumentType.ITEM)
    chosen = [
        o
        for o in (item.options if item else ())
        if o.value == arguments.get(item.name if item else "")
    ]
    each = chosen[0].price if chosen and chosen[0].price else action.price
    return count * each


async def _threatened(
    scene: Scene, likeness: Sequence[float], answering: Sequence[bool] | None = None
) -> Answer | None:
    """Of the declared actions that answer a threat (near enough to one of ANSWERS_TO_A_THREAT,
    unless the caller read them: `answering`), the one nearest the line (`likeness`:
    each action's cosine to it): a guard arrests one who threatens arson, and fights
    one who draws a sword."""
    actions = scene.agent.actions
    if answering is None:
        answering = await _answer_threats(scene)
    hostile = [i for i, answers in enumerate(answering) if answers]
    if not hostile:
        return None
    action = actions[max(hostile, key=lambda i: likeness[i])]
    arguments = await _rest(scene, action, {})
    said = ("I won't stand for that.",)
    deed = Deed(action, arguments, 0.0, _agreed(action, arguments))
    return Answer(said, (action.description,), answered=True, deed=deed)


async def _answer_threats(scene: Scene) -> list[bool]:
    """Whether each declared action is one of the NPC's answers to a threat: near one
    of ANSWERS_TO_A_THREAT, from THREAT_FITS."""
    answers = len(ANSWERS_TO_A_THREAT)
    described = (a.description for a in scene.agent.actions)
    vectors = await scene.embed([*ANSWERS_TO_A_THREAT, *described])
    nearness = (vectors[answers:] @ vectors[:answers].T).max(axis=1)
    return [bool(x >= THREAT_FITS) for x in nearness]


def _described(action: GameAction) -> str:
    """An action as a request is compared with: its description, and what it may take
    ("open one of the town gates: the east gate, the west gate")."""
    said = [o.said for a in action.arguments for o in a.options][:8]
    return f"{action.description}: {', '.join(said)}" if said else action.description


async def _rest(
    scene: Scene,
    action: GameAction,
    given: dict[str, str],
    recalled: Sequence[MemoryRecord] | None = None,
) -> dict[str, str]:
    """A value for each argument not `given`, among the options no memory at hand bars
    (hindrance.barred_options: "Bay 3 stays sealed"): the option the line names, else
    the only one, else the speaker where it is one, else the one it means
    (_option_meant), else the model's pick among them; a NUMBER, the number the line
    says within its bounds, else its lowest."""
    words = lower_words(scene.heard.text)
    said = {stem(w) for w in words}
    if recalled is None:  # the memories at hand, unless the caller recalled them
        recalled = await scene.recall(scene.heard.text, CANDIDATES)
    values = {}
    for argument in action.arguments:
        if argument.name in given:
            continue
        if argument.type is ArgumentType.NUMBER:
            values[argument.name] = str(_number(words, argument))
            continue
        barred = await barred_options(scene, recalled, argument.options)
        free = [o for o in argument.options if o.value not in barred] or list(argument.options)
        named = [o for o in _options_named(argument, said, scene.heard.text) if o in free]
        if len(named) == 1:
            values[argument.name] = named[0].value
        elif len(free) == 1:  # the only one, or the only one not barred ("bay 3 is sealed")
            values[argument.name] = free[0].value
        elif scene.speaker_id in (o.value for o in free):
            values[argument.name] = scene.speaker_id
        elif (meant := await _option_meant(scene, named or free)) is not None:
            values[argument.name] = meant.value
        else:
            options = named or free
            question = (
                f"{scene.heard.text}\nWhich {argument.name.replace('_', ' ')} does this mean?"
            )
            values[argument.name] = await scene.pick(question, [o.value for o in options])
    return values


async def _option_meant(scene: Scene, options: Sequence[ActionOption]) -> ActionOption | None:
    """The option a line means without naming it ("we're getting married ... something
    tall and white with icing" of "a wedding cake"): the one whose label is nearest the
    line, OPTION_MARGIN ahead of the next; None when none is that far ahead."""
    at, best, second = _top_two(await scene.embed([o.said for o in options]) @ scene.heard.vector)
    return options[at] if best >= second + OPTION_MARGIN else None


OPTION_MARGIN = 0.05  # how much nearer the line one option must be than the next


def _stems(option: ActionOption) -> set[str]:
    """An option's content words as stems, from its value and its label."""
    return _stems_of(f"{option.value.replace('_', ' ')} {option.said}")


def _distinct(option: ActionOption, argument: ActionArgument) -> set[str]:
    """The stems of an option that not every other option of its argument has too
    ("east", not "gate", of "the east gate" beside "the west gate")."""
    others = [_stems(o) for o in argument.options if o is not option]
    shared = set.intersection(*others) if others else set()
    return _stems(option) - shared


def _number(words: Sequence[str], argument: ActionArgument) -> int:
    found = _first_number(words, argument.low, argument.high)
    return argument.low if found is None else found


def _first_number(words: Sequence[str], low: float, high: float) -> int | None:
    """The first number the words say in [low, high] ("a" and "an" are no number)."""
    for i, word in enumerate(words):
        n = _number_of(word)
        n = None if n is None else halved(words, i, n)
        if n is not None and word not in ("a", "an") and low <= n <= high:
            return n
    return None


def _agreed(action: GameAction, arguments: dict[str, str]) -> str:
    """What the NPC agreed to, as its memory says it: the description with the labels
    of the options chosen ("open one of the town gates (the east gate)")."""
    labels = [
        o.said for a in action.arguments for o in a.options if arguments.get(a.name) == o.value
    ]
    what = f"{action.description} ({', '.join(labels)})" if labels else action.description
    return f"{what} for"
