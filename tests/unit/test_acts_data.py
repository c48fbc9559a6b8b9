"""The shipped dialogue-act examples (npc_brain/mind/talk/data/acts.tsv): labels,
coverage, no duplicates, and none of the test settings' words."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

ACTS_TSV = Path(__file__).resolve().parents[2] / "npc_brain" / "mind" / "talk" / "data" / "acts.tsv"

ACTS = {
    "greeting",
    "farewell",
    "thanks",
    "how_are_you",
    "small_talk",
    "request",
    "trade",
    "fact",
    "opinion",
    "directions",
    "feelings",
    "threat",
    "other",
}

# Words of the test settings: the examples must stay generic.
FORBIDDEN = (
    "party",
    "mayor",
    "election",
    "valentine",
    "hobbs",
    "isabella",
    "klaus",
    "ville",
    "oakvale",
    "kestrel",
    "saltmere",
    "gull",
)


def examples() -> list[tuple[str, str]]:
    """(act, text) pairs: `act<TAB>text` lines, `#` comments and blank lines skipped."""
    pairs = []
    for line in ACTS_TSV.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        act, sep, text = line.partition("\t")
        assert sep, f"no tab in {line!r}"
        pairs.append((act.strip(), text.strip()))
    return pairs


def normalise(text: str) -> str:
    return re.sub(r"\s+", " ", text.lower()).strip().rstrip(".!?").strip()


def test_every_label_is_one_of_the_thirteen_acts() -> None:
    unknown = {act for act, _ in examples()} - ACTS
    assert not unknown


def test_every_act_has_at_least_forty_examples() -> None:
    per_act = Counter(act for act, _ in examples())
    assert set(per_act) == ACTS
    assert {act: n for act, n in per_act.items() if n < 40} == {}


def test_no_text_appears_twice() -> None:
    counts = Counter(normalise(text) for _, text in examples())
    assert [text for text, n in counts.items() if n > 1] == []


def test_no_text_is_empty_or_too_long() -> None:
    bad = [text for _, text in examples() if not text or len(text) > 200]
    assert bad == []


def test_no_test_setting_word_appears_anywhere_in_the_files() -> None:
    from npc_brain.mind.talk.understand import CLASSIFIED

    for file in (ACTS_TSV.with_name(name) for name in CLASSIFIED):
        content = file.read_text(encoding="utf-8").lower()
        assert [word for word in FORBIDDEN if word in content] == [], file.name


def test_the_examples_embeddings_are_shipped_for_the_default_embedder() -> None:
    from npc_brain.mind.talk.acts import cache_name, shipped
    from npc_brain.mind.talk.understand import CLASSIFIED

    data = Path(__file__).resolve().parents[2] / "npc_brain" / "mind" / "talk" / "data"
    for file, labels in CLASSIFIED.items():
        texts = [e.text for e in shipped(file, labels)]
        name = cache_name(file, "all-MiniLM-L6-v2.f16.gguf", texts)
        assert (data / name).is_file(), f"{file} changed: run `python -m bench.act_cache`"
