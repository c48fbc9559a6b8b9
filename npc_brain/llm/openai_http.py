"""A small HTTP client for OpenAI-compatible servers (standard library only).

JSON POSTs and server-sent-event streams, with a bearer key, a timeout, retries with
exponential backoff (and jitter) on connection failures and on 408/429/5xx answers,
and a cap on requests in flight. A refusal of the request itself (4xx, or any answer
that names `response_format`) is not retried: sending it again would not help.
"""

from __future__ import annotations

import json
import logging
import random
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Generator, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from http.client import HTTPException, HTTPResponse
from typing import Any

from npc_brain.errors import ResourceExhausted

log = logging.getLogger(__name__)
RETRY_STATUSES = frozenset({408, 409, 425, 429, 500, 502, 503, 504})
MAX_BACKOFF_S = 8.0


class ModelServerUnavailable(ResourceExhausted):
    """The model server did not answer usably, even after the configured retries."""


class ApiError(ModelServerUnavailable):
    """The server answered a request with an error status."""

    def __init__(self, url: str, status: int, body: str) -> None:
        super().__init__(f"{url} answered {status}: {body[:300]}")
        self.status = status
        self.body = body

    @property
    def retryable(self) -> bool:
        return self.status in RETRY_STATUSES and "response_format" not in self.body


@dataclass(frozen=True)
class Endpoint:
    """Where an OpenAI-compatible API lives and how to talk to it.

    base_url: the API root, e.g. http://127.0.0.1:8080/v1 (paths like /chat/completions
    are appended). timeout_s bounds the connection, the first byte and each streamed
    piece. retries: extra tries after a failure that may pass. concurrency: requests
    in flight at once; more wait for a free slot.
    """

    base_url: str
    api_key: str = ""
    timeout_s: float = 120.0
    retries: int = 2
    concurrency: int = 1
    backoff_s: float = 0.5

    def url(self, path: str) -> str:
        return self.base_url.rstrip("/") + path


class ApiClient:
    """Posts to one Endpoint; thread-safe. `sleep` is replaceable for tests."""

    def __init__(self, endpoint: Endpoint, *, sleep: Callable[[float], None] = time.sleep) -> None:
        self.endpoint = endpoint
        self.retried = 0  # requests sent again after a failure (for stats and logs)
        self._sleep = sleep
        self._slots = threading.BoundedSemaphore(endpoint.concurrency)
        self._count_lock = threading.Lock()

    def get(self, path: str) -> Any:
        """GET path; the decoded JSON answer."""
        with self._slots, self._open(path, None) as response:
            return _decode(self.endpoint.url(path), response)

    def post(self, path: str, body: Mapping[str, Any]) -> Any:
        """POST body as JSON; the decoded JSON answer."""
        with self._slots, self._open(path, body) as response:
            return _decode(self.endpoint.url(path), response)

    def stream(self, path: str, body: Mapping[str, Any]) -> Generator[Any, None, None]:
        """POST body; yields each server-sent event's JSON until `data: [DONE]`.

        Failures before the answer starts are retried; a stream that breaks later raises
        ModelServerUnavailable (what it already sent cannot be taken back).
        """
        with self._slots, self._open(path, body) as response:
            try:
                for raw in response:
                    line = raw.decode("utf-8").strip()
                    if not line.startswith("data:"):
                        continue  # blank separators, comments, "event:" lines
                    data = line[5:].strip()
                    if data == "[DONE]":
                        return
                    yield json.loads(data)
            except (OSError, HTTPException, ValueError) as error:
                raise ModelServerUnavailable(
                    f"the stream from {self.endpoint.url(path)} broke: {error}"
                ) from error

    @contextmanager
    def _open(self, path: str, body: Mapping[str, Any] | None) -> Iterator[HTTPResponse]:
        url = self.endpoint.url(path)
        attempt = 0
        while True:
            try:
                response = self._request(url, body)
                break
            except ApiError as error:
                if not error.retryable or attempt >= self.endpoint.retries:
                    raise
                failure: Exception = error
            except (OSError, HTTPException) as error:  # refused, reset, timed out
                if attempt >= self.endpoint.retries:
                    raise ModelServerUnavailable(
                        f"the model server at {url} does not answer: {error}"
                    ) from error
                failure = error
            delay = min(MAX_BACKOFF_S, self.endpoint.backoff_s * 2**attempt)
            delay *= random.uniform(0.5, 1.0)
            log.warning("%s failed (%s); retrying in %.2f s", url, failure, delay)
            with self._count_lock:
                self.retried += 1
            self._sleep(delay)
            attempt += 1
        with response:
            yield response

    def _request(self, url: str, body: Mapping[str, Any] | None) -> HTTPResponse:
        headers = {"Accept": "application/json, text/event-stream"}
        data = None
        if body is not None:
            headers["Content-Type"] = "application/json"
            data = json.dumps(body).encode()
        if self.endpoint.api_key:
            headers["Authorization"] = f"Bearer {self.endpoint.api_key}"
        request = urllib.request.Request(url, data=data, headers=headers)
        try:
            response: HTTPResponse = urllib.request.urlopen(  # noqa: S310 - the configured URL
                request, timeout=self.endpoint.timeout_s
            )
        except urllib.error.HTTPError as error:
            try:
                text = error.read().decode("utf-8", "replace")
            except (OSError, HTTPException):
                text = ""
            finally:
                error.close()
            raise ApiError(url, error.code, text) from None
        except urllib.error.URLError as error:
            reason = error.reason
            raise (reason if isinstance(reason, OSError) else OSError(str(reason))) from error
        return response


def _decode(url: str, response: HTTPResponse) -> Any:
    try:
        return json.loads(response.read())
    except (OSError, HTTPException, ValueError) as error:
        raise ModelServerUnavailable(f"{url} sent no readable JSON: {error}") from error
