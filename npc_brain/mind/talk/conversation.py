"""NPC-to-NPC conversations, turn by turn.

Code chooses what each line is for before the model words it (`line_intents`,
talk/intent.py): an answer, news the listener lacks, a question, small talk; a line
meant to pass news or an answer on that does not is drawn again, then said plainly.
Each speaker's prompt gives its view of the listener first (talk/relations.py). A
parroted or unusable line, or one that gives away what the speaker may not tell the
listener, is drawn again with another seed; one that stays so ends the conversation. A
speaker's prompt holds only memories it may tell the listener, and leaves out the news
the two have told each other already.

Both agents remember every line, what each heard carrying the speaker as its source,
then update their view of each other and plan the rest of their day again around the
news they heard (`afterthoughts` composed: by code, no model call), or write the
paper's post-conversation thoughts (THOUGHT memories) and view with the model and plan
around those (`afterthoughts` model). A line that passes on one of the
speaker's memories is recorded as a claim told (memory/claims.py): the listener's
memory of the line holds it, one hop further from its first holder, is no more
tellable than what it carried (Sharing.passed_on), and is weighed against what the
listener held (News.weigh: contradictions).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable, Sequence

from npc_brain.action import Action, Line
from npc_brain.llm.base import ChatModel, Completion
from npc_brain.llm.scheduler import Priority
from npc_brain.memory.claims import Telling
from npc_brain.memory.records import ANYONE, GameTime, MemoryKind, MemoryRecord, Sharing
from npc_brain.mind.faculties import Faculties
from npc_brain.mind.plan.planner import Planner
from npc_brain.mind.reflect.prompts import Insight
from npc_brain.mind.talk.answers import (
    first_person,
    key_terms,
    names_in,
    said_line,
    said_words,
)
from npc_brain.mind.talk.carry import CARRIES, name_terms, own_line, place_terms
from npc_brain.mind.talk.checks import Context, Refusal, Stage, first_refusal
from npc_brain.mind.talk.intent import (
    SMALL_TALK,
    Intent,
    IntentKind,
    answering,
    carries_words,
    choose,
    plain_line,
)
from npc_brain.mind.talk.invitation import invitation, reply
from npc_brain.mind.talk.misfit import Cast
from npc_brain.mind.talk.news import REFUSAL, News
from npc_brain.mind.talk.prompts import after_conversation, conversation_turn
from npc_brain.mind.talk.relations import last_open_line, relationship, renew_relationship
from npc_brain.mind.talk.scene import Answer
from npc_brain.mind.talk.social import time_greeting
from npc_brain.mind.talk.understand import last_sentence, to_you
from npc_brain.mind.world import World
from npc_brain.persona import AgentRecord

NOT_SURE = "I'm not sure yet."  # the plain answer to a question no draw answered
log = logging.getLogger(__name__)
CHAT_EMOJI = "💬"
TURN_ATTEMPTS = 3  # a parroted or unusable line is drawn again, twice at most
Turn = tuple[Line | None, Completion]
# The composed answer of an agent to a line said to it (Replies.answer): world, agent,
# game time, speaker id, speaker name, line.
Answerer = Callable[[World, AgentRecord, GameTime, str, str, str], Awaitable[Answer]]


class Conversations:
    """Runs conversations between agents of a world."""

    def __init__(
        self, faculties: Faculties, planner: Planner, news: News, answer: Answerer | None = None
    ) -> None:
        self._f = faculties
        self._planner = planner
        self._news = news
        self._answer = answer

    async def converse(
        self, world: World, first: AgentRecord, second: AgentRecord, game_time: GameTime
    ) -> list[Line]:
        """A conversation of at most `max_conversation_turns` lines; both remember it,
        think it over and plan the rest of their day again."""
        minds = [world.mind(first.agent_id), world.mind(second.agent_id)]
        for mind in minds:
            mind.talking = True
        try:
            return await self._converse(world, first, second, game_time)
        finally:
            for mind in minds:
                mind.talking = False

    async def _converse(
        self, world: World, first: AgentRecord, second: AgentRecord, game_time: GameTime
    ) -> list[Line]:
        quiet = game_time + self._f.settings.conversation_cooldown_minutes * 60
        pairs = ((first, second), (second, first))
        for a, b in pairs:
            world.mind(a.agent_id).quiet_until[b.agent_id] = quiet
        names = {a.agent_id: a.persona.name for a in (first, second)}
        known = {
            a.agent_id: self._news.unexchanged(
                world,
                a.agent_id,
                b.agent_id,
                await self._f.context(world, a, game_time, b.persona.name, told_to=b.agent_id),
            )
            for a, b in pairs
        }
        views = {a.agent_id: relationship(world, a.agent_id, b.agent_id) for a, b in pairs}
        intents = self._f.settings.line_intents
        news = {
            a.agent_id: await self._news.news_for(world, a, b, game_time) if intents else []
            for a, b in pairs
        }
        asked: set[str] = set()
        small_talk = self._f.settings.small_talk_lines
        lines: list[Line] = []
        carried: list[MemoryRecord | None] = []  # the speaker's memory each line passed on
        answered: set[str] = set()  # the events asked to and answered (invitation.py)
        for turn in range(self._f.settings.max_conversation_turns):
            speaker, listener = pairs[turn % 2]
            invited = invitation(lines[-1].text, game_time) if lines and intents else None
            if invited is not None and invited.activity not in answered:
                answered.add(invited.activity)  # yes or no, by code: said as it is
                text = reply(world, speaker.agent_id, invited)
                lines.append(Line(speaker.agent_id, text, False, "reply to an invitation"))
                carried.append(None)
                continue
            memories = known[speaker.agent_id]
            said: list[MemoryRecord] = []
            if lines:  # and what the conversation so far brings to mind
                said = await self._f.context(
                    world, speaker, game_time, lines[-1].text, told_to=listener.agent_id
                )
                memories = distinct([*memories, *said])
            intent = SMALL_TALK
            if intents:
                intent = self._intent(speaker, listener, lines, said, news, asked, memories)
                chatter = sum(line.intent.startswith("small talk") for line in lines[2:])
                if len(lines) >= 2 and intent is SMALL_TALK and chatter >= small_talk:
                    break  # both have spoken, and neither has anything left to say
                memories = distinct([*([intent.memory] if intent.memory else []), *memories])
            view = views[speaker.agent_id]
            standing = known[speaker.agent_id]
            drawn = await self._small_talk(
                world, speaker, listener, game_time, lines, intent, memories
            )
            drawn = drawn or await self._next_line(
                world, speaker, listener, game_time, memories, lines, intent, view, standing
            )
            if drawn is None:
                break  # unusable lines, or lines parroting earlier ones, end it
            line, passed_on = drawn
            lines.append(Line(speaker.agent_id, line.text, line.end_conversation, line.intent))
            if passed_on is None:
                passed_on = await self._news.carried(
                    world, line.text, memories, list(names.values()), [x.text for x in lines[:-1]]
                )
            carried.append(passed_on)
            if passed_on is not None:  # told now: no longer news for this listener
                pending = news[speaker.agent_id]
                news[speaker.agent_id] = [m for m in pending if m.memory_id != passed_on.memory_id]
            if line.end_conversation:
                break
        if lines:
            remembered = {
                a.agent_id: await self._remember(
                    world, a, b, lines, game_time, _sharing(a.agent_id, lines, carried)
                )
                for a, b in pairs
            }
            origins = await self._record_claims(
                world, lines, carried, remembered, game_time, list(names.values())
            )
            for a, b in pairs:
                if self._f.settings.afterthoughts == "composed":
                    reasons = self._keep(
                        world, a, b, lines, origins, remembered[a.agent_id], game_time
                    )
                else:
                    reasons = await self._think_over(
                        world, a, b, lines, names, remembered[a.agent_id], game_time
                    )
                if a.planning_enabled:
                    await self._planner.revise(world, a, game_time, reasons)
        return lines

    async def _small_talk(
        self,
        world: World,
        speaker: AgentRecord,
        listener: AgentRecord,
        game_time: GameTime,
        lines: Sequence[Line],
        intent: Intent,
        memories: Sequence[MemoryRecord],
    ) -> tuple[Line, MemoryRecord | None] | None:
        """A question, small talk or an answer about the speaker itself ("Busy?"),
        composed by code (`npc_small_talk` composed, with `line_intents`; news and other
        answers carry a memory, and the model words them): an opener greets and asks
        after what the speaker saw the listener doing ("Good morning, Bram! Busy mending
        the gate?"); a reply answers the last line as the speaker would answer a player
        (talk/reply.py: understood, decided, realised). None when the model words it, or
        when the answer is no line to say (a refusal, a repeat). News told is taken with
        thanks ("Good to know, Bram. Thank you.")."""
        settings = self._f.settings
        asked = last_sentence(lines[-1].text) if lines else ""
        of_me = intent.kind == IntentKind.ANSWER and to_you(asked)
        chatter = intent is SMALL_TALK or intent.kind == IntentKind.ASK or of_me
        if not chatter or settings.npc_small_talk != "composed" or not settings.line_intents:
            return None
        label = f"{intent.kind.value}, composed"
        first = listener.persona.name.split()[0]
        if not lines:
            after = _asked_after(listener, memories)
            return Line("", f"{time_greeting(game_time)}, {first}! {after}", False, label), None
        if lines[-1].intent.startswith(IntentKind.NEWS.value):  # news told: taken, with thanks
            thanks = _THANKS[sum(map(ord, lines[-1].text)) % len(_THANKS)]
            return Line("", thanks.format(first), False, label), None
        if self._answer is None:
            return None
        answer = await self._answer(
            world, speaker, game_time, listener.agent_id, listener.persona.name, lines[-1].text
        )
        text = answer.text
        # an answer says the question's words again ("Busy?" "I'm busy ..."): no repeat
        if not text or text == REFUSAL or _repeats(text, lines[:-1]):
            return None
        return Line("", text, answer.ends, label), None

    def _intent(
        self,
        speaker: AgentRecord,
        listener: AgentRecord,
        lines: Sequence[Line],
        said: Sequence[MemoryRecord],
        news: dict[str, list[MemoryRecord]],
        asked: set[str],
        memories: Sequence[MemoryRecord],
    ) -> Intent:
        """What the speaker's next line is for (intent.choose): the listener's question
        answered from what it brings to mind that bears on it (not the listener's own
        words), news not yet told, else once a question about the listener's doings,
        else small talk."""
        question = lines[-1].text if lines else ""
        theirs = [
            m
            for m in said
            if not own_line(m)
            and m.source.agent_id != listener.agent_id
            and m.kind != MemoryKind.PLAN
        ]
        people = name_terms([speaker.persona.name, listener.persona.name])
        answers = answering(question, theirs, people)
        ask_about = ""
        if speaker.agent_id not in asked:
            ask_about = _doings(listener, memories)
        chosen = choose(question, answers, news[speaker.agent_id], ask_about)
        if chosen.kind == IntentKind.ASK:
            asked.add(speaker.agent_id)
        return chosen

    async def _record_claims(
        self,
        world: World,
        lines: Sequence[Line],
        carried: Sequence[MemoryRecord | None],
        remembered: dict[str, list[MemoryRecord]],
        game_time: GameTime,
        names: Sequence[str],
    ) -> list[str | None]:
        """Records each line that passed on a memory as a claim told to the listener, and
        weighs it against what the listener held (News.weigh); the first holder of the
        claim each line passed on (None: it passed none, or the listener's memory of it
        was outweighed by a better-supported belief)."""
        told = [(i, m) for i, m in enumerate(carried) if m is not None]
        origins: list[str | None] = [None] * len(lines)
        if not told:
            return origins
        vectors = await self._f.embed([m.description for _, m in told])
        tellings = []
        for (i, memory), vector in zip(told, vectors, strict=True):
            teller = lines[i].speaker_id
            listener = next(a for a in remembered if a != teller)
            tellings.append(
                Telling(
                    teller,
                    memory,
                    vector,
                    remembered[teller][i].memory_id,
                    listener,
                    remembered[listener][i].memory_id,
                    game_time,
                )
            )
        claims = self._news.record(world, tellings)
        outweighed = set()
        for found in self._news.weigh(world, tellings, claims, names, game_time):
            outweighed.add(found.memory_id)
            log.debug(
                "%s: memory %s outweighed by %s (%s %.2f < %.2f)",
                found.agent_id,
                found.memory_id,
                found.contradicts_id,
                found.slot,
                found.support,
                found.against_support,
            )
        for (i, _), telling, claim_id in zip(told, tellings, claims, strict=True):
            claim = world.store.claims.get(claim_id)
            if claim is not None and telling.listener_line not in outweighed:
                origins[i] = claim.origin_agent_id  # else less supported than a belief
        return origins

    async def _next_line(
        self,
        world: World,
        speaker: AgentRecord,
        listener: AgentRecord,
        game_time: GameTime,
        memories: Sequence[MemoryRecord],
        lines: Sequence[Line],
        intent: Intent = SMALL_TALK,
        view: str = "",
        standing: Sequence[MemoryRecord] = (),
    ) -> tuple[Line, MemoryRecord | None] | None:
        """The speaker's next line, and the memory it passes on when its intent was to
        pass one on; a parroted or unusable line, one that gives away a secret, or one
        that does not carry the intent (its words or its meaning) is drawn again with
        another seed (TURN_ATTEMPTS draws at most). Then a line meant to pass on a
        memory, or that answers a question, is said plainly (intent.plain_line); any
        other ends the conversation (None). `standing`: the memories the speaker brought
        to the conversation (its prompt keeps them first, the same every turn)."""
        names = [speaker.persona.name, listener.persona.name]
        said = [x.text for x in lines]
        heard = [_attributed(x, speaker, listener) for x in lines]
        given = [*memories, *([intent.memory] if intent.memory else [])]  # what it passes on
        cast = _cast(world, speaker, listener.persona.name, [m.description for m in given], heard)
        instruction = intent.instruction(listener.persona.name) if intent.content else ""
        # what the speaker brought to the conversation first, then what this turn recalls
        brought = {m.memory_id for m in standing}
        kept = [m for m in memories if m.memory_id in brought]
        recalled = [m for m in memories if m.memory_id not in brought]
        others = [p for p in cast.people if p not in names]  # whom news may be about
        ignored = name_terms(names) | place_terms(world.store.all_places())  # carry nothing
        for attempt in range(TURN_ATTEMPTS):

            def turn(chat: ChatModel, seed: int = self._f.settings.seed + attempt) -> Turn:
                return conversation_turn(
                    chat,
                    speaker.agent_id,
                    speaker.persona,
                    listener.persona.name,
                    game_time,
                    kept,
                    lines,
                    seed,
                    instruction,
                    view,
                    recalled,
                )

            line = await self._f.think(
                world, speaker, "dialogue", Priority.REACTION, turn, game_time=game_time
            )
            if line is None or _repeats(line.text, lines):
                continue
            ctx = Context(speaker.persona, cast)
            problem = first_refusal(line.text, ctx, Stage.LINE)
            if problem is not None:  # a loop, a role tag, another language, a stranger
                self._refused(world, speaker, listener, problem, line.text)
                continue
            if await self._news.leaks(
                world, speaker.agent_id, listener.agent_id, line.text, said, names
            ):
                continue
            if intent.memory is not None and (left := news_left_out(line.text, intent, others)):
                _log_refused(speaker, listener, f"leaves out {', '.join(left)}", line.text)
                continue
            if await self._carries(intent, line.text, ignored):
                _log_line(speaker, listener, intent, line.text, attempt)
                label = intent.kind.value if self._f.settings.line_intents else ""
                return Line("", line.text, line.end_conversation, label), intent.memory
        asked = bool(lines) and lines[-1].text.rstrip().endswith("?")
        greeted = len(lines) == 1  # whoever is spoken to answers, if only in kind
        if intent.memory is None and not asked and not greeted:
            return None  # a question is answered, however plainly; small talk may end
        first = listener.persona.name.split()[0] if listener.persona.name.split() else ""
        if intent.memory is None and asked:
            text = NOT_SURE  # a question the speaker has no memory to answer with
        else:  # "Hi Bram! Good to see you." to an opener, when no draw would do
            text = plain_line(intent, speaker.persona, first, opener=len(lines) < 2)
        # a garbled line it would quote (a plain line names its listener as code does)
        problem = first_refusal(
            text, Context(speaker.persona, cast), Stage.LINE, skip=frozenset({"line.third_person"})
        )
        if problem is not None:
            self._refused(world, speaker, listener, problem, text)
            return None
        if _repeats(text, lines) or await self._news.leaks(
            world, speaker.agent_id, listener.agent_id, text, said, names
        ):
            return None
        _log_line(speaker, listener, intent, text, TURN_ATTEMPTS)
        return Line("", text, intent=f"{intent.kind.value}, said plainly"), intent.memory

    def _refused(
        self,
        world: World,
        speaker: AgentRecord,
        listener: AgentRecord,
        refusal: Refusal,
        text: str,
    ) -> None:
        """Counts a line the named check refused (GetStats: refusals_by_check)."""
        self._f.usage.refused(world.world_id, speaker.agent_id, refusal.check)
        _log_refused(speaker, listener, str(refusal), text)

    def _usable_thought(self, world: World, agent: AgentRecord, thought: str, cast: Cast) -> bool:
        """Whether a post-conversation thought may be stored: it passes the checks of
        Stage.THOUGHT (not broken, in English, in the agent's own part, naming no one
        unknown); a refusal is counted by its check's name."""
        if not thought:
            return False
        refusal = first_refusal(thought, Context(agent.persona, cast), Stage.THOUGHT)
        if refusal is not None:
            self._f.usage.refused(world.world_id, agent.agent_id, refusal.check)
            log.debug("thought of %s refused (%s): %r", agent.agent_id, refusal, thought)
        return refusal is None

    async def _carries(self, intent: Intent, text: str, ignored: set[str]) -> bool:
        """Whether a line carries its intent: by its words (intent.carries_words); an
        answer also by its meaning (cosine to the intent's content at least CARRIES, set
        on MiniLM) with one of its words. News passes on by words alone: "I'm glad you're
        enjoying the party and the food at <the cafe>", meant to tell of the host's party,
        is close to it and told no one whose, when or where. Names and places count for
        neither (`ignored`: their words): "Hi <name>! I'm just a regular at <the cafe>!"
        is close to the party at that cafe (0.55), and tells nothing of it."""
        if carries_words(intent, text, ignored):
            return True
        if intent.kind == IntentKind.NEWS or not key_terms(text) & (
            key_terms(intent.content) - ignored
        ):
            return False
        vectors = await self._f.embed([text, intent.content])
        return float(vectors[0] @ vectors[1]) >= CARRIES

    def _keep(
        self,
        world: World,
        agent: AgentRecord,
        other: AgentRecord,
        lines: list[Line],
        origins: Sequence[str | None],
        said: list[MemoryRecord],
        game_time: GameTime,
    ) -> list[MemoryRecord]:
        """The composed afterthoughts: a view of the other built by code, and what to
        plan the day around again: the agent's memories of the other's lines that passed
        on someone else's claim (an invitation: "a feast at the Red Boar today from 5 pm")
        and were not outweighed by a belief. No model call, and no thought stored: the
        135M model's free thoughts claimed others' doings ("I will create a <holiday>
        party", said by a guest) and made up times, and once stored such a thought
        is the agent's own belief."""
        renew_relationship(
            world,
            agent.agent_id,
            other.agent_id,
            other.persona.name,
            "",
            last_open_line(other.agent_id, lines, said),
            game_time,
        )
        return [
            memory
            for line, origin, memory in zip(lines, origins, said, strict=True)
            if line.speaker_id == other.agent_id and origin not in (None, agent.agent_id)
        ]

    async def _think_over(
        self,
        world: World,
        agent: AgentRecord,
        other: AgentRecord,
        lines: list[Line],
        names: dict[str, str],
        said: list[MemoryRecord],
        game_time: GameTime,
    ) -> list[MemoryRecord]:
        """Stores the agent's post-conversation thoughts, citing the conversation's lines
        (`said`: the agent's memories of them), and its new view of the other."""
        before = relationship(world, agent.agent_id, other.agent_id)
        after = await self._f.think(
            world,
            agent,
            "dialogue",
            Priority.REFLECTION,
            lambda chat: after_conversation(
                chat, agent.persona, other.persona.name, lines, names, before
            ),
            game_time=game_time,
        )
        # Thoughts, and the view, that are broken, in another language, in another's part
        # or doing, name strangers or a time nobody gave are not stored (a view built by
        # code stands in); what the agent remembers of their subject is at hand too (whose
        # party it is, said in another talk).
        thought_of = " ".join([*after.thoughts, after.relationship])
        recalled = await self._f.context(world, agent, game_time, thought_of)
        heard = [_attributed(x, agent, other) for x in lines]
        cast = _cast(world, agent, "", [before, *(m.description for m in recalled)], heard)
        thoughts = [t for t in after.thoughts if self._usable_thought(world, agent, t, cast)]
        usable = self._usable_thought(world, agent, after.relationship, cast)
        bond = after.relationship if usable else ""
        renew_relationship(
            world,
            agent.agent_id,
            other.agent_id,
            other.persona.name,
            bond,
            last_open_line(other.agent_id, lines, said),
            game_time,
        )
        if not thoughts:
            return []
        insights = [Insight(thought, tuple(said)) for thought in thoughts]
        return await self._f.remember_insights(
            world, agent, insights, game_time, MemoryKind.THOUGHT
        )

    async def _remember(
        self,
        world: World,
        agent: AgentRecord,
        other: AgentRecord,
        lines: list[Line],
        game_time: GameTime,
        sharing: Sequence[Sharing],
    ) -> list[MemoryRecord]:
        """The conversation in the agent's stream, and as its current action; returns
        the agent's memories of its lines (`sharing`: whom it may tell each)."""
        other_name = other.persona.name
        here = where(world, agent)
        said = await self._f.remember_dialogue(
            world, agent, other.agent_id, other_name, lines, game_time, here, sharing
        )
        take_over(
            world,
            agent,
            Action(
                f"talking with {other_name}",
                here,
                game_time,
                max(5, len(lines)),
                CHAT_EMOJI,
                chat_with_agent_id=other.agent_id,
                chat=tuple(lines),
            ),
        )
        return said


def where(world: World, agent: AgentRecord) -> str:
    """Where the agent is: its current action's address, or home."""
    action = world.mind(agent.agent_id).action
    return action.address if action else agent.persona.home_address


def take_over(world: World, agent: AgentRecord, action: Action) -> None:
    """Makes a reaction or a conversation the agent's current action (AgentMind.take_over)."""
    if world.mind(agent.agent_id).take_over(action):
        world.save_plan(agent.agent_id)


def _sharing(
    agent_id: str, lines: Sequence[Line], carried: Sequence[MemoryRecord | None]
) -> list[Sharing]:
    """Whom the agent may tell each line: what its speaker may tell of the memory it
    carried (Sharing.passed_on, for the listener); anyone, for a line that carried none."""
    return [
        ANYONE
        if memory is None
        else memory.sharing
        if line.speaker_id == agent_id
        else memory.sharing.passed_on(agent_id)
        for line, memory in zip(lines, carried, strict=True)
    ]


def _doings(listener: AgentRecord, memories: Sequence[MemoryRecord]) -> str:
    """What to ask the listener about: what the speaker last saw it doing, or its day."""
    seen = [m for m in memories if m.subject == listener.agent_id]
    latest = max(seen, key=lambda m: m.created, default=None)
    first = listener.persona.name.split()[0] if listener.persona.name.split() else "them"
    if latest is None:
        return f"what {first} is doing today"
    return f"what you saw: {latest.description}"


# How a listener takes news told to it, with nothing of its own to say (one per line,
# by the line's letters, so a run says the same again only by chance).
_THANKS = (
    "Thanks for telling me, {}.",
    "Good to know, {}. Thank you.",
    "I'll keep that in mind, {}.",
)


def _asked_after(listener: AgentRecord, memories: Sequence[MemoryRecord]) -> str:
    """How the speaker asks after the listener: about what it last saw it doing ("Busy
    reading the paper?", a named place left out), else how it is."""
    seen = [m for m in memories if m.subject == listener.agent_id]
    latest = max(seen, key=lambda m: m.created, default=None)
    pattern = rf"{re.escape(listener.persona.name)} is (\w+ing\b[^.]*?)(?: (?:at|in|on) [A-Z].*)?"
    doing = re.fullmatch(pattern, latest.description.rstrip(".")) if latest else None
    if doing is None or doing[1].startswith(("talking", "waiting")):  # a talk: no pursuit
        return "How are you?"
    return f"Busy {doing[1]}?"


def news_left_out(text: str, intent: Intent, people: Sequence[str]) -> list[str]:
    """Whom a line passing on the intent's memory leaves out of those its news is about
    (`people`: the town but the two talking): those its words name, or, naming none,
    the one who said it in the first person ("I am throwing a party": Vera's). In the
    default demo, a guest, told of the host's party, passed it on as "<another guest> has
    just revealed that he is planning a <holiday> party"."""
    assert intent.memory is not None
    by_name = dict(zip(people, people, strict=True))
    about = names_in(said_words(intent.memory.description), by_name)
    line = said_line(intent.memory.description)
    if not about and line is not None and line[0] in people and first_person(line[2]):
        about = [line[0]]
    named = set(names_in(text, by_name))
    return [person for person in about if person not in named]


def _cast(
    world: World, speaker: AgentRecord, listener: str, texts: Sequence[str], said: Sequence[str]
) -> Cast:
    """What the speaker's line may name (misfit.Cast): the town's people, the listener,
    its persona, the places it knows, the memories it was given and what was `said`."""
    known = [speaker.persona.describe(), *world.store.places(speaker.agent_id), *texts, *said]
    return Cast.of(speaker.persona.name, listener, world.people(), known)


def _attributed(line: Line, speaker: AgentRecord, listener: AgentRecord) -> str:
    """A line of the conversation as a memory words it: 'X said to Y: "..."'."""
    who, to = (speaker, listener) if line.speaker_id == speaker.agent_id else (listener, speaker)
    return f'{who.persona.name} said to {to.persona.name}: "{line.text}"'


def _log_refused(speaker: AgentRecord, listener: AgentRecord, problem: str, text: str) -> None:
    log.debug("%s to %s refused (%s): %r", speaker.agent_id, listener.agent_id, problem, text)


def _log_line(
    speaker: AgentRecord, listener: AgentRecord, intent: Intent, text: str, attempt: int
) -> None:
    how = "said plainly" if attempt >= TURN_ATTEMPTS else f"draw {attempt + 1}"
    log.debug(
        "%s to %s (%s; %s): %r", speaker.agent_id, listener.agent_id, intent.describe(), how, text
    )


def distinct(memories: Sequence[MemoryRecord]) -> list[MemoryRecord]:
    return list({m.memory_id: m for m in memories}.values())


def _repeats(text: str, lines: Sequence[Line], overlap: float = 0.6) -> bool:
    """True when most of the words of `text` and of an earlier line are the same."""
    words = set(text.lower().split())
    for line in lines:
        said = set(line.text.lower().split())
        if len(words & said) > overlap * max(1, min(len(words), len(said))):
            return True
    return False
