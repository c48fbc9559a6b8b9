"""Understanding a line said to an NPC: its dialogue act, the facet of a question of
fact, whom and what it names, and the span of game time it asks about. No model call:
the embedder (once per line) and the world's own names and places."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from lemminflect import getAllLemmas, getInflection
from numpy.typing import NDArray

from npc_brain.lexicon import GENERAL_NOUNS, GOING, LEAVING, OFFERS
from npc_brain.memory.records import GameTime
from npc_brain.memory.when import CALENDAR_WORDS, HOUR, Window, anchor, past_tense, perfect
from npc_brain.mind.faculties import Faculties
from npc_brain.mind.talk.acts import (
    SAME_MODEL_COSINE,
    Act,
    Deal,
    Example,
    Facet,
    NearestExamples,
    Need,
    Vote,
    cache_name,
    normalised,
    shipped,
    shipped_matrix,
)
from npc_brain.mind.talk.answers import content_word, key_terms, names_in
from npc_brain.mind.talk.realise import verb_form
from npc_brain.mind.talk.wh import Slot, asked_for, asks_a_reason, wh_opened
from npc_brain.words import (
    AUX_FORMS,
    CLAUSE_WORDS,
    CLOSED_CLASS,
    CONDITIONAL,
    DETERMINERS,
    FUNCTION_WORDS,
    INDEFINITE,
    MODALS,
    NEGATIONS,
    PERSONAL,
    PREPOSITIONS,
    SOMEBODY,
    SPEAKERS,
    SUBJECTS,
    UNMARKED_NEGATIONS,
    WH_WORDS,
    YOU,
    all_lemmas,
    lower_words,
    only_acted,
    phrases,
    sentences,
    spoken,
    tokens,
)

_CAPITALISED = re.compile(r"\b[A-Z][a-z]+(?:[ -][A-Z][a-z]+)*")


@dataclass(frozen=True)
class Heard:
    """A line as understood: its act (and the vote that chose it), the facet of a
    question of fact, the agents it names (ids), the addresses of the places it names,
    the names it says that nobody in the world has (`strangers`), the time it asks
    about, and its embedding."""

    text: str
    act: Act
    vote: Vote
    facet: Facet | None
    people: tuple[str, ...]
    places: tuple[str, ...]
    strangers: tuple[str, ...]
    when: Window | None
    vector: NDArray[np.float32] = field(repr=False, compare=False)
    deal: Vote | None = None  # what it asks of a trade (acts.Deal), and how surely
    ultimatum: bool = False  # a threat by what follows a demand ("..., or I sink her")
    need: Vote | None = None  # the service it shows the speaker needs (acts.Need), and how surely

    @property
    def topic(self) -> str:
        """What the line is about, as the final event reports it: the names, places and
        time it says (the facet for a question of fact that names none)."""
        named = [*self.people, *self.places, *self.strangers]
        if self.when is not None:
            named.append(self.when.phrase)
        if not named and self.facet is not None:
            named.append(self.facet.value)
        return ", ".join(named)


# What may follow a demand's "or" (data/consequences.tsv): harm the speaker will bring
# on the listener ("or she's firewood by morning"), or anything else ("or I'll miss my
# ship", "or I'll try the other smith", "or do you take credit?").
CONSEQUENCES = (Act.THREAT, Act.OTHER)
# Each classifier's labelled examples (data/<file>) and their labels: what a server
# fits, what bench.act_cache embeds ahead, what the data tests read.
CLASSIFIED: dict[str, tuple[str, ...]] = {
    "acts.tsv": tuple(Act),
    "facets.tsv": tuple(Facet),
    "deals.tsv": tuple(Deal),
    "consequences.tsv": CONSEQUENCES,
    "needs.tsv": tuple(Need),
}


class Understanding:
    """Classifies lines by the nearest labelled examples (acts, facets, deals, what
    follows a demand's "or", the service a line shows a need of), fitted on first use
    with the server's embedder."""

    def __init__(self, faculties: Faculties, extra: Sequence[Example] = ()) -> None:
        self._f = faculties
        self.acts = NearestExamples([*shipped("acts.tsv", CLASSIFIED["acts.tsv"]), *extra])
        self.facets = NearestExamples(shipped("facets.tsv", CLASSIFIED["facets.tsv"]))
        self.deals = NearestExamples(shipped("deals.tsv", CLASSIFIED["deals.tsv"]))
        self.consequences = NearestExamples(
            shipped("consequences.tsv", CLASSIFIED["consequences.tsv"])
        )
        self.needs = NearestExamples(shipped("needs.tsv", CLASSIFIED["needs.tsv"]))
        self._fitting = asyncio.Lock()

    async def fitted(self) -> None:
        """Fits the classifiers on the examples' embeddings, once: the embeddings shipped
        for the default embedder (data/*.npy) when one example, embedded again, agrees
        with its row; else all of them, embedded now (some seconds on 2 cores)."""
        async with self._fitting:
            for file, classifier in (
                ("acts.tsv", self.acts),
                ("facets.tsv", self.facets),
                ("deals.tsv", self.deals),
                ("consequences.tsv", self.consequences),
                ("needs.tsv", self.needs),
            ):
                if not classifier.fitted:
                    classifier.fit(await self._embedded(file, classifier.texts()))

    async def _embedded(self, file: str, texts: list[str]) -> NDArray[np.float32]:
        embedder = self._f.embedder
        name = cache_name(file, embedder.model_id, texts)
        shipped_rows = shipped_matrix(name, len(texts), embedder.dimension)
        if shipped_rows is not None:
            (probe,) = await self._f.embed(texts[:1])
            if float(probe @ shipped_rows[0]) >= SAME_MODEL_COSINE:
                return shipped_rows
        return await self._f.embed(texts)

    async def _need(self, line: str, vector: NDArray[np.float32]) -> Vote:
        """The need a line shows (data/needs.tsv): the line's own vote, as surely as the
        surest of its phrases shows the need the line is nearest of all but none. A
        rambling line blurs what one phrase of it says plainly: "i'm skint, ...,
        whatever grunt work you've got i'll do it. just don't send me off" shows work at
        0.26 of its vote, its phrase "whatever grunt work you've got i'll do it" at 0.54."""
        vote = self.needs.vote(line, vector)
        parts = [p for p in phrases(line) if len(p.split()) >= PHRASE_WORDS]
        needs = [n for n in vote.shares if n != Need.NONE]
        if len(parts) < 2 or not needs:
            return vote
        vectors = await self._f.embed(parts)
        label = max(needs, key=vote.shares.__getitem__)
        votes = (self.needs.vote(p, v) for p, v in zip(parts, vectors, strict=True))
        surest = max(v.shares.get(label, 0.0) for v in votes)
        if surest < NEED_SURE or surest <= vote.shares.get(label, 0.0):
            return vote
        return Vote(label, {**vote.shares, label: surest}, vote.nearest)

    async def _deal(self, line: str, vector: NDArray[np.float32]) -> Vote:
        """How a line deals (data/deals.tsv), read without its phrases that open with
        "if": a condition put politely does not make an order a question ("I'd like to
        buy one of the drones you refurbish, if you have one for sale")."""
        parts = phrases(line)
        kept = [p for p in parts if lower_words(p)[:1] != ["if"]]
        if not kept or len(kept) == len(parts):
            return self.deals.vote(line, vector)
        main = ", ".join(kept)
        (main_vector,) = await self._f.embed([main])
        return self.deals.vote(main, main_vector)

    async def hear(
        self,
        text: str,
        now: GameTime,
        people: dict[str, str],
        places: Sequence[str],
        roles: dict[str, str] | None = None,
        talking: Sequence[str] = (),
    ) -> Heard:
        """What `text` is, said at `now`, among `people` (id -> full name: the world's
        agents but the two talking, whose names are `talking`), their `roles` (id -> what
        they do: their persona's learned traits) and `places` (addresses the listener
        knows). A question the examples take for none of the acts is a question of fact."""
        await self.fitted()
        line = normalised(text)
        (vector,) = await self._f.embed([line])
        vote = self.acts.vote(line, vector)
        closing = asking = None
        if len(parts := sentences(line)) > 1:  # "I have to get back to my ship. Later."
            vectors = await self._f.embed(parts)
            votes = [self.acts.vote(p, v) for p, v in zip(parts, vectors, strict=True)]
            closing = votes[-1]
            asking = max(
                (v for v in votes if v.label in _ASKING_FOR),
                key=lambda v: v.confidence,
                default=None,
            )
        act = decided_act(line, vote, closing, asking)
        need = _WORK if offers_help(line) else await self._need(line, vector)
        deal = await self._deal(line, vector)
        farewell_denied = act == Act.FAREWELL and denies_leaving(line)  # "I'm not leaving"
        if act in (Act.GREETING, Act.FAREWELL) and _orders(deal) or farewell_denied:
            act = _runner_up(vote)
            vote = Vote(act, vote.shares, vote.nearest)
        # "took a club on my sword, now it's bent" aims at nobody; "I'll sweep your floors
        # or muck out whatever" offers work in a threat's words ("I'll ... your ...")
        if act == Act.THREAT and (not aimed(line) or _offers_work(need)):
            act = _runner_up(vote)
            vote = Vote(act, vote.shares, vote.nearest)
        ultimatum = False
        if (then := consequence(line)) is not None:  # "the boat for 50, or I sink her"
            (then_vector,) = await self._f.embed([then])
            threat = self.consequences.vote(then, then_vector)
            if ultimatum := threat.label == Act.THREAT and threat.confidence >= SURE:
                act, vote = Act.THREAT, threat
        where = tuple(named_places(line, places))
        if act == Act.FACT and where and asks_the_way(line):  # "where is the well?"
            act = Act.DIRECTIONS
        facet = Facet(self.facets.vote(line, vector).label) if act == Act.FACT else None
        facet = _fitting(facet, line)
        named = names_in(line, people) or by_role(line, roles or {})
        when = anchor(line, now)
        known = {w.lower() for n in [*people.values(), *talking] for w in n.split()}
        known |= {w.lower() for a in places for part in a.split(":") for w in part.split()}
        known |= {w.lower() for w in when.phrase.split()} if when else set()
        return Heard(
            text=line,
            act=act,
            vote=vote,
            facet=facet,
            people=tuple(named),
            places=where,
            strangers=tuple(strangers_in(line, known)),
            when=when,
            vector=vector,
            deal=deal,
            ultimatum=ultimatum,
            need=need,
        )


def _orders(deal: Vote) -> bool:
    """Whether a line's deal is surely an order: then it is no greeting or farewell only
    ("gimme a stim, doc, i'm already fading": 0.92; "Morning! Two loaves please."; not
    "I'll be off then": 0.56)."""
    return deal.label == Deal.ORDER and deal.confidence >= SURE_ORDER


# A deal's share from which a line surely orders: it buys a declared ware it names,
# whatever its act ("a bottle of that plum brandy to take with me, good sir": thanks by
# its words), and is no greeting or farewell only.
SURE_ORDER = 0.8


def offers_help(line: str) -> bool:
    """Whether a line offers to do something for the listener (lexicon.OFFERS: "want me
    to find out where they went?", "need a hand with those crates?"), which asks for
    work whatever it offers to do; not a question of what the listener wants done
    ("where do you want me to put her?")."""
    for said in sentences(line) or [line]:
        words = lower_words(said)
        for i in range(len(words)):
            asked = set(words[:i]) & WH_WORDS  # "where do you want me to put her?" asks
            found = next((o for o in OFFERS if tuple(words[i : i + len(o)]) == o), None)
            if asked or found is None:
                continue
            after = words[i + len(found) : i + len(found) + 1]
            if not (found[0] == "need" and after and after[0] not in CLOSED_CLASS):
                return True  # not "I need a hand net"
    return False


_WORK = Vote(Need.WORK, {Need.WORK: 1.0}, "")  # the need an offer of help shows


def _offers_work(need: Vote) -> bool:
    """Whether a line shows its speaker needs work (from NEED_SURE): an offer to do a
    job, or a plea for one, that a threat's words put ("I'll sweep your floors"); no
    threat in the benchmark's tuning lines shows work at more than 0.22 of its vote."""
    return shows(need, Need.WORK, NEED_SURE)


def shows(need: Vote | None, label: Need, share: float) -> bool:
    """Whether a line's need vote is `label` from `share` of it."""
    return need is not None and need.label == label and need.confidence >= share


PHRASE_WORDS = 3  # words from which a phrase of a line shows a need on its own ("i'm skint")


# A need's share of its vote from which a line shows it: over 23 needs, in 5-fold
# cross-validation on data/needs.tsv, 79% of lines reach it, 91% of them rightly.
NEED_SURE = 0.35


# A vote's share from which its act is sure: "other" is then no question of fact, a
# threat is answered as one, a greeting or a question of fact asks for no game action.
SURE = 0.5


def surely(heard: Heard, *acts: Act) -> bool:
    """Whether a line was taken for one of `acts` by a sure vote (SURE)."""
    return heard.act in acts and heard.vote.confidence >= SURE


def threatens(heard: Heard) -> bool:
    """Whether a line is surely a threat: by a sure vote, or as a threat acted with
    nothing said ("*draws a rusty cleaver and charges at the captain*"), which is a deed,
    not rough words that the vote is unsure of."""
    return surely(heard, Act.THREAT) or heard.act is Act.THREAT and only_acted(heard.text)


# A farewell's share from which it ends the talk: 0.4, as sure as the bench's train
# split's least sure farewell ("good night old man": 0.44) and no less.
ENDS = 0.4


def decided_act(
    line: str, vote: Vote, closing: Vote | None = None, asking: Vote | None = None
) -> Act:
    """The act a line is taken for, from the classifier's vote on it (and on its last
    sentence, `closing`, for a line of several): its winner, but a question unlike
    every act's examples asks a fact, and a farewell, which ends the talk, is taken only
    when sure (a wrong end costs the talk; a missed one, a line), of the whole line or
    of its last sentence (people close with it: "Thanks for the help. Later."); a line
    one of whose sentences surely asks for something (`asking`: the surest of those
    voted a request or a trade) asks for it, unless the line as a whole is a threat."""
    act = Act(vote.label)
    if closing is not None and closing.label == Act.FAREWELL and closing.confidence >= SURE:
        return Act.FAREWELL
    if asking is not None and asking.confidence >= SURE and act not in (*_ASKING_FOR, Act.THREAT):
        return Act(asking.label)
    if asked_for(line) in _ASKING_WHAT_IS and act not in _ASKS:
        return max(_ASKS, key=lambda a: vote.shares.get(a, 0.0))
    if act == Act.OTHER and line.endswith("?") and vote.confidence < SURE:
        return Act.FACT
    if act == Act.FAREWELL and vote.confidence < ENDS:
        return _runner_up(vote)
    return act


# Acts that ask the NPC for something: one sentence that surely does makes the line do it
# ("My daughter turns seven on Sunday. Could you bake her a cake?").
_ASKING_FOR = (Act.REQUEST, Act.TRADE)
# A question of when, how long, how many or why asks what is so ("why is the gate
# shut?", "how many crates are missing?"); it is no small talk, trade or greeting,
# whatever its words are near.
_ASKING_WHAT_IS = (Slot.TIME, Slot.DURATION, Slot.COUNT, Slot.REASON)
_ASKS = (Act.FACT, Act.OPINION, Act.FEELINGS, Act.REQUEST)


def hypothetical(line: str) -> bool:
    """Whether a line puts a situation to the NPC (what the react facet answers): as a
    supposition, or asking what it does about it ("A storm comes in. What do you do?")."""
    low = line.lower().replace("’", "'")
    words = lower_words(low)
    return any(w in CONDITIONAL or w.endswith("'d") for w in words) or bool(_WHAT_DO.search(low))


_WHAT_DO = re.compile(r"\bwhat (?:do|will|would|should|can) you (?:do|say)\b")


def aimed(line: str) -> bool:
    """Whether a line could threaten or insult its listener: it speaks to them ("you",
    "your", "you're"), opens with an order ("shut up, nerd"), is a word or three
    ("witch"), or only acts before them in a roleplay emote ("*draws a knife*"). A line
    that does none of these tells of the speaker's own trouble ("Took a goblin's club on my
    sword and now it's bent"), however rough its words."""
    if only_acted(line):  # "*draws a knife and lunges at the guard*"
        return True
    words = lower_words(spoken(line))  # what is said, not done ("*pulls a pistol*")
    second = any(w.partition("'")[0] in YOU for w in words)
    return second or len(words) <= AIMED_WORDS or (bool(words) and verb_form(words[0], ("VB",)))


AIMED_WORDS = 3  # an insult may be a word or three ("witch", "shut up nerd")


# A question put inside one about what the NPC knows: "Do you know who sells rope?",
# "Have you heard of anyone selling a boat?", "Did you hear about the storm?".
_KNOWS_FRAME = re.compile(
    r"^\s*(?:do|did|have|had)\s+(?:you|u|ya)\s+(?:happen\s+to\s+)?"
    r"(?:know|heard?|seen?|notice[d]?)\s+(?:(?:of|about)\s+)?(?=\w)",
    re.IGNORECASE,
)


def asked_within(text: str) -> str:
    """The question a line asks inside a frame about what the NPC knows ("Do you know
    who sells rope?" -> "who sells rope?"); else the line."""
    return _KNOWS_FRAME.sub("", text, count=1) or text


def to_you(text: str) -> bool:
    """Whether a line asks about the NPC itself: it says "you" or "your" (besides a frame
    that asks what it knows: "Do you know who ...?"), or it is a question whose subject
    is left out, starting with a participle ("Been busy?", "Got
    anything on this week?", "Heard the news?", "Anything planned for tomorrow?") or
    with an adjective of its state ("Busy?", "Busy reading?")."""
    inner = asked_within(text)
    words = [w.strip("?.!,'") for w in inner.lower().split()]
    if any(w in YOU for w in words):
        return True
    if inner != text:  # "Have you heard of anyone selling ...?": about someone else
        return False
    if len(words) > 1 and words[0] in INDEFINITE:  # "(Got) anything planned for ...?"
        words = words[1:]
    first = words[0] if words else ""
    lemmas = getAllLemmas(first).get("VERB", ())
    participle = any(
        first in getInflection(lemma, tag=tag) for lemma in lemmas for tag in ("VBN", "VBG", "VBD")
    )
    if participle and first not in lemmas:
        return text.rstrip().endswith("?")
    # ... or with an adjective of the NPC's state: "Busy?", "Busy reading the paper?"
    after = words[1] if len(words) > 1 else ""
    state = "ADJ" in getAllLemmas(first) and (not after or after.endswith("ing"))
    return text.rstrip().endswith("?") and state


def asks_doing_now(line: str, when: Window | None, now: GameTime) -> bool:
    """Whether a line asks what the NPC is doing now ("What are you doing?", "Are you
    busy?", "Good morning! Busy reading the paper?", "What are you up to right now?"): of
    it, in the present progressive or of its state, for no other time ("Are you going to
    the fair?" asks of a time ahead)."""
    text = last_sentence(line)  # past a greeting
    if not to_you(text) or past_tense(text) or asked_for(text) is not None:
        return False
    if when is not None and not when.start <= now <= when.end <= now + HOUR:
        return False
    words = lower_words(text)
    after_you = [b for a, b in zip(words, words[1:], strict=False) if a in ("you", "you're")]
    doing = any(w in ("busy", "up") or verb_form(w, ("VBG",)) and w not in GOING for w in after_you)
    return doing or words[:1] == ["busy"]


def tells_a_story(heard: Heard) -> bool:
    """Whether a line tells of the past and nothing else: every sentence in the past
    tense, none a question, surely no need shown and no sure request ("My sister had
    the fever two summers ago, nearly died of it."; not "I sliced my palm open on a
    panel", whose injury is now, nor "my mare threw a shoe on the way here", a request
    by its words of a service no need names)."""
    told = sentences(heard.text) or [heard.text]
    past = all(past_tense(s) and not s.rstrip().endswith("?") for s in told)
    no_need = shows(heard.need, Need.NONE, SURE)
    return past and no_need and not surely(heard, Act.REQUEST, Act.TRADE)


def a_question(line: str) -> bool:
    """Whether a line asks something: a sentence of it ends with "?", or its last opens
    with a wh-word, an auxiliary or a modal ("whats mooring cost by the week", "is the
    causeway passable"); not a statement ("it's her birthday on friday")."""
    last = last_sentence(line)
    words = lower_words(last)
    opened = wh_opened(last) or (bool(words) and words[0] in AUX_FORMS | MODALS)
    return opened or any(s.rstrip().endswith("?") for s in sentences(line) or [line])


def asks_why(line: str) -> bool:
    """Whether a line's questions ask only a reason ("why are you selling the Gull
    anyway? she looks like a good boat"): it asks to be told, not for a deed."""
    asked = [s for s in sentences(line) if s.rstrip().endswith("?")]
    return bool(asked) and all(asks_a_reason(s) for s in asked)


def asks_of_the_past(line: str) -> bool:
    """Whether a line's question asks what happened: opened by a wh-word or a verb in
    the past tense, and in the past tense ("What did I buy from you?", "Did you sell
    the boat?"); "Could you fix it?" asks for something, "my mare threw a shoe, can you
    see to her?" too."""
    text = last_sentence(line)
    words = lower_words(text)
    # its last phrase may ask for something ("bought a boat, can you register it?")
    asked = lower_words((phrases(text) or [text])[-1])[:1]
    if not text.endswith("?") or not words or {words[0], *asked} & MODALS:
        return False
    opened = words[0] in WH_WORDS or (
        verb_form(words[0], ("VBD",)) and not verb_form(words[0], ("VB",))
    )
    # the tense of its main clause: not of an infinitive's or a relative clause's verb
    # ("how much to fix a drone that fried itself?", "... to get a pony shod?")
    end = next((i for i, w in enumerate(words) if i and w in CLAUSE_WORDS | {"to"}), len(words))
    return opened and past_tense(" ".join(w for w in words[:end] if w not in MODALS))  # "would"


def _fitting(facet: Facet | None, line: str) -> Facet | None:
    """The facet a question's form allows: a situation only when one is put to the NPC;
    the NPC itself only when asked of it ("Who runs the fish market?" is of the world);
    plans are not asked in the past tense or the present perfect ("What did he say
    about ...?", "What've you been working on today?")."""
    if facet == Facet.REACT and not hypothetical(line):
        return Facet.WORLD
    if facet == Facet.SELF and not to_you(line):
        return Facet.WORLD
    if facet == Facet.PLANS and (past_tense(line) or perfect(line)):
        return Facet.PAST
    return facet


def asks_the_way(line: str) -> bool:
    """Whether a question of where, in the present, asks the way (to a place it names,
    for the caller to check): "where is the well?", not "where were you yesterday?"."""
    return asked_for(line) == Slot.PLACE and not past_tense(line)


def consequence(line: str) -> str | None:
    """What a demand says will follow if it is refused: the clause after its "or"
    ("waive my fees or I ram your ship": "or I ram your ship"; "..., or else"), which is
    what makes it a threat whatever the demand names; or what a sentence opening with a
    verb says will follow if it is done, after its "and" ("pour me another like it and
    this stool goes through your window"), put as the clause after an "or" is. None for
    a line without one ("tea or coffee?", "one or two loaves", "two loaves and a pie")."""
    words = line.split()
    for i, word in enumerate(words[1:-1], start=1):
        if word.lower() == "or" and _clause_opening(words[i + 1]):
            return " ".join(words[i:])
    for part in sentences(line):
        words = part.split()
        # not a noun that is a verb's form too, as "of" after it shows ("head of my axe")
        if not words or not imperative(words[0]) or [_bare(w) for w in words[1:2]] == ["of"]:
            continue
        for i, word in enumerate(words[1:-1], start=1):
            if _bare(word) in SUBJECTS:  # "need a bed, I've been riding since dawn and ..."
                break
            if word.lower() == "and" and _clause_opening(words[i + 1]):
                return " ".join(["or", *words[i + 1 :]])
    for part in sentences(line):
        if (then := _if_you(part.split())) is not None:
            return then
    return None


def _if_you(words: Sequence[str]) -> str | None:
    """What a condition on the listener says will follow, put as the clause after an
    "or": the clause after "if you ..." that opens past a comma or with its own subject
    ("if you try fining me you're going in the harbour": "or you're going in the
    harbour"; "if you've a room, I'll take it": "or I'll take it", which the
    consequences' classifier reads as no threat)."""
    bare = [_bare(w) for w in words]
    for i in range(len(words) - 3):
        if bare[i] != "if" or bare[i + 1] not in YOU:
            continue
        for j in range(i + 2, len(words) - 1):
            if words[j].endswith(","):
                return " ".join(["or", *words[j + 1 :]])
            if j > i + 2 and bare[j + 1] in SUBJECTS | YOU:
                return " ".join(["or", *words[j + 1 :]])
    return None


def _bare(word: str) -> str:
    """A word lowercased, without punctuation or what follows an apostrophe."""
    return word.lower().strip(",.!?;:").replace("’", "'").partition("'")[0]


def imperative(word: str) -> bool:
    """Whether a word opening a sentence is a verb's bare form, as an order opens
    ("pour", "tell"; not "I", "two", "the")."""
    bare = word.lower().strip(",.!?;:")
    verbs = getAllLemmas(bare).get("VERB", ())
    # not "I", "the", nor a negated auxiliary typed without its apostrophe ("cant use it")
    return bare in verbs and bare not in PERSONAL | DETERMINERS | UNMARKED_NEGATIONS


def _clause_opening(word: str) -> bool:
    """Whether a word opens a clause of its own after "or": a subject ("I", "your
    depot", "this office", "there", "somebody") or "else"."""
    bare = _bare(word)
    return bare in PERSONAL | DETERMINERS | SOMEBODY or bare in ("there", "else")


def last_sentence(line: str) -> str:
    """A line's last sentence (the line itself when it has one)."""
    return (sentences(line) or [line.strip()])[-1]


def denies_leaving(line: str) -> bool:
    """Whether a line says its speaker is not leaving ("I'm not leaving till you put me
    to work", "we aint going nowhere"): a negation just before a verb of leaving, with
    the speaker its subject (not "don't go anywhere, I'll be back")."""
    words = lower_words(line)
    return any(
        all_lemmas(word) & LEAVING
        and any(_negation(w) for w in words[max(0, i - 2) : i])
        and any(w.partition("'")[0] in SPEAKERS for w in words[max(0, i - 4) : i])
        for i, word in enumerate(words)
    )


def _negation(word: str) -> bool:
    return (
        word in NEGATIONS or word in UNMARKED_NEGATIONS or word.endswith("n't") or word == "never"
    )


def _runner_up(vote: Vote) -> Act:
    """The act with the second largest share of a vote."""
    ranked = sorted(vote.shares, key=lambda label: -vote.shares[label])
    return Act(ranked[1])


def by_role(text: str, roles: dict[str, str]) -> list[str]:
    """The one agent a line names by what it is ("the blacksmith", "the dock chief"): the
    line says the head noun of the agent's role, and of no other agent's."""
    said = {lemma for w in lower_words(text) for lemma in {w, *all_lemmas(w.removesuffix("'s"))}}
    found = [agent_id for agent_id, role in roles.items() if role_noun(role) in said]
    return found if len(found) == 1 else []


def role_noun(learned: str) -> str:
    """The head noun of what a persona's learned traits say it is, lowercase: "the
    blacksmith of Oakvale, who ..." -> blacksmith; "an old fisherman" -> fisherman; ''
    for one that says what it does ("runs the med bay"). A line names it by its lemma
    ("engines" do not name the engineer, as their stems would)."""
    words = tokens(learned.split(",")[0])
    if words and words[0].istitle() and len(words) > 1 and words[1] == "is":
        words = words[2:]  # "Tomas Reyes is an old fisherman": the name said first
    elif len(words) > 2 and words[0].istitle() and words[1].istitle() and words[2] == "is":
        words = words[3:]
    if not words or verb_form(words[0].lower()):
        return ""
    phrase = []
    for word in words:
        if word.lower() in PREPOSITIONS | CLAUSE_WORDS:  # "of Oakvale", "who forges"
            break
        phrase.append(word)
    terms = [w.lower() for w in phrase if key_terms(w)]
    return terms[-1] if terms else ""


def thing_asked(text: str) -> str:
    """The first thing a line names with its determiner that is not news in general, a
    time or a place in general ("Have you heard of an auction coming up?": "an auction",
    "any word of the new bridge?": "the new bridge"); '' if none."""
    words = tokens(text)
    for i, word in enumerate(words):
        if word.lower() not in DETERMINERS:
            continue
        for j in range(i + 1, min(i + 4, len(words))):  # up to two adjectives between
            low, lemmas = words[j].lower(), getAllLemmas(words[j].lower())
            if words[j][0].isupper() or low in GENERAL_NOUNS or not content_word(low):
                break
            if "NOUN" in lemmas:
                return " ".join(w.lower() for w in words[i : j + 1])
            if "ADJ" not in lemmas:
                break
    return ""


def named_places(text: str, addresses: Sequence[str]) -> list[str]:
    """The addresses whose own name the text says: their spot's ("the harbour office"),
    else their area's ("the Red Boar" names "Oakvale:Red Boar Tavern:bar"); a name by its
    first two words will do."""
    low = text.lower()

    def says(part: str) -> bool:
        words = [w for w in part.lower().split() if len(w) > 2]
        return part.lower() in low or (len(words) > 1 and " ".join(words[:2]) in low)

    named = [[p.strip() for p in a.split(":")[1:] if p.strip()] for a in addresses]
    by_spot = [
        a
        for a, parts in zip(addresses, named, strict=True)
        if len(parts) > 1 and any(says(p) for p in parts[1:])
    ]
    if by_spot:
        return by_spot
    return [a for a, parts in zip(addresses, named, strict=True) if parts and says(parts[0])]


def strangers_in(text: str, known: set[str]) -> list[str]:
    """Names in a line that no one and nothing of the world has: runs of capitalised
    words, not at the line's start, none of them an English word (lemminflect knows no
    lemma of it) nor a word of a known name ("Do you know a Zedrick Pell?"); and runs
    of two or more such words, whatever their case ("ever met a marla quist?"); never
    a day or a month ("on Tuesday, February 14")."""
    known = known | CALENDAR_WORDS
    found = []
    for match in _CAPITALISED.finditer(text):
        if match.start() == 0 or text[: match.start()].rstrip().endswith((".", "!", "?")):
            continue
        words = match.group().replace("-", " ").split()
        if any(w.lower() in known or getAllLemmas(w.lower()) for w in words):
            continue
        found.append(match.group())
    run: list[str] = []
    for token in [*re.findall(r"[\w']+|[^\w\s]", text), "."]:  # "know a marla quist?"
        if token.isalpha() and len(token) >= 3 and _unknown(token, known):
            run.append(token.capitalize())
            continue
        name = " ".join(run)
        if len(run) >= 2 and name not in found:
            found.append(name)
        run = []
    return found


def _unknown(word: str, known: set[str]) -> bool:
    """A word no one of the world is called and English does not know (no lemma)."""
    low = word.lower()
    return low not in known and low not in _NO_NAMES and not getAllLemmas(low)


_NO_NAMES = FUNCTION_WORDS | MODALS  # words lemminflect has no lemma of, though English
