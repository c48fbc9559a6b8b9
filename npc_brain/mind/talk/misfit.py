"""Lines that do not fit the town: another language, a person or place nobody knows, a
speaker taking another's part. Pure code, no model call: cheap enough for every line.

A small model drifts into Spanish or Italian (such as "Bienvenida Vera, eres la capitana
de la guardia."), invents people and places (such as "Mike Brown, the harbour master of
Portland", "the City of Bionca") and takes the wrong part (such as "Hi Bram, I'm Tomas"
said by Vera). Such a line is
refused like a broken one (answers.broken) and drawn again, then replaced by a plain
line built from memory. What a line may name is what its speaker has at hand
(`Cast`): the town's people, the listener, the memories or facts the line was drawn
from, the persona, the places the speaker knows, what was said so far.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache

from lemminflect import getAllLemmas

from npc_brain.lexicon import GREETING, HOSTING, NOT_NAMES, SELF_NAMING
from npc_brain.memory.when import CALENDAR_WORDS, days_of_month
from npc_brain.mind.talk.answers import passed_on, said_line
from npc_brain.mind.talk.realise import english, verb_form
from npc_brain.words import closed_class, lower_words, spans, stem, tokens

_NOT_NAMES = NOT_NAMES | CALENDAR_WORDS  # capitalised words that name nobody

_BE = r"(?:is|are|was|were|will be|['’]ll be|am|['’]m|['’]re|['’]s)"
_WILL = r"(?:will|['’]ll)(?! be\b)"  # "I will plan a party", not "I will be"
_DOES = rf"(?:{_BE}\s+(?:\w+ly\s+)?(\w+ing)|{_WILL}\s+(?:\w+ly\s+)?(\w+))\b([^.!?;,]*)"
_THEIR_DEED = re.compile(rf"\s+{_DOES}")
# "I'm hosting", "we're planning", "I'm the one who's throwing"
_THE_ONE = r"(?:\s*(?:['’]m|am|['’]re|are) the ones? (?:who|that))?"
_OUR_DEED = re.compile(rf"\b(?:I|[Ww]e){_THE_ONE}(?:\s+|(?=['’])){_DOES}")
_YOUR_DEED = re.compile(rf"\b[Yy]ou(?:\s+|(?=['’])){_DOES}")  # "you're having a party"


@dataclass(frozen=True)
class Deed:
    """What someone is doing, as a text at hand says it: a person's full name, the -ing
    verb ('hosting'), the lowercase words of what follows it ('a party at the cafe') and
    the head of its first noun phrase ('party'), what the doing is about."""

    person: str
    verb: str
    what: frozenset[str]
    head: str = field(default="", compare=False)


@dataclass(frozen=True)
class Cast:
    """What a line may name: `speaker` and `listener` (full names; '' for a listener
    not known, a player), the town's `people` (full names), `known`, the lowercase
    words of everything the speaker has at hand, and the `deeds` those texts tell of
    (the speaker's own and the others')."""

    speaker: str
    listener: str
    people: frozenset[str]
    known: frozenset[str]
    deeds: tuple[Deed, ...] = ()
    numbers: frozenset[str] = frozenset()  # the numbers of the texts at hand
    days: frozenset[str] = frozenset()  # of those, days of a month ("February 14", "14th")
    acquainted: bool = False  # a text at hand names both: they have met, or are kin

    @classmethod
    def of(cls, speaker: str, listener: str, people: Iterable[str], texts: Iterable[str]) -> Cast:
        """A cast from the names and the texts the speaker has at hand (memories, facts,
        its persona, places it knows, what was said: a line as 'X said to Y: "..."')."""
        texts = list(texts)
        names = frozenset(p for p in [speaker, listener, *people] if p)
        words = {_bare(w).lower() for text in [*names, *texts] for w in tokens(text)}
        deeds = tuple(d for text in texts for d in deeds_in(text, speaker, names))
        numbers = frozenset(n for text in texts for n in _numbers(text))
        days = frozenset(day for text in texts for day in days_of_month(text))
        acquainted = bool(listener) and any(listener in t and speaker in t for t in texts)
        return cls(speaker, listener, names, frozenset(words), deeds, numbers, days, acquainted)

    def person_words(self) -> frozenset[str]:
        """The words of the people's names, lowercase."""
        return frozenset(w.lower() for name in self.people for w in name.split())


def own_words(text: str) -> str:
    """A line without what it quotes: a line quoted is in its own speaker's part."""
    first, last = text.find('"'), text.rfind('"')  # first to last: quotes nest in retold lines
    return text[:first] + '""' + text[last + 1 :] if first < last else text


def misfit(text: str, cast: Cast) -> str | None:
    """Why a line does not fit the town, or None: not English, an address read out, a
    speaker addressing itself, claiming another's identity or another's doing (outside
    what it quotes), or a person or place nobody knows."""
    own = own_words(text)
    return (
        foreign(text, cast)
        or spoken_address(text)
        or wrong_part(own, cast)
        or borrowed(own, cast)
        or stranger(text, cast)
        or made_up_time(text, cast)
    )


def made_up_time(text: str, cast: Cast) -> str | None:
    """'a time nobody gave (Monday)' for a weekday, a month or a number that none of the
    texts at hand holds: the party 'on Monday' or 'on February 21st', when it is on
    February 14. A date is a claim, and a made-up one the most plausible false memory."""
    for number in _numbers(text):
        if number not in cast.numbers:
            return f"a time nobody gave ({number})"
    for day in days_of_month(text):  # "the 11th", "February 14"
        if day not in cast.days:
            return f"a time nobody gave ({day})"
    for word in tokens(text):
        if word.lower() in CALENDAR_WORDS and word.lower() not in cast.known:
            return f"a time nobody gave ({word})"
    return None


def spoken_address(text: str) -> str | None:
    """'says an address (Oakvale:Smithy)': a place as the game names it, colons and all, read
    out from the prompt ("The Oakvale:Smithy is a new project we're working on")."""
    for chunk in text.split():
        place, colon, part = chunk.strip(".,!?;").partition(":")
        if colon and place[:1].isalpha() and part[:1].isalpha():  # not "5:30"
            return f"says an address ({chunk.strip('.,!?;')})"
    return None


def foreign(text: str, cast: Cast) -> str | None:
    """'not English' when a line is in another script, or more than half of its
    lowercase words, two or more, are no English words (by the realiser's lexicon) and
    none of the words at hand."""
    words = tokens(text)
    if any(c.isalpha() and not unicodedata.name(c, "").startswith("LATIN") for c in text):
        return "not English (another script)"
    lowercase = [w for w in words if not w[:1].isupper() and w.lower() not in cast.known]
    others = sum(not english(w) for w in lowercase)
    if others >= 2 and others > len(lowercase) - others:
        return "not English"
    return None


def wrong_part(text: str, cast: Cast) -> str | None:
    """Role confusion: the speaker claims another's name ('I'm Tomas' said by Vera),
    introduces itself to one it knows ('Hi Marta, I'm Oren' said to his wife),
    addresses itself ('Hi Vera!' said by Vera), or, talking with a known listener,
    greets someone else."""
    own = {w.lower() for w in cast.speaker.split()}
    people = cast.person_words()
    for name in _claimed(text):
        low = name.lower()
        if low in own and cast.acquainted:
            return f"introduces itself ({name}) to {cast.listener}, whom it knows"
        if low in own:
            continue
        if low in people or not (low in cast.known or _common(name)):
            return f"claims to be {name}"
    greeted, called = _addressed(text)
    addressed = [name for name, _ in greeted] + [name for name in called if name.lower() in own]
    listener = {w.lower() for w in cast.listener.split()}
    for name in addressed:
        low = name.lower()
        if low in own and low not in listener:
            return f"addresses itself ({name})"
        if listener and low in people and low not in listener:
            return f"addresses {name}, not {cast.listener}"
    return None


def _claimed(text: str) -> list[str]:
    """The names a line's speaker gives itself ("I'm Tomas", "my name is Tomas")."""
    words = spans(text)
    low = [w.lower() for w, _ in words]
    return [
        word
        for i, (word, _) in enumerate(words)
        if _name(word) and any(tuple(low[max(0, i - len(c)) : i]) == c for c in SELF_NAMING)
    ]


def _addressed(text: str) -> tuple[list[tuple[str, int]], list[str]]:
    """The names a line addresses, with where each starts: greeted ("Hi Vera", "Good
    morning, Vera"), first before a comma or "!" ("Vera, I'm glad"), or last after a
    comma ("... to meet you, Bram!"); and the words it calls mid-line ("We're new,
    Tomas! ...") or greets in lowercase ("hi vera")."""
    words = spans(text)
    greeted: list[tuple[str, int]] = []
    called: list[str] = []
    for i, (word, start) in enumerate(words):
        before = text[words[i - 1][1] + len(words[i - 1][0]) if i else 0 : start].strip()
        after = text[start + len(word) : words[i + 1][1] if i + 1 < len(words) else None].strip()
        prev = words[i - 1][0].lower() if i else ""
        good = i > 1 and words[i - 2][0].lower() == "good" and prev.endswith("ing")
        if (prev in GREETING or good) and before in ("", ","):
            if _name(word):
                greeted.append((word, start))
            else:
                called.append(word)
        elif _name(word) and i == 0 and after[:1] in (",", "!"):
            greeted.append((word, start))
        elif _name(word) and before == "," and after[:1] in (*".!?", ","):
            called.append(word)
            if i == len(words) - 1:
                greeted.append((word, start))
    return greeted, called


def _name(word: str) -> bool:
    """A word as a name is written ("Vera"; not "I", "VERA" or "Vera's")."""
    return len(word) > 1 and word[0].isupper() and word[1:].isalpha() and word[1:].islower()


def third_person(text: str, cast: Cast) -> str | None:
    """Why a spoken line that opens with the speaker's or the listener's full name and a
    verb does not fit ('Bram Ashford is talking with Vera Holt.', said by Bram;
    'Tomas Reyes is having lunch.', said to Tomas), or None. For spoken lines only: a
    thought or a memory is written so."""
    for who, why in ((cast.speaker, "speaks of itself as"), (cast.listener, "speaks to")):
        rest = text.removeprefix(who + " ") if who else text
        if rest != text and lower_words(rest)[:1] in (["is"], ["was"], ["has"], ["will"]):
            return f"{why} {who}" + (" as if absent" if why == "speaks to" else "")
    return None


def borrowed(text: str, cast: Cast) -> str | None:
    """Role confusion without a name: the speaker says it is doing what, by the texts at
    hand, someone else is doing, and it is not ('I'll be hosting a feast at the Red
    Boar', said by Tomas, who heard Bram say it; 'I'm running for guard captain', said by
    anyone but Vera): the same verb, and two of the words after it (all, if it has
    fewer); or it calls another's event its own, whatever the verb ('I'm excited to
    celebrate my new captaincy', said by Bram). Or it says so of its listener
    ("I'm so glad you're having a lantern festival party", said by its host to Tomas),
    or of anyone it names ("<the listener's full name> is having a <holiday> party",
    said by its host to that listener in the 10-agent day, and retold as the
    listener's party)."""
    if claimed := _given(text, cast, cast.speaker, _OUR_DEED, ("my", "our")):
        return f"claims {claimed}"
    if cast.listener and (lent := _given(text, cast, cast.listener, _YOUR_DEED, ("your",))):
        return f"gives {cast.listener} {lent}"
    for person in sorted(cast.people - {cast.speaker}):
        if lent := _given_doing(text, cast, person, _named_deed(person)):
            return f"gives {person} {lent}"
    return None


@lru_cache(maxsize=256)
def _named_deed(person: str) -> re.Pattern[str]:
    """A doing said of `person` by full or first name ("Tomas Reyes is having", "Tomas will
    host"), as _THEIR_DEED reads it after a name; not of a possessive ("Tomas's sister")."""
    names = [re.escape(person)] + [re.escape(w) for w in person.split()[:1] if w != person]
    return re.compile(rf"\b(?:{'|'.join(names)})(?!['’]s\b){_THEIR_DEED.pattern}")


def _given(
    text: str, cast: Cast, who: str, deed: re.Pattern[str], owners: tuple[str, ...]
) -> str | None:
    """Another's doing or event that the text gives `who` ("Bram Ashford's doing
    (host feast)", "Vera Holt's captain"), or None."""
    return _given_doing(text, cast, who, deed) or _given_event(text, cast, who, owners)


def _given_doing(text: str, cast: Cast, who: str, pattern: re.Pattern[str]) -> str | None:
    """A doing the text gives `who` that, by the texts at hand, another does and `who`
    does not: "having breakfast" does not make "having the feast" Tomas's own."""
    for match in pattern.finditer(text):
        verb, what = _verb(match), _words(match.group(3))
        doers = {d.person for d in cast.deeds if d.verb == verb and _same(what, d.what)}
        if who not in doers:
            for deed in cast.deeds:
                if deed.person in doers:
                    shared = " ".join(sorted(what & deed.what))
                    return f"{deed.person}'s doing ({verb} {shared})"
    return None


def _same(what: frozenset[str], other: frozenset[str]) -> bool:
    """Two doings' words are one: two words shared (all, if it has fewer); "running
    errands in the village" and "running for captain of the village" are not."""
    shared = what & other
    return bool(shared) and len(shared) >= min(2, len(what))


def _given_event(text: str, cast: Cast, who: str, owners: tuple[str, ...]) -> str | None:
    """An owner word ("my", "your") before the head noun of another's deed, which none of
    `who`'s own deeds has: "my boat", said by one who heard that someone else sells a
    boat, claims the other's doing as surely as "I'm selling the boat"."""
    own = {d.head for d in cast.deeds if d.person == who}
    for word in owned_nouns(text, cast, owners):
        if word in own:
            continue
        for deed in cast.deeds:
            if deed.person != who and word == deed.head:
                return f"{deed.person}'s {word}"
    return None


def owned_nouns(text: str, cast: Cast, owners: tuple[str, ...] = ("my", "our")) -> list[str]:
    """The words of the noun phrases that follow an owner word ("my old boat" -> old,
    boat), up to a possessive that gives the phrase to someone else ("my friend's boat":
    friend; a name's possessive, "my Midsummer's Eve feast", does not stop it)."""
    raw = tokens(text)
    lowered = [w.lower() for w in raw]
    people = cast.person_words()
    found = []
    for i, token in enumerate(lowered):
        if token not in owners:
            continue
        for word, said in zip(lowered[i + 1 : i + 5], raw[i + 1 : i + 5], strict=True):
            if closed_class(word):
                break
            found.append(_bare(word))
            owner = word[:-2] if word.endswith("'s") else ""
            if owner and (owner in people or (said[:1].islower() and getAllLemmas(owner))):
                break
    return found


def deeds_in(text: str, speaker: str, people: Iterable[str]) -> list[Deed]:
    """The deeds a text tells of: a person's ('Vera Holt is running for guard captain'; a text
    about `speaker` that names only its first name counts as the speaker's), or a line's
    speaker's own ('X said to Y: "I'm hosting a party"')."""
    text = text.strip()
    if line := said_line(text):
        return said_deeds(line[0], line[2], people)
    found = []
    for person in {*people, speaker}:
        first = person.split()[0] if person.split() else ""
        for name in (person, first):
            if name and text.startswith(name + " ") and (m := _THEIR_DEED.match(text, len(name))):
                found.append(_deed(person, m))
                break
    if not found and text.startswith(("I ", "I'm ", "I’m ")):  # the speaker's own words
        found = [_deed(speaker, m) for m in _OUR_DEED.finditer(text)]
    return found


def said_deeds(who: str, words: str, people: Iterable[str]) -> list[Deed]:
    """The deeds a line tells of its speaker `who` ("I'm hosting", "we're planning", "my
    campaign": an event it calls its own), or,
    when it passes on what a person of the town said ('Bram Ashford told me: "I
    am throwing a feast"', 'Tomas told me that Bram Ashford said: "..."'), of that
    person."""
    if (line := passed_on(words)) and line[1] in set(people):
        return said_deeds(line[1], line[2], people)
    deeds = [_deed(who, m) for m in _OUR_DEED.finditer(words)]
    return deeds


def _deed(person: str, match: re.Match[str]) -> Deed:
    what = match.group(3)
    return Deed(person, _verb(match), _words(what), _head(what))


def _head(phrase: str) -> str:
    """The last word of a phrase's first noun phrase, its leading function words passed
    over ("for captain of the guard" -> captain; "a harvest feast at the inn" -> feast)."""
    words = [_bare(w).lower() for w in tokens(phrase)]
    start = next((i for i, w in enumerate(words) if not closed_class(w)), len(words))
    end = next((i for i in range(start, len(words)) if closed_class(words[i])), len(words))
    return words[end - 1] if end > start else ""


def _verb(match: re.Match[str]) -> str:
    """A deed's verb as its stem ('planning' and 'plan' are one: 'plan'); the verbs of
    holding an event are one ('hosting', 'throwing', 'planning' a party: 'host')."""
    verb = stem((match.group(1) or match.group(2)).lower())
    return "host" if verb in HOSTING else verb  # one doing, however it is worded


def _numbers(text: str) -> list[str]:
    """The numbers written in a text, as digits ("5pm", "February 14": 5, 14)."""
    return "".join(c if c.isdecimal() else " " for c in text).split()


def _words(text: str) -> frozenset[str]:
    """A phrase's content words, lowercase (English function words left out)."""
    words = (_bare(w).lower() for w in tokens(text))
    return frozenset(w for w in words if not closed_class(w) and len(w) > 2)


def stranger(text: str, cast: Cast) -> str | None:
    """'names X, unknown in the town' for a capitalised word that names nobody and
    nothing the speaker knows: in mid-sentence, greeted or addressed, or one of two
    capitalised words in a row ('Mike Brown'), or the subject of a verb ('Lionel has a
    party.'). A word at a sentence's start alone may be any English word ('Studying is
    fun.')."""
    tokens = [(w, start) for w, start in spans(text) if not w.isdecimal()]
    greeted = {start for _, start in _addressed(text)[0]}
    for i, (word, start) in enumerate(tokens):
        if not _capitalised(word) or not _unknown(word, cast):
            continue
        initial = text[:start].rstrip()[-1:] in ("", *'.!?:;"')
        paired = any(  # "Mike Brown": two capitalised words, a space between
            _capitalised(tokens[j][0]) and _spaced(text, tokens[min(i, j)], tokens[max(i, j)])
            for j in (i - 1, i + 1)
            if 0 <= j < len(tokens)
        )
        subject = i + 1 < len(tokens) and verb_form(
            tokens[i + 1][0], ("VBZ", "VBD")
        )  # "Lionel has"
        named = start in greeted or paired or subject  # "Hi Sarah", "Sarah, ...", "Mike Brown"
        if not initial or (named and not _englishlike(word)):
            return f"names {_bare(word)}, unknown in the town"
    return None


def _spaced(text: str, first: tuple[str, int], second: tuple[str, int]) -> bool:
    """Whether only spaces stand between two tokens (word, start) of the text."""
    word, start = first
    return not text[start + len(word) : second[1]].strip()


def _capitalised(word: str) -> bool:
    return word[:1].isupper() and word[1:2].islower()


def _bare(word: str) -> str:
    return word.replace("’", "'").removesuffix("'s")


def _common(word: str) -> bool:
    low = _bare(word).lower()
    return low in _NOT_NAMES or closed_class(low)


def _englishlike(word: str) -> bool:
    """A common word, or an English one that names nobody: a modifier ('Honestly'), or
    a verb's form ('Studying'); 'Mike' and 'Sarah' are names."""
    lemmas = getAllLemmas(low := word.lower())
    inflected = any(lemma != low for lemma in lemmas.get("VERB", ()))
    return _common(word) or inflected or bool(lemmas.keys() & {"ADJ", "ADV"})


def _known_name(word: str, cast: Cast) -> bool:
    return _capitalised(word) and _bare(word).lower() in cast.known


def _unknown(word: str, cast: Cast) -> bool:
    """Neither a word the speaker has at hand nor an English word that names nobody."""
    low = _bare(word).lower()
    return low not in cast.known and not _common(word)
