"""Where the server may listen and what a token check accepts."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from npc_brain.cli import build_parser
from npc_brain.config import Settings, load_settings
from npc_brain.errors import InvalidArgument, Unauthenticated
from npc_brain.server.auth import TokenCheck, check_exposure, is_loopback


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("127.0.0.1", True),
        ("127.8.9.10", True),
        ("::1", True),
        ("[::1]", True),
        ("localhost", True),
        ("0.0.0.0", False),
        ("::", False),
        ("", False),
        ("192.168.1.20", False),
        ("my-laptop.lan", False),
    ],
)
def test_loopback_addresses(host: str, loopback: bool) -> None:
    assert is_loopback(host) is loopback


def test_a_non_loopback_host_needs_a_token_or_insecure() -> None:
    with pytest.raises(InvalidArgument) as error:
        check_exposure(Settings(host="0.0.0.0"))
    assert error.value.field == "host" and "--insecure" in str(error.value)
    check_exposure(Settings(host="0.0.0.0", token="t"))
    check_exposure(Settings(host="0.0.0.0", insecure=True))
    check_exposure(Settings(host="127.0.0.1"))


def test_tls_needs_both_files() -> None:
    with pytest.raises(InvalidArgument) as error:
        check_exposure(Settings(tls_cert="cert.pem"))
    assert error.value.field == "tls_key"


def test_token_check() -> None:
    check = TokenCheck("s3cret")
    check.check([("authorization", "Bearer s3cret")])
    check.check([("Authorization", "bearer  s3cret ")])
    check.check([("authorization", b"Bearer s3cret")])
    for metadata in (
        [],
        None,
        [("authorization", "Bearer s3cre")],
        [("authorization", "Bearer s3cret"), ("authorization", "Bearer other")],
        [("authorization", "Token s3cret")],
        [("x-authorization", "Bearer s3cret")],
        [("authorization", "Bearer s3crét")],
    ):
        with pytest.raises(Unauthenticated):
            check.check(metadata)
    TokenCheck("").check([])  # no token: every call passes


def test_insecure_is_a_switch_and_reads_from_the_environment() -> None:
    args = build_parser().parse_args(["serve", "--insecure", "--token", "t"])
    assert args.insecure is True and args.token == "t"
    assert build_parser().parse_args(["serve"]).insecure is None
    assert load_settings(env={"NPC_BRAIN_INSECURE": "yes"}).insecure is True
    assert load_settings(env={"NPC_BRAIN_INSECURE": "0"}).insecure is False
    with pytest.raises(InvalidArgument):
        load_settings(env={"NPC_BRAIN_INSECURE": "perhaps"})


def test_serve_refuses_a_public_address_without_a_token_before_loading_anything() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("NPC_BRAIN_")}
    done = subprocess.run(
        [sys.executable, "-m", "npc_brain", "serve", "--host", "0.0.0.0", "--port", "0"],
        capture_output=True,
        text=True,
        timeout=60,
        env=env | {"NPC_BRAIN_CHAT_MODEL": "/nonexistent.gguf"},
    )
    assert done.returncode == 1
    assert "refusing to serve 0.0.0.0 without a token" in done.stderr
    assert done.stderr.count("\n") == 1, "one clear sentence"
