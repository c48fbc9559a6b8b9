"""Talk decides by understanding, state and the realiser's grammar, not by a rule for
each odd line (issue: "regexes and word lists in mind/talk, a fraction"). This counts the
regular expressions compiled in npc_brain/mind/talk/ and fails when one is added
without taking one away: words are split by npc_brain.words, times read by
memory.when, persons turned round by realise.turned_round."""

from __future__ import annotations

import re
from pathlib import Path

TALK = Path(__file__).resolve().parents[2] / "npc_brain" / "mind" / "talk"
COMPILED_MOST = 25  # was 56 before words, times and addresses were read one way


def test_talk_compiles_no_more_regexes_than_its_budget() -> None:
    found = {
        f"{path.name}:{n}"
        for path in sorted(TALK.glob("*.py"))
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if re.search(r"\bre\.compile\(", line)
    }
    assert len(found) <= COMPILED_MOST, sorted(found)


def test_no_module_of_talk_splits_words_its_own_way() -> None:
    own = [
        f"{path.name}:{n}"
        for path in sorted(TALK.glob("*.py"))
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if re.search(r"""re\.findall\(r["']\[(?:a-z|A-Za-z)""", line)
    ]
    assert own == []
