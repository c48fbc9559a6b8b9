"""The memory stream: records, the SQLite store, the per-agent index, retrieval scoring."""
