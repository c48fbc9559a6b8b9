"""The realiser: facts an NPC holds (third person, as a game writes them) and persona
fragments, said as correct English from the speaker's point of view. Pure code, no model:
names and pronouns become I/me/my or you/your, verbs agree through lemminflect's tables.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from lemminflect import getAllLemmas, getInflection

from npc_brain.words import (
    AUXILIARIES,
    CLAUSE_WORDS,
    CONJUNCTIONS,
    COORDINATORS,
    DETERMINERS,
    FIRST,
    FUNCTION_WORDS,
    MODALS,
    PERSONAL,
    PLACE_PREPOSITIONS,
    PREPOSITIONS,
    PRONOUNS,
    SECOND,
    SUBORDINATORS,
    WANTING,
    closed_class,
    lower_words,
)


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Titles said before a name (small, named; nothing about any one game).
HONORIFICS = _words(
    "dr dr. doctor captain capt. mr. mrs. ms. mx. miss sir dame lady lord master mistress "
    "professor prof. sergeant sgt. lieutenant lt. commander cmdr. admiral general chief elder "
    "father mother brother sister officer"
)
# Abbreviations with a period ('Dr.'): the period never ends a sentence.
ABBREVIATIONS = frozenset(w for w in HONORIFICS if w.endswith(".")) | _words("st.")
_AUX_KEY = {form: key for key, forms in AUXILIARIES.items() for form in forms if form != "'s"}


def verb_form(word: str, tags: tuple[str, ...] = ("VBZ",)) -> bool:
    """Whether a lowercase word is a verb's form of one of `tags` ("runs" is VBZ, "went"
    VBD, "reading" VBG; "sing" and "bring" are no VBG)."""
    lemmas = getAllLemmas(word, upos="VERB").get("VERB", ())
    return any(word in getInflection(lemma, tag=tag) for lemma in lemmas for tag in tags)


def english(word: str) -> bool:
    """Whether a word is English: a small word, a number, or a word lemminflect's
    lexicon knows ("nets", "mending", "don't"); "eres" and "gracias" are not."""
    low = word.lower()
    return (
        closed_class(low)
        or any(c.isdecimal() for c in low)
        or bool(getAllLemmas(low) or getAllLemmas(low.partition("'")[0]))
    )


def asks_yes_or_no(line: str) -> bool:
    """Whether a line is a yes-no question: it opens with an auxiliary or a modal ("Do
    you sell rope?", "Can I get a room?", "Got any hooks?" has no subject, but is one)."""
    words = lower_words(line)
    return bool(words) and (words[0] in _AUX_KEY or words[0] in MODALS or words[0] == "got")


# A third-person form: its pronoun and case (-1: object or possessive; -2: either possessive).
_THIRD = {form: (p, c) for p, forms in PRONOUNS.items() for c, form in enumerate(forms)}
_THIRD |= {"her": ("she", -1), "his": ("he", -2), "themself": ("they", 4)}
_CONTRACT = {("i", "am"): "'m", ("you", "are"): "'re", ("he", "is"): "'s"}
_CONTRACT |= {("she", "is"): "'s", ("they", "are"): "'re"}
_MY = {form.lower(): case for case, form in enumerate(FIRST)}  # "me": 1, "my": 2, ...
_YOUR = {form: case for case, form in enumerate(SECOND)}  # "you": 1 (as an object)

_ABBREVIATION = "|".join(sorted(w[:-1].capitalize() for w in ABBREVIATIONS))
_TOKEN = re.compile(
    rf"\"[^\"]*\"?|“[^”]*”?|(?:{_ABBREVIATION})\."
    r"|[A-Za-z0-9]+(?=n['’]t\b)|n['’]t\b|['’](?:s|m|re|ve|d|ll)\b"
    r"|[A-Za-z0-9]+(?:[-.][A-Za-z0-9]+)*|\S"
)
_SAID_TO = re.compile(r"\bsaid to ([^\":]+?):\s*(?=[\"“])")


@dataclass
class _Tok:
    text: str
    pre: str = " "
    mine: bool = False  # a subject pronoun made here: it may contract with its verb


_Name = tuple[tuple[str, ...], tuple[str, ...]]  # titles ('Dr.'), the name ('Imani', 'Osei')


def _tokens(text: str) -> list[_Tok]:
    out, pos = [], 0
    for m in _TOKEN.finditer(text):
        out.append(_Tok(m.group().replace("’", "'"), " " if m.start() > pos else ""))
        pos = m.end()
    if out:
        out[0].pre = ""
    return out


def _render(toks: Sequence[_Tok]) -> str:
    return "".join(t.pre + t.text for t in toks).strip()


def _low(toks: Sequence[_Tok], k: int) -> str:
    return toks[k].text.lower() if 0 <= k < len(toks) else ""


def _is_word(toks: Sequence[_Tok], k: int) -> bool:
    return 0 <= k < len(toks) and toks[k].text[:1].isalnum()


def _capitalised(toks: Sequence[_Tok], k: int) -> bool:
    return 0 <= k < len(toks) and toks[k].text[:1].isupper()


@lru_cache(maxsize=8192)
def _lemmas(word: str) -> dict[str, tuple[str, ...]]:
    return dict(getAllLemmas(word))


@lru_cache(maxsize=8192)
def _verb(word: str) -> tuple[str, frozenset[str]]:
    """The verb lemma of a word and the Penn tags it has as that verb ('', {}: not a verb)."""
    for lemma in _lemmas(word).get("VERB", ()):
        tags = {t for t in ("VB", "VBZ", "VBD", "VBN", "VBG") if word in getInflection(lemma, t)}
        if tags:
            return lemma, frozenset(tags)
    return "", frozenset()


def _adverb(word: str) -> bool:
    return "ADV" in _lemmas(word) and word not in _AUX_KEY and not _verb(word)[1] & {"VBZ", "VBD"}


def _aux_key(toks: Sequence[_Tok], k: int) -> tuple[str, str] | None:
    w = _low(toks, k)
    if w == "'s":
        return ("have", "'") if _low(toks, k + 1) in ("been", "got") else ("be", "'")
    return _AUX_KEY.get(w)


def _clitic_is(toks: Sequence[_Tok], k: int) -> bool:
    """Whether the "'s" at k is 'is'/'has' rather than a possessive."""
    nxt = _low(toks, k + 1)
    return nxt in ("a", "an", "the", "not", "been", "got") or "VBG" in _verb(nxt)[1]


def _finite(toks: Sequence[_Tok], k: int, base: bool = False) -> bool:
    """Whether the word at k (after any adverbs) is a finite verb: a subject stands before it."""
    for _ in range(2):
        if _adverb(_low(toks, k)):
            k += 1
    w = _low(toks, k)
    if w == "'s":
        return _clitic_is(toks, k)
    tags = _verb(w)[1]
    return w in _AUX_KEY or w in MODALS or bool(tags & {"VBZ", "VBD"}) or base and "VB" in tags


def _subject(toks: Sequence[_Tok], i: int, end: int, base: bool = False) -> bool:
    """Whether the words toks[i:end] are a clause's subject: a verb follows, and no preposition
    or verb comes before ('thinks Tomas is lying' is, 'gave Tomas horses' is not)."""
    prev = _low(toks, i - 1)
    if prev in PREPOSITIONS or prev in DETERMINERS - CLAUSE_WORDS:
        return False
    if prev[:1].isalpha() and prev not in CLAUSE_WORDS and "VERB" in _lemmas(prev):
        after = _low(toks, end + 1)
        return _finite(toks, end) and (
            "NOUN" not in _lemmas(_low(toks, end)) or after in DETERMINERS | PERSONAL
        )
    if _low(toks, end) in ("and", "or"):
        return _joint_verb(toks, end + 1) > 0
    return _finite(toks, end, base or prev in ("and", "or"))


def _joint_verb(toks: Sequence[_Tok], k: int) -> int:
    """Where the verb of a joint subject is ('and his brother were': at 'were'), or 0."""
    for j in range(k + 1, min(k + 5, len(toks))):
        if not _is_word(toks, j) and toks[j].text != "'s":
            return 0
        if _finite(toks, j, base=True):
            return j
    return 0


def _possessive(toks: Sequence[_Tok], k: int) -> bool:
    """Whether the her/his at k is possessive: a word follows ('her gate'; not 'her up')."""
    nxt = _low(toks, k + 1)
    if not _is_word(toks, k + 1) or nxt in FUNCTION_WORDS:
        return False
    return not _adverb(nxt) or _is_word(toks, k + 2) and _low(toks, k + 2) not in FUNCTION_WORDS


def _agree(toks: list[_Tok], k: int, person: int) -> None:
    """Make the verb at k (after any adverbs) agree with a subject of person 0 I, 1 you,
    2 he/she, 3 they."""
    for _ in range(2):
        if _adverb(_low(toks, k)):
            k += 1
    key = _aux_key(toks, k)
    if key:
        toks[k].text = AUXILIARIES[key][person]
        if toks[k].text == "am" and _low(toks, k + 1) == "n't":
            toks[k + 1] = _Tok("not")
        return
    w = _low(toks, k)
    lemma, tags = _verb(w)
    if not lemma or w in MODALS:
        return
    if "VBZ" in tags and person != 2:
        toks[k].text = lemma
    elif tags & {"VB"} and not tags & {"VBD", "VBZ"} and person == 2:
        toks[k].text = getInflection(lemma, "VBZ")[0]


def _coordinate(toks: list[_Tok], i: int, person: int, loose: bool) -> None:
    """After a ',' or 'and' at i, a verb of the same subject agrees too ('and drinks' ->
    'and drink'); unless `loose`, only when a word follows it (not a list of nouns)."""
    k = i + 1
    while _low(toks, k) in COORDINATORS:
        k += 1
    # 'brews salves and remedies in her cottage': with no object of its own, a plural noun
    # after a plural noun and 'and' is the other half of an object ('shoes horses' is a verb).
    nxt = _low(toks, k + 1)
    objectless = not _is_word(toks, k + 1) or nxt in PREPOSITIONS
    nouns = _plural_noun(_low(toks, k)) and _plural_noun(_low(toks, k - 2))
    if objectless and nouns and _low(toks, k - 1) in ("and", "or"):
        return
    if loose or (_is_word(toks, k + 1) and nxt not in ("and", "or")):
        _agree(toks, k, person)


def _plural_noun(word: str) -> bool:
    return any(word in getInflection(n, "NNS") for n in _lemmas(word).get("NOUN", ()) if n != word)


def _contract(toks: list[_Tok]) -> None:
    """'I am' -> "I'm", 'they are' -> "they're", 'I have fished' -> "I've fished"."""
    for k in range(len(toks) - 2):
        subj, verb, after = toks[k], toks[k + 1], toks[k + 2]
        if not subj.mine or verb.pre != " " or not _is_word(toks, k + 2):
            continue
        pair = (subj.text.lower(), verb.text.lower())
        if pair in _CONTRACT:
            verb.text, verb.pre = _CONTRACT[pair], ""
        elif pair[1] == "have" and pair[0] != "he" and "VBN" in _verb(after.text.lower())[1]:
            verb.text, verb.pre = "'ve", ""


def _capitalise_starts(toks: list[_Tok]) -> None:
    start = True
    for t in toks:
        if start and t.text[:1].isalpha():
            t.text = t.text[0].upper() + t.text[1:]
        start = t.text in (".", "!", "?") or start and len(t.text) == 1 and not t.text.isalnum()


def _name(full: str) -> _Name | None:
    words = [t.text for t in _tokens(full) if t.text[:1].isalnum()]
    titles: list[str] = []
    while len(words) > 1 and (words[0].lower() in HONORIFICS or words[0].endswith(".")):
        titles.append(words.pop(0))
    return (tuple(titles), tuple(words)) if words else None


def _mention(toks: Sequence[_Tok], i: int, names: dict[str, _Name]) -> tuple[str, int]:
    """('me'/'you', end) when toks[i:end] name one of `names` (an optional title, then the full
    name, the first name alone or, after a title, the surname); ('', i) otherwise."""
    for full in (True, False):
        for who, (titles, core) in names.items():
            t, n = toks[i].text, len(core)
            j = i + 1 if (t in titles or t.lower() in HONORIFICS) and t[:1].isupper() else i
            if full and tuple(x.text for x in toks[j : j + n]) == core:
                return who, j + n
            if full or j >= len(toks) or _capitalised(toks, j + 1):
                continue
            if toks[j].text == core[0] or j > i and n > 1 and toks[j].text == core[-1]:
                return who, j + 1
    return "", i


def _person(toks: Sequence[_Tok], i: int, end: int) -> bool:
    """Whether the capitalised words toks[i:end], not a subject, may name a person: after a
    word, not after a determiner or a preposition of place ('the Gull', 'at Gull Rock'), and
    not common words ending in a noun ('Kestrel Station'; 'Juno Park' may be a person)."""
    if not _is_word(toks, i - 1) or _low(toks, i - 1) in DETERMINERS | PLACE_PREPOSITIONS:
        return False
    first, last = _low(toks, i), _low(toks, end - 1)
    return first in HONORIFICS or not _lemmas(first) or "NOUN" not in _lemmas(last)


def _clause_follows(toks: Sequence[_Tok], i: int) -> bool:
    """Whether a clause (a subject, then its verb) follows the word at i: 'once you know her',
    'before the tide turns'; not 'after him', 'as the only medic'."""
    base = _low(toks, i + 1) in ("i", "you", "we", "they")
    for j in range(i + 2, min(i + 6, len(toks))):
        if not _is_word(toks, j) or _low(toks, j) in PREPOSITIONS:
            return False
        if _finite(toks, j, base):
            return True
    return False


def _resolve(
    gender: str, topic: str, seen: list[str], genders: dict[str, str], not_: str, sub: bool
) -> str:
    """Who a he/she/they refers to: the last subject if its gender allows, else the last person
    named in the sentence who fits (never `not_`: an object is not its clause's subject); a
    gender learnt this way holds for the whole fact. A gender not known allows he and she
    ('they' given as a pronoun means 'they, or not known'); but in a subordinate clause after
    another person who fits was named (`sub`: 'told Lena that she'), such a pronoun could
    mean either: it means the one known to have that gender, if one is, else it is left as it
    is ('')."""

    def fits(p: str) -> bool:
        known = genders.get(p, "")
        return known == gender or gender != "they" and known in ("", "they")

    fitting = [p for p in [topic, *reversed(seen)] if p and p != not_ and fits(p)]
    who = fitting[0] if fitting else ""
    if who in ("me", "you") and genders.get(who) != gender and sub and set(fitting) - {who}:
        who = next((p for p in fitting if genders.get(p) == gender), "")
    if who in ("me", "you"):
        genders.setdefault(who, gender)
    return who


def _first(fact: str, me: str, you: str, me_pronoun: str, loose: bool = False) -> str:
    toks = _tokens(_SAID_TO.sub(r"told \1: ", fact.strip()))
    names = {w: n for w, n in (("me", _name(me)), ("you", _name(you))) if n is not None}
    genders = {"me": me_pronoun.lower()} if me_pronoun.lower() in PRONOUNS else {}
    forms, person = {"me": FIRST, "you": SECOND}, {"me": 0, "you": 1}
    topic, here, seen, coord, i = "", "", list[str](), -1, 0
    sub = False  # in a subordinate clause ('that ..', 'because ..')
    while i < len(toks):
        t, w = toks[i], toks[i].text.lower()
        who, end = _mention(toks, i, names) if t.text[:1].isupper() else ("", i)
        if who:
            if _low(toks, end) == "'s" and not _clitic_is(toks, end):
                toks[i : end + 1] = [_Tok(forms[who][2 if _is_word(toks, end + 1) else 3], t.pre)]
            elif _subject(toks, i, end):
                topic = here = who
                if _low(toks, end) in ("and", "or"):  # 'X and his son were' -> 'his son and I were'
                    v = _joint_verb(toks, end + 1)
                    toks[end + 1].pre = t.pre
                    toks[i:v] = [*toks[end + 1 : v], _Tok(toks[end].text), _Tok(forms[who][0])]
                    seen.append(who)
                    continue
                toks[i:end] = [_Tok(forms[who][0], t.pre, mine=True)]
                joint = _low(toks, i - 1) in ("and", "or") and _low(toks, i + 1) in ("are", "were")
                if not joint:  # 'Mira and I are' stays plural
                    _agree(toks, i + 1, person[who])
                    coord = person[who]
            else:
                toks[i:end] = [_Tok(forms[who][1], t.pre)]
            seen.append(who)
        elif w in _THIRD:
            gender, case = _THIRD[w]
            if case < 0:
                case = 2 if _possessive(toks, i) else (1 if case == -1 else 3)
            bound = here if case == 1 and here in forms else ""
            who = _resolve(gender, topic, seen, genders, bound, sub)
            if who in forms:
                t.text = forms[who][case]
                if case == 0:
                    t.mine, topic, here, coord = True, who, who, person[who]
                    _agree(toks, i + 1, person[who])
            elif case == 0:
                topic, here, coord = "other", "other", -1
        elif t.text[:1].isupper() and w not in FUNCTION_WORDS:
            end = i
            while _capitalised(toks, end) and _low(toks, end) not in FUNCTION_WORDS:
                end += 1
                if _mention(toks, end, names)[0] if end < len(toks) else False:
                    break
            if _subject(toks, i, end):
                topic, here, coord = "other", "other", -1
                seen.append("other")
            elif _person(toks, i, end):  # an object: 'told Lena Duarte that she ..'
                seen.append("other")
            i = end - 1
        elif coord >= 0 and (w == "," or w in COORDINATORS):
            _coordinate(toks, i, coord, loose)
        elif w == "to" and "VB" in _verb(_low(toks, i + 1))[1]:
            here = ""  # an infinitive's object may be the sentence's subject: 'asked X to help him'
        elif w in CONJUNCTIONS or not w[:1].isalnum() and w not in ("'s", "n't", "-"):
            coord, here = -1, ""
            sub = sub or w in SUBORDINATORS
            if w in (".", "!", "?"):
                seen, sub = [], False
        elif w in SUBORDINATORS and _clause_follows(toks, i):
            here, sub = "", True  # 'once you know her': her is not bound to the subject
        i += 1
    _contract(toks)
    _capitalise_starts(toks)
    return sentence(_render(toks))


def first_person(fact: str, me: str, you: str = "", me_pronoun: str = "") -> str:
    """`fact` as its holder (full name `me`, pronoun `me_pronoun` if known) says it to `you`:
    the holder becomes I/me/my/mine/myself, the listener you/your, and their verbs agree."""
    return _first(fact, me, you, me_pronoun)


def pronoun_forms(pronoun: str) -> tuple[str, str, str]:
    """Subject, object and possessive of 'he', 'she' or 'they' (anything else: 'they')."""
    forms = PRONOUNS.get(pronoun.strip().lower(), PRONOUNS["they"])
    return forms[0], forms[1], forms[2]


def reported(
    teller: str, words: str, hearer: str = "me", pronoun: str = "they", told: str = "told"
) -> str:
    """A line `teller` said, reported to `hearer`: 'I'm running.' -> 'Bram told me they're
    running.' The teller's I becomes `pronoun`; 'you' becomes the hearer (I/me when 'me');
    `told` is the reporting verb ("keeps telling"). A question is reported as asked."""
    line = words.strip().strip('"“”').strip()
    if not line:
        return ""
    if line.endswith("?"):
        return sentence(f'{teller} asked {hearer}: "{line}"')
    third = PRONOUNS.get(pronoun.strip().lower(), PRONOUNS["they"])
    p3 = 3 if third[0] == "they" else 2
    to_me = hearer.strip().lower() == "me"
    heard = FIRST if to_me else PRONOUNS["they"]  # the hearer was just named
    toks, lead = _tokens(line), ""
    if _low(toks, 0) == "please":
        toks = toks[2:] if _low(toks, 1) == "," else toks[1:]
    if _low(toks, 0) == "do" and _low(toks, 1) == "n't":
        toks, lead = toks[2:], "not "
    lemma, tags = _verb(_low(toks, 0))
    imperative = _low(toks, 1) != "of" and not (_finite(toks, 1) or _capitalised(toks, 1))
    if lemma == _low(toks, 0) and "VB" in tags and imperative:  # not "End of the month, ..."
        lead += "to "
    elif lead:
        toks, lead = _tokens("don't " + _render(toks)), ""
    coord = -1
    for i, t in enumerate(toks):
        w = t.text.lower()
        if t.text[0].isupper() and i and _capitalised(toks, i - 1):
            continue  # a word of a name, not a pronoun: "Saltmere Mine"
        if w in _MY or w in _YOUR:
            forms, person, case = (
                (third, p3, _MY[w]) if w in _MY else (heard, 3 - 3 * to_me, _YOUR[w])
            )
            case = 0 if w == "you" and _subject(toks, i, i + 1, base=True) else case
            t.text, t.mine = forms[case], case == 0
            if case == 0:
                coord = person
                _agree(toks, i + 1, person)
        elif coord >= 0 and (w == "," or w in COORDINATORS):
            _coordinate(toks, i, coord, False)
        elif w in CONJUNCTIONS or not w[:1].isalnum() and w not in ("'s", "n't"):
            coord = -1
    _contract(toks)
    if toks and not toks[0].mine and toks[0].text != "I":
        first = toks[0].text.lower()
        if first in FUNCTION_WORDS or _lemmas(first) and not _capitalised(toks, 1):
            toks[0].text = first[0] + toks[0].text[1:]
    cut = next((k + 1 for k, t in enumerate(toks) if t.text in (".", "!", "?")), len(toks))
    said = _render(toks[:cut]).rstrip(".!")
    _capitalise_starts(toks[cut:])
    rest = [_render(toks[cut:])]
    return " ".join(x for x in (sentence(f"{teller} {told} {hearer} {lead}{said}"), *rest) if x)


_ASKED_OF_YOU = re.compile(
    r"\b(?:can|could|will|would|won't|can't)\s+(?:you|u|ya)\s+(?:please\s+)?(.+)", re.IGNORECASE
)
_ASKED_FOR = re.compile(r"\b(?:can|could|may)\s+i\s+(?:get|have)\s+(.+)", re.IGNORECASE)
# The speaker's persons as the NPC says them back, and the NPC's as it says them; a
# verb after a subject turned round agrees with it ("you are" -> "I am", "I'm" -> "you're").
_FLIPPED = {"me": "you", "my": "your", "mine": "yours", "myself": "yourself", "i": "you"}
_FLIPPED |= {"us": "you", "our": "your", "your": "my", "yours": "mine", "yourself": "myself"}
_AGREEING = {("I", "are"): "am", ("I", "were"): "was", ("I", "'re"): "'m"}
_AGREEING |= {("you", "am"): "are", ("you", "was"): "were", ("you", "'m"): "'re"}


def turned_round(text: str, verb_phrase: bool = False) -> str:
    """Words said to the NPC in its own persons: the speaker's I/me/my become
    you/your, and you/your become I/me/my ("can you look at my arm" -> "can I look at
    your arm", "you are" -> "I am"). "you" is "I" as a subject (at the start, or before
    a verb: "while you sail"), else "me"; in a `verb_phrase` it is always "me". "mine"
    after a determiner is a pit ("the mine")."""
    toks = _tokens(text)
    for i, tok in enumerate(toks):
        low, before = tok.text.lower(), toks[i - 1].text if i else ""
        if low == "you":
            after = toks[i + 1].text.lower() if i + 1 < len(toks) else ""
            verb = after.startswith("'") or bool(_lemmas(after).keys() & {"VERB", "AUX"})
            tok.text = "I" if not verb_phrase and (not i or verb) else "me"
        elif low in _FLIPPED and not (low == "mine" and before.lower() in DETERMINERS):
            tok.text = _FLIPPED[low]
        elif (before, low) in _AGREEING:
            tok.text = _AGREEING[(before, low)]
    return "".join(t.pre + t.text for t in toks)


def promised(request: str) -> str:
    """What a request asks the NPC to do, as it promises it after "I'll": the verb
    phrase after "can you ..." or of an imperative, to the clause's end, with the
    persons turned round ("can you take a look at my arm, i think" -> "take a look at
    your arm"); "" when the line has no verb phrase to promise."""
    text = request.replace("’", "'")
    if wanted := _ASKED_FOR.search(text):  # "can I get a coffee?": "get you a coffee"
        text = f"can you get me {wanted[1]}"
    found = _ASKED_OF_YOU.search(text)
    phrase = found[1] if found else text
    phrase = re.split(r"[.?!;,]|\s-\s", phrase, maxsplit=1)[0]
    words = [w for w in re.findall(r"[\w'-]+", phrase) if w.lower() != "please"]
    verb = words[0].lower() if words else ""
    if verb in MODALS or verb in WANTING or verb not in _lemmas(verb).get("VERB", ()):
        return ""  # it starts with a verb's base form ("take a look", "shoe my horse"), not
        # one of the speaker's wanting with its subject left out ("fancy casting a line")
    flipped = turned_round(" ".join(words), verb_phrase=True)
    return flipped[:1].lower() + flipped[1:]


def sentence(text: str) -> str:
    """Single spaces, the first letter capitalised, a closing '.' unless one of .!? ends it."""
    s = " ".join(text.split()).rstrip(",;: ")
    if not s:
        return ""
    k = next((n for n, c in enumerate(s) if c.isalpha()), 0)
    s = s[:k] + s[k].upper() + s[k + 1 :]
    return s if s.rstrip("\"”')").endswith((".", "!", "?")) else s + "."


def join_clauses(parts: Sequence[str], conjunction: str = "and") -> str:
    """'a', 'b', 'c' -> 'a, b and c' (or 'a, b or c')."""
    items = [p.strip().strip(",;").strip() for p in parts if p.strip().strip(",;").strip()]
    last = f" {conjunction} "
    return last.join(items) if len(items) < 3 else ", ".join(items[:-1]) + last + items[-1]


# --- persona fragments --------------------------------------------------------------------


def _kind(text: str, listed: bool = False, traits: bool = False) -> str:
    """How a fragment starts: 'verb' (works.., is.., fought his..), 'ing' (repairing..), 'np'.
    `listed`: an item of a list of descriptions, where a past participle alone or with its
    agent ('overworked', 'scarred by war'), or one that is an adjective too before its
    preposition ('worried about the mine'), describes, as an adjective does; in a list of
    `traits`, any past participle with no object does ('exhausted after a shift')."""
    toks = _tokens(text)
    w = _low(toks, 0)
    _, tags = _verb(w)
    if w in _AUX_KEY or w in MODALS or "VBZ" in tags:
        return "verb"
    if "VBG" in tags and w.endswith("ing"):
        return "ing"
    lemmas, nxt = _lemmas(w), _low(toks, 1)
    objectless = (
        not _is_word(toks, 1) or nxt == "by" or traits and nxt in PREPOSITIONS | CLAUSE_WORDS
    )
    if (listed or traits) and "VBN" in tags and objectless:
        return "np"
    if listed and "VBN" in tags and "ADJ" in lemmas and nxt in PREPOSITIONS:
        return "np"  # a participle that is an adjective too: 'worried about', 'tired of'
    if "VBD" in tags and (not lemmas.keys() - {"VERB"} or nxt in FUNCTION_WORDS):
        return "verb"
    return "np"


def _about(name: str, text: str) -> tuple[str, int] | None:
    """(text, mention end) when a piece is a full sentence about the holder ('Tomas is..',
    'He is..', 'I am..'); a leading he/she/they becomes the name."""
    toks = _tokens(text)
    nm = _name(name)
    if not toks or nm is None:
        return None
    if toks[0].text.lower() in ("he", "she", "they"):
        return _about(name, name + text[len(toks[0].text) :])
    if toks[0].text in ("I", "My"):
        return text, 0
    who, end = _mention(toks, 0, {"me": nm})
    return (_render(toks), end) if who else None


def _split(text: str, marks: str) -> list[str]:
    """`text` cut at each of `marks` or ';' that a space or the end follows, except a period
    that closes an abbreviation ('Dr. Hana Lin')."""
    out, start = [], 0
    for m in re.finditer(rf"\s*[{marks}](?:\s+|$)|\s*;\s*", text):
        before = text[start : m.start()].split()
        if m.group().strip() == "." and before and before[-1].lower() + "." in ABBREVIATIONS:
            continue
        out.append(text[start : m.start()])
        start = m.end()
    return [*out, text[start:]]


def _pieces(text: str, marks: str) -> list[str]:
    out = []
    for p in _split(text.strip(), marks):
        p = re.sub(r"^(?:and|or)\s+", "", p.strip())
        w = p.split(" ", 1)[0]
        if w[:1].isupper() and w != "I" and not p[len(w) :].lstrip()[:1].isupper():
            p = w.lower() + p[len(w) :] if _lemmas(w.lower()) else p
        if p:
            out.append(p)
    return out


def _with_article(np: str, listed: bool = False) -> str:
    """A bare role noun gets its article: 'captain of the guard' -> 'the captain of the guard'.
    `listed`: an item of a list of descriptions ('gruff, early riser'), where only a singular
    noun that is no adjective ('riser'; not 'patient', 'kind') gets one, and always 'a'/'an'."""
    words = np.split()
    if not words or words[0][:1].isupper() or words[0].lower() in DETERMINERS | PERSONAL:
        return np
    ends = PREPOSITIONS | CLAUSE_WORDS if listed else PREPOSITIONS
    head = next((k for k, w in enumerate(words) if w in ends or w.endswith(",")), None)
    if head == 0:
        return np
    last = words[(head if head is not None else len(words)) - 1].rstrip(",")
    lemmas = _lemmas(last)
    participle = _verb(last.lower())[1] & {"VBN", "VBD", "VBG"}
    if listed and (
        lemmas.keys() & {"ADJ", "ADV"} or participle or last not in lemmas.get("NOUN", ())
    ):
        return np
    if lemmas and last not in lemmas.get("NOUN", ()):
        return np
    if head is not None and words[head] == "of" and not listed:
        return "the " + np
    w = words[0].lower()
    vowel = w[:1] in "aeiou" and not w.startswith(("uni", "use", "usu", "eu", "one"))
    return ("an " if vowel or w.startswith(("hour", "honest", "heir")) else "a ") + np


def _predicate(text: str) -> bool:
    """Whether `text`, after a comma in a description, is a predicate of its own: a verb of a
    third person with what follows it ('.., mends the nets'; not '.., spices and silks')."""
    toks = _tokens(text)
    w, nxt = _low(toks, 0), _low(toks, 1)
    tags = _verb(w)[1]
    if w in {forms[2] for forms in AUXILIARIES.values()} - {"'s"}:  # is, was, has, does
        return True
    if "VBZ" in tags:
        return _is_word(toks, 1) and nxt not in COORDINATORS
    return "VBD" in tags and (nxt in DETERMINERS or nxt in PERSONAL and _possessive(toks, 1))


def _identity(name: str, text: str) -> list[str]:
    return [first_person(clause, name) for clause in _identity_clauses(name, text)]


def _identity_clauses(name: str, text: str) -> list[str]:
    """A persona's learned traits as clauses of the third person, each opened by `name`
    where the text does not say it otherwise ("net mender on the harbour, mends the
    nets": "Ana Costa is a net mender on the harbour", "Ana Costa mends the nets")."""
    out = []
    for piece in _pieces(text, "."):
        about = _about(name, piece)
        if about:
            toks = _tokens(about[0])
            # 'Tomas Reyes is ..' or 'Juno Park, captain of ..' (a name and what it is)
            said = (
                _low(toks, about[1]) == "is"
                or _low(toks, about[1]) == ","
                and (_is_word(toks, about[1] + 1) and _low(toks, about[1] + 1) not in CLAUSE_WORDS)
            )
            if about[1] == 0 or not said:
                out.append(about[0])
                continue
            piece = _render(toks[about[1] + 1 :])
        kind = _kind(piece)
        if kind != "np":
            out.append(f"{name} {'is ' if kind == 'ing' else ''}{piece}")
            continue
        # 'herbalist, who brews ..', 'net mender, mends ..': what it is, then what it does
        cuts = [c for c in re.finditer(r"(,)\s+", piece) if _predicate(piece[c.end() :])]
        m = min(
            [*cuts, *re.finditer(r"(,?)\s+who\s+", piece)], key=lambda c: c.start(), default=None
        )
        if m and (m.group(1) or not set(piece[: m.start()].split()) & PREPOSITIONS):
            out.append(f"{name} is {_with_article(piece[: m.start()])}")
            out.append(f"{name} {piece[m.end() :]}")
        else:
            out.append(f"{name} is {_with_article(piece)}")
    return out


def _traits(name: str, text: str) -> list[str]:
    return _predicates(name, text, traits=True)


def _predicates(name: str, text: str, traits: bool = False) -> list[str]:
    """Traits, routine or doing: descriptions ('gruff', 'kind to strangers', 'repairing the
    gate') after 'I'm', actions ('wakes at dawn') as verbs of I, each group one sentence."""
    about = _about(name, text)
    rest = _render(_tokens(about[0])[about[1] :]) if about else ""
    if about and (about[1] == 0 or _kind(rest) != "verb" or re.search(r"[.;]\s", rest)):
        return [_first(about[0], name, "", "", loose=True)]
    text = rest or text
    described: list[str] = []
    actions: list[str] = []
    last: list[str] = []  # the group the last piece went to
    verbal = False  # whether the last piece is a verb phrase (it may take more after a comma)
    for piece in _pieces(text, ".,"):
        first, kind = _low(_tokens(piece), 0), _kind(piece, listed=True, traits=traits)
        if last and (first in SUBORDINATORS or verbal and first in FUNCTION_WORDS):
            last[-1] += ", " + piece  # 'because ..', or 'selling his boat, the Gull'
            continue
        last = actions if kind == "verb" else described
        last.append(piece if kind != "np" else _with_article(piece, listed=True))
        verbal = kind != "np"
    out = [first_person(f"{name} is {join_clauses(described)}", name)] if described else []
    if actions:
        out.append(_first(f"{name} {join_clauses(actions)}", name, "", "", loose=True))
    return out


def described(name: str, learned: str, pronoun: str = "they") -> str:
    """What someone is, said of them from their persona's learned traits, a sentence a
    clause: "Dafydd Moss runs the fish market.", "Bram Holt is the blacksmith of
    Oakvale. He forges swords." (a pronoun of "they" would need the verb turned: the
    name is said again)."""
    clauses = _identity_clauses(name, learned.strip().rstrip("."))
    subject = pronoun_forms(pronoun)[0]
    said = [
        f"{subject}{clause[len(name) :]}"
        if i and subject != "they" and clause.startswith(f"{name} ")
        else clause
        for i, clause in enumerate(clauses)
    ]
    return " ".join(sentence(clause) for clause in said)


def persona_sentences(
    name: str, learned: str, innate: str, lifestyle: str, currently: str
) -> dict[str, str]:
    """The persona's fields as first-person sentences said by `name`: 'identity' (learned),
    'traits' (innate), 'routine' (lifestyle), 'doing' (currently); empty fields are left out."""
    fields = (
        ("identity", learned, _identity),
        ("traits", innate, _traits),
        ("routine", lifestyle, _predicates),
        ("doing", currently, _predicates),
    )
    out = {}
    for key, text, how in fields:
        said = " ".join(s for s in how(name, text.strip()) if s) if text.strip() else ""
        if said:
            out[key] = said
    return out
