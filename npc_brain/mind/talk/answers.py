"""Answers a player can believe: what a question is about, and whether a reply is usable.

Code decides what a reply rests on and checks it; the model only words it. The kinds of
question follow the paper's interview categories, recognised by the nearest of a few
anchor sentences (no model call). A reply is refused when it is degenerate (a role tag,
a repetition loop, a bare name, a JSON fragment) or, when facts were given, names none
of them; a refused reply is drawn again, then replaced by a plain sentence built from
the best fact. Every function here is pure.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence

from npc_brain.mind.prompts import imperative
from npc_brain.persona import Persona

# The paper's interview categories, plus the everyday ones a player brings.
TOPICS: dict[str, tuple[str, ...]] = {
    "self": (
        "Tell me about yourself.",
        "Who are you?",
        "What do you do for a living?",
        "How old are you?",
        "What is your job?",
    ),
    "person": (
        "Who is she?",
        "What do you think of him?",
        "Do you know that man?",
        "Tell me about your friend.",
        "How do you know her?",
    ),
    "plans": (
        "What are you doing today?",
        "What are your plans for tomorrow?",
        "Where will you be this afternoon?",
        "When do you open?",
        "What is your schedule?",
    ),
    "memory": (
        "What did you do yesterday?",
        "Whom did you talk to today?",
        "What happened this morning?",
        "Have you been invited to any event?",
        "Did you see anyone today?",
    ),
    "news": (
        "Is anything special happening in town?",
        "What's new?",
        "Have you heard any news?",
        "Is there an event this week?",
        "Any gossip?",
    ),
    "situation": (
        "Your house is on fire! What do you do?",
        "What would you do if it started to rain?",
        "Someone asks you for help. What do you say?",
        "The shop is closed today. What will you do?",
        "Your friend is sad. How do you react?",
    ),
    "reflection": (
        "What matters most to you?",
        "What have you learned lately?",
        "How do you feel about your life?",
        "What do you care about?",
        "What worries you?",
    ),
}
DONT_KNOW = "I'm not sure, I don't know anything about that."
GREETING = "Hello! Good to see you."  # a greeting, no usable draw
_GREETS_WORDS = "hello hi hey hiya howdy greetings good"
_GREETS = frozenset(_GREETS_WORDS.split())  # how a greeting starts
_GREETING_WORDS_ALSO = (
    "morning afternoon evening day there how how's are you doing is it going what's up "
    "today nice to meet see again everyone all well"
)
_GREETING_WORDS = _GREETS | frozenset(_GREETING_WORDS_ALSO.split())
ON_IT = "I'd stop what I'm doing and see to {} right away."  # a situation, no usable draw
MAX_FACT_CHARS = 200
_STOPWORDS = (
    "a an the and or but if of to in on at by for with from about into over is are was "
    "were be been being am do does did have has had i you he she it we they me him her us "
    "them my your his its our their this that these those what who whom which when where "
    "why how not no yes so very just also too there here then than some any all can could "
    "would should will shall may might must know tell told think said say says today "
    # contractions: "I'm" is no more content than "I am"
    "i'm you're he's she's it's we're they're i've you've we've they've i'd you'd he'd "
    "she'd we'd they'd i'll you'll he'll she'll it'll we'll they'll isn't aren't wasn't "
    "weren't don't doesn't didn't can't couldn't won't wouldn't shouldn't haven't hasn't "
    "hadn't let's that's there's what's here's who's "
)
_STOP = frozenset(_STOPWORDS.split())
# Out of character: the model speaking as what it is ("I'm not a human. I'm a virtual
# character created to explore the world of storytelling.", Maria in the default demo).
_OUT_OF_CHARACTER = re.compile(
    r"\b(?:I'?m|I am) (?:not a (?:real )?(?:human|person)|an? (?:AI|chatbot|bot|robot|"
    r"assistant|virtual|computer program|language model|artificial))"
    r"|\bas an AI\b|\b(?:language|AI) model\b|\bvirtual (?:character|assistant)\b",
    re.IGNORECASE,
)
_ROLE_TAG = re.compile(
    r"(^|\s)(?:[A-Z]|Q|A|User|Assistant|System|Human)\s*:\s"
    r"|^[A-Z][a-z]+(?: [A-Z][a-z]+)?:\s",  # a speaker's name as a tag: "Isabella Rodriguez: Hi"
    re.MULTILINE,
)
_LIST = re.compile(r"(?:^|\n)\s*[-*] ")  # "- Isabella is planning ..."
# A line the length limit cut: an end mark after a comma or a space, after a lone capital
# letter, a dash or a slash, or after a word that cannot end a sentence ("... from 5 pm
# to !", "... and a .", "You know,?", "a party at Hobbs C.", "from 5-?"), or a colon
# with nothing after it ("Maria Lopez said:").
_CUT_OFF = re.compile(
    r"(?:[,;:]|\s)[.!?]+$|\s[B-HJ-Z][.!]+$|\w[-–/][.!?]*$|:$"
    r"|\b(?:[Aa]n?|[Tt]he|[Aa]nd|[Oo]r|[Bb]ut|[Mm]y|[Yy]our|[Tt]heir|[Oo]ur|[Oo]f|[Ff]rom|[Aa]t"
    r"|I|I'm|I')[.!]+$"
)
_LINE = re.compile(r'^([^"]+?) said to ([^"]+?): "(.*)"$', re.DOTALL)  # a dialogue memory
# A line passed on: 'Klaus told me: "..."', or 'Klaus told me that Isabella said: "..."'.
_PASSED_ON = re.compile(
    r'^(?:(?:Hi|Hello|Hey) [^,!]+[,!] )?([^":]+?) told me(?: that ([^":]+?) said)?: "(.*?)"?$',
    re.DOTALL,
)
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]+|\d+")


def greets(text: str, names: Collection[str] = ()) -> bool:
    """Whether a line is a greeting and nothing more ('Hello!', 'Hi Isabella, how are
    you?'; not 'Good morning! What are you up to today?'); `names` may be in it."""
    words = [w.lower() for w in re.findall(r"[A-Za-z']+", text)]
    named = {w.lower() for name in names for w in name.split()}
    return bool(words) and words[0] in _GREETS and set(words) <= _GREETING_WORDS | named


def key_terms(text: str) -> set[str]:
    """The words that carry a text's content, lowercase, an -ing form as its stem
    ("meeting" and "meet" are one term): no stopwords, numbers kept."""
    words = [w.lower() for w in _WORD.findall(text)]
    return {_stem(w) for w in words if (w not in _STOP and len(w) > 2) or w.isdigit()}


def _stem(word: str) -> str:
    """An -ing form's stem, its doubled consonant undone ("running" -> "run", not
    "runn": Sam's "I'm planning to run" answers "anyone running for mayor?"); s, l, f
    and z stay doubled ("dressing" -> "dress")."""
    if len(word) <= 6 or not word.endswith("ing"):
        return word
    stem = word[:-3]
    if len(stem) >= 4 and stem[-1] == stem[-2] and stem[-1] not in "aeiouslfz":
        return stem[:-1]
    return stem


def names_in(text: str, people: dict[str, str]) -> list[str]:
    """The ids of the people (id -> full name) a text names, by full or first name."""
    low = text.lower()
    found = []
    for agent_id, name in people.items():
        first = name.split()[0].lower() if name.split() else ""
        if name.lower() in low or (len(first) > 2 and re.search(rf"\b{re.escape(first)}\b", low)):
            found.append(agent_id)
    return found


def degenerate(text: str, persona: Persona) -> str | None:
    """Why a reply is unusable, or None: too short, a bare name, or broken."""
    stripped = text.strip()
    words = _WORD.findall(stripped)
    if len(words) < 2:
        return "too short"
    bare = " ".join(w.lower() for w in words)
    name = persona.name.lower()
    if bare in (name, name.split()[0] if name else "") or set(bare.split()) <= set(name.split()):
        return "only a name"
    if len(words) <= 4 and all(w[0].isupper() for w in words):
        return "a bare name"
    if _LIST.search(stripped):
        return "a list (the prompt's facts echoed)"
    return broken(text)


def broken(text: str) -> str | None:
    """Why a line is broken, however short: a role tag, out of character ("I'm not a
    human"), markup or JSON, cut off by the length limit, number soup, a repetition loop
    ("Sam Moore, Sam Moore, ..."); or None."""
    return garbled(text, whole=True)


def garbled(text: str, whole: bool = False) -> str | None:
    """Why the start of a line is broken already (`broken` but for being cut off, which
    only a `whole` line can be), or None."""
    stripped = text.strip()
    words = _WORD.findall(stripped)
    if _ROLE_TAG.search(stripped):
        return "a role tag"
    if _OUT_OF_CHARACTER.search(stripped):
        return "out of character"
    if any(c in stripped for c in "{}[]<>") or '"utterance"' in stripped:
        return "a markup or JSON fragment"
    if whole and _CUT_OFF.search(stripped):
        return "cut off mid-sentence"
    numbers = sum(w.isdigit() for w in words)
    if numbers > 4 or (words and numbers > len(words) / 4):
        return "number soup"
    lowered = [w.lower() for w in words]
    for size in (1, 2, 3):
        grams = [tuple(lowered[i : i + size]) for i in range(len(lowered) - size + 1)]
        looping = any(grams.count(g) >= (4 if size == 1 else 3) for g in set(grams))
        if looping and (size > 1 or len(set(lowered)) < len(lowered) / 2):
            return "a repetition loop"
    return None


def grounded(text: str, facts: Sequence[str], situation: str = "", known: str = "") -> bool:
    """Whether a reply rests on one of the (most relevant) facts: it says something of
    one that was `known` already (the question, the speaker's own name: echoing those
    proves nothing). With no facts, an honest "I don't know" is grounded, and so is a
    reply that takes up the `situation` it is asked to react to and adds to it (a reply
    that only repeats the situation is no reaction). A number (a time, a date) that
    neither the facts nor the question hold is made up: not grounded."""
    if _numbers(text) - _numbers(" ".join([*facts, known, situation])):
        return False  # a time, date or count nobody gave: made up
    if not facts:
        honest = denies(text)
        takes_up = bool(key_terms(text) & key_terms(situation))
        return honest or (takes_up and adds_to(text, situation, known))
    said = key_terms(text) - key_terms(known)
    return any(said & key_terms(fact) for fact in facts)


_DENIALS = re.compile(
    r"^\W*no\b|"  # "no, that party is in the future" (asked whether it heard of a party)
    r"\b(?:not sure|don'?t know|no idea|not heard|haven'?t heard|never heard|no ?one|nobody)\b",
    re.IGNORECASE,
)


def denies(text: str) -> bool:
    """Whether a reply says the agent knows nothing of it ("I'm not sure", "no one has
    been running for mayor"): honest without facts, false with them."""
    return _DENIALS.search(text.replace("’", "'")) is not None


def unfounded(text: str, texts: Sequence[str], people: Sequence[str]) -> list[str]:
    """The people of the town (full names) a reply names that none of the `texts` it
    rests on names (the facts, the question, the persona): "Mei Lin, the Mayor of the
    Ville", from facts that name Sam and Maria."""
    by_name = dict(zip(people, people, strict=True))
    at_hand = set(names_in(" ".join(texts), by_name))
    return [name for name in names_in(text, by_name) if name not in at_hand]


def left_out(text: str, news: str, people: Sequence[str]) -> list[str]:
    """The people (full names) whom the words of `news` name (of a line, what was said)
    and the reply `text` does not: "The Ville's mayor, Eddy Lin, is running for mayor",
    from a line that named Sam Moore as the one running."""
    by_name = dict(zip(people, people, strict=True))
    named = set(names_in(text, by_name))
    return [name for name in names_in(said_words(news), by_name) if name not in named]


_FIRST_PERSON = re.compile(r"\b(?:I|I'[a-z]+|we|we'[a-z]+|let's)\b", re.I)
_SENTENCE = re.compile(r"[^.!?]+[.!?]?")
_ASKS_YOU = re.compile(r"\b(have|has|are|were|did|do|will|can|would)\s+you\s+(\w+)")


def first_person(text: str) -> bool:
    """Whether a line has its speaker for a subject ("I'd put the fire out", "Let's
    ..."): asked what it would do, an agent answering "She would not eat any more" talks
    of someone else, and "You should have asked me to" of the one who asked."""
    return _FIRST_PERSON.search(text.replace("’", "'")) is not None


def turned_around(text: str, question: str) -> bool:
    """Whether a reply answers a question about the agent as if about the asker: "Have
    you been invited to any event?" -> "No, you have not been invited to any event"."""
    low = text.lower().replace("’", "'")
    for verb, next_word in _ASKS_YOU.findall(question.lower().replace("’", "'")):
        if re.search(rf"\byou {verb}(?:n't| not)? {re.escape(next_word)}\b", low):
            return True
    return False


def echoes(text: str, question: str) -> bool:
    """Whether a reply repeats a sentence of three words or more of the question ("What
    would you do? You should have asked me to.", to "... What would you do?")."""
    said = " ".join(_WORD.findall(text.lower()))
    for sentence in _SENTENCE.findall(question):
        words = _WORD.findall(sentence.lower())
        if len(words) >= 3 and f" {' '.join(words)} " in f" {said} ":
            return True
    return False


def adds_to(text: str, situation: str, known: str = "") -> bool:
    """Whether a reply to a situation says something of its own: a content word the
    situation (and what was `known`) did not hold, and no number it did not give."""
    given = f"{situation} {known}"
    new = key_terms(text) - key_terms(given)
    return bool(new) and not _numbers(text) - _numbers(given)


def said_line(text: str) -> tuple[str, str, str] | None:
    """(speaker, listener, words) of a line as a dialogue memory words it ('X said to Y:
    "..."'), else None."""
    match = _LINE.match(text.strip())
    return None if match is None else (match[1], match[2], match[3])


def passed_on(words: str) -> tuple[str, str, str] | None:
    """(teller, origin, quoted words) of a line that passes on what someone said ('Sam
    told me that Isabella said: "I am ..."': Sam, Isabella, 'I am ...'; 'Isabella told
    me: "..."': Isabella twice), else None."""
    match = _PASSED_ON.match(words.strip())
    return None if match is None else (match[1], match[2] or match[1], match[3])


def retold(teller: str, hearer: str, words: str) -> str:
    """What `teller` told `hearer` ("me", a name), passed on with one pair of quotes
    whatever the hops: the words' own origin is named, not quoted again ('Sam told me
    that Isabella said: "I am ..."', not 'Sam told me: "Isabella told me: "I am ...""')."""
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


_THERE_IS = re.compile(
    r"^\s*there(?: is|'s| are| was| were) (?:(a|an|some) )?(\w+)(?: (\w+))?", re.I
)
_SUBJECT = re.compile(
    r"^\s*(?:(your|my|the|a|an|this|that|some) )?(\w+)(?: (\w+))?? "
    r"(?:is|are|was|were|has|have|had|just|\w+ed)\b",
    re.I,
)
_NOT_A_NOUN = frozenset(("in", "at", "on", "near", "by", "to", "from", "with", "and", "of"))
_MINE = {"your": "my", "my": "your"}


def on_it(situation: str, people: Collection[str] = ()) -> str:
    """That the agent would see to what a situation is about, the answer when no draw is
    usable: 'Your breakfast is burning!' -> "I'd stop what I'm doing and see to my
    breakfast right away."; 'There is a fire in the cafe!' -> '... the fire ...'; 'Klaus
    is hurt' -> '... Klaus ...' (one of `people`, full names); 'It is raining' (or
    nothing to name) -> '... it ...'."""
    first = re.split(r"[.!?]", situation.strip(), maxsplit=1)[0]
    found = _THERE_IS.match(first) or _SUBJECT.match(first)
    thing = "it"
    if found is not None:
        article, noun, more = found.groups()
        words = [noun, *([more] if more and more.lower() not in _NOT_A_NOUN else [])]
        phrase = " ".join(words)
        if noun.lower() not in ("it", "you", "i", "we", "they", "he", "she", "this", "that"):
            known = {part for name in people for part in (name, *name.split())}
            named = article is None and noun in known and found.re is _SUBJECT
            owner = _MINE.get((article or "").lower(), "" if named else "the")
            phrase = phrase if named else phrase[0].lower() + phrase[1:]
            thing = f"{owner} {phrase}".strip()
    return ON_IT.format(thing)


def _numbers(text: str) -> set[str]:
    return {w for w in _WORD.findall(text) if w.isdigit()}


def plain_answer(
    persona: Persona, fact: str | None, situation: str = "", people: Collection[str] = ()
) -> str:
    """A plain first-person sentence from a fact ('Isabella Rodriguez is planning a
    party' -> 'I am planning a party.'; 'Isabella is Maria Lopez's boss', said by Maria
    -> 'As far as I know, Isabella is my boss.'); with none, an honest 'I don't know',
    or, asked to react to a `situation`, that the agent would see to what it is about
    (on_it, which names `people` as people)."""
    if not fact:
        return on_it(situation, people) if situation else DONT_KNOW
    names = [n for n in (persona.name, persona.name.split()[0] if persona.name else "") if n]
    if line := said_line(fact):  # a line said: who said it, in the first person
        speaker, listener, words = line
        teller, told = "I" if speaker in names else speaker, _as_me(listener, names)
        return retold(teller, told, ungreeted(words))  # "Hi Maria!" was to the listener
    fact = fact.strip().rstrip(".").split(", and ")[0]  # not a third-person afterthought
    for name in names:
        if fact.startswith(name + "'s "):
            return f"My {_as_me(fact[len(name) + 3 :], names)}."
        if fact.startswith(name + " "):
            rest = _as_me(fact[len(name) + 1 :], names)
            verb, _, tail = rest.partition(" ")
            if verb in ("is", "was"):
                first, *more = tail.split(" and ")
                more = [imperative(p) if p.split(" ")[0] in _THIRD_PERSON else p for p in more]
                be = "am" if verb == "is" else "was"
                return f"I {be} " + " and ".join([first, *more]) + "."
            first, *more = rest.split(" and ")
            return "I " + _commas(" and ".join(imperative(p) for p in [first, *more])) + "."
    return f"As far as I know, {_as_me(fact, names)}."


def ungreeted(text: str) -> str:
    """A line without the greeting it opened with ("Hi Maria! I am ..." -> "I am ..."):
    passed on, the greeting is the wrong person's."""
    rest = _OPENING_GREETING.sub("", text, count=1)
    return rest[:1].upper() + rest[1:] if rest else text


_OPENING_GREETING = re.compile(r"^\s*(?:hi|hello|hey)\b[^,!.?]{0,40}[,!.]\s*", re.IGNORECASE)


def _commas(text: str) -> str:
    """A third-person verb after a comma in the first person ('go to bed around 11pm,
    wakes up around 6am' -> '..., wake up around 6am')."""
    return re.sub(
        r", (\w+)\b", lambda m: f", {imperative(m[1])}" if m[1] in _THIRD_PERSON else m[0], text
    )


# Verbs that follow "and" in a third-person fact ("is planning a party and wants to ...").
_THIRD_PERSON_WORDS = (
    "wants likes loves hopes needs has plans thinks knows enjoys goes does works lives runs "
    "owns teaches helps makes takes gets feels wishes tries says believes cares spends keeps "
    "writes reads studies hosts invites wakes sleeps eats opens closes"
)
_THIRD_PERSON = frozenset(_THIRD_PERSON_WORDS.split())


def _as_me(text: str, names: Sequence[str]) -> str:
    """A fact's mentions of the speaker's own `names` in the first person: "Maria Lopez's
    boss" -> "my boss", "invited Maria" -> "invited me"."""
    for name in names:
        text = re.sub(rf"\b{re.escape(name)}['’]s\b", "my", text)
        text = re.sub(rf"\b{re.escape(name)}\b(?! [A-Z])", "me", text)
    return text


def trimmed(fact: str) -> str:
    return fact if len(fact) <= MAX_FACT_CHARS else fact[: MAX_FACT_CHARS - 3].rstrip() + "..."
