"""Torch-free converter: Hugging Face BERT (sentence-transformers layout) -> GGUF f16.

Reproduces what llama.cpp's `convert_hf_to_gguf.py --outtype f16` writes for a
`BertModel` (metadata keys and order, phantom-space WordPiece vocabulary, tensor names,
F32 for 1-D tensors and position/token-type embeddings, F16 for other matrices, pooler
dropped) using only numpy, safetensors and gguf. Sizes come from config.json, so other
BERT-architecture sentence-transformers models in the same layout convert as well.
The output is a pure function of the input files, so its sha256 is stable.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import gguf
import numpy as np
import numpy.typing as npt
from safetensors.numpy import load_file

# BERT WordPiece vocabularies all hash to this pre-tokenizer in llama.cpp; it only
# selects the (unused by WPM) regex set, the WPM tokenizer does its own splitting.
_TOKENIZER_PRE = "jina-v2-en"
_DROPPED = ("embeddings.position_ids", "pooler.", "cls.predictions", "cls.seq_relationship")
_F32_TENSORS = (gguf.MODEL_TENSOR.POS_EMBD, gguf.MODEL_TENSOR.TOKEN_TYPES)
_POOLING_FLAGS = {
    "pooling_mode_mean_tokens": gguf.PoolingType.MEAN,
    "pooling_mode_cls_token": gguf.PoolingType.CLS,
    "pooling_mode_lasttoken": gguf.PoolingType.LAST,
}
_POOLING_MODES = {
    "mean": gguf.PoolingType.MEAN,
    "cls": gguf.PoolingType.CLS,
    "lasttoken": gguf.PoolingType.LAST,
}
_SPECIAL_TOKEN_IDS = ("bos", "eos", "unk", "sep", "pad", "mask")

Array = npt.NDArray[Any]


def convert_bert(model_dir: Path, out_path: Path) -> None:
    """Convert the BERT model in `model_dir` (config.json, model.safetensors,
    tokenizer.json, ...) to an f16 GGUF at `out_path`, written atomically."""
    config = _read_json(model_dir / "config.json")
    tensors = _gguf_tensors(model_dir / "model.safetensors", int(config["num_hidden_layers"]))
    writer = gguf.GGUFWriter(path=None, arch=gguf.MODEL_ARCH_NAMES[gguf.MODEL_ARCH.BERT])
    _add_general(writer, model_dir, sum(int(t.size) for t in tensors.values()))
    _add_hparams(writer, model_dir, config)
    _add_vocab(writer, model_dir, config)
    for name, data in tensors.items():
        writer.add_tensor(name, data)
    tmp = out_path.with_name(f".{out_path.name}.{os.getpid()}.tmp")
    try:
        writer.write_header_to_file(path=tmp)
        writer.write_kv_data_to_file()
        writer.write_tensors_to_file(progress=False)
        writer.close()
        os.replace(tmp, out_path)
    finally:
        writer.close()
        tmp.unlink(missing_ok=True)


def _read_json(path: Path) -> dict[str, Any]:
    data = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict):
        raise ValueError(f"{path}: expected a JSON object")
    return data


def _gguf_tensors(safetensors_path: Path, n_blocks: int) -> dict[str, Array]:
    """Load, filter, rename and cast the tensors, keeping the file's (sorted) order."""
    name_map = gguf.get_tensor_name_map(gguf.MODEL_ARCH.BERT, n_blocks)
    f32_names = {gguf.TENSOR_NAMES[t] + ".weight" for t in _F32_TENSORS}
    out: dict[str, Array] = {}
    for hf_name, data in sorted(load_file(str(safetensors_path)).items()):
        name = _normalise_hf_name(hf_name)
        if name.startswith(_DROPPED):
            continue
        new_name = name_map.get_name(name, try_suffixes=(".weight", ".bias"))
        if new_name is None:
            raise ValueError(f"{safetensors_path}: cannot map tensor {hf_name!r} to a GGUF name")
        keep_f32 = data.ndim <= 1 or new_name in f32_names or new_name.endswith("_norm.weight")
        out[new_name] = data.astype(np.float32 if keep_f32 else np.float16)
    return out


def _normalise_hf_name(name: str) -> str:
    """Undo the naming variants of older BERT checkpoints (`bert.` prefix, gamma/beta)."""
    name = name.removeprefix("bert.")
    if name.endswith(".gamma"):
        return name[: -len(".gamma")] + ".weight"
    if name.endswith(".beta"):
        return name[: -len(".beta")] + ".bias"
    return name


def _add_general(writer: gguf.GGUFWriter, model_dir: Path, n_params: int) -> None:
    # Same heuristics as llama.cpp (config `_name_or_path`, README front matter).
    meta = gguf.Metadata.load(None, model_dir, None, n_params)
    writer.add_type(gguf.GGUFType.MODEL)
    if meta.name:
        writer.add_name(meta.name)
    if meta.organization:
        writer.add_organization(meta.organization)
    writer.add_size_label(meta.size_label or gguf.size_label(n_params, n_params, 0, 0))
    if meta.license:
        writer.add_license(meta.license)


def _add_hparams(writer: gguf.GGUFWriter, model_dir: Path, config: dict[str, Any]) -> None:
    writer.add_block_count(int(config["num_hidden_layers"]))
    writer.add_context_length(int(config["max_position_embeddings"]))
    writer.add_embedding_length(int(config["hidden_size"]))
    writer.add_feed_forward_length(int(config["intermediate_size"]))
    writer.add_head_count(int(config["num_attention_heads"]))
    writer.add_layer_norm_eps(float(config.get("layer_norm_eps", 1e-12)))
    writer.add_file_type(gguf.LlamaFileType.MOSTLY_F16)
    writer.add_causal_attention(False)
    pooling = _pooling_type(model_dir)
    if pooling is not None:
        writer.add_pooling_type(pooling)
    writer.add_quantization_version(gguf.GGML_QUANT_VERSION)


def _pooling_type(model_dir: Path) -> gguf.PoolingType | None:
    """The sentence-transformers pooling, if the model has one llama.cpp supports."""
    config_path = _pooling_config_path(model_dir)
    if config_path is None:
        return None
    pooling = _read_json(config_path)
    for key, pooling_type in _POOLING_FLAGS.items():
        if pooling.get(key):
            return pooling_type
    if pooling.get("pooling_mode") in _POOLING_MODES:
        return _POOLING_MODES[pooling["pooling_mode"]]
    raise ValueError(f"{config_path}: unsupported pooling {pooling}")


def _pooling_config_path(model_dir: Path) -> Path | None:
    modules_path = model_dir / "modules.json"
    if modules_path.is_file():
        for module in json.loads(modules_path.read_text(encoding="utf-8")):
            if str(module.get("type", "")).endswith("Pooling"):
                return model_dir / str(module["path"]) / "config.json"
        return None
    fallback = model_dir / "1_Pooling" / "config.json"
    return fallback if fallback.is_file() else None


def _add_vocab(writer: gguf.GGUFWriter, model_dir: Path, config: dict[str, Any]) -> None:
    tokenizer = _read_json(model_dir / "tokenizer.json")
    if tokenizer["model"]["type"] != "WordPiece":
        raise ValueError(f"{model_dir}: only WordPiece tokenizers are supported")
    tokens, types = _phantom_vocab(tokenizer, int(config.get("vocab_size", 0)))
    writer.add_token_type_count(int(config.get("type_vocab_size", 1)))
    writer.add_tokenizer_model("bert")
    writer.add_tokenizer_pre(_TOKENIZER_PRE)
    writer.add_token_list(tokens)
    writer.add_token_types(types)
    # SpecialVocab reads tokenizer.json/tokenizer_config.json exactly as llama.cpp does;
    # its add_to_gguf would log a warning for `cls`, which GGUF has no key for.
    special = gguf.SpecialVocab(model_dir, n_vocab=len(tokens))
    for kind in _SPECIAL_TOKEN_IDS:
        if kind in special.special_token_ids:
            getattr(writer, f"add_{kind}_token_id")(special.special_token_ids[kind])
    for kind, value in special.add_special_token.items():
        getattr(writer, f"add_add_{kind}_token")(value)
    flags: dict[str, bool] = {}
    _normalizer_flags(tokenizer.get("normalizer") or {}, flags)
    for flag in ("lowercase", "strip_accents"):
        if flag in flags:
            writer.add_bool(f"tokenizer.ggml.normalizer.{flag}", flags[flag])


def _normalizer_flags(normalizer: dict[str, Any], flags: dict[str, bool]) -> None:
    """Collect the lowercase/strip_accents options of a tokenizers normalizer (as llama.cpp)."""
    kind = normalizer.get("type")
    if kind == "Lowercase":
        flags["lowercase"] = True
    elif kind == "StripAccents":
        flags["strip_accents"] = True
    elif kind == "BertNormalizer":
        # strip_accents null means "follow lowercase", which is llama.cpp's default too.
        for flag in ("lowercase", "strip_accents"):
            if isinstance(normalizer.get(flag), bool):
                flags[flag] = normalizer[flag]
    elif kind == "Sequence":
        for inner in normalizer.get("normalizers", []):
            _normalizer_flags(inner, flags)


def _phantom_vocab(tokenizer: dict[str, Any], vocab_size: int) -> tuple[list[str], list[int]]:
    """Token strings and types in llama.cpp's "phantom space" form.

    Special (added) tokens stay as-is (CONTROL); "##x" continuation pieces become "x";
    every other piece gets a leading U+2581 (NORMAL). Holes are filled like llama.cpp.
    """
    by_id = {int(i): tok for tok, i in tokenizer["model"]["vocab"].items()}
    added = {int(t["id"]): bool(t.get("special")) for t in tokenizer.get("added_tokens", [])}
    tokens: list[str] = []
    types: list[int] = []
    for i in range(max(vocab_size, len(by_id))):
        if i not in by_id:
            tok, kind = f"[PAD{i}]", gguf.TokenType.UNUSED
        elif i in added:
            tok, kind = (
                by_id[i],
                gguf.TokenType.CONTROL if added[i] else gguf.TokenType.USER_DEFINED,
            )
        else:
            tok, kind = by_id[i], gguf.TokenType.NORMAL
        if kind != gguf.TokenType.CONTROL:
            tok = tok[2:] if tok.startswith("##") else "\u2581" + tok
        tokens.append(tok)
        types.append(kind)
    return tokens, types
