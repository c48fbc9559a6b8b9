"""What the talk layer reads in a line of text: its content words (Snowball stems), the
people it names, how a dialogue memory words a line, and whether a line is unusable (a
role tag, a loop, a bare name, a JSON fragment, out of character) or turns a question
around. Every function here is pure; the checks (checks.py) call them by name.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from npc_brain.lexicon import FRAMING
from npc_brain.persona import Persona
from npc_brain.words import AUX_FORMS, MODALS, closed_class, lower_words, sentences, stem, tokens


def content_word(word: str) -> bool:
    """Whether a lowercase word may say what a line is about: not one of English's
    small words (realise.closed_class: "the", "I'm", "don't", "would") nor a framing
    verb ("tell", "know")."""
    return not closed_class(word) and word not in FRAMING


# Out of character: the model speaking as what it is ("I'm not a human. I'm a virtual
# character created to explore the world of storytelling.", said by a guest in the default
# demo).
_OUT_OF_CHARACTER = re.compile(
    r"\b(?:I'?m|I am) (?:not a (?:real )?(?:human|person)|an? (?:AI|chatbot|bot|robot|"
    r"assistant|virtual|computer program|language model|artificial))"
    r"|\bas an AI\b|\b(?:language|AI) model\b|\bvirtual (?:character|assistant)\b",
    re.IGNORECASE,
)
_ROLE_TAG = re.compile(
    r"(^|\s)(?:[A-Z]|Q|A|User|Assistant|System|Human)\s*:\s"
    r"|^[A-Z][a-z]+(?: [A-Z][a-z]+)?:\s",  # a speaker's name as a tag: "Vera Holt: Hi"
    re.MULTILINE,
)
# A line the length limit cut: an end mark after a comma or a space, after a lone capital
# letter, a dash or a slash, or after a word that cannot end a sentence ("... from 5 pm
# to !", "... and a .", "You know,?", "a feast at the Red B.", "from 5-?"), or a colon
# with nothing after it ("Bram Ashford said:").
_CUT_OFF = re.compile(
    r"(?:[,;:]|\s)[.!?]+$|\s[B-HJ-Z][.!]+$|\w[-–/][.!?]*$|:$"
    r"|\b(?:[Aa]n?|[Tt]he|[Aa]nd|[Oo]r|[Bb]ut|[Mm]y|[Yy]our|[Tt]heir|[Oo]ur|[Oo]f|[Ff]rom|[Aa]t"
    r"|I|I'm|I')[.!]+$"
)
_LINE = re.compile(r'^([^"]+?) said to ([^"]+?): "(.*)"$', re.DOTALL)  # a dialogue memory
# A line passed on: 'Bram told me: "..."', or 'Bram told me that Vera said: "..."'.
_PASSED_ON = re.compile(
    r'^(?:(?:Hi|Hello|Hey) [^,!]+[,!] )?([^":]+?) told me(?: that ([^":]+?) said)?: "(.*?)"?$',
    re.DOTALL,
)


def key_terms(text: str) -> set[str]:
    """The words that carry a text's content, lowercase, each as its Snowball stem
    ("running", "runs" and "run" are one term): no small words (content_word), numbers kept."""
    words = lower_words(text)
    return {stem(w) for w in words if (content_word(w) and len(w) > 2) or w.isdecimal()}


def names_in(text: str, people: dict[str, str]) -> list[str]:
    """The ids of the people (id -> full name) a text names, by full or first name."""
    low = text.lower()
    words = {w.removesuffix("'s") for w in lower_words(text)}  # "Vera's" names Vera
    found = []
    for agent_id, name in people.items():
        first = name.split()[0].lower() if name.split() else ""
        if name.lower() in low or (len(first) > 2 and first in words):
            found.append(agent_id)
    return found


def degenerate(text: str, persona: Persona) -> str | None:
    """Why a reply is unusable, or None: too short, a bare name, or broken."""
    stripped = text.strip()
    words = tokens(stripped)
    if len(words) < 2:
        return "too short"
    bare = " ".join(w.lower() for w in words)
    name = persona.name.lower()
    if bare in (name, name.split()[0] if name else "") or set(bare.split()) <= set(name.split()):
        return "only a name"
    if len(words) <= 4 and all(w[0].isupper() for w in words):
        return "a bare name"
    if any(line.lstrip().startswith(("- ", "* ")) for line in stripped.splitlines()):
        return "a list (the prompt's facts echoed)"
    return broken(text)


def broken(text: str) -> str | None:
    """Why a line is broken, however short: a role tag, out of character ("I'm not a
    human"), markup or JSON, cut off by the length limit, number soup, a repetition loop
    ("Bram Ashford, Bram Ashford, ..."); or None."""
    return garbled(text, whole=True)


def garbled(text: str, whole: bool = False) -> str | None:
    """Why the start of a line is broken already (`broken` but for being cut off, which
    only a `whole` line can be), or None."""
    stripped = text.strip()
    words = tokens(stripped)
    if _ROLE_TAG.search(stripped):
        return "a role tag"
    if _OUT_OF_CHARACTER.search(stripped):
        return "out of character"
    if any(c in stripped for c in "{}[]<>") or '"utterance"' in stripped:
        return "a markup or JSON fragment"
    if whole and _CUT_OFF.search(stripped):
        return "cut off mid-sentence"
    numbers = sum(any(c.isdecimal() for c in w) for w in words)  # "123s" too
    if numbers > 4 or (words and numbers > len(words) / 4):
        return "number soup"
    lower_words = [w.lower() for w in words]
    for size in (1, 2, 3):
        grams = [tuple(lower_words[i : i + size]) for i in range(len(lower_words) - size + 1)]
        looping = any(grams.count(g) >= (4 if size == 1 else 3) for g in set(grams))
        if looping and (size > 1 or len(set(lower_words)) < len(lower_words) / 2):
            return "a repetition loop"
    return None


_DENIALS = re.compile(
    r"^\W*no\b|"  # "no, that party is in the future" (asked whether it heard of a party)
    r"\b(?:not sure|don'?t know|no idea|not heard|haven'?t heard|never heard|no ?one|nobody)\b",
    re.IGNORECASE,
)


def denies(text: str) -> bool:
    """Whether a reply says the agent knows nothing of it ("I'm not sure", "no one has
    been selling a boat"): honest without facts, false with them."""
    return _DENIALS.search(text.replace("’", "'")) is not None


def unfounded(text: str, texts: Sequence[str], people: Sequence[str]) -> list[str]:
    """The people of the town (full names) a reply names that none of the `texts` it
    rests on names (the facts, the question, the persona): "Tomas Reyes, the captain of
    the Gull", from facts that name Bram and Vera."""
    by_name = dict(zip(people, people, strict=True))
    at_hand = set(names_in(" ".join(texts), by_name))
    return [name for name in names_in(text, by_name) if name not in at_hand]


def first_person(text: str) -> bool:
    """Whether a line has its speaker for a subject ("I'd put the fire out", "Let's
    ..."): asked what it would do, an agent answering "She would not eat any more" talks
    of someone else, and "You should have asked me to" of the one who asked."""
    return any(w in ("i", "we", "let's") or w.startswith(("i'", "we'")) for w in lower_words(text))


def turned_around(text: str, question: str) -> bool:
    """Whether a reply answers a question about the agent as if about the asker: "Have
    you been invited to any event?" -> "No, you have not been invited to any event"."""
    said = f" {' '.join(lower_words(text))} "
    asked = lower_words(question)
    return any(
        you == "you" and verb in _ASKING_VERBS and f" you {said_verb} {word} " in said
        for verb, you, word in zip(asked, asked[1:], asked[2:], strict=False)
        for said_verb in (verb, f"{verb}n't", f"{verb} not")
    )


_ASKING_VERBS = AUX_FORMS | MODALS | {"did"}  # "did you go", "can you come"


def echoes(text: str, question: str) -> bool:
    """Whether a reply repeats a sentence of three words or more of the question ("What
    would you do? You should have asked me to.", to "... What would you do?")."""
    said = " ".join(lower_words(text))
    for sentence in sentences(question):
        words = lower_words(sentence)
        if len(words) >= 3 and f" {' '.join(words)} " in f" {said} ":
            return True
    return False


def said_line(text: str) -> tuple[str, str, str] | None:
    """(speaker, listener, words) of a line as a dialogue memory words it ('X said to Y:
    "..."'), else None."""
    match = _LINE.match(text.strip())
    return None if match is None else (match[1], match[2], match[3])


def passed_on(words: str) -> tuple[str, str, str] | None:
    """(teller, origin, quoted words) of a line that passes on what someone said ('Bram
    told me that Vera said: "I am ..."': Bram, Vera, 'I am ...'; 'Vera told
    me: "..."': Vera twice), else None."""
    match = _PASSED_ON.match(words.strip())
    return None if match is None else (match[1], match[2] or match[1], match[3])


def retold(teller: str, hearer: str, words: str) -> str:
    """What `teller` told `hearer` ("me", a name), passed on with one pair of quotes
    whatever the hops: the words' own origin is named, not quoted again ('Bram told me
    that Vera said: "I am ..."', not 'Bram told me: "Vera told me: "I am ...""')."""
    if (inner := passed_on(words)) is not None:
        return f'{teller} told {hearer} that {inner[1]} said: "{_ended(inner[2])}"'
    return f'{teller} told {hearer}: "{_ended(words)}"'


def _ended(words: str) -> str:
    """The words ending as a sentence does."""
    words = words.strip()
    return words if words.endswith((".", "!", "?")) else words + "."


def said_words(text: str) -> str:
    """The words a line said ('X said to Y: "..."'), else the text itself."""
    return line[2] if (line := said_line(text)) else text


def ungreeted(text: str) -> str:
    """A line without the greeting it opened with ("Hi Vera! I am ..." -> "I am ..."):
    passed on, the greeting is the wrong person's."""
    rest = _OPENING_GREETING.sub("", text, count=1)
    return rest[:1].upper() + rest[1:] if rest else text


_OPENING_GREETING = re.compile(r"^\s*(?:hi|hello|hey)\b[^,!.?]{0,40}[,!.]\s*", re.IGNORECASE)
