"""Words as one stem: the one stemmer of the whole tree (talk, memory, the demo's judge)."""

from __future__ import annotations

from functools import lru_cache

import snowballstemmer
from lemminflect import getAllLemmas


@lru_cache(maxsize=8192)
def stem(word: str) -> str:
    """A word's English Snowball stem (the one stemmer of the whole tree), taken from
    its lemma when it is an irregular verb's form that the stemmer cannot join to it
    ("grew" and "grow", "sold" and "sell", by lemminflect's tables)."""
    lemmas = getAllLemmas(word)
    verbs = lemmas.get("VERB", ())
    noun = word in lemmas.get("NOUN", ())  # "ground", "rose": a noun of its own
    lemma = verbs[0] if len(verbs) == 1 and not noun else word
    stemmed: str = _STEMMER.stemWord(lemma)
    return stemmed


_STEMMER = snowballstemmer.stemmer("english")
