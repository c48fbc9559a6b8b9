"""Interviews in the paper's five categories, judged automatically, with its ablations.

    python -m bench.interview [--town demo|harbour|all] [--seed S] [--show] [--only C ...]

In each town (the demo town, the paper's Smallville; a fishing harbour, Brackwater, of
another genre, written without looking at any answer), two personas with seeded memories
(who they know, whom they talked to yesterday, their plan for a day, a reflection) are
asked questions of the paper's interview categories (self-knowledge, memory, plans,
reactions, reflections) and one they cannot know. An answer is believable when it is
well formed (not degenerate: no role tag, loop, bare name or JSON) and names the
expected fact (or, for the unknowable question, says it does not know). The conditions,
in one run on the same default models: the full architecture with grounded replies; the
same with grounded_replies off (the baseline: the reply as the model writes it, from
recalled memories); and the paper's ablations with grounded replies, cumulative as in
its section 6.1: no reflection; no reflection and no planning; no memory, reflection or
planning. A reflections question is judged by the agent's reflection (words its persona
does not hold): drawing on the persona alone is what an agent without reflections does.
Time to first token is the median over the questions, grounded against the baseline. One
table per town, and the conditions ranked by TrueSkill (mu, sigma), each question a match
among them, as the paper ranked its conditions.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import trueskill

from npc_brain.action import Line
from npc_brain.brain import Brain
from npc_brain.config import Settings
from npc_brain.llm.backends import chat_from_settings, embedder_from_settings
from npc_brain.llm.base import ChatModel, Embedder
from npc_brain.memory.records import MemoryKind, Observation
from npc_brain.mind.talk.answers import degenerate
from npc_brain.mind.world import WorldRegistry
from npc_brain.persona import Persona, Switches

T0 = 1_676_275_200.0  # 2023-02-13 08:00 UTC
DAY = 86_400.0
CATEGORIES = ("self", "memory", "plans", "reactions", "reflections", "unknown")
DONT_KNOW_WORDS = ("not sure", "don't know", "do not know", "no idea", "haven't heard")


@dataclass(frozen=True)
class Question:
    category: str
    text: str
    expected: tuple[str, ...]  # any of these (lowercase) in the answer; () = unknowable


# A town: agent id -> (persona, seeded memories, questions).
Town = dict[str, tuple[Persona, list[tuple[MemoryKind, str]], list[Question]]]

DEMO: Town = {
    "isabella": (
        Persona(
            "Isabella Rodriguez",
            34,
            "friendly, outgoing, hospitable",
            "owns Hobbs Cafe and loves to make people feel welcome",
            "planning a Valentine's Day party at Hobbs Cafe",
            "wakes up at 6 am, opens the cafe at 8 am, goes to bed around 11 pm",
            "the Ville:Isabella Rodriguez's apartment:main room",
            pronouns="she",
        ),
        [
            (
                MemoryKind.OBSERVATION,
                "Klaus Mueller is a sociology student who studies at Hobbs Cafe in the morning",
            ),
            (MemoryKind.OBSERVATION, "Maria Lopez works part-time at Hobbs Cafe"),
            (
                MemoryKind.DIALOGUE,
                'Isabella Rodriguez said to Maria Lopez: "Can you help me '
                'decorate the cafe for the party?"',
            ),
            (
                MemoryKind.PLAN,
                "Isabella Rodriguez's plan for February 14: open Hobbs Cafe at "
                "8 am, decorate in the afternoon, host the Valentine's Day party from 5 pm to 7 pm",
            ),
            (
                MemoryKind.REFLECTION,
                "Isabella Rodriguez finds joy in bringing the community together at her cafe",
            ),
        ],
        [
            Question("self", "Give an introduction of yourself.", ("cafe", "hobbs")),
            Question("self", "What is your job?", ("cafe", "hobbs")),
            Question("memory", "Who is Klaus Mueller?", ("student", "sociology", "studies")),
            Question("memory", "Whom did you talk to yesterday?", ("maria",)),
            Question("plans", "What are you doing on February 14?", ("party", "valentine")),
            Question("plans", "When do you open the cafe?", ("8", "eight")),
            Question(
                "reactions",
                "Your breakfast is burning! What would you do?",
                ("breakfast", "burn", "fire", "stove", "smoke", "kitchen", "pan"),
            ),
            Question(
                "reactions",
                "Maria asks you for a day off. What do you say?",
                ("maria", "day off", "of course", "sure", "yes"),
            ),
            Question(
                "reflections",
                "What inspires you in life the most right now?",
                ("community", "together", "joy"),
            ),
            Question(
                "reflections",
                "What do you care about most?",
                ("community", "together", "joy"),
            ),
            Question("unknown", "What did the mayor say about the new bridge?", ()),
        ],
    ),
    "klaus": (
        Persona(
            "Klaus Mueller",
            20,
            "kind, curious, passionate",
            "a sociology student at Oak Hill College",
            "writing a research paper on the effects of gentrification",
            "wakes up at 7 am, studies at the library, goes to bed at midnight",
            "the Ville:Dorm for Oak Hill College:Klaus's room",
            pronouns="he",
        ),
        [
            (MemoryKind.OBSERVATION, "Maria Lopez is Klaus Mueller's classmate and friend"),
            (MemoryKind.OBSERVATION, "Isabella Rodriguez owns Hobbs Cafe"),
            (
                MemoryKind.DIALOGUE,
                'Maria Lopez said to Klaus Mueller: "Want to study '
                'together at the library tomorrow?"',
            ),
            (
                MemoryKind.PLAN,
                "Klaus Mueller's plan for February 14: study at the library "
                "at 9 am, work on the gentrification paper, meet Maria at 3 pm",
            ),
            (
                MemoryKind.REFLECTION,
                "Klaus Mueller cares about how cities change the lives of the people in them",
            ),
        ],
        [
            Question(
                "self", "Give an introduction of yourself.", ("student", "sociology", "college")
            ),
            Question("self", "What are you working on?", ("paper", "gentrification", "research")),
            Question("memory", "Who is Maria Lopez?", ("classmate", "friend")),
            Question("memory", "Who owns Hobbs Cafe?", ("isabella",)),
            Question(
                "plans",
                "What are you doing on February 14?",
                ("library", "study", "paper", "maria"),
            ),
            Question("plans", "When are you meeting Maria?", ("3", "three", "library")),
            Question(
                "reactions",
                "The library is closed today. What will you do?",
                ("library", "closed", "cafe", "home", "study", "paper"),
            ),
            Question(
                "reactions",
                "Your laptop just broke. What do you do?",
                ("laptop", "fix", "repair", "paper", "library"),
            ),
            Question(
                "reflections",
                "What matters most to you?",
                ("cities", "city", "lives", "change"),
            ),
            Question(
                "reflections",
                "What have you learned lately?",
                ("cities", "city", "lives", "change"),
            ),
            Question("unknown", "What did the mayor say about the new bridge?", ()),
        ],
    ),
}

# A fishing harbour, of another genre than the demo town. Its personas, memories,
# questions and expected words were written before the first run and were not changed
# after seeing any answer. Each category has the demo town's kinds of questions; a
# time is expected with its "am"/"pm" (a bare digit would match the date "February 15").
HARBOUR: Town = {
    "elin": (
        Persona(
            "Elin Varga",
            41,
            "steady, blunt, generous",
            "skipper of the trawler Grey Heron, who has fished these waters for twenty years",
            "getting the Grey Heron ready for the herring season",
            "wakes at 4 am, sails out with the tide, sells the catch on the quay at noon, "
            "goes to bed at 9 pm",
            "Brackwater:Elin Varga's cottage:kitchen",
            pronouns="she",
        ),
        [
            (
                MemoryKind.OBSERVATION,
                "Owen Pryce is a mechanic at the Brackwater boatyard who mends nets and engines",
            ),
            (MemoryKind.OBSERVATION, "Dafydd Moss runs the fish market on the quay"),
            (
                MemoryKind.DIALOGUE,
                'Elin Varga said to Dafydd Moss: "Can you keep a stall free '
                'for my herring on Wednesday?"',
            ),
            (
                MemoryKind.PLAN,
                "Elin Varga's plan for February 15: sail out with the tide at 5 am, "
                "haul the herring nets at 9 am, sell the catch at the fish market at noon",
            ),
            (
                MemoryKind.REFLECTION,
                "Elin Varga feels responsible for bringing her crew home safe from every trip",
            ),
        ],
        [
            Question(
                "self",
                "Give an introduction of yourself.",
                ("skipper", "trawler", "grey heron", "fish"),
            ),
            Question("self", "What is your job?", ("skipper", "trawler", "grey heron", "fish")),
            Question("memory", "Who is Owen Pryce?", ("mechanic", "boatyard", "nets", "engines")),
            Question("memory", "Whom did you talk to yesterday?", ("dafydd",)),
            Question(
                "plans",
                "What are you doing on February 15?",
                ("herring", "nets", "tide", "sail", "catch", "market"),
            ),
            Question("plans", "When do you sail out?", ("5 am", "5am", "5 a.m", "5:00", "five")),
            Question(
                "reactions",
                "A storm is coming in while you are at sea. What do you do?",
                ("storm", "harbour", "turn back", "head back", "port", "crew", "safe"),
            ),
            Question(
                "reactions",
                "Owen asks you to take him out on the boat. What do you say?",
                ("owen", "of course", "sure", "yes", "aboard", "welcome"),
            ),
            Question(
                "reflections",
                "What inspires you in life the most right now?",
                ("crew", "safe", "home"),
            ),
            Question("reflections", "What do you care about most?", ("crew", "safe", "home")),
            Question("unknown", "What did the harbourmaster say about the new breakwater?", ()),
        ],
    ),
    "owen": (
        Persona(
            "Owen Pryce",
            27,
            "cheerful, restless, handy",
            "a mechanic at the Brackwater boatyard who mends nets and boat engines",
            "saving up to buy a boat of his own",
            "wakes at 6 am, works at the boatyard until 5 pm, spends evenings at the Anchor pub",
            "Brackwater:rooms above the Anchor pub:Owen's room",
            pronouns="he",
        ),
        [
            (
                MemoryKind.OBSERVATION,
                "Elin Varga is Owen Pryce's aunt and the skipper of the trawler Grey Heron",
            ),
            (MemoryKind.OBSERVATION, "Dafydd Moss runs the fish market on the quay"),
            (
                MemoryKind.DIALOGUE,
                "Elin Varga said to Owen Pryce: \"Can you look at the Grey Heron's "
                'engine on Wednesday?"',
            ),
            (
                MemoryKind.PLAN,
                "Owen Pryce's plan for February 15: open the boatyard at 7 am, repair the "
                "Grey Heron's engine, meet Tamsin Hollis at 4 pm to look at her old boat",
            ),
            (
                MemoryKind.REFLECTION,
                "Owen Pryce longs for the freedom of working for himself",
            ),
        ],
        [
            Question("self", "Give an introduction of yourself.", ("mechanic", "boatyard", "nets")),
            Question("self", "What are you working on?", ("engine", "boat", "nets", "saving")),
            Question("memory", "Who is Elin Varga?", ("aunt", "skipper", "trawler", "grey heron")),
            Question("memory", "Who runs the fish market?", ("dafydd",)),
            Question(
                "plans",
                "What are you doing on February 15?",
                ("boatyard", "engine", "grey heron", "tamsin", "boat"),
            ),
            Question(
                "plans", "When are you meeting Tamsin?", ("4 pm", "4pm", "4 p.m", "4:00", "four")
            ),
            Question(
                "reactions",
                "The boatyard crane just broke. What will you do?",
                ("crane", "fix", "repair", "boatyard", "engine"),
            ),
            Question(
                "reactions",
                "You cut your hand on a rusty hook. What do you do?",
                ("hand", "cut", "bandage", "wash", "clean", "doctor"),
            ),
            Question(
                "reflections",
                "What matters most to you?",
                ("free", "for myself", "for himself"),
            ),
            Question(
                "reflections",
                "What have you learned lately?",
                ("free", "for myself", "for himself"),
            ),
            Question("unknown", "What did the harbourmaster say about the new breakwater?", ()),
        ],
    ),
}
TOWNS: dict[str, Town] = {"demo": DEMO, "harbour": HARBOUR}
CONDITIONS: dict[str, tuple[bool, Switches]] = {
    "full, grounded": (True, Switches()),
    "full, baseline (grounded_replies off)": (False, Switches()),
    "no reflection": (True, Switches(reflection=False)),
    "no reflection, no planning": (True, Switches(reflection=False, planning=False)),
    "no memory, no reflection, no planning": (
        True,
        Switches(reflection=False, planning=False, memory=False),
    ),
}


@dataclass(frozen=True)
class Answer:
    question: Question
    text: str
    first_token_s: float

    @property
    def well_formed(self) -> bool:
        return degenerate(self.text, Persona("")) is None

    @property
    def believable(self) -> bool:
        low = self.text.lower()
        if not self.well_formed:
            return False
        if not self.question.expected:
            return any(w in low for w in DONT_KNOW_WORDS)
        return any(w in low for w in self.question.expected)


async def interview(brain: Brain, switches: Switches, town: Town) -> list[Answer]:
    answers = []
    for agent_id, (persona, memories, questions) in town.items():
        await brain.upsert_agent("", agent_id, persona, T0, switches)
        for i, (kind, text) in enumerate(memories):
            await brain.add_memory("", agent_id, T0 - DAY + i * 600, kind, Observation(text))
        for question in questions:
            started, first = time.perf_counter(), None
            text = ""
            async for event in brain.converse(
                "", agent_id, T0, "player", question.text, interview=True
            ):
                if first is None:
                    first = time.perf_counter() - started
                if isinstance(event, Line):
                    text = event.text
            answers.append(Answer(question, text, first or 0.0))
    return answers


def run(condition: str, town: Town, chat: ChatModel, embedder: Embedder, seed: int) -> list[Answer]:
    grounded, switches = CONDITIONS[condition]
    with tempfile.TemporaryDirectory() as folder:
        settings = Settings(data_dir=Path(folder), grounded_replies=grounded, seed=seed)
        worlds = WorldRegistry(settings.data_dir, embedder.model_id, embedder.dimension)
        brain = Brain(chat=chat, embedder=embedder, worlds=worlds, settings=settings)
        try:
            return asyncio.run(interview(brain, switches, town))
        finally:
            brain.close()


def table(
    name: str, conditions: list[str], chat: ChatModel, embedder: Embedder, seed: int, show: bool
) -> None:
    """One town's table: a row per condition (with every answer first, if show), then
    the conditions ranked by TrueSkill."""
    print(f"town: {name}")
    print("| condition | " + " | ".join(CATEGORIES) + " | all | degenerate | first token p50 |")
    print("|---" * (len(CATEGORIES) + 4) + "|", flush=True)
    results: dict[str, list[Answer]] = {}
    for condition in conditions:
        answers = results[condition] = run(condition, TOWNS[name], chat, embedder, seed)
        if show:
            for a in answers:
                mark = "ok " if a.believable else "-- "
                print(f"  {mark}[{name}, {condition}] {a.question.text} -> {a.text}")
        cells = []
        for category in CATEGORIES:
            mine = [a for a in answers if a.question.category == category]
            cells.append(f"{sum(a.believable for a in mine)}/{len(mine)}")
        total = sum(a.believable for a in answers)
        bad = sum(not a.well_formed for a in answers)
        first = statistics.median(a.first_token_s for a in answers)
        print(
            f"| {condition} | "
            + " | ".join(cells)
            + f" | {100 * total / len(answers):.0f}% | {bad} | {first:.2f} s |",
            flush=True,
        )
    print()
    print("TrueSkill over the questions (each a match: believable answers rank first):")
    for condition, (mu, sigma) in ranked(results).items():
        print(f"  {condition}: mu {mu:.2f}, sigma {sigma:.2f}")


def ranked(results: dict[str, list[Answer]]) -> dict[str, tuple[float, float]]:
    """The conditions' TrueSkill (mu, sigma), best first, as the paper ranked its
    conditions: each question is one match among them, the believable answers ranked
    above the others, ties among equals. `trueskill` from PyPI."""
    env = trueskill.TrueSkill(draw_probability=0.3)
    ratings = {c: env.create_rating() for c in results}
    for answers in zip(*results.values(), strict=True):
        if len({a.believable for a in answers}) < 2:
            continue  # all the same: a draw among all says nothing of the order
        groups = [(ratings[c],) for c in results]
        ranks = [0 if a.believable else 1 for a in answers]
        for c, (new,) in zip(results, env.rate(groups, ranks=ranks), strict=True):
            ratings[c] = new
    order = sorted(ratings, key=lambda c: -ratings[c].mu)
    return {c: (ratings[c].mu, ratings[c].sigma) for c in order}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--town", choices=[*TOWNS, "all"], default="all", help="which town (default: all)"
    )
    parser.add_argument("--seed", type=int, default=1234)
    parser.add_argument("--show", action="store_true", help="print every answer")
    parser.add_argument(
        "--only", nargs="+", choices=list(CONDITIONS), help="run only these conditions"
    )
    args = parser.parse_args()
    settings = Settings(seed=args.seed)
    chat, embedder = chat_from_settings(settings), embedder_from_settings(settings)
    towns = list(TOWNS) if args.town == "all" else [args.town]
    for number, name in enumerate(towns):
        if number:
            print()
        table(name, args.only or list(CONDITIONS), chat, embedder, args.seed, args.show)


if __name__ == "__main__":
    main()
