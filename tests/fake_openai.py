"""A scripted OpenAI-compatible HTTP server on a free loopback port, for tests of the
remote backend: it records every request and answers from a queue of scripted replies."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    """One scripted answer. `pieces`: stream these as SSE content deltas (the request
    must ask to stream); otherwise `body` (JSON) with `status`. `delay_s` waits before
    answering; `hold` (an Event) is awaited before the last piece is sent."""

    status: int = 200
    body: Any = None
    pieces: list[str] | None = None
    finish_reason: str = "stop"
    delay_s: float = 0.0
    hold: threading.Event | None = None


def chat_answer(text: str, finish_reason: str = "stop") -> Reply:
    return Reply(
        body={
            "choices": [
                {"message": {"role": "assistant", "content": text}, "finish_reason": finish_reason}
            ],
            "usage": {"prompt_tokens": 11, "completion_tokens": 7},
        },
        finish_reason=finish_reason,
    )


@dataclass
class Request:
    path: str
    headers: dict[str, str]
    body: Any


@dataclass
class FakeOpenAI:
    """The server's script and what it saw. `default` answers when the queue is empty
    (a callable gets the request and returns a Reply)."""

    port: int = 0
    replies: list[Reply] = field(default_factory=list)
    default: Reply | Callable[[Request], Reply] | None = None
    requests: list[Request] = field(default_factory=list)
    in_flight: int = 0
    max_in_flight: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def enqueue(self, *replies: Reply) -> None:
        with self.lock:
            self.replies.extend(replies)

    def chat_bodies(self) -> list[Any]:
        return [r.body for r in self.requests if r.path.endswith("/chat/completions")]

    def next_reply(self, request: Request) -> Reply:
        with self.lock:
            self.requests.append(request)
            if self.replies:
                return self.replies.pop(0)
        if callable(self.default):
            return self.default(request)
        return self.default or Reply(500, {"error": {"message": "nothing scripted"}})


def _handler(fake: FakeOpenAI) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - quiet
            pass

        def do_GET(self) -> None:
            self._answer(None)

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            self._answer(json.loads(self.rfile.read(length)))

        def _answer(self, body: Any) -> None:
            request = Request(self.path, {k.lower(): v for k, v in self.headers.items()}, body)
            reply = fake.next_reply(request)
            with fake.lock:
                fake.in_flight += 1
                fake.max_in_flight = max(fake.max_in_flight, fake.in_flight)
            self._done = False
            try:
                time.sleep(reply.delay_s)
                if reply.pieces is not None:
                    self._stream(reply)
                else:
                    self._finished()
                    self._json(reply.status, reply.body)
            except (BrokenPipeError, ConnectionResetError):
                pass
            finally:
                self._finished()

        def _finished(self) -> None:
            """Out of flight before the last bytes go: once the client has them it may
            send its next request, before this thread would get here otherwise."""
            if not self._done:
                self._done = True
                with fake.lock:
                    fake.in_flight -= 1

        def _json(self, status: int, body: Any) -> None:
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _stream(self, reply: Reply) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Connection", "close")
            self.end_headers()
            pieces = reply.pieces or []
            for i, piece in enumerate(pieces):
                if i == len(pieces) - 1 and reply.hold is not None:
                    reply.hold.wait(timeout=30)
                delta = {"choices": [{"delta": {"content": piece}, "finish_reason": None}]}
                self._event(delta)
            self._event({"choices": [{"delta": {}, "finish_reason": reply.finish_reason}]})
            self._finished()
            self.wfile.write(b"data: [DONE]\n\n")
            self.wfile.flush()
            self.close_connection = True

        def _event(self, payload: Any) -> None:
            self.wfile.write(f"data: {json.dumps(payload)}\n\n".encode())
            self.wfile.flush()

    return Handler


@contextmanager
def fake_openai(**fields: Any) -> Iterator[FakeOpenAI]:
    """Serves a FakeOpenAI on 127.0.0.1 (port 0) until the block ends."""
    fake = FakeOpenAI(**fields)
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(fake))
    server.daemon_threads = True
    fake.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield fake
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)
