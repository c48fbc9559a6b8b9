"""A tiny HTTP/JSON client for tests, on the standard library's http.client."""

from __future__ import annotations

import http.client
import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any


@dataclass
class Answer:
    status: int
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


class HttpDoor:
    """POSTs to the gateway at 127.0.0.1:<port> over one keep-alive connection."""

    def __init__(self, port: int, timeout: float = 30.0) -> None:
        self.port = port
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)

    def close(self) -> None:
        self.connection.close()

    def request(
        self,
        http_method: str,
        path: str,
        body: bytes | str = b"",
        headers: Mapping[str, str] | None = None,
    ) -> Answer:
        given = {"Content-Type": "application/json", **(headers or {})}
        self.connection.request(http_method, path, body=body, headers=given)
        response = self.connection.getresponse()
        data = response.read()
        return Answer(response.status, {k.lower(): v for k, v in response.getheaders()}, data)

    def post(self, method: str, message: Mapping[str, Any] | str) -> Answer:
        body = message if isinstance(message, str) else json.dumps(message)
        return self.request("POST", f"/v1/{method}", body)

    def stream(self, method: str, message: Mapping[str, Any]) -> http.client.HTTPResponse:
        """Sends a streaming call; read the answer line by line with `.readline()`."""
        self.connection.request(
            "POST",
            f"/v1/{method}",
            body=json.dumps(message),
            headers={"Content-Type": "application/json"},
        )
        return self.connection.getresponse()

    def stream_lines(self, method: str, message: Mapping[str, Any]) -> Iterator[Any]:
        response = self.stream(method, message)
        assert response.status == 200, response.read()
        while line := response.readline():
            if line.strip():  # an empty line is a keep-alive (the reply waits for the model)
                yield json.loads(line)
