"""The JSON side of the HTTP door: routes, parsing, the servicer call, statuses.

One implementation, two doors: every `POST /v1/<Method>` of the Brain service (read
from the service descriptor, so a new RPC needs no code here) parses its body with
protobuf's JSON mapping into the method's request message, calls the same
BrainServicer method the gRPC server calls, with a GatewayContext standing in for
grpc's ServicerContext, and answers with the JSON mapping of the reply. Errors carry
the gRPC status name on the HTTP status of the table below (google.rpc.Code's mapping).
"""

from __future__ import annotations

import inspect
import json
import logging
import re
from collections.abc import AsyncGenerator, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NoReturn

import grpc
from google.protobuf import json_format, message_factory
from google.protobuf.message import Message

from npc_brain.errors import NpcBrainError
from npc_brain.server.context import CallContext, Metadata
from npc_brain.server.limits import OWNER, RETRY_AFTER_MS
from npc_brain.server.status import status_of
from npc_brain.v1 import brain_pb2

log = logging.getLogger(__name__)
SERVICE = brain_pb2.DESCRIPTOR.services_by_name["Brain"]
PATH_PREFIX = "/v1/"
INTERNAL_MESSAGE = "internal error; the server log has details"
MAX_ERROR_CHARS = 500  # parse errors quote the input; a megabyte is not echoed back

HTTP_STATUS_OF: Mapping[grpc.StatusCode, int] = {
    grpc.StatusCode.OK: 200,
    grpc.StatusCode.CANCELLED: 499,
    grpc.StatusCode.UNKNOWN: 500,
    grpc.StatusCode.INVALID_ARGUMENT: 400,
    grpc.StatusCode.DEADLINE_EXCEEDED: 504,
    grpc.StatusCode.NOT_FOUND: 404,
    grpc.StatusCode.ALREADY_EXISTS: 409,
    grpc.StatusCode.PERMISSION_DENIED: 403,
    grpc.StatusCode.UNAUTHENTICATED: 401,
    grpc.StatusCode.RESOURCE_EXHAUSTED: 429,
    grpc.StatusCode.FAILED_PRECONDITION: 400,
    grpc.StatusCode.ABORTED: 409,
    grpc.StatusCode.OUT_OF_RANGE: 400,
    grpc.StatusCode.UNIMPLEMENTED: 501,
    grpc.StatusCode.INTERNAL: 500,
    grpc.StatusCode.UNAVAILABLE: 503,
    grpc.StatusCode.DATA_LOSS: 500,
}


class Aborted(Exception):
    """A call ended with a non-OK status (what grpc's `context.abort` raises)."""

    def __init__(
        self,
        code: grpc.StatusCode,
        details: str,
        trailing_metadata: Sequence[tuple[str, str]] = (),
    ) -> None:
        super().__init__(details)
        self.code = code
        self.details = details
        self.trailing_metadata = tuple(trailing_metadata)

    def http_headers(self) -> list[tuple[str, str]]:
        """HTTP headers for the trailing metadata: `retry-after-ms` becomes `Retry-After`,
        `npc-brain-owner` (the server that owns the world) `NPC-Brain-Owner`."""
        headers = []
        for key, value in self.trailing_metadata:
            if key == RETRY_AFTER_MS and value.isdecimal():
                headers.append(("Retry-After", str(max(1, -(-int(value) // 1000)))))
            elif key == OWNER:
                headers.append(("NPC-Brain-Owner", value))
        return headers


class GatewayContext:
    """The part of grpc.aio.ServicerContext that servicers use, for a call made over HTTP:
    a CallContext, plus the status calls (set_code, set_details) of the generated
    servicer's unimplemented methods, which the gateway reads back.

    `invocation_metadata()` holds the HTTP request headers (names lower-cased), which is
    where an auth check reads a token on both doors.
    """

    def __init__(self, metadata: Sequence[tuple[str, str]], peer: str) -> None:
        self._metadata = tuple(metadata)
        self._peer = peer
        self._code: grpc.StatusCode | None = None
        self._details = ""

    async def abort(
        self,
        code: grpc.StatusCode,
        details: str = "",
        trailing_metadata: Sequence[tuple[str, str]] = (),
    ) -> NoReturn:
        raise Aborted(code, details, trailing_metadata)

    def set_code(self, code: grpc.StatusCode) -> None:
        self._code = code

    def set_details(self, details: str) -> None:
        self._details = details

    def code(self) -> grpc.StatusCode | None:
        return self._code

    def details(self) -> str:
        return self._details

    def invocation_metadata(self) -> tuple[tuple[str, str], ...]:
        return self._metadata

    def peer(self) -> str:
        return self._peer

    def time_remaining(self) -> float | None:
        return None


@dataclass(frozen=True)
class Route:
    """One RPC as the gateway serves it."""

    name: str
    request_type: type[Message]
    streaming: bool
    handler: Callable[[Message, CallContext], Any]


class Gateway:
    """Routes `/v1/<Method>` to the servicer's method of that name."""

    def __init__(self, servicer: object) -> None:
        self.routes: dict[str, Route] = {}
        self._authorize: Callable[[Metadata | None], None] | None = getattr(
            servicer, "authorize", None
        )
        for method in SERVICE.methods:
            if method.client_streaming:
                continue  # a JSON body is one message; no such RPC today
            self.routes[PATH_PREFIX + method.name] = Route(
                method.name,
                message_factory.GetMessageClass(method.input_type),
                method.server_streaming,
                getattr(servicer, method.name),
            )

    def route(self, path: str) -> Route | None:
        return self.routes.get(path)

    def authorize(self, context: GatewayContext) -> None:
        """UNAUTHENTICATED unless the request's headers carry the servicer's token."""
        if self._authorize is None:
            return
        try:
            self._authorize(context.invocation_metadata())
        except NpcBrainError as error:
            raise Aborted(status_of(error), str(error)) from None

    def parse(self, route: Route, body: bytes) -> Message:
        """The request message of `body`; INVALID_ARGUMENT naming the field if it is not one."""
        message = route.request_type()
        try:
            text = body.decode("utf-8")
        except UnicodeDecodeError:
            raise Aborted(grpc.StatusCode.INVALID_ARGUMENT, "body: is not UTF-8") from None
        if not text.strip():
            return message  # an empty body is the empty message
        if not text.lstrip().startswith("{"):
            raise Aborted(grpc.StatusCode.INVALID_ARGUMENT, "body: must be a JSON object")
        try:
            json_format.Parse(text, message, ignore_unknown_fields=False)
        except json_format.ParseError as error:
            problem = parse_error_message(error)
            if len(problem) > MAX_ERROR_CHARS:
                problem = problem[:MAX_ERROR_CHARS] + "..."
            raise Aborted(grpc.StatusCode.INVALID_ARGUMENT, problem) from None
        except RecursionError:  # json_format reports most, not all, of too deep nesting
            raise Aborted(grpc.StatusCode.INVALID_ARGUMENT, "body: is nested too deeply") from None
        return message

    async def unary(self, route: Route, request: Message, context: GatewayContext) -> Any:
        """The reply of a unary RPC, as JSON-ready data; raises Aborted on a non-OK status."""
        try:
            reply = route.handler(request, context)
            if inspect.isawaitable(reply):
                reply = await reply
        except Exception as error:  # noqa: BLE001 - every failure becomes a status here
            raise as_aborted(error, context) from None
        code = context.code()
        if code not in (None, grpc.StatusCode.OK):  # set_code without an exception
            raise Aborted(code, context.details())
        return to_json(reply)

    async def stream(
        self, route: Route, request: Message, context: GatewayContext
    ) -> AsyncGenerator[Any, None]:
        """The events of a server-streaming RPC, as JSON-ready data; raises Aborted."""
        try:
            async for event in route.handler(request, context):
                yield to_json(event)
        except Exception as error:  # noqa: BLE001 - every failure becomes a status here
            raise as_aborted(error, context) from None


def as_aborted(error: Exception, context: GatewayContext) -> Aborted:
    """The status a failed call ends with, as grpc would report it."""
    if isinstance(error, Aborted):
        return error
    code = context.code()
    if code not in (None, grpc.StatusCode.OK):  # e.g. an RPC the servicer does not define
        return Aborted(code, context.details())
    log.error("unexpected error in an HTTP call", exc_info=error)
    return Aborted(grpc.StatusCode.UNKNOWN, "unexpected error; the server log has details")


def to_json(message: Message) -> Any:
    """protobuf's JSON mapping with proto field names, every field present."""
    return json_format.MessageToDict(
        message, preserving_proto_field_name=True, always_print_fields_with_no_presence=True
    )


def error_json(code: grpc.StatusCode, message: str) -> dict[str, Any]:
    """The error object: status name, gRPC code number, message, and the field it names.

    `field` is what INVALID_ARGUMENT's message names before its first ": " (the domain's
    InvalidArgument is always "<field>: <problem>"); empty for other statuses.
    """
    field = ""
    if code == grpc.StatusCode.INVALID_ARGUMENT and ": " in message:
        field = message.split(": ", 1)[0]
    return {
        "error": {"status": code.name, "code": code.value[0], "message": message, "field": field}
    }


def dumps(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


_AT_PATH = re.compile(r' at "?([A-Za-z_][\w.\[\]]*?)"?\.*$')
_NO_FIELD = re.compile(r'has no field named "([^"]+)"')
_CHAIN = re.compile(r"^Failed to parse (\w+) field: ")
_LOAD = "Failed to load JSON: "


def parse_error_message(error: json_format.ParseError) -> str:
    """json_format's error rephrased as "<field path>: <problem>" (field "body" if unknown)."""
    text = str(error).split("\n", 1)[0].strip()
    if text.startswith(_LOAD):
        while text.startswith(_LOAD):
            text = text[len(_LOAD) :]
        return f"body: is not valid JSON ({text.rstrip('.')})"
    chain: list[str] = []
    while match := _CHAIN.match(text):
        chain.append(match.group(1))
        text = text[match.end() :]
    path = ".".join(chain)
    at = _AT_PATH.search(text)
    if at is not None:
        text = text[: at.start()]
        located = at.group(1).split(".", 1)  # "<RequestType>.a[1].b" -> "a[1].b"
        path = located[1] if len(located) == 2 else ""
    unknown = _NO_FIELD.search(text)
    if unknown is not None:
        path = f"{path}.{unknown.group(1)}" if path else unknown.group(1)
        text = "is not a field of this message"
    return f"{path or 'body'}: {text.rstrip('.') or 'is invalid'}"
