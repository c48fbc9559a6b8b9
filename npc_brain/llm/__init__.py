"""Model seams: the ChatModel and Embedder protocols, llama.cpp backends, fakes."""

from npc_brain.llm.base import ChatModel, Completion, Embedder, Message, TokenSink

__all__ = ["ChatModel", "Completion", "Embedder", "Message", "TokenSink"]
