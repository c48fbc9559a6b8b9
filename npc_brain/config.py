"""Settings: one object, read from defaults < a TOML file < `NPC_BRAIN_*` env < flags.

Every field carries a description, a group and, for numbers, bounds; `npc-brain serve
--help` is generated from them, so the help always matches the code. Bounds and choices
are checked whenever a Settings is built (from a file, the environment, flags, code or
`dataclasses.replace`).

This module imports nothing of npc_brain but its errors: the defaults and choices that
other modules share with the settings (importance estimators, the chat server's
constrain modes) are defined here, and those modules import them from here.
"""

from __future__ import annotations

import dataclasses
import json
import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from npc_brain.errors import InvalidArgument

REPO_MODELS_DIR = Path(__file__).resolve().parents[1] / "models"
DEFAULT_CHAT_MODEL = "SmolLM2-135M-Instruct.Q8_0.gguf"
# The file of the pinned wheel that the default chat model is quantized from.
SOURCE_CHAT_MODEL = "SmolLM2-135M-Instruct.Q4_1.gguf"
DEFAULT_EMBED_MODEL = "all-MiniLM-L6-v2.f16.gguf"
ENV_PREFIX = "NPC_BRAIN_"
_BOOLEANS = {"1": True, "true": True, "yes": True, "on": True}
_BOOLEANS |= {"0": False, "false": False, "no": False, "off": False, "": False}

# Importance estimators (npc_brain.importance), named by importance_estimator(_overrides).
ESTIMATOR_NAMES = ("anchors", "model", "blend")
Overrides = dict[tuple[str, str], str]
# The anchor estimator's k and softmax temperature, chosen by leave-one-out
# cross-validation on the shipped anchors with MiniLM, never on the evaluation set
# (`python -m bench.importance --tune`): the most local setting within 0.02 of the best
# Spearman (0.846 vs 0.864), so a game's own close anchors stay decisive.
DEFAULT_K = 8
DEFAULT_TEMPERATURE = 0.1
# The blend's anchor share: the best leave-one-out Spearman on the anchors (same tool).
DEFAULT_ANCHOR_WEIGHT = 0.5
# How an OpenAI-compatible chat server is asked for constrained output (llm.openai_compat).
CONSTRAIN_MODES = ("auto", "json_schema", "json_object", "none")
PLANNERS = ("composed", "free")
AFTERTHOUGHTS = ("composed", "model")
NPC_SMALL_TALK = ("composed", "model")
REFLECTIONS = ("composed", "model")
REPLY_WORDINGS = ("model", "plain")
RETRIEVALS = ("hybrid", "paper")


def check_estimator(name: str, setting: str = "importance_estimator") -> str:
    """The name if it is an estimator; InvalidArgument naming `setting` otherwise."""
    if name not in ESTIMATOR_NAMES:
        raise InvalidArgument(setting, f"{name!r} is not one of {', '.join(ESTIMATOR_NAMES)}")
    return name


def parse_overrides(text: str, setting: str = "importance_estimator_overrides") -> Overrides:
    """{(world, agent or ""): estimator} from `world=name, world/agent=name`.

    An agent's entry beats its world's, which beats the server default
    (importance.selection.choose).
    """
    overrides: Overrides = {}
    for entry in filter(None, (part.strip() for part in text.split(","))):
        target, sep, name = (piece.strip() for piece in entry.partition("="))
        world, _, agent = (piece.strip() for piece in target.partition("/"))
        if not sep or not world or (target.count("/") and not agent) or target.count("/") > 1:
            raise InvalidArgument(
                setting, f"{entry!r}: expected world=estimator or world/agent=estimator"
            )
        overrides[(world, agent)] = check_estimator(name, setting)
    return overrides


def _setting(
    default: Any,
    help: str,
    low: float | None = None,
    high: float | None = None,
    *,
    group: str,
    secret: bool = False,
) -> Any:
    """A settings field; a `secret` one is left out of the settings' repr (and logs).

    `group` is its heading in `serve --help`; numbers must lie in [low, high].
    """
    metadata = {"help": help, "low": low, "high": high, "group": group}
    return field(default=default, repr=not secret, metadata=metadata)


# One field maker per group, in the order the groups appear below and in `serve --help`.
_server = partial(_setting, group="server")
_models = partial(_setting, group="embedded models and sampling")
_memory = partial(_setting, group="memory and retrieval")
_cognition = partial(_setting, group="cognition")
_importance = partial(_setting, group="importance")
_limits = partial(_setting, group="security and limits")
_remote = partial(_setting, group="model servers")


@dataclass(frozen=True)
class Settings:
    """Server settings. Field names are the TOML keys; env vars are NPC_BRAIN_<NAME>."""

    # Server: where it listens and keeps its worlds.
    host: str = _server("127.0.0.1", "address the gRPC server and the HTTP gateway listen on")
    port: int = _server(50051, "gRPC port (0 picks a free one and prints it)", 0, 65535)
    http_port: int = _server(
        50052, "HTTP/JSON gateway port; 0 picks a free one, -1 turns the gateway off", -1, 65535
    )
    http_cors_origins: str = _server(
        "", "browser origins (comma-separated; * for any) that may call the HTTP gateway"
    )
    inspector: bool = _server(
        True, "serve the memory inspector, a web page, at /inspect on the HTTP gateway"
    )
    data_dir: Path = _server(
        Path("npc-brain-data"),
        "where worlds (SQLite files), save slots and ANN index caches are kept",
    )
    store_url: str = _server(
        "",
        "postgresql://user:password@host/db: keep worlds there, shared with other npc-brain"
        " servers under leases (pip install 'npc-brain[postgres]'); empty: SQLite in data_dir",
        secret=True,
    )
    store_max_connections: int = _server(
        10, "most connections to store_url this server opens at once", 1, 1000
    )
    store_timeout_seconds: float = _server(
        5.0, "how long a call waits for a store_url connection before UNAVAILABLE", 0.1, 600
    )
    lease_seconds: float = _server(
        10.0,
        "store_url: how long a world stays this server's without renewal; when a server"
        " dies, another takes its worlds after this",
        1,
        3600,
    )
    advertise_address: str = _server(
        "",
        "store_url: the address other servers name to clients sent here for a world this"
        " server owns; empty: host:port",
    )

    # Embedded models and sampling.
    models_dir: Path = _models(REPO_MODELS_DIR, "where `models fetch` puts the default models")
    chat_model: str = _models("", f"chat GGUF path; empty means {DEFAULT_CHAT_MODEL} in models_dir")
    embed_model: str = _models(
        "", f"embedding GGUF path; empty means {DEFAULT_EMBED_MODEL} in models_dir"
    )
    chat_context: int = _models(2048, "chat model context window in tokens", 512, 131072)
    threads: int = _models(
        0,
        "CPU threads for the chat model; 0: the cores other processes leave free, looked"
        " at before each call (Linux; elsewhere all cores)",
        0,
        256,
    )
    embed_threads: int = _models(
        1,
        "CPU threads for the embedder (one keeps Perceive quick while the chat model "
        "works); 0 means all cores",
        0,
        256,
    )
    embedding_cache_size: int = _models(
        4096,
        "texts whose embeddings are kept for reuse (least recently used out); 0: none",
        0,
        10_000_000,
    )
    model_nice: int = _models(
        0,
        "niceness of the chat model's threads (0-19): above 0 they yield the CPU to the"
        " tick path and the game, but any busy process then starves the model",
        0,
        19,
    )
    player_first: bool = _models(
        True,
        "a player's Converse interrupts the embedded model's running job between two tokens"
        " (or prompt chunks), which then resumes where it was; off: it waits for that job",
    )
    chat_slots: int = _models(
        1,
        "calls the embedded chat model decodes together (continuous batching: each a"
        " sequence of its own in one llama.cpp context, a player's first); 1: one at a time",
        1,
        64,
    )
    prompt_cache_mb: int = _models(
        256,
        "MiB of saved prompt-prefix states of the embedded chat model (least recently used"
        " out); 0: none",
        0,
        1_000_000,
    )
    seed: int = _models(1234, "sampling seed: same seed and inputs, same answers", 0, 2**31 - 1)
    temperature: float = _models(0.7, "sampling temperature for free text (replies)", 0.0, 2.0)
    reply_max_tokens: int = _models(120, "longest streamed reply, in tokens", 8, 2048)

    # Memory and retrieval (README "Memory").
    recency_decay: float = _memory(
        0.995, "recency = decay ** game hours since last access (paper: 0.995)", 0.0, 1.0
    )
    weight_recency: float = _memory(1.0, "default retrieval weight of recency (paper: 1)", 0, 100)
    weight_importance: float = _memory(
        1.0, "default retrieval weight of importance (paper: 1)", 0, 100
    )
    weight_relevance: float = _memory(
        1.0, "default retrieval weight of relevance (paper: 1)", 0, 100
    )
    retrieval: str = _memory(
        "hybrid",
        "how a question is retrieved for (Retrieve, a line said to an NPC): hybrid (the "
        "memories best by embedding and by BM25 in SQLite's full-text index, fused by rank, "
        "then the paper's three terms; a question about the past weighs recency less and "
        "a time it names becomes a window) or paper (the paper's formula alone); planning "
        "and reacting always use the paper's formula",
    )
    retrieve_k: int = _memory(10, "memories Retrieve returns when the request says k=0", 1, 100)
    context_memories: int = _memory(6, "memories retrieved into an Act or Converse prompt", 1, 50)
    perception_retention: int = _memory(
        5,
        "an observation equal to one of the latest N at its address is not stored again",
        0,
        1000,
    )
    wait_for_embedding: bool = _memory(
        False,
        "Perceive and Tick answer only after their new memories are embedded and rated;"
        " off: once they are durable, embedded right after (retrieval waits for them)",
    )
    exact_retrieval_limit: int = _memory(
        10000,
        "streams up to this size are scored in full; larger ones get an ANN index",
        100,
        10_000_000,
    )

    # Cognition: waiting, reflecting, talking, queueing (README "Cognition").
    max_wait_ms: int = _cognition(60000, "cap on a request's max_wait_ms", 0, 600000)
    reflection_threshold: float = _cognition(
        150.0,
        "an agent reflects when the importance summed since its last reflection passes "
        "this (paper: 150)",
        1.0,
        100000.0,
    )
    conversation_cooldown_minutes: int = _cognition(
        120, "game minutes before the same two agents may talk again", 0, 100000
    )
    reaction_cooldown_minutes: int = _cognition(
        30, "game minutes before an agent stops to consider another agent again", 0, 100000
    )
    max_conversation_turns: int = _cognition(
        6, "lines in one conversation between agents at most", 2, 40
    )
    small_talk_lines: int = _cognition(
        0,
        "lines of small talk a conversation between agents goes on with once both have "
        "spoken and neither has news, an answer or a question left (line_intents)",
        0,
        40,
    )
    planner: str = _cognition(
        "composed",
        "how days are planned: composed (the day laid out from the persona, its "
        "requirements and commitments; the model chooses among options) or free (the "
        "model writes the plan, as in the paper)",
    )
    grounded_replies: bool = _cognition(
        True,
        "a reply is decided by code: the line's dialogue act is recognised, the act's "
        "composer answers from the persona, plan, relationships, memories and places, and "
        "the answer is said in the agent's own voice; off: the model answers freely from "
        "recalled memories (the paper's way), unchecked",
    )
    act_examples: str = _cognition(
        "",
        "a game's own examples of dialogue acts (TSV act<TAB>line), added to the shipped "
        "ones that a line said to an NPC is classified by (npc_brain/mind/talk/data/acts.tsv)",
    )
    reply_wording: str = _cognition(
        "plain",
        "grounded replies: plain (the composed answer alone, no model call) or model (after "
        "a greeting, thanks, how-are-you or small talk the model words one more sentence "
        "in character; the checks refuse a bad one, which is drawn again once, then left "
        "out; for a chat model larger than the default 135M one, whose sentence was odd "
        "in 8 of 14 draws)",
    )
    npc_small_talk: str = _cognition(
        "composed",
        "small talk between agents: composed (an opener greets and asks how the other is; "
        "a reply answers as the agent would answer a player: no model call) or model (the "
        "model words it)",
    )
    line_intents: bool = _cognition(
        True,
        "each line of an NPC conversation has an intent chosen from the speaker's memory "
        "(news the listener does not know, an answer, a question, small talk); a line meant "
        "to pass news or an answer on that does not carry it is drawn again, then said "
        "plainly from the memory; off: the speaker brings up what is on its mind",
    )
    afterthoughts: str = _cognition(
        "composed",
        "what an agent keeps from a conversation: composed (a view of the other built by "
        "code, and the rest of the day planned again around the news it heard; no model "
        "call) or model (the paper's post-conversation thoughts and view, written by the "
        "model, checked, stored as THOUGHT memories and planned around)",
    )
    reflections: str = _cognition(
        "composed",
        "how an agent reflects: composed (by code: the habits and the pairs who keep "
        "talking that its recent memories show, about the people they are most about, "
        "each citing the sightings it counts; no model call) or model (the paper's three "
        "salient questions and the insights the model infers for each)",
    )
    cognition_queue: int = _cognition(
        256, "model jobs that may wait; beyond it the least urgent are refused", 1, 100000
    )

    # Importance (README "Importance").
    importance_estimator: str = _importance(
        "anchors",
        "how importance 1..10 is estimated: anchors (nearest rated sentences, no model call), "
        "model (the chat model, one call per memory) or blend (both)",
    )
    importance_estimator_overrides: str = _importance(
        "",
        "estimator per world or agent, comma-separated world=NAME or world/agent=NAME "
        "(e.g. dungeon=model,default/bram=blend)",
    )
    importance_anchors: str = _importance(
        "", "a game's own rated anchors (TSV rating<TAB>text, or JSON) added to the shipped ones"
    )
    importance_neighbours: int = _importance(
        DEFAULT_K, "nearest anchors whose ratings make an anchor estimate", 1, 1000
    )
    importance_temperature: float = _importance(
        DEFAULT_TEMPERATURE, "softmax temperature over the neighbours' cosines", 0.001, 10.0
    )
    importance_blend_weight: float = _importance(
        DEFAULT_ANCHOR_WEIGHT, "share of the anchor estimate in the blend estimator", 0.0, 1.0
    )

    # Security and limits (README "Security").
    token: str = _limits(
        "",
        "shared secret every call must carry as 'authorization: Bearer <token>' (gRPC "
        "metadata or HTTP header); prefer the environment variable to the flag; empty: none",
        secret=True,
    )
    insecure: bool = _limits(
        False, "allow serving a non-loopback host without a token (anyone who reaches it)"
    )
    tls_cert: str = _limits("", "PEM certificate (chain) file; with tls_key both doors use TLS")
    tls_key: str = _limits("", "PEM private key file of tls_cert")
    max_message_bytes: int = _limits(
        4 * 1024 * 1024, "largest request or answer, gRPC message or HTTP body", 1024, 2**28
    )
    max_concurrent_rpcs: int = _limits(
        256, "calls each door serves at once; more are refused (RESOURCE_EXHAUSTED)", 1, 100000
    )
    http_max_connections: int = _limits(
        256, "open HTTP/JSON connections; more are refused (429)", 1, 100000
    )
    max_text_chars: int = _limits(
        4000, "longest observation text, query, utterance or persona trait", 1, 1_000_000
    )
    max_short_text_chars: int = _limits(
        500,
        "longest name, address, subject/predicate/object, label or daily requirement",
        1,
        100_000,
    )
    max_items: int = _limits(
        256,
        "most items in a request's list (observations of a whole Tick, visible addresses, "
        "Tick agents, kinds, daily requirements)",
        1,
        100_000,
    )

    # Remote model servers (docs/backends.md).
    chat_url: str = _remote(
        "",
        "base URL of an OpenAI-compatible chat server (e.g. http://127.0.0.1:8080/v1); "
        "set, it thinks instead of the embedded chat model",
    )
    chat_api_model: str = _remote(
        "", "model name sent to chat_url; empty: the first model the server lists"
    )
    chat_api_key: str = _remote(
        "", "API key sent to chat_url as 'Authorization: Bearer <key>'", secret=True
    )
    chat_api_constrain: str = _remote(
        "auto",
        "how chat_url is asked for schema-constrained output: json_schema, json_object "
        "(llama-cpp-python's server), none (validated only) or auto (steps down on refusal)",
    )
    chat_api_extra: str = _remote(
        "",
        "JSON object of server-specific sampling fields added to every chat_url request, "
        'e.g. {"repeat_penalty": 1.0} for llama.cpp\'s servers (they default to 1.1; '
        "the embedded model samples with 1.0)",
    )
    embed_url: str = _remote(
        "",
        "base URL of an OpenAI-compatible embeddings server; set, it embeds instead of "
        "the embedded embedding model",
    )
    embed_api_model: str = _remote(
        "", "model name sent to embed_url; empty: the first model the server lists"
    )
    embed_api_key: str = _remote(
        "", "API key sent to embed_url as 'Authorization: Bearer <key>'", secret=True
    )
    api_timeout_s: float = _remote(
        120.0, "seconds to wait for a model server (connect, first byte, each piece)", 1, 3600
    )
    api_retries: int = _remote(
        2, "retries, with backoff, of a model server request that failed transiently", 0, 10
    )
    chat_concurrency: int = _remote(
        1,
        "model calls sent to chat_url at once (its parallel slots); the embedded model "
        "has chat_slots instead",
        1,
        1024,
    )

    def __post_init__(self) -> None:
        """Checks every number against its bounds, and the choices; InvalidArgument names
        the first setting that is wrong (in declaration order)."""
        for f in dataclasses.fields(self):
            _check_number(f, getattr(self, f.name))
        check_estimator(self.importance_estimator)
        parse_overrides(self.importance_estimator_overrides)
        if self.planner not in PLANNERS:
            raise InvalidArgument("planner", f"expected one of {', '.join(PLANNERS)}")
        if self.afterthoughts not in AFTERTHOUGHTS:
            raise InvalidArgument("afterthoughts", f"expected one of {', '.join(AFTERTHOUGHTS)}")
        if self.npc_small_talk not in NPC_SMALL_TALK:
            raise InvalidArgument("npc_small_talk", f"expected one of {', '.join(NPC_SMALL_TALK)}")
        if self.retrieval not in RETRIEVALS:
            raise InvalidArgument("retrieval", f"expected one of {', '.join(RETRIEVALS)}")
        if self.reply_wording not in REPLY_WORDINGS:
            raise InvalidArgument("reply_wording", f"expected one of {', '.join(REPLY_WORDINGS)}")
        if self.reflections not in REFLECTIONS:
            raise InvalidArgument("reflections", f"expected one of {', '.join(REFLECTIONS)}")
        if self.chat_api_constrain not in CONSTRAIN_MODES:
            raise InvalidArgument(
                "chat_api_constrain", f"expected one of {', '.join(CONSTRAIN_MODES)}"
            )

        self.chat_api_extra_fields()

    def chat_api_extra_fields(self) -> dict[str, Any]:
        """chat_api_extra parsed: a JSON object (empty when unset)."""
        if not self.chat_api_extra:
            return {}
        try:
            fields = json.loads(self.chat_api_extra)
        except ValueError as error:
            raise InvalidArgument("chat_api_extra", f"is not JSON: {error}") from None
        if not isinstance(fields, dict):
            raise InvalidArgument("chat_api_extra", "must be a JSON object")
        return fields

    def chat_model_path(self) -> Path:
        return Path(self.chat_model) if self.chat_model else self.models_dir / DEFAULT_CHAT_MODEL

    def embed_model_path(self) -> Path:
        return Path(self.embed_model) if self.embed_model else self.models_dir / DEFAULT_EMBED_MODEL


def describe_fields() -> list[dataclasses.Field[Any]]:
    """The settings fields, in declaration order (for help texts and docs)."""
    return list(dataclasses.fields(Settings))


def describe_groups() -> dict[str, list[dataclasses.Field[Any]]]:
    """The settings fields by group (heading: fields), both in declaration order."""
    groups: dict[str, list[dataclasses.Field[Any]]] = {}
    for f in dataclasses.fields(Settings):
        groups.setdefault(f.metadata["group"], []).append(f)
    return groups


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
            coerced: Any = value if isinstance(value, bool) else _BOOLEANS[str(value).lower()]
        else:
            coerced = kind(value)
    except (TypeError, ValueError, KeyError) as exc:
        raise InvalidArgument(name, f"expected {kind.__name__}, got {value!r}") from exc
    return coerced  # bounds are checked when the Settings is built


def _check_number(f: dataclasses.Field[Any], value: Any) -> None:
    """InvalidArgument naming the field if a number field holds no number of its kind or
    one outside its [low, high] (NaN is outside every range)."""
    kind: Any = type(f.default)
    if kind not in (int, float):
        return
    numeric = (int,) if kind is int else (int, float)
    if isinstance(value, bool) or not isinstance(value, numeric):
        raise InvalidArgument(f.name, f"expected {kind.__name__}, got {value!r}")
    low, high = f.metadata["low"], f.metadata["high"]
    if not ((low is None or value >= low) and (high is None or value <= high)):
        raise InvalidArgument(f.name, f"{value} is outside [{low}, {high}]")
