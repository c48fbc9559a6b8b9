"""Choosing the store from the settings, and how a refusal names the world's owner on
both doors."""

from __future__ import annotations

import sys
from pathlib import Path

import grpc
import pytest

from npc_brain.config import Settings
from npc_brain.errors import InvalidArgument, Unavailable
from npc_brain.memory.stores import SqliteStores, stores_from_settings
from npc_brain.server.http_gateway import Aborted
from npc_brain.server.limits import retry_metadata
from npc_brain.server.status import status_of


def test_sqlite_is_the_default_and_a_url_of_another_database_is_refused(tmp_path: Path) -> None:
    assert isinstance(stores_from_settings(Settings(data_dir=tmp_path)), SqliteStores)
    with pytest.raises(InvalidArgument) as refused:
        stores_from_settings(Settings(data_dir=tmp_path, store_url="mysql://db/npc"))
    assert refused.value.field == "store_url"


def test_the_store_url_and_its_password_stay_out_of_the_settings_repr_and_logs() -> None:
    from npc_brain.memory.stores import _without_password

    assert "secret" not in repr(Settings(store_url="postgresql://npc:secret@db/npc"))
    assert _without_password("postgresql://npc:secret@db/npc") == "postgresql://npc:***@db/npc"


def test_a_world_served_elsewhere_is_unavailable_naming_its_owner_on_both_doors() -> None:
    error = Unavailable("world 'town' is served by b:50051", owner="b:50051", retry_after_s=2.5)
    assert status_of(error) == grpc.StatusCode.UNAVAILABLE
    metadata = retry_metadata(error)
    assert ("npc-brain-owner", "b:50051") in metadata
    headers = Aborted(grpc.StatusCode.UNAVAILABLE, str(error), metadata).http_headers()
    assert ("NPC-Brain-Owner", "b:50051") in headers and ("Retry-After", "3") in headers
    unreachable = retry_metadata(Unavailable("the store is unreachable"))
    assert [key for key, _ in unreachable] == ["retry-after-ms"]


def test_migrate_brings_every_world_up_to_date_on_either_store(
    tmp_path: Path, store_settings: dict[str, object], capsys: pytest.CaptureFixture[str]
) -> None:
    from npc_brain.cli import main
    from npc_brain.memory.migrations import MIGRATIONS

    flags = ["--data-dir", str(tmp_path)]
    if url := store_settings.get("store_url"):
        flags += ["--store-url", str(url)]
    stores = stores_from_settings(Settings(data_dir=tmp_path, **store_settings))  # type: ignore[arg-type]
    for world in ("harbour", "keep"):
        stores.open(world, create=True).close()
        stores.release(world)
    stores.close()
    assert main(["migrate", *flags]) == 0
    said = capsys.readouterr().out
    assert f"2 world(s) at schema version {len(MIGRATIONS)}" in said


def test_a_store_url_without_psycopg_installed_says_what_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from npc_brain.errors import FailedPrecondition

    for module in (
        "psycopg",
        "psycopg_pool",
        "npc_brain.memory.postgres",
        "npc_brain.memory.leases",
    ):
        monkeypatch.setitem(sys.modules, module, None)  # type: ignore[arg-type]
    settings = Settings(data_dir=tmp_path, store_url="postgresql://npc@db/npc")
    with pytest.raises(FailedPrecondition, match=r"pip install 'npc-brain\[postgres\]'"):
        stores_from_settings(settings)
