"""The HTTP/JSON door beside gRPC, for clients without HTTP/2 (Godot, WebGL builds).

`POST /v1/<Method>` with a JSON body (protobuf's JSON mapping of the request message,
`Content-Type: application/json`) answers the reply message as JSON. The streamed
Converse answers NDJSON (`application/x-ndjson`, chunked): one ConverseEvent object
per line, sent as soon as it exists; an error after the first event is a last line
`{"error": {...}}`. Errors before any answer are `{"error": {"status", "code",
"message", "field"}}` on the HTTP status mapped from the gRPC status
(http_gateway.HTTP_STATUS_OF). A plain HTTP/1.1 server on asyncio streams: no new
dependency, keep-alive, bodies capped at the gRPC message limit, no traceback ever
reaches a client. Browser pages may call it only from the origins it is given (CORS);
requiring `application/json` keeps other pages from sending "simple" cross-site POSTs.
The servicer's token is checked before a body is parsed; connections beyond a cap are
answered 429 and closed; an SSL context puts the door on TLS. Paths under /inspect go to
the memory inspector (server/inspector), when it is on.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import ssl
from collections.abc import AsyncIterator, Iterable
from typing import TYPE_CHECKING, Any

import grpc

from npc_brain.server.http_gateway import (
    HTTP_STATUS_OF,
    Aborted,
    Gateway,
    GatewayContext,
    Route,
    dumps,
    error_json,
)
from npc_brain.server.http_protocol import (
    MAX_HEAD_BYTES,
    ProtocolError,
    Request,
    StreamingResponse,
    read_request,
    write_response,
)

if TYPE_CHECKING:
    from npc_brain.server.inspector import Inspector

log = logging.getLogger(__name__)
JSON = "application/json"
NDJSON = "application/x-ndjson"
KEEP_ALIVE_SECONDS = 120.0  # an idle connection is closed after this long
LINGER_SECONDS, LINGER_BYTES = 2.0, 64 * 1024 * 1024  # draining a refused request
LINGER_IDLE_SECONDS = 0.25  # ... until the client pauses this long
# A stream whose first event is not ready this long (the model busy) starts its answer and
# sends an empty line this often until it is: the client sees the server is there.
STREAM_KEEPALIVE_SECONDS = 5.0


class HttpServer:
    """A started HTTP/JSON gateway; `port` is where it listens."""

    def __init__(
        self,
        gateway: Gateway,
        max_body_bytes: int,
        cors_origins: Iterable[str] = (),
        max_connections: int = 256,
        ssl_context: ssl.SSLContext | None = None,
        inspector: Inspector | None = None,
    ) -> None:
        self._gateway = gateway
        self._inspector = inspector  # serves /inspect when set
        self._max_body = max_body_bytes
        self._cors_origins = frozenset(cors_origins)
        self._max_connections = max_connections
        self._ssl = ssl_context
        self._server: asyncio.Server | None = None
        self._connections: dict[asyncio.Task[None], bool] = {}  # task -> busy with a request
        self._stopping = False
        self.port = 0

    async def start(self, host: str, port: int) -> None:
        try:
            self._server = await asyncio.start_server(
                self._serve_connection, host, port, limit=MAX_HEAD_BYTES, ssl=self._ssl
            )
        except OSError as error:
            raise OSError(
                f"cannot listen for HTTP on {host}:{port} ({error.strerror}); "
                "--http-port 0 picks a free port, -1 turns the gateway off"
            ) from error
        self.port = self._server.sockets[0].getsockname()[1]

    async def stop(self, grace_seconds: float | None = None) -> None:
        """Stops listening, lets requests in flight finish for up to grace_seconds, then ends."""
        self._stopping = True
        if self._server is not None:
            self._server.close()
        for task, busy in list(self._connections.items()):
            if not busy:
                task.cancel()
        pending = set(self._connections)
        if pending and grace_seconds:
            await asyncio.wait(pending, timeout=grace_seconds)
        for task in pending:
            task.cancel()
        if pending:
            await asyncio.wait(pending)

    async def _serve_connection(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        task = asyncio.current_task()
        assert task is not None
        if len(self._connections) >= self._max_connections:
            await self._refuse_connection(reader, writer)
            return
        self._connections[task] = False
        peer = writer.get_extra_info("peername")
        if isinstance(peer, tuple):
            peer_name = f"{'ipv6' if ':' in peer[0] else 'ipv4'}:{peer[0]}:{peer[1]}"
        else:
            peer_name = "unknown"
        try:
            while not self._stopping:
                try:
                    request = await asyncio.wait_for(
                        read_request(reader, writer, self._max_body), KEEP_ALIVE_SECONDS
                    )
                except ProtocolError as error:
                    body = error_json(grpc.StatusCode[error.status], str(error))
                    await _write_json(writer, error.http_status, body, False, [])
                    if error.http_status in (413, 431):  # the client may still be sending
                        await _linger(reader)
                    break
                if request is None:
                    break
                self._connections[task] = True
                keep_alive = await self._respond(request, writer, peer_name)
                self._connections[task] = False
                if not keep_alive:
                    break
        except (TimeoutError, ConnectionError, asyncio.IncompleteReadError):
            pass  # the client went quiet or away; nobody to answer
        except asyncio.CancelledError:
            pass  # the server is stopping
        except Exception:
            log.exception("HTTP connection failed")
        finally:
            del self._connections[task]
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()

    async def _refuse_connection(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        """Answers a connection beyond `max_connections` with 429 and closes it."""
        message = f"{self._max_connections} connections are open (http_max_connections)"
        body = error_json(grpc.StatusCode.RESOURCE_EXHAUSTED, message + "; retry in 1 s")
        with contextlib.suppress(Exception):
            await _write_json(writer, 429, body, False, [("Retry-After", "1")])
            await _linger(reader, seconds=0.5, limit=MAX_HEAD_BYTES)
        writer.close()
        with contextlib.suppress(Exception):
            await writer.wait_closed()

    async def _respond(self, request: Request, writer: asyncio.StreamWriter, peer: str) -> bool:
        """Answers one request; returns whether the connection may serve another."""
        keep_alive = request.keep_alive and not self._stopping
        if self._inspector is not None and self._inspector.serves(request.path):
            page = await self._inspector.handle(request, peer)
            await write_response(
                writer,
                page.status,
                page.body,
                content_type=page.content_type,
                keep_alive=keep_alive,
                headers=page.headers,
            )
            return keep_alive
        cors = self._cors_headers(request)
        route = self._gateway.route(request.path)
        if route is None:
            methods = ", ".join(sorted(r.name for r in self._gateway.routes.values()))
            message = f"no such method {request.path!r}; POST /v1/<Method> with one of: {methods}"
            await _refuse(writer, (404, "NOT_FOUND", message, []), keep_alive, cors)
            return keep_alive
        if request.method == "OPTIONS" and cors:  # a browser's CORS preflight
            await write_response(
                writer, 204, b"", content_type=JSON, keep_alive=keep_alive, headers=cors
            )
            return keep_alive
        refusal = _refusal(request)
        if refusal is not None:
            await _refuse(writer, refusal, keep_alive, cors)
            return keep_alive
        context = GatewayContext(request.headers, peer)
        try:
            self._gateway.authorize(context)  # before parsing: strangers learn nothing
            message_in = self._gateway.parse(route, request.body)
            if route.streaming:
                return await self._stream(route, message_in, context, request, writer, cors)
            reply = await self._gateway.unary(route, message_in, context)
        except Aborted as error:
            body = error_json(error.code, error.details)
            status = HTTP_STATUS_OF.get(error.code, 500)
            await _write_json(writer, status, body, keep_alive, [*error.http_headers(), *cors])
            return keep_alive
        await _write_json(writer, 200, reply, keep_alive, cors)
        return keep_alive

    async def _stream(
        self,
        route: Route,
        message: object,
        context: GatewayContext,
        request: Request,
        writer: asyncio.StreamWriter,
        cors: list[tuple[str, str]],
    ) -> bool:
        """NDJSON, one event a line. A failure before the first event is a plain error,
        unless the first event took longer than STREAM_KEEPALIVE_SECONDS: then the answer
        has begun, with an empty line (a keep-alive) every STREAM_KEEPALIVE_SECONDS."""
        keep_alive = request.keep_alive and not self._stopping
        events = self._gateway.stream(route, message, context)  # type: ignore[arg-type]
        response = StreamingResponse(writer, chunked=request.version == "HTTP/1.1")
        started = False
        async with contextlib.aclosing(events):
            first_event = asyncio.ensure_future(_first(events))
            try:
                while not first_event.done():
                    await asyncio.wait({first_event}, timeout=STREAM_KEEPALIVE_SECONDS)
                    if not first_event.done():
                        if not started:
                            await response.start(200, NDJSON, keep_alive, cors)
                            started = True
                        await response.write(b"\n")
            finally:
                if not first_event.done():  # the client went away
                    first_event.cancel()
                    with contextlib.suppress(BaseException):
                        await first_event
            try:
                first = first_event.result()
            except Aborted as error:
                if not started:
                    raise
                await response.write(dumps(error_json(error.code, error.details)) + b"\n")
                await response.end()
                return keep_alive and request.version == "HTTP/1.1"
            if not started:
                await response.start(200, NDJSON, keep_alive, cors)
            if first is not None:
                await response.write(dumps(first) + b"\n")
                try:
                    async for event in events:
                        await response.write(dumps(event) + b"\n")
                except Aborted as error:
                    await response.write(dumps(error_json(error.code, error.details)) + b"\n")
            await response.end()
        return keep_alive and request.version == "HTTP/1.1"

    def _cors_headers(self, request: Request) -> list[tuple[str, str]]:
        """CORS headers for a browser page of an allowed origin (none by default)."""
        origin = request.header("origin")
        if origin is None or not ("*" in self._cors_origins or origin in self._cors_origins):
            return []
        return [
            ("Access-Control-Allow-Origin", origin),
            ("Access-Control-Allow-Methods", "POST, OPTIONS"),
            ("Access-Control-Allow-Headers", "Content-Type, Authorization"),
            ("Access-Control-Expose-Headers", "Retry-After"),  # a page's client may wait so long
            ("Access-Control-Max-Age", "600"),
            ("Vary", "Origin"),
        ]


async def _first(events: AsyncIterator[Any]) -> Any:
    """The first event, or None when there is none."""
    try:
        return await anext(events)
    except StopAsyncIteration:
        return None


async def create_http_server(
    servicer: object,
    host: str,
    port: int,
    *,
    max_body_bytes: int,
    cors_origins: Iterable[str] = (),
    max_connections: int = 256,
    ssl_context: ssl.SSLContext | None = None,
    inspector: Inspector | None = None,
) -> HttpServer:
    """A started gateway for `servicer` (a BrainServicer) on host:port (0 picks a free port).

    Browser pages of `cors_origins` ("*": any) may call it (CORS); other pages may not.
    Connections beyond `max_connections` are answered 429; `ssl_context` turns on TLS;
    `inspector` serves the memory inspector's pages under /inspect.
    """
    server = HttpServer(
        Gateway(servicer), max_body_bytes, cors_origins, max_connections, ssl_context, inspector
    )
    await server.start(host, port)
    return server


Refusal = tuple[int, str, str, list[tuple[str, str]]]  # HTTP status, status, message, headers


def _refusal(request: Request) -> Refusal | None:
    """Why a request for a known method is not served, if it is not."""
    if request.method != "POST":
        return (
            405,
            "UNIMPLEMENTED",
            f"{request.method} is not served; use POST",
            [("Allow", "POST")],
        )
    media_type = (request.header("content-type") or "").split(";", 1)[0].strip().lower()
    if media_type != JSON:
        return 415, "INVALID_ARGUMENT", f"Content-Type must be {JSON}, got {media_type!r}", []
    return None


async def _linger(
    reader: asyncio.StreamReader, seconds: float = LINGER_SECONDS, limit: int = LINGER_BYTES
) -> None:
    """Reads and drops what the client still sends (a refused body, say) until it pauses,
    for a moment at most, before the connection closes: so the client reads the answer
    instead of a connection reset."""
    with contextlib.suppress(Exception):
        async with asyncio.timeout(seconds):
            dropped = 0
            while dropped < limit:
                chunk = await asyncio.wait_for(reader.read(65536), LINGER_IDLE_SECONDS)
                if not chunk:
                    break
                dropped += len(chunk)


async def _refuse(
    writer: asyncio.StreamWriter,
    refusal: Refusal,
    keep_alive: bool,
    cors: list[tuple[str, str]],
) -> None:
    http_status, status, message, headers = refusal
    body = error_json(grpc.StatusCode[status], message)
    await _write_json(writer, http_status, body, keep_alive, [*headers, *cors])


async def _write_json(
    writer: asyncio.StreamWriter,
    http_status: int,
    value: object,
    keep_alive: bool,
    headers: list[tuple[str, str]],
) -> None:
    await write_response(
        writer, http_status, dumps(value), content_type=JSON, keep_alive=keep_alive, headers=headers
    )
