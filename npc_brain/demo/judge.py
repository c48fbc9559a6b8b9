"""Judging an interview answer against a seed's facts (host, place, date), as the paper
judged its agents' answers. Pure.

An answer is about the seed when it holds a key phrase or states two of its facts (a
host's "I" is not one of the two: "I own the Red Boar", said by the feast's host, knows no
feast); only then is it judged. It states a fact rightly when it holds one of the
fact's phrases that the question did not, and wrongly when it names instead another
agent (host) or says it hosts the event itself ("I'm hosting a feast", "my feast", said
by a guest),
another place of the town (place), or another date or time (date). The source sentence
a holder adds ("I heard it from Bram, who heard it from Vera.") is not judged: it
names tellers, not hosts; a line passed on ('Bram told me: "..."') is judged as its
teller's words, whose "I" is the teller ('Bram told me that Vera said: "..."': as
Vera's); a line the agent said to someone ('I told Ana
Costa: "..."') as its own words, the one it told not a host it names unless the line
says so ("you're running for reeve", "your feast", "Ana Costa is having a feast"); and
so with a teller named in its own line.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from npc_brain.demo.cast import Seed
from npc_brain.memory.when import says_when

_SOURCE = re.compile(r"I heard it from [^.]*\.")
# A line passed on: 'Bram told me: "..."', its "I" the teller's; or 'Bram told me that
# Vera said: "..."', its "I" Vera's.
_NAME = r"[A-Z][a-z]+(?: [A-Z][a-z]+)?"
_RETOLD = re.compile(
    rf'^(?:As far as I know, )?({_NAME}) told me(?: that ({_NAME}) said)?:? "(.*)"(.*)$', re.S
)
# A line the agent said: 'I told Ana Costa: "..."'; Ana is its listener.
_TOLD = re.compile(rf'^I told ({_NAME})(?: that ({_NAME}) said)?:? "(.*)"(.*)$', re.S)


def _hosts(owner: str) -> str:
    """The verb of one who hosts (or runs) an event, after its adverb: 'throwing',
    'running for', 'planning a/the/<owner>' ('my' for "I", 'your' for "you")."""
    return (
        r"\s+(?:\w+ly\s+)?(?:hosting|throwing|holding|organi[sz]ing|giving|"
        rf"planning (?:a|the|{owner})|running for)\b"
    )


# ... and says its listener hosts: "you're holding an auction".
_YOU_HOST = re.compile(rf"\byou(?:'re| are| will be|'ll be){_hosts('your')}", re.IGNORECASE)
_FIRST = re.compile(r"\b(?:I|I'm|[Mm]y|[Mm]e)\b")
# The answering agent says it hosts (or runs) the seed's event itself.
_HOSTING = re.compile(
    r"\bI(?:'m| am| will be|'ll be|(?:'m| am) the one (?:who|that)(?:'s| is| will be|'ll be))"
    + _hosts("my"),
    re.IGNORECASE,
)
# ... or someone named does: "Ana Costa is having a feast" ("having" said of them only).
_HOSTS = rf"(?:is|was|will be|'s|'ll be)(?:{_hosts('his|her')}|\s+(?:\w+ly\s+)?having\b)"


def _owned(owner: str, seed: Seed) -> re.Pattern[str]:
    """Someone calls the seed's event (a key phrase) its own, whatever the verb: "celebrate
    my new auction" (owner "my|our"), "your auction" ("your"); not "my invitation to the
    auction" nor "my friend's auction"."""
    event = "|".join(re.escape(p) for p in seed.key_phrases)
    return re.compile(
        rf"\b(?:{owner})\s+(?:(?!(?:to|the|a|an|of|for|at|in|on|with|and|from)\b)"
        rf"(?![\w-]*'s\b)[\w'-]+\s+){{0,2}}(?:{event})\b",
        re.IGNORECASE,
    )


@dataclass(frozen=True)
class Verdict:
    """What an answer says about a seed: the facts it states rightly and wrongly."""

    right: tuple[str, ...]
    wrong: tuple[str, ...]

    @property
    def knows(self) -> bool:
        """It states a fact rightly and none wrongly."""
        return bool(self.right) and not self.wrong

    @property
    def claims(self) -> bool:
        """It says something about the seed, right or wrong."""
        return bool(self.right or self.wrong)


def judge(
    answer: str,
    seed: Seed,
    people: Mapping[str, str],
    places: Sequence[str],
    speaker: str = "",
    set_aside: tuple[str, ...] = (),
    question: str = "",
) -> Verdict:
    """The verdict on `answer` to `question` (default: `seed.question`), whose words
    state nothing; `people`: agent id -> name (the
    others), `places`: the town's place names, `speaker`: the answering agent's name (a
    host speaking of itself says "I" or "my"); `set_aside`: the tellers and listeners of
    the lines the answer passes on, taken out of `people`: named, they are no host,
    unless named as one ("Ana Costa is having a feast")."""
    if (retold := _RETOLD.match(answer.strip())) and (teller := _who(retold.group(1), people)):
        origin = _who(retold.group(2), people) if retold.group(2) else teller
        if origin:  # the words' speaker is their origin; the teller passed them on
            rest = {a: n for a, n in people.items() if n not in (teller, origin)}
            words = retold.group(3) + retold.group(4)
            named = (*set_aside, speaker, teller, origin)  # the answerer is named too
            return judge(words, seed, rest, places, origin, named, question)
    if (told := _TOLD.match(answer.strip())) and (listener := _who(told.group(1), people)):
        origin = _who(told.group(2), people) if told.group(2) else ""
        rest = {a: n for a, n in people.items() if n not in (listener, origin)}
        words = told.group(3) + told.group(4)
        if origin:  # 'I told Ana that Vera said: "..."': Vera's words
            return judge(
                words, seed, rest, places, origin, (*set_aside, listener, origin), question
            )
        verdict = judge(words, seed, rest, places, speaker, (*set_aside, listener), question)
        yours = _YOU_HOST.search(told.group(3)) or _owned("your", seed).search(told.group(3))
        if yours and (verdict.claims or seed.mentioned_in(words)):
            return _hosted_by(listener, seed, verdict)  # "you're running for reeve"
        return verdict
    text = _SOURCE.sub("", answer)
    asked = (question or seed.question).lower()
    right, wrong, stated = [], [], 0
    echoed = set()  # a right phrase the question said: no fact stated, and no wrong one
    for name, phrases in seed.facts:
        said = any(_has(text, p) and p.lower() not in asked for p in phrases)
        if any(_has(text, p) and p.lower() in asked for p in phrases):
            echoed.add(name)
        host_itself = name == "host" and any(_names(speaker, p) for p in phrases)
        if said or (host_itself and _FIRST.search(text) is not None):
            right.append(name)
            stated += said
    if not (seed.mentioned_in(text) or stated > 1):
        return Verdict((), ())  # not about the seed: "I own the Red Boar" knows no feast
    for name, _ in seed.facts:
        if name in right or name in echoed:
            continue
        if name == "host":
            others = [n for n in people.values() if _names(text, n) and not _guest(text, n)]
            mine = (_HOSTING, _owned("my|our", seed))
            stated = bool(others) or any(p.search(text) for p in mine)
            stated = stated or any(_said_to_host(text, n) for n in (speaker, *set_aside))
        elif name == "place":
            stated = any(_has(text, place) for place in places)
        else:
            stated = says_when(text)
        if stated:
            wrong.append(name)
    return Verdict(tuple(right), tuple(wrong))


def _hosted_by(host: str, seed: Seed, verdict: Verdict) -> Verdict:
    """The verdict with `host` stated as the seed's host: right or wrong."""
    phrases = next((p for name, p in seed.facts if name == "host"), ())
    if any(_names(host, p) for p in phrases):
        right = verdict.right if "host" in verdict.right else ("host", *verdict.right)
        return Verdict(right, tuple(w for w in verdict.wrong if w != "host"))
    wrong = verdict.wrong if "host" in verdict.wrong else (*verdict.wrong, "host")
    return Verdict(tuple(r for r in verdict.right if r != "host"), wrong)


def _said_to_host(text: str, name: str) -> bool:
    """Whether the text says the person hosts (or runs) something, by full or first name
    ("Ana Costa is having a feast", in a line Ana passed on)."""
    if not name:
        return False
    names = "|".join(re.escape(n) for n in {name, name.split()[0]})
    return re.search(rf"\b(?:{names})\s+{_HOSTS}", text, re.IGNORECASE) is not None


def _guest(text: str, name: str) -> bool:
    """Whether the text names the person only as going to the event, not hosting it:
    "Bram Holt is going to the feast", "Ana will come to it"."""
    names = "|".join(re.escape(n) for n in {name, name.split()[0]})
    going = rf"\b(?:{names})\s+{_GOING}"
    to_host = rf"{going}\s+to\s+(?:host|throw|hold|organi[sz]e|give|run)\b"  # "going to host"
    # ... or tells that they go: "Ana Costa told me she'd love to come to the feast".
    says_going = rf"\b(?:{names})\s+{_SAYS}\s+(?:he|she|they)\b[^.]*?\b{_GO}"
    found = any(re.search(p, text, re.IGNORECASE) for p in (going, says_going))
    hosts = _said_to_host(text, name) or re.search(to_host, text, re.IGNORECASE) is not None
    return found and not hosts


# English's verbs of going to an event as a guest, after the one who goes.
_GOING = (
    r"(?:is|was|will be|'s|'ll be|will|'ll)?\s*(?:\w+\s+)?"  # an adverb: "is often going"
    r"(?:going|coming|heading|attending|invited|go|come|attend)\b"
)


_SAYS = r"(?:told|tells|said|says)(?:\s+(?:me|us))?(?:\s+that)?"
_GO = r"(?:come|coming|go|going|attend|attending|be there)\b"


def _who(name: str, people: Mapping[str, str]) -> str:
    """The full name of the person `name` (full or first) names, or ''."""
    return next((n for n in people.values() if n == name or n.split()[0] == name), "")


def _has(text: str, phrase: str) -> bool:
    return re.search(rf"\b{re.escape(phrase)}\b", text, re.IGNORECASE) is not None


def _names(text: str, name: str) -> bool:
    """Whether the text names the person, by full or first name."""
    first = name.split()[0] if name.split() else name
    return _has(text, name) or (len(first) > 2 and _has(text, first))
