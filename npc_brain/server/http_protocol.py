"""HTTP/1.1 on asyncio streams: reading one request, writing a whole or a chunked response.

Just what the JSON gateway needs (RFC 9112): request line and headers, bodies framed by
Content-Length (a chunked upload is refused with 411), `Expect: 100-continue`,
keep-alive by default on HTTP/1.1, and chunked transfer for streamed answers. Anything
malformed raises ProtocolError, which the caller answers and then closes the connection.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Sequence
from dataclasses import dataclass
from http import HTTPStatus

MAX_HEAD_BYTES = 16 * 1024
MAX_HEADERS = 100
_TOKEN = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
_REQUEST_LINE = re.compile(r"([!#$%&'*+\-.^_`|~0-9A-Za-z]+) (\S+) HTTP/(\d)\.(\d)")


class ProtocolError(Exception):
    """A request that cannot be served; `http_status` says why, `status` in gRPC's words."""

    def __init__(self, http_status: int, status: str, message: str) -> None:
        super().__init__(message)
        self.http_status = http_status
        self.status = status


@dataclass(frozen=True)
class Request:
    method: str
    target: str
    version: str  # "HTTP/1.1" or "HTTP/1.0"
    headers: tuple[tuple[str, str], ...]  # names lower-cased, in arrival order
    body: bytes

    def header(self, name: str) -> str | None:
        """The value of header `name` (lower case), the values joined if repeated."""
        values = [v for k, v in self.headers if k == name]
        return ", ".join(values) if values else None

    @property
    def path(self) -> str:
        return self.target.split("?", 1)[0]

    @property
    def keep_alive(self) -> bool:
        tokens = {t.strip().lower() for t in (self.header("connection") or "").split(",")}
        if self.version == "HTTP/1.0":
            return "keep-alive" in tokens
        return "close" not in tokens


async def read_request(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, max_body: int
) -> Request | None:
    """The next request on the connection; None when the client closed it between requests."""
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except asyncio.IncompleteReadError as error:
        if not error.partial.strip():
            return None
        raise ProtocolError(400, "INVALID_ARGUMENT", "incomplete request head") from None
    except asyncio.LimitOverrunError:
        raise ProtocolError(
            431, "RESOURCE_EXHAUSTED", f"request head is longer than {MAX_HEAD_BYTES} bytes"
        ) from None
    if len(head) > MAX_HEAD_BYTES:
        raise ProtocolError(
            431, "RESOURCE_EXHAUSTED", f"request head is longer than {MAX_HEAD_BYTES} bytes"
        )
    method, target, version, headers = _parse_head(head)
    length = _content_length(headers, max_body)
    if length and any(k == "expect" and v.lower() == "100-continue" for k, v in headers):
        writer.write(b"HTTP/1.1 100 Continue\r\n\r\n")
        await writer.drain()
    try:
        body = await reader.readexactly(length) if length else b""
    except asyncio.IncompleteReadError:
        return None  # the client went away mid-body: nobody to answer
    return Request(method, target, version, headers, body)


def _parse_head(head: bytes) -> tuple[str, str, str, tuple[tuple[str, str], ...]]:
    try:
        text = head.decode("ascii")
    except UnicodeDecodeError:
        raise ProtocolError(400, "INVALID_ARGUMENT", "request head is not ASCII") from None
    lines = text.split("\r\n")[:-2]
    while lines and lines[0] == "":  # RFC 9112 2.2: ignore empty lines before the request
        lines.pop(0)
    if not lines:
        raise ProtocolError(400, "INVALID_ARGUMENT", "empty request")
    match = _REQUEST_LINE.fullmatch(lines[0])
    if match is None:
        raise ProtocolError(400, "INVALID_ARGUMENT", "malformed request line")
    method, target, major, minor = match.groups()
    if (major, minor) not in {("1", "1"), ("1", "0")}:
        raise ProtocolError(505, "UNIMPLEMENTED", "only HTTP/1.1 and HTTP/1.0 are served")
    if len(lines) - 1 > MAX_HEADERS:
        raise ProtocolError(431, "RESOURCE_EXHAUSTED", f"more than {MAX_HEADERS} headers")
    headers = []
    for line in lines[1:]:
        name, colon, value = line.partition(":")
        if not colon or not _TOKEN.fullmatch(name):
            raise ProtocolError(400, "INVALID_ARGUMENT", f"malformed header line {line[:40]!r}")
        headers.append((name.lower(), value.strip(" \t")))
    return method, target, f"HTTP/{major}.{minor}", tuple(headers)


def _content_length(headers: Sequence[tuple[str, str]], max_body: int) -> int:
    if any(k == "transfer-encoding" for k, _ in headers):
        raise ProtocolError(
            411,
            "INVALID_ARGUMENT",
            "send the body with Content-Length (chunked uploads are refused)",
        )
    values = {v for k, v in headers if k == "content-length"}
    if not values:
        return 0
    if len(values) > 1 or not next(iter(values)).isdecimal():
        raise ProtocolError(400, "INVALID_ARGUMENT", "malformed Content-Length")
    length = int(next(iter(values)))
    if length > max_body:
        raise ProtocolError(
            413, "RESOURCE_EXHAUSTED", f"body of {length} bytes is over the {max_body} byte limit"
        )
    return length


def response_head(status: int, headers: Sequence[tuple[str, str]]) -> bytes:
    lines = [f"HTTP/1.1 {status} {HTTPStatus(status).phrase}"]
    lines += [f"{name}: {value}" for name, value in headers]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


async def write_response(
    writer: asyncio.StreamWriter,
    status: int,
    body: bytes,
    *,
    content_type: str,
    keep_alive: bool,
    headers: Sequence[tuple[str, str]] = (),
) -> None:
    """Writes a whole response framed by Content-Length."""
    head = response_head(
        status,
        [
            ("Content-Type", content_type),
            ("Content-Length", str(len(body))),
            ("Connection", "keep-alive" if keep_alive else "close"),
            *headers,
        ],
    )
    writer.write(head + body)
    await writer.drain()


class StreamingResponse:
    """A response whose body is written piece by piece, each piece sent at once.

    HTTP/1.1 clients get chunked transfer coding; an HTTP/1.0 client gets the raw bytes
    and the end of the body is the end of the connection.
    """

    def __init__(self, writer: asyncio.StreamWriter, *, chunked: bool) -> None:
        self._writer = writer
        self._chunked = chunked

    async def start(
        self,
        status: int,
        content_type: str,
        keep_alive: bool,
        extra_headers: Sequence[tuple[str, str]] = (),
    ) -> None:
        headers = [("Content-Type", content_type), ("Cache-Control", "no-cache"), *extra_headers]
        if self._chunked:
            headers.append(("Transfer-Encoding", "chunked"))
        keep_alive = keep_alive and self._chunked
        headers.append(("Connection", "keep-alive" if keep_alive else "close"))
        self._writer.write(response_head(status, headers))
        await self._writer.drain()

    async def write(self, data: bytes) -> None:
        if not data:
            return
        if self._chunked:
            self._writer.write(b"%x\r\n%s\r\n" % (len(data), data))
        else:
            self._writer.write(data)
        await self._writer.drain()

    async def end(self) -> None:
        if self._chunked:
            self._writer.write(b"0\r\n\r\n")
            await self._writer.drain()
