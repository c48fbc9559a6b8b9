"""Talk decides by understanding, state and the realiser's grammar, not by a rule for
each odd line (issue: "regexes and word lists in mind/talk, a fraction"). This counts the
regular expressions compiled in npc_brain/mind/talk/ and fails when one is added
without taking one away: words are split by npc_brain.words, times read by
memory.when, persons turned round by realise.turned_round. Lists of English words live
in npc_brain.words (grammar) and npc_brain.lexicon (meanings), not in talk's modules."""

from __future__ import annotations

import ast
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


# The lists of words talk may keep: the realiser's own grammar of persons, the
# wh-phrases' table, the persona fields that answer "who are you?".
TALK_WORD_LISTS = {"WHO", "_ASKING", "_TOWARDS_A_PLACE"}


def _word_list(value: ast.expr) -> bool:
    """A literal collection of three or more lowercase words or short phrases (not a
    mapping, nor descriptions such as deeds' ways of answering a threat)."""
    if isinstance(value, ast.Dict):
        return False
    found = [
        n.value for n in ast.walk(value) if isinstance(n, ast.Constant) and isinstance(n.value, str)
    ]
    short = all(re.fullmatch(r"[a-z']+(?: [a-z']+){0,2}", w) for w in found)
    return len(found) >= 3 and short


def test_no_module_of_talk_keeps_its_own_list_of_english_words() -> None:
    lists = {
        target.id
        for path in sorted(TALK.glob("*.py"))
        for node in ast.parse(path.read_text()).body
        if isinstance(node, ast.Assign) and _word_list(node.value)
        for target in node.targets
        if isinstance(target, ast.Name) and target.id != "__all__"
    }
    assert lists <= TALK_WORD_LISTS, sorted(lists - TALK_WORD_LISTS)
