"""Settings: one object, read from defaults < a TOML file < `NPC_BRAIN_*` env < flags.

Every field carries a description and, for numbers, bounds; `npc-brain serve --help`
is generated from them, so the help always matches the code.
"""

from __future__ import annotations

import dataclasses
import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from npc_brain.errors import InvalidArgument

REPO_MODELS_DIR = Path(__file__).resolve().parents[1] / "models"
DEFAULT_CHAT_MODEL = "SmolLM2-135M-Instruct.Q4_1.gguf"
DEFAULT_EMBED_MODEL = "all-MiniLM-L6-v2.f16.gguf"
ENV_PREFIX = "NPC_BRAIN_"


def _setting(default: Any, help: str, low: float | None = None, high: float | None = None) -> Any:
    return field(default=default, metadata={"help": help, "low": low, "high": high})


@dataclass(frozen=True)
class Settings:
    """Server settings. Field names are the TOML keys; env vars are NPC_BRAIN_<NAME>."""

    host: str = _setting("127.0.0.1", "address the gRPC server and the HTTP gateway listen on")
    port: int = _setting(50051, "gRPC port (0 picks a free one and prints it)", 0, 65535)
    http_port: int = _setting(
        50052, "HTTP/JSON gateway port; 0 picks a free one, -1 turns the gateway off", -1, 65535
    )
    http_cors_origins: str = _setting(
        "", "browser origins (comma-separated; * for any) that may call the HTTP gateway"
    )
    data_dir: Path = _setting(Path("npc-brain-data"), "where worlds (SQLite files) are kept")
    models_dir: Path = _setting(REPO_MODELS_DIR, "where `models fetch` puts the default models")
    chat_model: str = _setting(
        "", f"chat GGUF path; empty means {DEFAULT_CHAT_MODEL} in models_dir"
    )
    embed_model: str = _setting(
        "", f"embedding GGUF path; empty means {DEFAULT_EMBED_MODEL} in models_dir"
    )
    chat_context: int = _setting(2048, "chat model context window in tokens", 512, 131072)
    threads: int = _setting(0, "CPU threads for the models; 0 means all cores", 0, 256)
    seed: int = _setting(1234, "sampling seed: same seed and inputs, same answers", 0, 2**31 - 1)
    temperature: float = _setting(0.7, "sampling temperature for free text (replies)", 0.0, 2.0)
    reply_max_tokens: int = _setting(120, "longest streamed reply, in tokens", 8, 2048)
    recency_decay: float = _setting(
        0.995, "recency = decay ** game hours since last access (paper: 0.995)", 0.0, 1.0
    )
    weight_recency: float = _setting(1.0, "default retrieval weight of recency (paper: 1)", 0, 100)
    weight_importance: float = _setting(
        1.0, "default retrieval weight of importance (paper: 1)", 0, 100
    )
    weight_relevance: float = _setting(
        1.0, "default retrieval weight of relevance (paper: 1)", 0, 100
    )
    retrieve_k: int = _setting(10, "memories Retrieve returns when the request says k=0", 1, 100)
    context_memories: int = _setting(6, "memories retrieved into an Act or Converse prompt", 1, 50)
    max_wait_ms: int = _setting(60000, "cap on a request's max_wait_ms", 0, 600000)
    perception_retention: int = _setting(
        5,
        "an observation equal to one of the latest N at its address is not stored again",
        0,
        1000,
    )
    exact_retrieval_limit: int = _setting(
        10000,
        "streams up to this size are scored in full; larger ones get an ANN index",
        100,
        10_000_000,
    )

    def chat_model_path(self) -> Path:
        return Path(self.chat_model) if self.chat_model else self.models_dir / DEFAULT_CHAT_MODEL

    def embed_model_path(self) -> Path:
        return Path(self.embed_model) if self.embed_model else self.models_dir / DEFAULT_EMBED_MODEL


def describe_fields() -> list[dataclasses.Field[Any]]:
    """The settings fields, in declaration order (for help texts and docs)."""
    return list(dataclasses.fields(Settings))


def load_settings(
    file: Path | None = None,
    env: Mapping[str, str] | None = None,
    overrides: Mapping[str, Any] | None = None,
) -> Settings:
    """Builds settings from a TOML file, then the environment, then explicit overrides.

    Raises InvalidArgument naming the setting when a value has the wrong type or bounds.
    """
    values: dict[str, Any] = {}
    if file is not None:
        with open(file, "rb") as fh:
            values.update(tomllib.load(fh))
    env = os.environ if env is None else env
    for f in dataclasses.fields(Settings):
        raw = env.get(ENV_PREFIX + f.name.upper())
        if raw is not None:
            values[f.name] = raw
    values.update({k: v for k, v in (overrides or {}).items() if v is not None})
    unknown = set(values) - {f.name for f in dataclasses.fields(Settings)}
    if unknown:
        raise InvalidArgument(sorted(unknown)[0], "unknown setting")
    return Settings(**{name: _coerce(name, value) for name, value in values.items()})


def _coerce(name: str, value: Any) -> Any:
    f = next(f for f in dataclasses.fields(Settings) if f.name == name)
    kind: Any = type(f.default)
    try:
        if kind is bool:
            coerced: Any = value if isinstance(value, bool) else str(value).lower() in {"1", "true"}
        else:
            coerced = kind(value)
    except (TypeError, ValueError) as exc:
        raise InvalidArgument(name, f"expected {kind.__name__}, got {value!r}") from exc
    low, high = f.metadata["low"], f.metadata["high"]
    if (low is not None and coerced < low) or (high is not None and coerced > high):
        raise InvalidArgument(name, f"{coerced} is outside [{low}, {high}]")
    return coerced
