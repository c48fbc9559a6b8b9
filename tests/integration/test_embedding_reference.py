"""The fetched MiniLM GGUF (our converter) against llama.cpp's own reference conversion."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import gguf
import numpy as np
import pytest

from tests.reference import load_reference

REPO = Path(__file__).resolve().parents[2]
MODEL = REPO / "models" / "all-MiniLM-L6-v2.f16.gguf"
MIN_COSINE = 0.999

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def model_path() -> Path:
    if not MODEL.is_file():
        pytest.skip(f"{MODEL} is missing; run `npc-brain models fetch` first")
    return MODEL


def cosine(a: np.ndarray[Any, Any], b: np.ndarray[Any, Any]) -> float:
    return float(np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b)))


def test_embeddings_match_llama_cpp_reference(model_path: Path) -> None:
    from llama_cpp import Llama

    from npc_brain.llm.llama import load_llama

    reference = load_reference("minilm_reference_embeddings.json")
    llm = load_llama(Llama, model_path=str(model_path), embedding=True, verbose=False)
    try:
        cosines = {}
        for sentence in reference["sentences"]:
            ours = np.asarray(llm.embed(sentence["text"]), dtype=np.float64)
            assert ours.shape == (reference["dimension"],)
            cosines[sentence["text"]] = cosine(
                ours, np.asarray(sentence["embedding"], dtype=np.float64)
            )
    finally:
        llm.close()
    assert len(cosines) == 10
    low = {text: c for text, c in cosines.items() if c < MIN_COSINE}
    assert not low, f"cosine below {MIN_COSINE}: {low}"


def test_layout_matches_reference(model_path: Path) -> None:
    layout = load_reference("minilm_reference_gguf_layout.json")
    reader = gguf.GGUFReader(model_path)
    meta: dict[str, Any] = {}
    for field in reader.fields.values():
        if field.name.startswith("GGUF."):
            continue
        value = field.contents()
        if isinstance(value, list):
            value = {"list_len": len(value), "first": value[:5], "last": value[-3:]}
        meta[field.name] = value
    assert meta == layout["metadata"]
    assert list(meta) == list(layout["metadata"])
    tensors = [
        {"name": t.name, "shape": [int(d) for d in t.shape], "type": t.tensor_type.name}
        for t in reader.tensors
    ]
    assert tensors == layout["tensors"]
