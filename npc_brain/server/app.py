"""Building and running the gRPC server (health checking and reflection on) and its
HTTP/JSON gateway."""

from __future__ import annotations

import asyncio
import logging
import signal

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from npc_brain.brain import Brain
from npc_brain.config import Settings
from npc_brain.llm.llama import LlamaChat, LlamaEmbedder
from npc_brain.server.http import HttpServer, create_http_server
from npc_brain.server.servicer import BrainServicer
from npc_brain.v1 import brain_pb2, brain_pb2_grpc
from npc_brain.world import WorldRegistry

log = logging.getLogger(__name__)
SERVICE_NAME = brain_pb2.DESCRIPTOR.services_by_name["Brain"].full_name
MAX_MESSAGE_BYTES = 4 * 1024 * 1024


def build_brain(settings: Settings) -> Brain:
    """Loads the models named by the settings and opens the data directory."""
    embedder = LlamaEmbedder(settings.embed_model_path(), threads=settings.threads)
    chat = LlamaChat(
        settings.chat_model_path(),
        n_ctx=settings.chat_context,
        threads=settings.threads,
        seed=settings.seed,
    )
    worlds = WorldRegistry(
        settings.data_dir, embedder.model_id, embedder.dimension, settings.exact_retrieval_limit
    )
    return Brain(chat=chat, embedder=embedder, worlds=worlds, settings=settings)


async def create_server(brain: Brain, address: str) -> tuple[grpc.aio.Server, int]:
    """A started server for `brain` on `address` ("host:0" picks a free port)."""
    server = grpc.aio.server(
        options=[
            ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
            ("grpc.max_send_message_length", MAX_MESSAGE_BYTES),
        ]
    )
    brain_pb2_grpc.add_BrainServicer_to_server(  # type: ignore[no-untyped-call]
        BrainServicer(brain), server
    )
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    reflection.enable_server_reflection(
        (SERVICE_NAME, health.SERVICE_NAME, reflection.SERVICE_NAME), server
    )
    port = server.add_insecure_port(address)
    if port == 0:
        raise OSError(f"cannot listen on {address}")
    await server.start()
    for name in ("", SERVICE_NAME):
        await health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
    return server, port


async def create_http_gateway(
    brain: Brain, host: str, port: int, cors_origins: str = ""
) -> HttpServer:
    """The HTTP/JSON door to the same servicer, with the same message size limit.

    `cors_origins`: browser origins allowed to call it, comma-separated ("*": any).
    """
    origins = [origin.strip() for origin in cors_origins.split(",") if origin.strip()]
    return await create_http_server(
        BrainServicer(brain), host, port, max_body_bytes=MAX_MESSAGE_BYTES, cors_origins=origins
    )


async def serve(settings: Settings, grace_seconds: float = 10.0) -> None:
    """Runs until SIGINT or SIGTERM, then drains in-flight calls and stops."""
    brain = build_brain(settings)
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
    print(f"npc-brain serving npc_brain.v1.Brain on {settings.host}:{port}", flush=True)
    if http_server is not None:
        print(f"npc-brain serving HTTP/JSON on {settings.host}:{http_server.port}", flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    log.info("stopping: draining in-flight calls for up to %.0f s", grace_seconds)
    await asyncio.gather(
        server.stop(grace_seconds),
        *([http_server.stop(grace_seconds)] if http_server else []),
    )
    brain.close()
