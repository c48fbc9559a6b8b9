"""The checks a spoken line must pass: named rules in one registry.

Each rule is a small function registered under a name, with the reason it refuses and
the stages it applies to (a player reply's wording, an NPC's line in a conversation,
a thought kept after one). `first_refusal` runs a stage's rules in order; a refusal
names its rule, and the caller counts it (GetStats: refusals_by_check) and draws again.
The rules' cases live in tests/unit/test_talk.py, test_replies.py and test_misfit.py.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from npc_brain.mind.talk.answers import (
    broken,
    degenerate,
    denies,
    echoes,
    key_terms,
    turned_around,
    unfounded,
)
from npc_brain.mind.talk.misfit import (
    Cast,
    borrowed,
    foreign,
    made_up_time,
    own_words,
    spoken_address,
    stranger,
    third_person,
    wrong_part,
)
from npc_brain.persona import Persona


class Stage(StrEnum):
    REPLY = "reply"  # the model's wording of a reply to whoever speaks to an NPC
    LINE = "line"  # an NPC's line in a conversation with another NPC
    THOUGHT = "thought"  # a thought or view kept after a conversation


@dataclass(frozen=True)
class Context:
    """What a rule may read besides the line: who speaks (`persona`), what it may name
    (`cast`), the line it answers (`question`, '' if none), what the answer rests on
    (`grounds`: facts, the planned answer), and the people of the town besides the two
    talking (`others`)."""

    persona: Persona
    cast: Cast
    question: str = ""
    grounds: Sequence[str] = ()
    others: Sequence[str] = ()
    answered: bool = False  # the planned answer states a fact (a denial contradicts it)
    said: str = ""  # what the speaker said before this line, in the same turn


Rule = Callable[[str, Context], str | None]


@dataclass(frozen=True)
class Check:
    name: str
    reason: str
    stages: frozenset[Stage]
    rule: Rule


@dataclass(frozen=True)
class Refusal:
    """Why a line was refused: the rule's name and what it found."""

    check: str
    detail: str

    def __str__(self) -> str:
        return f"{self.check}: {self.detail}"


REGISTRY: dict[str, Check] = {}
ALL = frozenset(Stage)
SPOKEN = frozenset((Stage.REPLY, Stage.LINE))


def check(name: str, *, reason: str, stages: frozenset[Stage] = ALL) -> Callable[[Rule], Rule]:
    """Registers a rule under `name` (unique) for `stages`."""

    def register(rule: Rule) -> Rule:
        if name in REGISTRY:
            raise ValueError(f"check {name!r} is registered twice")
        REGISTRY[name] = Check(name, reason, stages, rule)
        return rule

    return register


def first_refusal(
    text: str, ctx: Context, stage: Stage, skip: frozenset[str] = frozenset()
) -> Refusal | None:
    """The first rule of `stage` (registry order) that refuses `text`, else None."""
    for found in REGISTRY.values():
        if stage not in found.stages or found.name in skip:
            continue
        detail = found.rule(text, ctx)
        if detail is not None:
            return Refusal(found.name, detail)
    return None


@dataclass
class Tally:
    """Refusals counted by rule name (one per world and agent in the usage ledger)."""

    counts: dict[str, int] = field(default_factory=dict)

    def add(self, refusal: Refusal) -> None:
        self.counts[refusal.check] = self.counts.get(refusal.check, 0) + 1


# Form: what no line may be ---------------------------------------------------------


@check(
    "form.degenerate",
    reason="too short, only a name, or the prompt's facts as a list",
    stages=frozenset((Stage.REPLY,)),  # "Sure." ends a turn between NPCs well enough
)
def _degenerate(text: str, ctx: Context) -> str | None:
    found = degenerate(text, ctx.persona)
    return (
        found
        if found in ("too short", "only a name", "a bare name")
        or (found and found.startswith("a list"))
        else None
    )


@check("form.broken", reason="a role tag, out of character, markup, cut off, a loop or numbers")
def _broken(text: str, ctx: Context) -> str | None:
    return broken(text)


# The town: what the speaker may name and claim --------------------------------------


@check("town.foreign", reason="not in English")
def _foreign(text: str, ctx: Context) -> str | None:
    return foreign(text, ctx.cast)


@check("town.address", reason="reads a place's address out as the game writes it")
def _address(text: str, ctx: Context) -> str | None:
    return spoken_address(text)


@check("town.wrong_part", reason="claims another's name, or addresses itself or a third")
def _wrong_part(text: str, ctx: Context) -> str | None:
    return wrong_part(own_words(text), ctx.cast)


@check("town.borrowed", reason="says a fact about someone else as the speaker's own")
def _borrowed(text: str, ctx: Context) -> str | None:
    return borrowed(own_words(text), ctx.cast)


@check("town.stranger", reason="names a person or place nobody at hand names")
def _stranger(text: str, ctx: Context) -> str | None:
    return stranger(text, ctx.cast)


@check("town.made_up_time", reason="a time, date or number nobody gave")
def _made_up_time(text: str, ctx: Context) -> str | None:
    return made_up_time(text, ctx.cast)


@check(
    "line.third_person",
    reason="speaks of itself or its listener in the third person",
    stages=SPOKEN,
)
def _third_person(text: str, ctx: Context) -> str | None:
    return third_person(text, ctx.cast)


# A reply: what it may not do to the line it answers ----------------------------------


@check("reply.echoes", reason="repeats the line it answers", stages=frozenset((Stage.REPLY,)))
def _echoes(text: str, ctx: Context) -> str | None:
    return "repeats the question" if ctx.question and echoes(text, ctx.question) else None


@check(
    "reply.turned_around",
    reason="answers a question about the speaker as if about the asker",
    stages=frozenset((Stage.REPLY,)),
)
def _turned_around(text: str, ctx: Context) -> str | None:
    turned = ctx.question and turned_around(text, ctx.question)
    return "answers for the asker" if turned else None


@check(
    "reply.unfounded_name",
    reason="names someone of the town whom nothing at hand names",
    stages=frozenset((Stage.REPLY,)),
)
def _unfounded(text: str, ctx: Context) -> str | None:
    at_hand = [*ctx.grounds, ctx.question, ctx.persona.describe()]
    strangers = unfounded(text, at_hand, list(ctx.others))
    return f"names {', '.join(strangers)}" if strangers else None


@check(
    "reply.repeats",
    reason="says again what the answer before it said",
    stages=frozenset((Stage.REPLY,)),
)
def _repeats(text: str, ctx: Context) -> str | None:
    if not ctx.said:
        return None
    words, before = set(key_terms(text)), set(key_terms(ctx.said))
    if echoes(text, ctx.said) or (words and len(words & before) > 0.6 * len(words)):
        return "repeats the answer"
    return None


@check(
    "reply.claims_identity",
    reason="says who or what the speaker is: code said it, from the persona",
    stages=frozenset((Stage.REPLY,)),
)
def _claims_identity(text: str, ctx: Context) -> str | None:
    found = _IDENTITY.search(text.replace("’", "'"))
    return f"says {found[0]!r}" if found else None


# "I'm just a regular guy", "I'm not a sailor", "I am a little girl": the 135M model's
# idea of its speaker, contradicting the persona.
_IDENTITY = re.compile(r"\bI(?:'m| am)(?: just| not| only)? (?:a|an)\b", re.IGNORECASE)


@check(
    "line.claims_another_identity",
    reason="says the speaker is what its persona does not say (another's trade, often)",
    stages=frozenset((Stage.LINE,)),
)
def _claims_another_identity(text: str, ctx: Context) -> str | None:
    """ "I'm a weaver" said by a blacksmith whose wife weaves: what follows "I'm a" up
    to the clause's end (outside what the line quotes) shares no word with the
    speaker's persona."""
    p = ctx.persona
    own = key_terms(f"{p.name} {p.innate} {p.learned} {p.currently} {p.lifestyle}")
    spoken = own_words(text).replace("’", "'")  # not what it quotes another saying
    for found in _IDENTITY.finditer(spoken):
        claimed = re.split(r"[.,;!?]", spoken[found.end() :], maxsplit=1)[0]
        if key_terms(claimed) and not key_terms(claimed) & own:
            return f"says {found[0] + claimed!r}"
    return None


@check(
    "reply.takes_back",
    reason="denies knowing what the answer it follows just told",
    stages=frozenset((Stage.REPLY,)),
)
def _takes_back(text: str, ctx: Context) -> str | None:
    return "denies the answer" if ctx.answered and denies(text) else None
