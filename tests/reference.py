"""Reference data the tests compare against, committed under tests/data.

minilm_reference_embeddings.json: llama.cpp's own conversion of all-MiniLM-L6-v2 (its
embeddings of ten sentences); minilm_reference_gguf_layout.json: that conversion's GGUF
metadata and tensor layout. Both are kept byte-identical to where they came from.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

REFERENCE_DIR = Path(__file__).resolve().parent / "data"


def load_reference(name: str) -> dict[str, Any]:
    """The parsed JSON file `name` of tests/data."""
    data: dict[str, Any] = json.loads((REFERENCE_DIR / name).read_text(encoding="utf-8"))
    return data
