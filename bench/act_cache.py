"""Writes the embeddings of the dialogue acts', facets', deals' and needs' examples for the
default embedder, shipped beside them (npc_brain/mind/talk/data/*.npy), so a server fits
its classifiers without embedding some 2,500 examples first. Run after editing acts.tsv,
facets.tsv, deals.tsv, consequences.tsv or needs.tsv:

    python -m bench.act_cache
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from npc_brain.config import Settings
from npc_brain.llm.backends import embedder_from_settings
from npc_brain.mind.talk.acts import cache_name, shipped
from npc_brain.mind.talk.understand import CLASSIFIED

DATA = Path(__file__).resolve().parents[1] / "npc_brain" / "mind" / "talk" / "data"


def main() -> None:
    embedder = embedder_from_settings(Settings())
    for old in DATA.glob("*.npy"):
        old.unlink()
    for file, labels in CLASSIFIED.items():
        texts = [e.text for e in shipped(file, labels)]
        name = cache_name(file, embedder.model_id, texts)
        np.save(DATA / name, embedder.embed(texts).astype(np.float16), allow_pickle=False)
        print(f"wrote {DATA / name}")


if __name__ == "__main__":
    main()
