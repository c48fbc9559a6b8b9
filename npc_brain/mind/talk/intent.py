"""What a line of an NPC conversation is for, chosen by code before the model words it.

A small model cannot be trusted to decide what is worth saying and to say it in one
step, so the two are split: code picks the line's intent from the speaker's memory
(news the listener is not known to know, an answer to what was just asked, a question,
or small talk) and the prompt asks the model to word it. A line meant to pass news or
an answer on must carry it (`carries_words`, or its meaning: Conversations checks);
one that does not is drawn again, then replaced by `plain_line`, built from the memory
itself. Pure.
"""

from __future__ import annotations

import re
from collections.abc import Sequence, Set
from dataclasses import dataclass
from enum import Enum

from lemminflect import getAllLemmas, getInflection

from npc_brain.memory.records import MemoryKind, MemoryRecord, SourceKind
from npc_brain.memory.when import says_when
from npc_brain.mind.talk.answers import key_terms, names_in, retold, ungreeted
from npc_brain.mind.talk.carry import spoken
from npc_brain.mind.talk.realise import first_person
from npc_brain.persona import Persona
from npc_brain.words import AUX_FORMS, DETERMINERS, tokens

DONT_KNOW = "I don't know."  # an answer no memory carries
NOTABLE = 7.0  # the importance from which an event the speaker saw is news
_DOING = re.compile(r"\b(?:is|are|was|were|be|will)\s+(?:\w+ly\s+)?\w+ing\b|\bwill\s+\w+", re.I)


class IntentKind(Enum):
    NEWS = "news"  # tell the listener something it is not known to know
    ANSWER = "answer"  # answer what the listener just asked
    ASK = "ask"  # ask the listener about something
    SMALL_TALK = "small talk"


@dataclass(frozen=True)
class Intent:
    """A line's purpose; `content` is what it should carry (a memory's words, or what
    to ask about), `memory` the speaker's memory it comes from."""

    kind: IntentKind
    content: str = ""
    memory: MemoryRecord | None = None

    def instruction(self, listener: str) -> str:
        """What the prompt asks the model to say."""
        if self.kind == IntentKind.NEWS:
            return f"Tell {listener} this news in your own words: {self.content}"
        if self.kind == IntentKind.ANSWER:
            return f"Answer {listener}'s question with what you know: {self.content}"
        if self.kind == IntentKind.ASK:
            return f"Ask {listener} a question about {self.content}."
        return f"Make friendly small talk with {listener}."

    def describe(self) -> str:
        """The intent as a log shows it."""
        return f"{self.kind.value}: {self.content}" if self.content else self.kind.value


SMALL_TALK = Intent(IntentKind.SMALL_TALK)


def newsworthy(
    memory: MemoryRecord, listener_id: str, listener_name: str, claimed: Set[int] = frozenset()
) -> bool:
    """Whether a memory is news one may bring to the listener: a line someone said that
    passed a claim of an event on (its id in `claimed`), or an event (`an_event`) someone
    told or wrote, or a NOTABLE one the speaker saw (not a sighting of someone, a
    standing fact, a plan or one's own line); not from the listener, and not about it
    (naming it: a surprise for the listener is no news to bring it)."""
    source = memory.source
    if memory.kind == MemoryKind.DIALOGUE:
        told = source.kind == SourceKind.HEARD and memory.memory_id in claimed
    else:
        told = an_event(memory)
    if not told:
        return False
    if source.agent_id == listener_id or memory.subject == listener_id:
        return False
    return not names_in(spoken(memory), {listener_id: listener_name})


def an_event(memory: MemoryRecord) -> bool:
    """Whether an observation tells of an event (`eventful`) someone told or wrote, or a
    NOTABLE one its agent saw: not a sighting of someone, nor a standing fact."""
    seen = memory.source.kind == SourceKind.SEEN
    sighting = seen and (bool(memory.subject) or memory.importance < NOTABLE)
    return memory.kind == MemoryKind.OBSERVATION and not sighting and eventful(memory.description)


def eventful(text: str) -> bool:
    """Whether a text tells of an event: someone doing, going to do or having done
    something ("is throwing a feast", "will open", "found the props cracked"), or
    something at a time (a date, a weekday, "5 pm", "tomorrow"), not a standing fact
    ("Ana is Tomas's niece")."""
    return bool(_DOING.search(text) or tells_when(text) or _did(text))


def _did(text: str) -> bool:
    """Whether a text says what its subject did: a name or a noun phrase ("Ines Varga",
    "a sandstorm", "the old well"), then a verb in its past tense that is not a form of
    be or have ("Ines Varga found ...", "A sandstorm buried ...", not "Ana was a
    fisher")."""
    words = tokens(text)
    start = 1 if words and words[0].lower() in DETERMINERS else 0
    for word in words[start : start + SUBJECT_WORDS + 1]:
        if word.lower() in AUX_FORMS:  # "has fished", "was a fisher", "is selling"
            return False
        if word[:1].islower() and _past_tense(word):
            return True
    return False


SUBJECT_WORDS = 5  # at most this many words before the verb ("the causeway to the abbey")


def _past_tense(word: str) -> bool:
    """Whether a lowercase word is a past tense of a verb other than be or have."""
    lemmas = getAllLemmas(word, upos="VERB").get("VERB", ())
    return any(
        lemma not in ("be", "have") and word != lemma and word in getInflection(lemma, tag="VBD")
        for lemma in lemmas
    )


def tells_when(text: str) -> bool:
    """Whether a text gives a time: a date, a weekday, "5 pm", "tomorrow"."""
    return says_when(text)


def answering(
    question: str, memories: Sequence[MemoryRecord], names: set[str]
) -> list[MemoryRecord]:
    """The memories that bear on a question: they share a content word with it besides
    the people's `names`, and say more than it asks (a line that only asked it too,
    'Bram Holt said to me: "What's new?"', answers nothing: it was passed on as news)."""
    asked = key_terms(question) - names
    bearing = [(m, key_terms(spoken(m)) - names) for m in memories]
    return [m for m, said in bearing if said & asked and not said <= asked]


def choose(
    question: str,
    answers: Sequence[MemoryRecord],
    news: Sequence[MemoryRecord],
    ask_about: str,
) -> Intent:
    """The next line's intent: an answer when the listener's last line (`question`) asks
    something (from the first of `answers`, the memories it brings to mind), else the
    first of `news`, else a question about `ask_about`, else small talk."""
    if question.rstrip().endswith("?") and answers:
        return Intent(IntentKind.ANSWER, ungreeted(spoken(answers[0])), answers[0])
    if news:
        return Intent(IntentKind.NEWS, ungreeted(spoken(news[0])), news[0])
    if ask_about:
        return Intent(IntentKind.ASK, ask_about)
    return SMALL_TALK


def carries_words(intent: Intent, text: str, names: set[str]) -> bool:
    """Whether `text` says what the intent is for, by its words: for news and answers,
    two of the content's words besides `names` (the people's, the places'; all, if it
    has fewer). A
    question or small talk is only suggested to the model: any usable line does."""
    if intent.memory is None:
        return True
    wanted = key_terms(intent.content) - names
    said = key_terms(text) & wanted
    return bool(said) and len(said) >= min(2, len(wanted))


def plain_line(intent: Intent, speaker: Persona, listener_first: str, opener: bool) -> str:
    """A plain line that carries the intent, built from its memory: the fallback when no
    draw of the model does. `opener`: the conversation's first line, which greets."""
    greeting = f"Hi {listener_first}! " if opener else ""
    memory = intent.memory
    if memory is None:
        text = DONT_KNOW if intent.kind == IntentKind.ANSWER else "Good to see you."
    elif memory.kind == MemoryKind.DIALOGUE and memory.source.kind == SourceKind.HEARD:
        teller = memory.description.split(" said to ", 1)[0]
        text = retold(teller, "me", ungreeted(spoken(memory)))
    else:
        text = first_person(memory.description, speaker.name)
    return greeting + text
