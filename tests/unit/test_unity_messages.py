"""The Unity package's C# messages are what unity/generate_messages.py makes from the
proto (so a field added to the proto fails here until they are regenerated), and its
client has a method for every RPC."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

from npc_brain.v1 import brain_pb2

REPO = Path(__file__).resolve().parents[2]
RUNTIME = REPO / "unity" / "com.npc-brain.client" / "Runtime"


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "generate_messages", REPO / "unity" / "generate_messages.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_the_csharp_messages_are_generated_from_the_current_proto() -> None:
    generator = _generator()
    fresh = generator.render(generator.described_file())
    committed = (RUNTIME / "Messages.g.cs").read_text(encoding="utf-8")
    assert fresh == committed, "Messages.g.cs is stale or edited by hand: run `make unity-messages`"


def test_every_message_and_field_of_the_proto_is_in_the_csharp_messages() -> None:
    text = (RUNTIME / "Messages.g.cs").read_text(encoding="utf-8")
    renamed = _generator().RENAMED
    for message in brain_pb2.DESCRIPTOR.message_types_by_name.values():
        assert f"public partial class {renamed.get(message.name, message.name)}\n" in text
        for field in message.fields:
            assert f'[JsonProperty("{field.name}")]' in text, f"{message.name}.{field.name}"


def test_the_client_has_a_method_for_every_rpc() -> None:
    client = (RUNTIME / "NpcBrainClient.cs").read_text(encoding="utf-8")
    service = brain_pb2.DESCRIPTOR.services_by_name["Brain"]
    missing = [m.name for m in service.methods if f" {m.name}Async(" not in client]
    assert missing == []
