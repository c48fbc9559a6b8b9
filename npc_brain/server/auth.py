"""Who may call, and where the server may listen: one token check for both doors.

With a `token` set, every Brain call must carry `authorization: Bearer <token>`: gRPC
metadata, or the same HTTP header on the JSON gateway (whose context hands the servicer
its request headers as metadata, so one check serves both doors). The comparison takes
the same time whatever the token's prefix. Health checking and server reflection stay
open: they say nothing about any world. Without a token the server listens on loopback
only, unless told `insecure`.
"""

from __future__ import annotations

import hmac
import ipaddress
from collections.abc import Iterable

from npc_brain.config import Settings
from npc_brain.errors import InvalidArgument, Unauthenticated

HEADER = "authorization"
SCHEME = "bearer"


class TokenCheck:
    """Checks a call's metadata for the shared token; lets everything pass without one."""

    def __init__(self, token: str) -> None:
        self._token = token.encode("utf-8")

    def check(self, metadata: Iterable[tuple[str, str | bytes]] | None) -> None:
        """UNAUTHENTICATED unless the metadata carries `authorization: Bearer <token>`."""
        if not self._token:
            return
        given = [value for key, value in metadata or () if key.lower() == HEADER]
        if not given:
            raise Unauthenticated(
                "this server needs a token: send the header 'authorization: Bearer <token>'"
            )
        value = given[0] if isinstance(given[0], bytes) else given[0].encode("utf-8", "replace")
        scheme, _, credential = value.strip().partition(b" ")
        matches = hmac.compare_digest(credential.strip(), self._token)
        if scheme.lower() != SCHEME.encode() or not matches or len(given) > 1:
            raise Unauthenticated("the token is wrong")


def is_loopback(host: str) -> bool:
    """True for addresses only this machine can reach (127.0.0.0/8, ::1, localhost)."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False  # a name other than localhost, or "" / "0.0.0.0": reachable from outside


def check_exposure(settings: Settings) -> None:
    """Refuses settings that would serve the network without a token (unless `insecure`)
    or name half of a TLS key pair."""
    if not is_loopback(settings.host) and not settings.token and not settings.insecure:
        raise InvalidArgument(
            "host",
            f"refusing to serve {settings.host or 'every address'} without a token: set "
            "--token (or NPC_BRAIN_TOKEN), listen on 127.0.0.1, or pass --insecure to let "
            "anyone who can reach this address use the brain",
        )
    if bool(settings.tls_cert) != bool(settings.tls_key):
        missing = "tls_key" if settings.tls_cert else "tls_cert"
        raise InvalidArgument(missing, "TLS needs both tls_cert and tls_key")
