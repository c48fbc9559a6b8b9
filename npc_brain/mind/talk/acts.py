"""Dialogue acts: what a line said to an NPC is for, from labelled examples (data).

Every line is classified from labelled examples in the embedder's space (data/acts.tsv,
by a regression fitted on their embeddings), as the importance estimator rates memories
by its anchors: no keyword list, the same code for every game. A question of fact also
gets a facet (data/facets.tsv: about the NPC itself, its plans, its past, a
person, news, anything else), which tells its composer where to look, and every line a
deal (data/deals.tsv: asks a price or what is sold, orders, or neither), which tells
the game actions whether to choose one, and a need (data/needs.tsv: the service a line
shows the speaker wants, put as a trouble as often as asked), which tells them which.
A game may add act examples of its own (setting `act_examples`, same format).
"""

from __future__ import annotations

import hashlib
import itertools
import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from functools import cache
from importlib import resources
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from npc_brain.errors import InvalidArgument
from npc_brain.words import lower_words

# The regression's settings, chosen by 5-fold cross-validation on the shipped acts.
L2 = 0.01
STEPS = 100  # as good as 500 on the bench's train split (87%), a fifth of the time
RATE = 2.0
SCALE = 10.0  # unit vectors scaled up: the cosines' small range made larger steps
WORD_BUCKETS = 1024  # hashed words and word pairs beside the embedding
WORD_WEIGHT = 0.7


class Act(StrEnum):
    """The dialogue acts a composer answers (the player-talk issue's list)."""

    GREETING = "greeting"
    FAREWELL = "farewell"  # ends the conversation
    THANKS = "thanks"  # thanks or a compliment
    HOW_ARE_YOU = "how_are_you"
    SMALL_TALK = "small_talk"
    REQUEST = "request"  # to do or give something
    TRADE = "trade"  # price, buying, selling
    FACT = "fact"  # a question of fact
    OPINION = "opinion"  # about a person, place or thing
    DIRECTIONS = "directions"  # where to find something, advice
    FEELINGS = "feelings"  # how the NPC feels, what worries it
    THREAT = "threat"  # a threat or an insult
    OTHER = "other"


class Facet(StrEnum):
    """Where the answer to a question of fact lies."""

    SELF = "self"  # the persona: name, work, age, traits
    PLANS = "plans"  # what the NPC will do
    PAST = "past"  # what it did, saw or heard
    PERSON = "person"  # someone else
    NEWS = "news"  # what is going on
    WORLD = "world"  # anything else
    REACT = "react"  # what the NPC would do in a situation put to it


class Deal(StrEnum):
    """What a line about trade asks (data/deals.tsv): a price or what is sold (`ask`:
    the NPC says it and chooses nothing), to buy or be given a thing now (`order`), or
    neither."""

    ASK = "ask"
    ORDER = "order"
    OTHER = "other"


class Need(StrEnum):
    """The service a line shows the speaker needs (data/needs.tsv), put as a trouble or
    a situation as often as asked ("caught my hand in the winch, it won't stop
    bleeding": an injury to treat); data/need_services.tsv says each in the words games
    describe their actions with. `none` asks for no service."""

    INJURY = "injury"
    ILLNESS = "illness"
    CHECKUP = "checkup"
    REPAIR = "repair"
    SHARPEN = "sharpen"
    COMMISSION = "commission"
    LODGING = "lodging"
    FOOD_DRINK = "food_drink"
    WORK = "work"
    STORAGE = "storage"
    RESERVE = "reserve"
    PASSAGE = "passage"
    HAULAGE = "haulage"
    BERTH = "berth"
    CLEARANCE = "clearance"
    PAPERWORK = "paperwork"
    IDENTIFY = "identify"
    TEACH = "teach"
    INSPECT = "inspect"
    GUARD = "guard"
    FIND = "find"
    GOODS = "goods"  # to buy a thing the NPC sells: what the wares are for
    NONE = "none"


@dataclass(frozen=True)
class Example:
    label: str
    text: str


def parse_examples(content: str, labels: Sequence[str], where: str = "") -> list[Example]:
    """`label<TAB>text` lines (`#` comments, blank lines skipped); ValueError naming the
    line for one whose label is not one of `labels`."""
    found = []
    for number, line in enumerate(content.splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        label, sep, text = line.partition("\t")
        if not sep or not text.strip():
            raise ValueError(f"{where}line {number}: expected label<TAB>text")
        if label.strip() not in labels:
            raise ValueError(f"{where}line {number}: unknown label {label.strip()!r}")
        found.append(Example(label.strip(), text.strip()))
    return found


def shipped(name: str, labels: Sequence[str]) -> list[Example]:
    """The examples shipped as package data (data/<name>)."""
    data = resources.files("npc_brain.mind.talk").joinpath("data", name)
    return parse_examples(data.read_text(encoding="utf-8"), labels, f"{name}: ")


def load_game_examples(path: Path, setting: str = "act_examples") -> list[Example]:
    """A game's own act examples; InvalidArgument naming `setting` if unusable."""
    try:
        return parse_examples(path.read_text(encoding="utf-8"), list(Act), f"{path}: ")
    except OSError as exc:
        raise InvalidArgument(setting, f"cannot read {path}: {exc.strerror}") from exc
    except ValueError as exc:
        raise InvalidArgument(setting, str(exc)) from exc


@dataclass(frozen=True)
class Vote:
    """A classification: the winning label, each label's share of the vote, and the
    nearest example (what decided, for explanations)."""

    label: str
    shares: dict[str, float]
    nearest: str

    @property
    def confidence(self) -> float:
        return self.shares.get(self.label, 0.0)


class NearestExamples:
    """Labels texts from labelled examples in the embedder's space: a softmax
    (multinomial logistic) regression fitted on the examples' embeddings when they are
    given (`fit`: some 700 rows, well under a second), which weighs every example where a
    vote of the nearest few is swayed by shared nouns ("Where is the tavern?" beside
    "Who runs the tavern?": 82% against 68% in 5-fold cross-validation on the shipped
    acts)."""

    def __init__(self, examples: Sequence[Example], l2: float = L2, steps: int = STEPS):
        if not examples:
            raise ValueError("a classifier needs examples")
        self.examples = list(examples)
        self.labels = sorted({e.label for e in self.examples})
        self._l2, self._steps = l2, steps
        self._matrix: NDArray[np.float32] | None = None
        self._weights: NDArray[np.float64] | None = None
        self._bias: NDArray[np.float64] | None = None
        self._lock = threading.Lock()

    @property
    def fitted(self) -> bool:
        return self._weights is not None

    def texts(self) -> list[str]:
        return [e.text for e in self.examples]

    def fit(self, matrix: NDArray[np.float32]) -> None:
        """Fits on the examples' unit-length embeddings, one row each, in order."""
        if matrix.shape[0] != len(self.examples):
            raise ValueError("one row per example")
        x = features(self.texts(), matrix) * SCALE
        targets = np.eye(len(self.labels))[[self.labels.index(e.label) for e in self.examples]]
        weights = np.zeros((x.shape[1], len(self.labels)))
        bias = np.zeros(len(self.labels))
        for _ in range(self._steps):
            gradient = (_softmax(x @ weights + bias) - targets) / len(x)
            weights -= RATE * (x.T @ gradient + self._l2 * weights)
            bias -= RATE * gradient.sum(axis=0)
        with self._lock:
            self._matrix = np.asarray(matrix, dtype=np.float32)
            self._weights, self._bias = weights * SCALE, bias

    def vote(self, text: str, vector: NDArray[np.float32]) -> Vote:
        """The label of a text (with its unit-length embedding), each label's
        probability, and the nearest example."""
        assert self._weights is not None and self._bias is not None and self._matrix is not None
        row = features([text], vector.reshape(1, -1))[0]
        probabilities = _softmax(row @ self._weights + self._bias)
        shares = {label: float(p) for label, p in zip(self.labels, probabilities, strict=True)}
        label = self.labels[int(np.argmax(probabilities))]
        nearest = self.examples[int(np.argmax(self._matrix @ vector))].text
        return Vote(label, shares, nearest)


def features(texts: Sequence[str], vectors: NDArray[np.float32]) -> NDArray[np.float64]:
    """What the regression reads of each text: its embedding (its meaning) beside its
    words and word pairs, hashed (what it says: "bye", "how much"), unit length. The
    words lift the acts from 83% to 87% right on the benchmark's train split."""
    words = np.zeros((len(texts), WORD_BUCKETS))
    for row, text in enumerate(texts):
        tokens = lower_words(text)
        if "?" in text:  # a question: no greeting, farewell or thanks asks one
            tokens.append(QUESTION)
        for gram in [*tokens, *(f"{a} {b}" for a, b in itertools.pairwise(tokens))]:
            digest = hashlib.blake2b(gram.encode(), digest_size=4).digest()
            words[row, int.from_bytes(digest, "little") % WORD_BUCKETS] += 1.0
    words /= np.maximum(np.linalg.norm(words, axis=1, keepdims=True), 1e-12)
    both = np.hstack([np.asarray(vectors, dtype=np.float64), WORD_WEIGHT * words])
    return np.asarray(both / np.maximum(np.linalg.norm(both, axis=1, keepdims=True), 1e-12))


QUESTION = "<?>"  # the token a question mark adds


def _softmax(logits: NDArray[np.float64]) -> NDArray[np.float64]:
    shifted = np.exp(logits - logits.max(axis=-1, keepdims=True))
    return np.asarray(shifted / shifted.sum(axis=-1, keepdims=True))


SAME_MODEL_COSINE = 0.999  # a cached row and the same example embedded now agree this well


def cache_name(file: str, model_id: str, texts: Sequence[str]) -> str:
    """Where the embeddings of a file's examples are cached for a model: its name, the
    model's id and a fingerprint of the texts."""
    digest = hashlib.sha256("\n".join(texts).encode()).hexdigest()[:16]
    model = re.sub(r"[^A-Za-z0-9._-]+", "_", model_id)
    return f"{file.removesuffix('.tsv')}-{model}-{digest}.npy"


def shipped_matrix(name: str, rows: int, dimension: int) -> NDArray[np.float32] | None:
    """The embeddings shipped as package data under `name` (cache_name), if any."""
    place = resources.files("npc_brain.mind.talk").joinpath("data", name)
    if not place.is_file():
        return None
    with place.open("rb") as fh:
        matrix = np.load(fh, allow_pickle=False)
    if matrix.shape != (rows, dimension):
        return None
    matrix = np.asarray(matrix, dtype=np.float32)
    return np.asarray(matrix / np.linalg.norm(matrix, axis=1, keepdims=True), dtype=np.float32)


def normalised(text: str) -> str:
    """A line as the classifier reads it: single spaces, trimmed, chat abbreviations
    spelled out ("gtg, cya" -> "got to go, see you": data/chat_speak.tsv)."""
    spelled = _ABBREVIATION.sub(lambda m: _chat_speak()[m[0].lower()], text)
    return " ".join(spelled.split())


@cache
def _chat_speak() -> dict[str, str]:
    data = resources.files("npc_brain.mind.talk").joinpath("data", "chat_speak.tsv")
    rows = (line.split("\t") for line in data.read_text(encoding="utf-8").splitlines())
    return {row[0]: row[1] for row in rows if len(row) == 2 and not row[0].startswith("#")}


_ABBREVIATION = re.compile(
    r"(?<![\w'-])(?:"
    + "|".join(sorted(map(re.escape, _chat_speak()), key=len, reverse=True))
    + r")(?![\w'-])",
    re.IGNORECASE,
)
