"""`npc-brain demo`: set up the town and its cast on a server, run the game, write the report."""

from __future__ import annotations

import datetime as dt
import shutil
import sys
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

import grpc

from npc_brain.config import DEFAULT_CHAT_MODEL, PLANNERS, Settings
from npc_brain.demo import checkpoint
from npc_brain.demo.cast import load_cast
from npc_brain.demo.clock import clock, parse_time
from npc_brain.demo.console import Console
from npc_brain.demo.errors import DemoError
from npc_brain.demo.report import RunInfo, build
from npc_brain.demo.server import ChildServer, connect
from npc_brain.demo.simulation import ABLATIONS, Plan, Simulation
from npc_brain.demo.town import SHIPPED_TOWN, load_town
from npc_brain.demo.writing import write_report
from npc_brain.errors import NpcBrainError
from npc_brain.llm.base import Embedder
from npc_brain.v1 import brain_pb2 as pb

DATA_DIR = "data"  # under --out: the server's data directory when the demo starts one
SERVER_LOG = "server.log"
MAX_HOURS = 24 * 14


@dataclass(frozen=True)
class DemoOptions:
    """The options of `npc-brain demo` (see `npc-brain demo --help`)."""

    cast: Path | None = None
    world: Path | None = None
    town: str = SHIPPED_TOWN  # a shipped town, for what --cast and --world do not give
    start: str = "2023-02-13T12:00"
    hours: float = 2.0
    agents: int | None = 5  # None: the whole cast
    model: Path | None = None
    seed: int = 1234
    ablation: str = "none"
    out: Path = Path("npc-brain-demo")
    server: str | None = None
    world_id: str = ""  # "": the shipped town's name
    step_minutes: int = 10
    planner: str | None = None  # the server's setting; None: its default (composed)
    resume: bool = False  # go on from the last checkpoint in `out`

    def checked(self) -> dict[str, object]:
        """The options a resumed run must share with the run it resumes."""
        return {
            "--cast": str(self.cast or ""),
            "--world": str(self.world or ""),
            "--town": self.town,
            "--start": self.start,
            "--hours": self.hours,
            "--agents": self.agents,
            "--model": str(self.model or ""),
            "--seed": self.seed,
            "--ablation": self.ablation,
            "--world-id": self.world_id,
            "--planner": self.planner or "",
            "step minutes": self.step_minutes,
        }


# The paper's experiment (Park et al., 2023, section 7): the whole cast from 7 am on
# February 13 to 8 pm on February 14, the day of the party.
@dataclass(frozen=True)
class Preset:
    """Where and how long a run goes unless its options say otherwise."""

    start: str
    hours: float
    agents: int | None  # None: the whole cast


DEFAULTS = Preset(DemoOptions.start, DemoOptions.hours, DemoOptions.agents)
EXPERIMENTS = {"paper": Preset("2023-02-13T07:00", 37.0, None)}


def run_demo(options: DemoOptions, stdout: TextIO = sys.stdout) -> Path:
    """Runs the demo; returns the path of the Markdown report."""
    town = load_town(options.world, options.town)
    cast = load_cast(town, options.cast, options.town)
    agents = len(cast.members) if options.agents is None else options.agents
    if not 1 <= agents <= len(cast.members):
        raise DemoError(f"--agents: {options.agents} is outside 1..{len(cast.members)} (the cast)")
    if not 0 < options.hours <= MAX_HOURS:
        raise DemoError(f"--hours: {options.hours:g} is outside (0, {MAX_HOURS}]")
    if options.ablation not in ABLATIONS:
        raise DemoError(f"--ablation: {options.ablation!r} is not one of {', '.join(ABLATIONS)}")
    if options.server and options.model:
        raise DemoError("--model: the server given with --server already has its model")
    if options.model is not None and not options.model.is_file():
        raise DemoError(f"--model: {options.model} is not a file")
    if options.planner is not None and options.planner not in PLANNERS:
        raise DemoError(f"--planner: {options.planner!r} is not one of {', '.join(PLANNERS)}")
    if options.server and options.planner:
        raise DemoError("--planner: the server given with --server already has its planner")
    planner = options.planner or Settings().planner
    cast = cast.first(agents)
    plan = Plan(
        parse_time(options.start),
        options.hours,
        options.step_minutes,
        options.ablation,
        options.world_id or options.town,
    )
    names = {m.agent_id: m.name for m in cast.members}
    console = Console(stdout, names, town.name)
    resumed = checkpoint.load(options.out, options.checked()) if options.resume else None
    with ExitStack() as stack:
        address = options.server
        if address is None:
            data = options.out / DATA_DIR
            if resumed is None:
                shutil.rmtree(data, ignore_errors=True)  # each run starts from a new town
            console.note(
                f"starting an npc-brain server on {data} (log: {options.out / SERVER_LOG})"
            )
            child = ChildServer(
                data,
                options.out / SERVER_LOG,
                seed=options.seed,
                chat_model=options.model,
                planner=planner,
            )
            stack.enter_context(child)
            address = child.address
        channel, stub = connect(address)
        stack.callback(channel.close)
        console.note(
            f"{len(names)} agents in {town.name}, {options.hours:g} game hours from "
            f"{clock(plan.start)}, server {address}"
        )
        simulation = Simulation(stub, town, cast, plan, console)
        progress = Progress(
            console, plan, *((resumed.next_step, resumed.wall_seconds) if resumed else (0, 0.0))
        )

        def on_hour(step: int, wall_seconds: float) -> None:
            saved = stub.SaveWorld(
                pb.SaveWorldRequest(world_id=plan.world_id, label=f"checkpoint {step}")
            )
            checkpoint.save(
                options.out,
                checkpoint.Checkpoint(
                    step, saved.snapshot_id, wall_seconds, options.checked(), simulation.state()
                ),
            )
            if options.server is None:
                snapshots = options.out / DATA_DIR / "snapshots" / plan.world_id
                checkpoint.prune(snapshots, keep=saved.snapshot_id)
            progress.hour(step, wall_seconds)

        try:
            if resumed is None:
                (options.out / checkpoint.FILE).unlink(missing_ok=True)
                simulation.setup()
                record = simulation.run(on_hour=on_hour)
            else:
                stub.LoadWorld(
                    pb.LoadWorldRequest(world_id=plan.world_id, snapshot_id=resumed.snapshot_id)
                )
                simulation.restore(resumed.state)
                console.note(f"resuming at step {resumed.next_step + 1} of {len(plan.steps())}")
                record = simulation.run(resumed.next_step, resumed.wall_seconds, on_hour)
        except grpc.RpcError as error:
            where = "" if options.server else f" (server log: {options.out / SERVER_LOG})"
            raise DemoError(
                f"the server answered {error.code().name}: {error.details()}{where}"
            ) from error
    model = str(options.model) if options.model else DEFAULT_CHAT_MODEL
    if options.server:
        model = planner = f"(the server's at {options.server})"
    embedder = load_embedder(console)
    info = RunInfo(options.seed, model, town.name, planner, town.places())
    report = build(record, cast, info, embedder)
    path = write_report(options.out, report)
    per_hour = report["wall_seconds_per_game_hour"]
    calls = report["model_calls"]["per_agent_per_game_hour"]["calls"]
    console.note(
        f"report: {path} ({len(report['conversations'])} conversations, "
        f"{len(report['reflections'])} reflections, {report['days']['encounters']} "
        f"encounters, {calls:g} model calls per agent per game hour, {per_hour:.1f} s per "
        "game hour)"
    )
    false = report["hallucinations"]
    known = ", ".join(
        f"{seed_id} {s['interview']['count']} of {s['interview']['of']}"
        for seed_id, s in report["diffusion"]["seeds"].items()
    )
    console.note(
        f"by interview: {known or 'no seeds'}; false claims {false['false']} of {false['claims']}"
    )
    return path


class Progress:
    """The line a person follows a long run by, at every game hour: game time, steps
    done, steps per wall minute (since this process began stepping) and the end."""

    def __init__(self, console: Console, plan: Plan, first_step: int, first_wall: float) -> None:
        self._console = console
        self._plan = plan
        self._first = (first_step, first_wall)

    def hour(self, step: int, wall_seconds: float) -> None:
        steps = self._plan.steps()
        minutes = max(wall_seconds - self._first[1], 1e-9) / 60
        pace = (step - self._first[0]) / minutes
        left = (len(steps) - step) / pace if pace > 0 else 0.0
        ends = dt.datetime.now() + dt.timedelta(minutes=left)
        self._console.note(
            f"progress: {clock(steps[step])}, step {step + 1} of {len(steps)}, "
            f"{pace:.1f} steps per minute, about {left:.0f} min left (ends ~ {ends:%H:%M})"
        )


def load_embedder(console: Console) -> Embedder | None:
    """The default sentence embedder (small, one thread), which judges the report's
    `days`; None, said on the console, when it cannot be loaded (words judge then)."""
    from npc_brain.llm.llama import LlamaEmbedder  # llama.cpp: loaded only when needed

    try:
        return LlamaEmbedder(Settings().embed_model_path(), threads=1)
    except (NpcBrainError, OSError, ValueError) as error:
        console.note(f"days: no embedder ({error}); words alone judge places and requirements")
        return None
