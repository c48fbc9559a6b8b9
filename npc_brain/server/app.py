"""Building and running the gRPC server (health checking and reflection on) and its
HTTP/JSON gateway."""

from __future__ import annotations

import asyncio
import gc
import logging
import signal
import ssl
from pathlib import Path

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from npc_brain.brain import Brain
from npc_brain.config import Settings
from npc_brain.llm.backends import chat_from_settings, embedder_from_settings
from npc_brain.llm.base import Embedder
from npc_brain.memory.stores import stores_from_settings
from npc_brain.mind.world import WorldRegistry
from npc_brain.server.auth import check_exposure
from npc_brain.server.http import HttpServer, create_http_server
from npc_brain.server.inspector import Inspector
from npc_brain.server.registration import add_brain_to_server
from npc_brain.server.servicer import BrainServicer
from npc_brain.v1 import brain_pb2

log = logging.getLogger(__name__)
SERVICE_NAME = brain_pb2.DESCRIPTOR.services_by_name["Brain"].full_name
MAX_MESSAGE_BYTES = Settings.max_message_bytes  # the default; `max_message_bytes` sets it


def build_brain(settings: Settings, embedder: Embedder | None = None) -> Brain:
    """Loads the models named by the settings (or connects to the model servers they
    name; `embedder`, if given, is used instead of loading one) and opens the data
    directory."""
    embedder = embedder or embedder_from_settings(settings)
    chat = chat_from_settings(settings)  # a chat_url server, or the embedded GGUF
    worlds = WorldRegistry(
        settings.data_dir,
        embedder.model_id,
        embedder.dimension,
        settings.exact_retrieval_limit,
        stores_from_settings(settings),
    )
    return Brain(chat=chat, embedder=embedder, worlds=worlds, settings=settings)


async def create_server(brain: Brain, address: str) -> tuple[grpc.aio.Server, int]:
    """A started server for `brain` on `address` ("host:0" picks a free port).

    Its limits, token and TLS files are the brain's settings. The servicer refuses calls
    beyond `max_concurrent_rpcs` with a retry hint; grpc's own cap, twice that, is the
    backstop that also counts health checks.
    """
    settings = brain.settings
    server = grpc.aio.server(
        options=[
            ("grpc.max_receive_message_length", settings.max_message_bytes),
            ("grpc.max_send_message_length", settings.max_message_bytes),
            ("grpc.max_metadata_size", 16 * 1024),
        ],
        maximum_concurrent_rpcs=2 * settings.max_concurrent_rpcs + 16,
    )
    add_brain_to_server(BrainServicer(brain), server)
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    reflection.enable_server_reflection(
        (SERVICE_NAME, health.SERVICE_NAME, reflection.SERVICE_NAME), server
    )
    if settings.tls_cert:
        key, cert = Path(settings.tls_key).read_bytes(), Path(settings.tls_cert).read_bytes()
        port = server.add_secure_port(address, grpc.ssl_server_credentials([(key, cert)]))
    else:
        port = server.add_insecure_port(address)
    if port == 0:
        raise OSError(f"cannot listen on {address}")
    await server.start()
    if not settings.advertise_address:
        brain.stores.advertise(f"{settings.host}:{port}")
    for name in ("", SERVICE_NAME):
        await health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
    if brain.stores.shared:
        watcher = asyncio.create_task(_watch_store(brain, health_servicer))
        _WATCHERS.add(watcher)
        watcher.add_done_callback(_WATCHERS.discard)
    return server, port


STORE_CHECK_SECONDS = 2.0
_WATCHERS: set[asyncio.Task[None]] = set()  # referenced while they run


async def _watch_store(brain: Brain, health_servicer: health.aio.HealthServicer) -> None:
    """Health is SERVING while the store can be reached, NOT_SERVING while it cannot
    (a shared PostgreSQL that is down), checked every STORE_CHECK_SECONDS."""
    serving = True
    while True:
        await asyncio.sleep(STORE_CHECK_SECONDS)
        try:
            healthy = await asyncio.to_thread(brain.stores.healthy)
        except Exception:  # the store was closed: the server is stopping
            return
        if healthy != serving:
            status = (
                health_pb2.HealthCheckResponse.SERVING
                if healthy
                else (health_pb2.HealthCheckResponse.NOT_SERVING)
            )
            for name in ("", SERVICE_NAME):
                await health_servicer.set(name, status)
            log.warning("store %s", "reachable again" if healthy else "unreachable")
            serving = healthy


async def create_http_gateway(
    brain: Brain, host: str, port: int, cors_origins: str = ""
) -> HttpServer:
    """The HTTP/JSON door to the same servicer, with the same message size limit, and
    the memory inspector at /inspect unless the `inspector` setting is off.

    `cors_origins`: browser origins allowed to call it, comma-separated ("*": any).
    """
    settings = brain.settings
    origins = [origin.strip() for origin in cors_origins.split(",") if origin.strip()]
    servicer = BrainServicer(brain)
    return await create_http_server(
        servicer,
        host,
        port,
        max_body_bytes=settings.max_message_bytes,
        cors_origins=origins,
        max_connections=settings.http_max_connections,
        ssl_context=tls_context(settings),
        inspector=Inspector(servicer, brain) if settings.inspector else None,
    )


def tls_context(settings: Settings) -> ssl.SSLContext | None:
    """The HTTP door's TLS context from tls_cert and tls_key; None when TLS is off."""
    if not settings.tls_cert:
        return None
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    context.load_cert_chain(settings.tls_cert, settings.tls_key)
    return context


def freeze_startup_objects() -> None:
    """Moves every object alive once the server is up (modules, the models' wrappers,
    protobuf descriptors: ~70k) out of the garbage collector's reach: they live as long as
    the process, and each full collection would scan them again, with the event loop
    stopped (a Tick of 100 agents waited 85 ms for one on a loaded machine, 20 ms frozen).
    Garbage made before is collected first, so nothing unreachable is kept."""
    gc.collect()
    gc.freeze()


async def serve(settings: Settings, grace_seconds: float = 10.0) -> None:
    """Runs until SIGINT or SIGTERM, then drains in-flight calls and stops.

    Refuses, before loading anything, to serve a non-loopback host without a token
    (unless `insecure`).
    """
    check_exposure(settings)
    brain = build_brain(settings)
    await brain.warm_up()
    server, port = await create_server(brain, f"{settings.host}:{settings.port}")
    http_server: HttpServer | None = None
    if settings.http_port >= 0:
        try:
            http_server = await create_http_gateway(
                brain, settings.host, settings.http_port, settings.http_cors_origins
            )
        except OSError:
            await server.stop(None)
            brain.close()
            raise
    freeze_startup_objects()
    # Before the lines that say it serves: a SIGTERM right after them drains, not kills.
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    print(f"npc-brain serving npc_brain.v1.Brain on {settings.host}:{port}", flush=True)
    if http_server is not None:
        print(f"npc-brain serving HTTP/JSON on {settings.host}:{http_server.port}", flush=True)
        if settings.inspector:
            scheme = "https" if settings.tls_cert else "http"
            print(
                f"npc-brain memory inspector on {scheme}://{settings.host}:{http_server.port}"
                "/inspect" + ("?token=<token>" if settings.token else ""),
                flush=True,
            )
    log.info(
        "token %s; TLS %s; worlds in %s",
        "required" if settings.token else "not required",
        "on" if settings.tls_cert else "off",
        brain.stores.description,
    )
    await stop.wait()
    log.info("stopping: draining in-flight calls for up to %.0f s", grace_seconds)
    await asyncio.gather(
        server.stop(grace_seconds),
        *([http_server.stop(grace_seconds)] if http_server else []),
    )
    brain.close()
