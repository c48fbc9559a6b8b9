"""What a question asks for, by its wh-phrase: English's closed class of question words
("what time", "how come", "who"), not a game's vocabulary."""

from __future__ import annotations

from enum import StrEnum

from lemminflect import getAllLemmas

from npc_brain.memory.when import TIME_NOUNS
from npc_brain.words import WH_WORDS, lower_words


class Slot(StrEnum):
    """What the answer to a question must hold; the value is the wh-word that asks it."""

    TIME = "when"
    DURATION = "how long"
    REASON = "why"
    PERSON = "who"
    PLACE = "where"
    AMOUNT = "how much"
    COUNT = "how many"


# The wh-phrases, longest first so "how much" is read before "how".
_ASKING = (
    (("what", "time"), Slot.TIME),
    (("how", "long"), Slot.DURATION),
    (("how", "soon"), Slot.TIME),
    (("how", "come"), Slot.REASON),
    (("what", "made"), Slot.REASON),
    (("how", "much"), Slot.AMOUNT),
    (("how", "many"), Slot.COUNT),
    (("when",), Slot.TIME),
    (("why",), Slot.REASON),
    (("who",), Slot.PERSON),
    (("whom",), Slot.PERSON),
    (("where",), Slot.PLACE),
)


def asked_for(question: str) -> Slot | None:
    """What a question asks for, from its first wh-phrase ("what time's the ferry": a
    time; "do you know who sells bread?": a person); None for a yes/no question."""
    words = [_plain(w) for w in lower_words(question)]
    for i, word in enumerate(words):  # "what are the depot's hours?", "which day ...?"
        if word in ("what", "which") and TIME_NOUNS & _nouns(words[i + 1 : i + 5]):
            return Slot.TIME
    for i in range(len(words)):
        for phrase, slot in _ASKING:
            if tuple(words[i : i + len(phrase)]) == phrase:
                return slot
    return None


def wh_opened(question: str) -> bool:
    """Whether a question opens with a wh-word ("what's the figure", "hows it going"),
    other than a proposal ("what about two loaves?", "how about a pie?", "why not sell
    me two?", "why don't you come along?")."""
    words = [_plain(w) for w in lower_words(question)]
    proposal = words[1:2] == ["about"] or (
        words[:1] == ["why"] and len(words) > 1 and (words[1] == "not" or words[1].endswith("n't"))
    )
    return bool(words) and words[0] in WH_WORDS and not proposal


def _plain(word: str) -> str:
    """A wh-word without its clitic: "when's", "whens" and "when" are "when"."""
    word = word.removesuffix("'s").removesuffix("'re")
    if word in ("whens", "whys", "wheres", "whos", "whats"):
        return word[:-1]
    return word


def _nouns(words: list[str]) -> set[str]:
    """The nouns among words, as their lemmas ("hours": hour)."""
    return {lemma for w in words for lemma in getAllLemmas(w).get("NOUN", ())}


def asks_a_reason(question: str) -> bool:
    """Whether a question opens by asking why ("why are you selling her?", "how come the
    gate's shut?"), not with a proposal (wh_opened: "why not sell me two?")."""
    return wh_opened(question) and asked_for(question) is Slot.REASON
