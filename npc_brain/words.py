"""Words as one stem: the one stemmer of the whole tree (talk, memory, the demo's judge).
A number said in words is its digits ("bay three" and "Bay 3" share a term)."""

from __future__ import annotations

from functools import lru_cache

import snowballstemmer
from lemminflect import getAllLemmas


@lru_cache(maxsize=8192)
def stem(word: str) -> str:
    """A word's English Snowball stem (the one stemmer of the whole tree), taken from
    its lemma when it is an irregular verb's form that the stemmer cannot join to it
    ("grew" and "grow", "sold" and "sell", by lemminflect's tables); a number word is
    its digits ("three": "3")."""
    if (bare := word.removesuffix("'s")) in NUMBER_WORDS:
        return str(NUMBER_WORDS[bare])
    lemmas = getAllLemmas(word)
    verbs = lemmas.get("VERB", ())
    noun = word in lemmas.get("NOUN", ())  # "ground", "rose": a noun of its own
    lemma = verbs[0] if len(verbs) == 1 and not noun else word
    stemmed: str = _STEMMER.stemWord(lemma)
    return stemmed


_STEMMER = snowballstemmer.stemmer("english")

# English's number words that name no one thing but a number ("one" is also "someone").
NUMBER_WORDS = {
    **{"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8},
    **{"nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "twenty": 20},
}
