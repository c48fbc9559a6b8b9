"""Numbered schema migrations of a world store; each runs once, inside a transaction."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable


def _run_script(db: sqlite3.Connection, script: str) -> None:
    """Runs ';'-separated DDL inside the caller's transaction (executescript would commit)."""
    for statement in script.split(";"):
        if statement.strip():
            db.execute(statement)


def m001_create_schema(db: sqlite3.Connection) -> None:
    _run_script(
        db,
        """
        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE agents (
            agent_id TEXT PRIMARY KEY,
            persona_json TEXT NOT NULL,
            reflection_enabled INTEGER NOT NULL,
            planning_enabled INTEGER NOT NULL
        );
        CREATE TABLE memories (
            memory_id INTEGER PRIMARY KEY AUTOINCREMENT,
            agent_id TEXT NOT NULL REFERENCES agents(agent_id),
            kind INTEGER NOT NULL,
            description TEXT NOT NULL,
            subject TEXT NOT NULL, predicate TEXT NOT NULL, object TEXT NOT NULL,
            address TEXT NOT NULL,
            source_kind INTEGER NOT NULL, source_agent_id TEXT NOT NULL,
            created REAL NOT NULL,
            last_accessed REAL NOT NULL,
            importance REAL NOT NULL,
            evidence_json TEXT NOT NULL,
            depth INTEGER NOT NULL,
            embedding BLOB NOT NULL
        );
        CREATE INDEX memories_by_agent ON memories(agent_id, memory_id);
        CREATE TABLE places (
            agent_id TEXT NOT NULL REFERENCES agents(agent_id),
            address TEXT NOT NULL,
            first_seen REAL NOT NULL,
            PRIMARY KEY (agent_id, address)
        );
        """,
    )


def m002_expiry_and_memory_versions(db: sqlite3.Connection) -> None:
    """Memories may expire; each agent's memory set carries a version that changes on
    every write, so a persisted index can tell whether it is stale."""
    _run_script(
        db,
        """
        ALTER TABLE memories ADD COLUMN expires REAL;
        ALTER TABLE agents ADD COLUMN memory_version TEXT NOT NULL DEFAULT ''
        """,
    )


def m003_memory_switch(db: sqlite3.Connection) -> None:
    """The third ablation switch of the paper's conditions: memory off."""
    db.execute("ALTER TABLE agents ADD COLUMN memory_enabled INTEGER NOT NULL DEFAULT 1")


def m004_plans(db: sqlite3.Connection) -> None:
    """Each agent's plan of the day and its hour decompositions (JSON), so a restarted
    server carries on with the plan instead of planning the day again."""
    _run_script(
        db,
        """
        CREATE TABLE plans (
            agent_id TEXT PRIMARY KEY REFERENCES agents(agent_id) ON DELETE CASCADE,
            day REAL NOT NULL,
            plan_json TEXT NOT NULL
        )
        """,
    )


MIGRATIONS: tuple[Callable[[sqlite3.Connection], None], ...] = (
    m001_create_schema,
    m002_expiry_and_memory_versions,
    m003_memory_switch,
    m004_plans,
)
