"""What the inspector's pages share: responses, escaping, links, game times, forms."""

from __future__ import annotations

import html
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from urllib.parse import parse_qs, urlencode

from npc_brain.errors import InvalidArgument
from npc_brain.memory.records import GameTime

PREFIX = "/inspect"
HTML = "text/html; charset=utf-8"
MAX_FIELDS = 64  # a query string or form with more fields is refused

# No script but our own file, no inline script or style, no other origin, no framing:
# even a memory text that slipped past escaping could run nothing.
SECURITY_HEADERS: tuple[tuple[str, str], ...] = (
    (
        "Content-Security-Policy",
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
        "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    ),
    ("X-Content-Type-Options", "nosniff"),
    ("X-Frame-Options", "DENY"),
    ("Referrer-Policy", "same-origin"),  # no-referrer would make Origin "null" on POSTs
    ("Cache-Control", "no-store"),
)


@dataclass
class Response:
    """One answer of the inspector; the HTTP door writes it."""

    status: int
    body: bytes
    content_type: str = HTML
    headers: list[tuple[str, str]] = field(default_factory=list)


def h(value: object) -> str:
    """Text for HTML, attributes included: every memory text goes through here."""
    return html.escape(str(value), quote=True)


def link(path: str, **params: object) -> str:
    """An inspector URL, e.g. link("agent", world="w", agent="a"), already escaped for an
    attribute. Parameters whose value is None or "" are left out."""
    kept = [(k, str(v)) for k, v in params.items() if v is not None and v != ""]
    url = f"{PREFIX}/{path}" if path else PREFIX
    return h(f"{url}?{urlencode(kept)}" if kept else url)


def query_params(query: str) -> dict[str, list[str]]:
    """The fields of a query string or form body; INVALID_ARGUMENT when it is malformed."""
    try:
        return parse_qs(
            query, keep_blank_values=True, strict_parsing=False, max_num_fields=MAX_FIELDS
        )
    except ValueError as error:
        raise InvalidArgument("request", f"is not a valid form ({error})") from None


def one(params: Mapping[str, Sequence[str]], name: str, default: str = "") -> str:
    values = params.get(name)
    return values[-1] if values else default


def number(params: Mapping[str, Sequence[str]], name: str, default: float) -> float:
    text = one(params, name).strip()
    if not text:
        return default
    try:
        value = float(text)
    except ValueError:
        raise InvalidArgument(name, f"{text[:40]!r} is not a number") from None
    if value != value or value in (float("inf"), float("-inf")):
        raise InvalidArgument(name, "must be finite")
    return value


def integer(params: Mapping[str, Sequence[str]], name: str, default: int) -> int:
    text = one(params, name).strip()
    if not text:
        return default
    if not text.lstrip("-").isdecimal() or len(text) > 12:
        raise InvalidArgument(name, f"{text[:40]!r} is not a whole number")
    return int(text)


def format_time(game_time: GameTime | None) -> str:
    """A game time for people: 2023-02-13 14:05 (seconds when there are any), UTC."""
    if game_time is None:
        return ""
    moment = datetime.fromtimestamp(game_time, UTC)
    text = moment.strftime("%Y-%m-%d %H:%M")
    if moment.second or moment.microsecond:
        text += moment.strftime(":%S") + (
            f".{moment.microsecond:06d}" if moment.microsecond else ""
        )
    return text


def time_input(game_time: GameTime | None) -> str:
    """A game time as a form field shows it (format_time, which parse_time reads back)."""
    return format_time(game_time)


def parse_time(field_name: str, text: str) -> GameTime | None:
    """A game time typed in a form: ISO 8601 (2023-02-13T14:05, 2023-02-13 14:05:30Z),
    UTC unless it names an offset, or Unix seconds; None when empty."""
    text = text.strip()
    if not text:
        return None
    try:
        return float(text)
    except ValueError:
        pass
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise InvalidArgument(
            field_name, f"{text[:40]!r} is not a game time like 2023-02-13 14:05"
        ) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.timestamp()


def cookies(header: str | None) -> dict[str, str]:
    """The cookies of a Cookie header (the first of each name)."""
    found: dict[str, str] = {}
    for part in (header or "").split(";"):
        name, sep, value = part.strip().partition("=")
        if sep and name and name not in found:
            found[name] = value.strip().strip('"')
    return found


def set_cookie(name: str, value: str, *, secure: bool, max_age: int | None = None) -> str:
    """A Set-Cookie value the page's scripts cannot read and other sites never send."""
    parts = [f"{name}={value}", f"Path={PREFIX}", "HttpOnly", "SameSite=Strict"]
    if secure:
        parts.append("Secure")
    if max_age is not None:
        parts.append(f"Max-Age={max_age}")
    return "; ".join(parts)


def options(values: Iterable[tuple[str, str]], selected: Sequence[str]) -> str:
    """<option>s of a <select>, the `selected` values marked."""
    return "".join(
        f'<option value="{h(v)}"{" selected" if v in selected else ""}>{h(label)}</option>'
        for v, label in values
    )
