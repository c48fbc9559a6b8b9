"""What a reply may tell (mind/talk/reply._between), in a mountain trading post: not the
lines the asker and the NPC said to each other, nor a question someone else put to the
NPC (it tells nothing: it is no news and no answer)."""

from __future__ import annotations

import pytest

from npc_brain.memory.records import MemoryKind, MemoryRecord
from npc_brain.mind.talk.reply import _between
from npc_brain.persona import AgentRecord, Persona

INGRID = AgentRecord("ingrid", Persona("Ingrid Vale"))


def _line(text: str) -> MemoryRecord:
    return MemoryRecord(MemoryKind.DIALOGUE, text, 0.0, 3.0, memory_id=1)


@pytest.mark.parametrize(
    ("text", "left_out"),
    [
        ('Tor Ash said to Ingrid Vale: "Who could take me across the pass?"', True),
        ('Tor Ash said to Ingrid Vale: "Any news? Is the sled in?"', True),
        (
            'Bo Harsk said to Ingrid Vale: "The pass is snowed shut. Can you tell the trappers?"',
            False,
        ),
        ('Ingrid Vale said to Bo Harsk: "Can you check the pass at dawn?"', False),  # her own
        ('Mara Finch said to Ingrid Vale: "The wolves are back."', True),  # the asker's line
    ],
)
def test_a_question_put_to_the_npc_is_no_fact_to_tell(text: str, left_out: bool) -> None:
    assert _between(_line(text), INGRID, "Mara Finch") is left_out
