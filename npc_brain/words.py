"""Words as the whole tree reads them (talk, memory, the demo's judge): one way to split
a text into words, and one stemmer. A number said in words is its digits ("bay three"
and "Bay 3" share a term)."""

from __future__ import annotations

import re
from functools import lru_cache

import snowballstemmer
from lemminflect import getAllLemmas

# A word: letters and digits, an apostrophe inside it kept ("don't", "Tomas's", "café").
_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")


def tokens(text: str) -> list[str]:
    """A text's words in order, as written, with a straight apostrophe ("I’m at bay 3"
    -> I'm, at, bay, 3). Punctuation and hyphens separate words."""
    return [word.replace("’", "'") for word in _WORD.findall(text)]


def spans(text: str) -> list[tuple[str, int]]:
    """A text's words (`tokens`), each with where it starts."""
    return [(m.group().replace("’", "'"), m.start()) for m in _WORD.finditer(text)]


def lower_words(text: str) -> list[str]:
    """A text's words (`tokens`) in lowercase."""
    return tokens(text.lower())


def sentences(text: str) -> list[str]:
    """A text's sentences ("I'm the quartermaster. I run the depot." -> two; "hi. where
    is it?" -> two); the full stop of an abbreviation ends none ("Dr.", "St.", "p.m.")."""
    out, start = [], 0
    for end in _SENTENCE_END.finditer(text):
        word = text[start : end.start()].rsplit(" ", 1)[-1]
        if not (word[:1].isupper() and len(word) <= 3) and "." not in word:
            out.append(text[start : end.end()].strip())
            start = end.end()
    return [s for s in (*out, text[start:].strip()) if s]


_SENTENCE_END = re.compile(r"[.!?][\"”]?(?=\s+\S)")  # a quote may close it


def clauses(text: str) -> list[str]:
    """A text's clauses: its parts between commas, semicolons and clause words ("I
    sealed Docking Bay 3 and moved the barge to Bay 5": two)."""
    out: list[str] = []
    for part in text.replace(";", ",").split(","):
        clause: list[str] = []
        for word in part.split():
            if word.lower() in CLAUSE_WORDS and clause:
                out.append(" ".join(clause))
                clause = []
            clause.append(word)
        out.append(" ".join(clause))
    return [c for c in out if c]


def phrases(text: str) -> list[str]:
    """A text's phrases: its sentences' parts between commas, semicolons, dashes and
    ellipses ("i'm skint, i'll do any work... just don't send me off": three)."""
    return [p.strip(" .") for s in sentences(text) for p in _PHRASE_END.split(s) if p.strip(" .")]


_PHRASE_END = re.compile(r"[,;]|\s[-–—]\s|\.\.\.|…")


def names(said: str, word: str) -> bool:
    """Whether a word said names `word`: it is the word, or the last part of it as a
    closed compound ("shoe" of "horseshoe", "axe" of "pickaxe"; not "ale" of "whale")."""
    if said == word:
        return True
    rest = word.removesuffix(said)
    return (
        len(said) >= COMPOUND_PART
        and rest != word
        and len(rest) >= COMPOUND_PART
        and bool(getAllLemmas(rest))
    )


COMPOUND_PART = 3  # letters each part of a closed compound has at least


def only_a_noun(word: str) -> bool:
    """Whether a word can only be a noun ("recipe", not "tears" nor "love"): one that
    follows another noun makes it a modifier ("bun recipe")."""
    kinds = getAllLemmas(word)
    return word not in CLOSED_CLASS and set(kinds) == {"NOUN"}


def verb_only(word: str) -> bool:
    """Whether a word the dictionary knows can only be a verb ("bottled", "slept"; not
    "nets", "stims")."""
    return set(getAllLemmas(word)) == {"VERB"}


@lru_cache(maxsize=8192)
def all_lemmas(word: str) -> frozenset[str]:
    """Every lemma lemminflect knows of a word, whatever its part of speech ("bay":
    bay; "sold": sell)."""
    return frozenset(lemma for forms in getAllLemmas(word).values() for lemma in forms)


@lru_cache(maxsize=8192)
def stem(word: str) -> str:
    """A word's English Snowball stem (the one stemmer of the whole tree), taken from
    its lemma when it is an irregular form that the stemmer cannot join to it ("grew"
    and "grow", "sold" and "sell", "loaves" and "loaf", by lemminflect's tables); a
    number word is its digits ("three": "3")."""
    if (bare := word.removesuffix("'s")) in NUMBER_WORDS:
        return str(NUMBER_WORDS[bare])
    lemmas = getAllLemmas(word)
    verbs, nouns = lemmas.get("VERB", ()), lemmas.get("NOUN", ())
    noun = word in nouns  # "ground", "rose": a noun of its own
    lemma = verbs[0] if len(verbs) == 1 and not noun else word
    if not verbs and len(nouns) == 1:  # a plural: "loaves", "knives", "men"
        lemma = nouns[0]
    stemmed: str = _STEMMER.stemWord(lemma)
    return stemmed


_STEMMER = snowballstemmer.stemmer("english")

# English's number words that name no one thing but a number ("one" is also "someone").
NUMBER_WORDS = {
    **{"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8},
    **{"nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "twenty": 20, "thirty": 30},
    **{"forty": 40, "fifty": 50, "hundred": 100, "thousand": 1000},
}
# Words that count without being only a number's name ("one", "a dozen", "a couple").
COUNTING_WORDS = {"one": 1, "dozen": 12, "couple": 2, "pair": 2}


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# English's closed classes, named (nothing about any one game): the small words every
# reader of a line skips or turns round (talk, the lexical index, the demo's judge).
DETERMINERS = _words("a an the this that these those every each some any no its our")
NEGATIONS = _words("not")  # "not the ale" (not "no": "got no suit" wants one)
WANTING = _words("need want fancy")  # denied by "don't": "dont need a room"
DEMONSTRATIVES = _words("these those")  # "two of those pies": the wares in view
PREPOSITIONS = _words("to for with at by from of on in into onto about over under near per")
CONJUNCTIONS = _words("and or but so because when while if then that who which where whether")
CLAUSE_WORDS = CONJUNCTIONS | _words("although though after before since until as once")
COORDINATORS = _words("and or but then")
# "for me and ...", as players type it ("one fer me an' one fer the lad", "me n my mates")
FOR_SAID = _words("for fer")
AND_SAID = _words("and an n &")
SUBORDINATORS = CLAUSE_WORDS - COORDINATORS  # 'because ..', 'once ..': a clause of its own
PLACE_PREPOSITIONS = _words("at in on into onto near over under from")
PERSONAL = _words("i me my we us our you your it they them their he him his she her")
POSSESSIVES = _words("my your his her its our their")  # "three of your pots"
SUBJECTS = _words("i we he she they")  # a clause of its own begins ("I've been ...")
# Pronoun cases: subject, object, possessive, possessive pronoun, reflexive.
PRONOUNS: dict[str, tuple[str, str, str, str, str]] = {
    "he": ("he", "him", "his", "his", "himself"),
    "she": ("she", "her", "her", "hers", "herself"),
    "they": ("they", "them", "their", "theirs", "themselves"),
}
FIRST = ("I", "me", "my", "mine", "myself")
SECOND = ("you", "you", "your", "yours", "yourself")
# "You" as players type it ("u ok?", "ya want some?", "ur boat", "yer ale").
YOU = frozenset((*SECOND, "u", "ya", "ur", "yer"))
INDEFINITE = _words("anything something anyone someone")
SOMEBODY = _words("somebody someone anybody anyone nobody everybody everyone")  # a subject
CAUSAL = _words("because since due cause 'cause so")  # "because my knees", "due to"
# Markers of a situation put as a supposition ("if", "suppose a dragon came", "would").
CONDITIONAL = _words("if suppose supposing imagine would 'd")
DEADLINES = _words("for by before")  # "a cake for Saturday", "done by Friday"
FUNCTION_WORDS = DETERMINERS | PREPOSITIONS | CLAUSE_WORDS | PERSONAL | _words("there here not")
MODALS = _words("can could will would shall should may might must 'll 'd")
WH_WORDS = _words("what who whom whose which when where why how")
# Forms of the auxiliaries by person: I, you, he/she, they.
AUXILIARIES: dict[tuple[str, str], tuple[str, str, str, str]] = {
    ("be", "past"): ("was", "were", "was", "were"),
    ("be", "pres"): ("am", "are", "is", "are"),
    ("have", "pres"): ("have", "have", "has", "have"),
    ("do", "pres"): ("do", "do", "does", "do"),
    ("be", "'"): ("'m", "'re", "'s", "'re"),
    ("have", "'"): ("'ve", "'ve", "'s", "'ve"),
}
# The rest of English's small words: forms of be, have and do, wh- words, degree words.
_SMALL = _words(
    "be been being did had what whom whose why how all than very just also too yes let's"
)
AUX_FORMS = frozenset(form for forms in AUXILIARIES.values() for form in forms)
CLOSED_CLASS = FUNCTION_WORDS | MODALS | _SMALL | AUX_FORMS


def closed_class(word: str) -> bool:
    """Whether a lowercase word is one of English's small words, or a contraction of
    one ("I'm", "that's", "don't")."""
    return (
        word in CLOSED_CLASS
        or word in UNMARKED_NEGATIONS
        or word.endswith("n't")
        or word.partition("'")[0] in CLOSED_CLASS
    )


SPEAKERS = _words("i im we")  # the speaker as a subject, as players type it ("im not")
QUANTIFIERS = _words("some few couple")  # "some of your pies", "a couple of those"
# What picks from the wares in view after "of": "one of the eyes", "two of yer pies"
OF_THE_STOCK = _words("the your yer ur them these those")


def spoken(text: str) -> str:
    """A line without its roleplay emotes, the actions between asterisks ("*pulls a
    pistol* empty the register" -> " empty the register")."""
    return _EMOTE.sub(" ", text)


def emoted(text: str) -> bool:
    """Whether a line acts in a roleplay emote ("*draws a knife*")."""
    return bool(_EMOTE.search(text))


def only_acted(text: str) -> bool:
    """Whether a line acts in a roleplay emote and says nothing ("*draws a knife*")."""
    return emoted(text) and not lower_words(spoken(text))


_EMOTE = re.compile(r"\*[^*\s][^*]*\*")


# Negated auxiliaries as players type them, without the apostrophe ("cant use it")
UNMARKED_NEGATIONS = _words(
    "cant wont dont doesnt didnt isnt arent wasnt werent aint couldnt wouldnt shouldnt "
    "hasnt havent hadnt mustnt"
)
