"""Runs the addon's GDScript tests in a real Godot 4 engine: Godot's web export template
(fetched by setup.sh) in headless Chromium, against a real `npc-brain serve`.

    godot_addon/tests/web/setup.sh                 # once: Chromium, the engine (cached)
    python3 godot_addon/tests/web/run.py           # starts npc-brain serve itself
    python3 godot_addon/tests/web/run.py --server http://127.0.0.1:50052   # or uses yours

What happens: the project (godot_addon/) is packed into a .pck with runner.tscn as main
scene (pack.py); a page server on 127.0.0.1 serves index.html, the engine and the pack
cross-origin isolated (COOP same-origin, COEP require-corp, as Godot's web build needs)
and receives what the engine prints (POST /log, /exit); a fault gateway on another port
answers like a misbehaving npc-brain gateway (streams broken halfway, 413, 503, ...) for
the client's failure tests; Chromium opens the page with the engine arguments
`--headless -- --npc-brain-server=URL --npc-brain-faults=URL --npc-brain-dead=URL`. The
exit status is the engine's: 0 when every test passed. Standard library only; the pytest
tests/godot/test_godot_engine.py drives the same functions.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parent))
import pack  # noqa: E402  (this folder is no package: a developer runs this file)

WEB = Path(__file__).resolve().parent
PROJECT = WEB.parents[1]  # godot_addon/
ENGINE_DIR = Path(os.environ.get("NPC_BRAIN_GODOT_WEB", WEB / "engine"))
ENGINE_FILES = ("index.js", "index.wasm", "index.audio.worklet.js")
MAIN_SCENE = "res://tests/web/runner.tscn"
CHROMIUM_FLAGS = (
    "--headless=new",
    "--no-sandbox",
    "--use-angle=swiftshader",
    "--enable-unsafe-swiftshader",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-dev-shm-usage",
    "--disable-background-timer-throttling",
    "--disable-renderer-backgrounding",
    "--disable-backgrounding-occluded-windows",
    "--mute-audio",
)
CONTENT_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript",
    ".wasm": "application/wasm",
    ".pck": "application/octet-stream",
}
SUMMARY = re.compile(r"GDScript tests: (\d+) run, (\d+) passed, (\d+) failed, (\d+) pending")
ENGINE_VERSION = re.compile(r"^Godot Engine (v\S+)")


# The page server ---------------------------------------------------------------------


@dataclass
class EngineRun:
    """What one engine run printed (stdout and stderr lines, in order) and its end."""

    lines: list[str] = field(default_factory=list)
    exit_code: int | None = None
    seconds: float = 0.0

    @property
    def version(self) -> str | None:
        """ "v4.6.stable.official.89cea1439": from the engine's first line."""
        for line in self.lines:
            if match := ENGINE_VERSION.match(line):
                return match.group(1)
        return None

    @property
    def summary(self) -> dict[str, int] | None:
        """{"run", "passed", "failed", "pending"} from the runner's summary line."""
        for line in self.lines:
            if match := SUMMARY.search(line):
                run, passed, failed, pending = (int(g) for g in match.groups())
                return {"run": run, "passed": passed, "failed": failed, "pending": pending}
        return None

    @property
    def output(self) -> str:
        return "\n".join(self.lines)


class PageServer(ThreadingHTTPServer):
    """Serves the page, the engine and the pack from 127.0.0.1, cross-origin isolated,
    and collects what the engine prints."""

    daemon_threads = True

    def __init__(self, pck: bytes, echo: bool = False) -> None:
        super().__init__(("127.0.0.1", 0), _PageHandler)
        self.pck = pck
        self.echo = echo
        self.run = EngineRun()
        self.exited = threading.Event()
        self._received: list[tuple[int, str]] = []
        self._lock = threading.Lock()

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    def receive(self, path: str, message: dict[str, Any]) -> None:
        with self._lock:
            if path == "/log":
                text = str(message.get("text", ""))
                if message.get("stream") == "err":
                    text = "[stderr] " + text
                for line in text.splitlines() or [""]:
                    self._received.append((int(message.get("seq", 0)), line))
                    if self.echo:
                        print(line, flush=True)
            elif path == "/exit":
                self.run.exit_code = int(message.get("code", 255))
                self.exited.set()
            self.run.lines = [line for _, line in sorted(self._received, key=lambda r: r[0])]


class _PageHandler(BaseHTTPRequestHandler):
    server: PageServer

    def end_headers(self) -> None:
        self.send_header("Cross-Origin-Opener-Policy", "same-origin")
        self.send_header("Cross-Origin-Embedder-Policy", "require-corp")
        self.send_header("Cross-Origin-Resource-Policy", "same-origin")
        self.send_header("Cache-Control", "no-store")
        super().end_headers()

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        path = urlsplit(self.path).path
        body: bytes | None = None
        if path in ("/", "/index.html"):
            body, path = (WEB / "index.html").read_bytes(), "/index.html"
        elif path == "/tests.pck":
            body = self.server.pck
        elif path.startswith("/engine/") and Path(path).name in ENGINE_FILES + (
            "index.audio.position.worklet.js",
        ):
            file = ENGINE_DIR / Path(path).name
            body = file.read_bytes() if file.exists() else None
        if body is None:
            self.send_error(404)
            return
        self.send_response(200)
        self.send_header("Content-Type", CONTENT_TYPES.get(Path(path).suffix, "text/plain"))
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self) -> None:  # noqa: N802
        length = int(self.headers.get("Content-Length", "0"))
        try:
            message = json.loads(self.rfile.read(length) or b"{}")
        except json.JSONDecodeError:
            message = {}
        self.send_response(204)
        self.end_headers()
        if isinstance(message, dict):
            self.server.receive(urlsplit(self.path).path, message)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        pass


# The fault gateway -------------------------------------------------------------------


@dataclass
class Seen:
    """A request the fault gateway received."""

    method: str
    agent_ids: list[str]
    at_ms: float
    body: dict[str, Any]


class FaultGateway(ThreadingHTTPServer):
    """Answers /v1/<Method> like npc-brain's gateway, misbehaving as the agent id asks:

    - `busy-N-...`: the first N requests of this method and agent get 503 UNAVAILABLE;
      `throttled-N-...`: 429 RESOURCE_EXHAUSTED with Retry-After: 1; `drop-N-...`: the
      connection closes without an answer; then they are answered.
    - `too-large-...`: 413, `head-too-large-...`: 431 (RESOURCE_EXHAUSTED, never handled).
    - `slow-MS-...`: answered after MS milliseconds.
    - `broken-stream-...` (Converse): two tokens, then the connection is cut;
      `error-stream-...`: two tokens, then an {"error"} line (UNAVAILABLE);
      `waiting-MS-...`: a keep-alive blank line every 200 ms for MS ms, then the reply.
    - `bad-...` in a Tick: 400 INVALID_ARGUMENT naming that agent.
    - anything else: answered at once; a Converse streams "Hello", " there", then final.

    POST /v1/Faults {"agent_id": X} answers {"requests": [{"method", "at_ms", "agents"}]}:
    what it received for X (for the tests' counts and timings)."""

    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _FaultHandler)
        self.seen: list[Seen] = []
        self.lock = threading.Lock()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    def record(self, method: str, body: dict[str, Any]) -> int:
        """Records a request; returns how many of this method and agent came before."""
        agents = [str(a.get("agent_id", "")) for a in body.get("agents", []) if isinstance(a, dict)]
        agent_ids = agents or [str(body.get("agent_id", ""))]
        with self.lock:
            before = sum(1 for s in self.seen if s.method == method and s.agent_ids == agent_ids)
            self.seen.append(Seen(method, agent_ids, time.monotonic() * 1000.0, body))
        return before

    def requests_for(self, agent_id: str) -> list[dict[str, Any]]:
        with self.lock:
            return [
                {"method": s.method, "at_ms": s.at_ms, "agents": len(s.agent_ids)}
                for s in self.seen
                if agent_id in s.agent_ids
            ]


def _error(status: str, code: int, message: str, field_name: str = "") -> dict[str, Any]:
    return {"error": {"status": status, "code": code, "message": message, "field": field_name}}


def _action(agent_id: str, game_time: str) -> dict[str, Any]:
    return {
        "description": f"{agent_id} is idle",
        "address": "the Ville:Johnson Park",
        "start": game_time or "2023-02-13T08:00:00Z",
        "duration_minutes": 10,
        "emoji": "🙂",
        "object_state": "",
        "chat_with_agent_id": "",
        "chat": [],
    }


class _FaultHandler(BaseHTTPRequestHandler):
    server: FaultGateway
    protocol_version = "HTTP/1.1"

    def _cors(self) -> None:
        self.send_header("Access-Control-Allow-Origin", "*")
        self.send_header("Access-Control-Expose-Headers", "Retry-After")

    def do_OPTIONS(self) -> None:  # noqa: N802
        self.send_response(204)
        self._cors()
        self.send_header("Access-Control-Allow-Methods", "POST, OPTIONS")
        self.send_header("Access-Control-Allow-Headers", "Content-Type, Authorization")
        self.send_header("Access-Control-Max-Age", "600")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_POST(self) -> None:  # noqa: N802
        method = urlsplit(self.path).path.removeprefix("/v1/")
        length = int(self.headers.get("Content-Length", "0"))
        try:
            body = json.loads(self.rfile.read(length) or b"{}")
        except json.JSONDecodeError:
            body = {}
        if not isinstance(body, dict):
            body = {}
        if method == "Faults":
            self._json(200, {"requests": self.server.requests_for(str(body.get("agent_id")))})
            return
        before = self.server.record(method, body)
        agents = [str(a.get("agent_id", "")) for a in body.get("agents", [])]
        agent_id = str(body.get("agent_id", "")) or (agents[0] if agents else "")
        counted = re.match(r"^(busy|throttled|drop|slow|waiting)-(\d+)", agent_id)
        kind, number = (counted.group(1), int(counted.group(2))) if counted else ("", 0)
        if kind == "drop" and before < number:
            self.close_connection = True
            with contextlib.suppress(OSError):
                self.connection.shutdown(socket.SHUT_RDWR)
            return
        if kind == "busy" and before < number:
            self._json(503, _error("UNAVAILABLE", 14, "the server is busy"))
            return
        if kind == "throttled" and before < number:
            error = _error("RESOURCE_EXHAUSTED", 8, "queue full; retry in 1 s")
            self._json(429, error, [("Retry-After", "1")])
            return
        if agent_id.startswith("too-large"):
            self._json(413, _error("RESOURCE_EXHAUSTED", 8, "body is over the limit"))
            return
        if agent_id.startswith("head-too-large"):
            self._json(431, _error("RESOURCE_EXHAUSTED", 8, "request head is too long"))
            return
        if kind == "slow":
            time.sleep(number / 1000.0)
        bad = [i for i, a in enumerate(agents) if a.startswith("bad")]
        if bad:
            field_name = f"agents[{bad[0]}].agent_id"
            self._json(400, _error("INVALID_ARGUMENT", 3, f"{field_name}: is bad", field_name))
            return
        if method == "Converse":
            self._converse(agent_id, kind, number)
            return
        self._json(200, self._answer(method, agent_id, agents, body))

    def _answer(
        self, method: str, agent_id: str, agents: list[str], body: dict[str, Any]
    ) -> dict[str, Any]:
        game_time = str(body.get("game_time", ""))
        if method == "Tick":
            return {
                "results": [
                    {
                        "agent_id": a,
                        "action": _action(a, game_time),
                        "pending": False,
                        "memory_ids": [],
                    }
                    for a in agents
                ]
            }
        if method == "Act":
            return {"action": _action(agent_id, game_time), "pending": False}
        if method == "Perceive":
            return {"memory_ids": [f"m{i}" for i, _ in enumerate(body.get("observations", []))]}
        if method in ("UpsertAgent", "GetAgent"):
            persona = body.get("persona") or {"name": agent_id}
            return {"world_id": "default", "agent_id": agent_id, "persona": persona}
        return {}

    def _converse(self, agent_id: str, kind: str, number: int) -> None:
        self.send_response(200)
        self._cors()
        self.send_header("Content-Type", "application/x-ndjson")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        if kind == "waiting":
            until = time.monotonic() + number / 1000.0
            while time.monotonic() < until:
                self._chunk(b"\n")
                time.sleep(0.2)
        for token in ("Hello", " there"):
            self._chunk(json.dumps({"token": token}).encode() + b"\n")
            time.sleep(0.05)
        if agent_id.startswith("broken-stream"):
            self.close_connection = True
            with contextlib.suppress(OSError):
                self.connection.shutdown(socket.SHUT_RDWR)
            return
        if agent_id.startswith("error-stream"):
            line = _error("UNAVAILABLE", 14, "the model worker stopped")
        else:
            final = {"speaker_id": agent_id, "text": "Hello there", "end_conversation": False}
            line = {"final": final}
        self._chunk(json.dumps(line).encode() + b"\n")
        self._chunk(b"")

    def _chunk(self, data: bytes) -> None:
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    def _json(self, status: int, body: Any, headers: Sequence[tuple[str, str]] = ()) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self._cors()
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        pass


# Running -----------------------------------------------------------------------------


def missing_engine_files() -> list[str]:
    """The engine files setup.sh has not fetched yet (empty: ready)."""
    return [name for name in ENGINE_FILES if not (ENGINE_DIR / name).is_file()]


def find_chromium() -> str | None:
    names = (os.environ.get("NPC_BRAIN_CHROMIUM", ""), os.environ.get("CHROMIUM", ""))
    for name in (*names, "chromium", "chromium-browser", "google-chrome"):
        if name and (found := shutil.which(name)):
            return found
    return None


def dead_url() -> str:
    """A loopback URL nothing listens on (a port just bound and released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}"


@contextlib.contextmanager
def serving(server: ThreadingHTTPServer) -> Iterator[None]:
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield
    finally:
        server.shutdown()
        server.server_close()


def run_engine(
    page: PageServer,
    engine_args: Sequence[str],
    timeout_s: float = 480.0,
    chromium: str | None = None,
) -> EngineRun:
    """Opens the page in headless Chromium with `engine_args` as the engine's command
    line; waits until the engine exits (or `timeout_s`); returns what it printed."""
    browser = chromium or find_chromium()
    if browser is None:
        raise RuntimeError("no Chromium: run godot_addon/tests/web/setup.sh")
    query = "&".join("arg=" + _quote(arg) for arg in engine_args)
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="npc-brain-chromium-") as profile:
        log_path = Path(profile) / "chromium.log"
        with log_path.open("wb") as log:
            process = subprocess.Popen(
                [browser, *CHROMIUM_FLAGS, f"--user-data-dir={profile}/profile"]
                + [f"{page.origin}/index.html?{query}"],
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
            try:
                while not page.exited.wait(0.5):
                    if time.monotonic() - started > timeout_s:
                        page.run.lines.append(f"[run.py] the engine did not exit in {timeout_s} s")
                        break
                    if process.poll() is not None:
                        page.run.lines.append(f"[run.py] Chromium exited ({process.returncode})")
                        break
            finally:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGTERM)
                try:
                    process.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    os.killpg(process.pid, signal.SIGKILL)
                    process.wait()
        if page.run.exit_code is None:
            tail = log_path.read_text(errors="replace").splitlines()[-20:]
            page.run.lines += ["[run.py] Chromium's log ends:", *tail]
    page.run.seconds = time.monotonic() - started
    return page.run


def _quote(text: str) -> str:
    from urllib.parse import quote

    return quote(text, safe="")


def engine_args(server_url: str, faults_url: str, dead: str) -> list[str]:
    """The engine's command line: headless, then the tests' own arguments."""
    return [
        "--headless",
        "--",
        f"--npc-brain-server={server_url}",
        f"--npc-brain-faults={faults_url}",
        f"--npc-brain-dead={dead}",
    ]


@contextlib.contextmanager
def npc_brain_serve(cors_origin: str, data_dir: Path) -> Iterator[str]:
    """`npc-brain serve` on free ports, the page's origin allowed; yields the HTTP URL."""
    command = shutil.which("npc-brain") or str(Path(sys.executable).parent / "npc-brain")
    process = subprocess.Popen(
        [command, "serve", "--port", "0", "--http-port", "0"]
        + ["--http-cors-origins", cors_origin, "--data-dir", str(data_dir)],
        stdout=subprocess.PIPE,
        text=True,
        env=os.environ | {"PYTHONUNBUFFERED": "1"},
    )
    assert process.stdout is not None
    try:
        lines = [process.stdout.readline(), process.stdout.readline()]
        http = [line for line in lines if "serving HTTP/JSON on" in line]
        if not http:
            raise RuntimeError(f"npc-brain serve did not start: {lines}")
        yield "http://" + http[0].rsplit(" ", 1)[1].strip()
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--server", help="a running gateway (its --http-cors-origins must be *)")
    parser.add_argument("--project", type=Path, default=PROJECT, help="the Godot project")
    parser.add_argument("--timeout", type=float, default=480.0, help="seconds for the run")
    parser.add_argument("--chromium", help="the browser (default: chromium on PATH)")
    args = parser.parse_args(argv)
    if missing := missing_engine_files():
        print(f"missing {missing} in {ENGINE_DIR}: run {WEB / 'setup.sh'}", file=sys.stderr)
        return 2
    with tempfile.NamedTemporaryFile(suffix=".pck") as out:
        pack.pack_project(args.project, Path(out.name), MAIN_SCENE)
        pck = Path(out.name).read_bytes()
    page, faults = PageServer(pck, echo=True), FaultGateway()
    with serving(page), serving(faults), contextlib.ExitStack() as stack:
        server = args.server
        if server is None:
            data = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="npc-brain-")))
            server = stack.enter_context(npc_brain_serve(page.origin, data))
        run = run_engine(page, engine_args(server, faults.url, dead_url()), args.timeout)
    print(f"engine {run.version}, {run.summary}, exit {run.exit_code}, {run.seconds:.0f} s")
    return run.exit_code if run.exit_code is not None else 1


if __name__ == "__main__":
    sys.exit(main())
