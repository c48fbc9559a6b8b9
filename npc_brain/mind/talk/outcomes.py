"""What became of a game action an NPC chose in a reply, as the game reports it,
remembered: "Bram Holt sold a horseshoe to Mara Quill for 2 coins." (an observation it
saw, with the game's own words after it), so the NPC can say later what it sold, to
whom and for how much."""

from __future__ import annotations

from lemminflect import getInflection

from npc_brain.errors import FailedPrecondition, NotFound
from npc_brain.game_actions import Offer
from npc_brain.memory.records import GameTime, MemoryKind, MemoryRecord, Observation
from npc_brain.mind.faculties import Faculties
from npc_brain.mind.talk.realise import sentence
from npc_brain.mind.talk.trade import amount
from npc_brain.mind.world import World
from npc_brain.persona import AgentRecord


async def report(
    faculties: Faculties,
    world: World,
    agent: AgentRecord,
    action_id: str,
    done: bool,
    detail: str,
    game_time: GameTime,
) -> MemoryRecord:
    """Stores the outcome as the agent's memory and marks the offer reported; a repeat
    returns the memory the first report stored."""
    found = world.store.offer(agent.agent_id, action_id)
    if found is None:
        raise NotFound(f"agent {agent.agent_id!r} chose no action {action_id!r}")
    offer, memory_id = found
    if memory_id is not None:
        if (memory := world.memory(agent.agent_id, memory_id)) is None:
            raise FailedPrecondition(f"action {action_id!r} was reported; its memory is gone")
        return memory
    speaker = world.store.get_agent(offer.speaker_id)
    to = speaker.persona.name if speaker else offer.speaker_id
    text = outcome_text(agent.persona.name, to, offer, done, detail)
    (memory,) = await faculties.remember(
        world, agent, MemoryKind.OBSERVATION, [Observation(text)], game_time
    )
    world.store.reported(action_id, memory.memory_id)
    return memory


def outcome_text(me: str, to: str, offer: Offer, done: bool, detail: str) -> str:
    """The memory of an outcome: "Bram Holt sold a horseshoe to Mara Quill for 2 coins."
    when done, "Bram Holt agreed to sell a horseshoe to Mara Quill, but it did not
    happen." when not; the game's detail after it. `offer.said` is what the NPC agreed
    to, ending with the word before whom it was for ("sell a horseshoe to")."""
    chosen = offer.chosen
    verb, _, rest = offer.said.partition(" ")
    price = f" for {amount(chosen.price, chosen.currency)}" if chosen.price else ""
    if done:
        past = (getInflection(verb, tag="VBD") or (f"{verb}ed",))[0]
        said = sentence(f"{me} {past} {rest} {to}{price}")
    else:
        said = sentence(f"{me} agreed to {offer.said} {to}{price}, but it did not happen")
    return f"{said} {sentence(detail)}".strip() if detail.strip() else said
