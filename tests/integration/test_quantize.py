"""The default chat model's Q8_0 copy, made by llama.cpp's own quantizer from the verified
Q4_1 file of the pinned wheel: the bytes the manifest records, and a model that loads
and answers."""

from __future__ import annotations

import json
import platform
from pathlib import Path

import pytest

from npc_brain.config import SOURCE_CHAT_MODEL
from npc_brain.llm.base import Message
from npc_brain.llm.llama import LlamaChat
from npc_brain.modelhub import default_manifest_path, load_manifest, sha256_file
from npc_brain.modelhub.quantize import quantize

REPO = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.integration


@pytest.mark.skipif(
    platform.machine() not in ("x86_64", "AMD64"),
    reason="the manifest records the bytes llama.cpp writes on x86-64",
)
def test_the_quantizer_writes_the_manifest_bytes_and_a_model_that_answers(tmp_path: Path) -> None:
    q8 = next(s for s in load_manifest(default_manifest_path()) if s.convert == "q8_0")
    out = tmp_path / q8.output
    quantize(REPO / "models" / SOURCE_CHAT_MODEL, out, "q8_0")
    assert sha256_file(out) == q8.output_sha256
    chat = LlamaChat(out, n_ctx=512, threads=1, prompt_cache_bytes=0)
    answer = chat.complete(
        [Message("user", "Name a colour.")],
        max_tokens=32,
        schema={
            "type": "object",
            "properties": {"colour": {"enum": ["red", "blue"]}},
            "required": ["colour"],
        },
    )
    assert json.loads(answer.text)["colour"] in ("red", "blue")
