"""Requantizing a GGUF with llama.cpp's own quantizer (`llama_model_quantize`).

The default chat model ships as Q4_1; its Q8_0 copy evaluates prompts ~1.5x faster on
the CPUs measured (`python -m bench.weights`): llama.cpp multiplies Q8_0 matrices with
its blocked kernels, Q4_1 ones row by row. Tensors already Q8_0 stay as they are.
"""

from __future__ import annotations

import os
from pathlib import Path

QUANTIZED_TYPES = {"q8_0": "LLAMA_FTYPE_MOSTLY_Q8_0"}


def quantize(source: Path, out: Path, kind: str) -> None:
    """Writes `source` requantized to `kind` (a key of QUANTIZED_TYPES) at `out`; the
    same bytes on every x86-64 machine for the same llama.cpp (its quantization code is
    plain C, built without machine-specific flags)."""
    import llama_cpp
    from llama_cpp._logger import set_verbose

    set_verbose(False)  # llama.cpp logs every tensor otherwise
    params = llama_cpp.llama_model_quantize_default_params()
    params.ftype = getattr(llama_cpp, QUANTIZED_TYPES[kind])
    params.allow_requantize = True  # the source is quantized already
    params.nthread = os.cpu_count() or 1
    status = llama_cpp.llama_model_quantize(str(source).encode(), str(out).encode(), params)
    if status != 0 or not out.is_file():
        raise RuntimeError(f"llama.cpp could not quantize {source} to {kind} (status {status})")
