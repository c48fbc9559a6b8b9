"""Numbered schema migrations of a world store; each runs once, inside a transaction."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from npc_brain.memory.commitments import commitments_in

if TYPE_CHECKING:
    from npc_brain.memory.database import Connection


# PostgreSQL's full-text form of a memory: what m008 indexes, and what memory/lexical.py
# must search by, word for word, for the index to serve it.
POSTGRES_WORDS = "to_tsvector('english', description)"


def _postgresql(db: Connection) -> bool:
    from npc_brain.memory.database import dialect_of  # database imports this module

    return dialect_of(db) == "postgresql"


def _run_script(db: Connection, script: str) -> None:
    """Runs ';'-separated DDL inside the caller's transaction (executescript would commit)."""
    for statement in script.split(";"):
        if statement.strip():
            db.execute(statement)


def m001_create_schema(db: Connection) -> None:
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
    if _postgresql(db):  # SQLite's implicit rowid: the order places were learnt in
        db.execute("ALTER TABLE places ADD COLUMN rowid BIGINT GENERATED ALWAYS AS IDENTITY")


def m002_expiry_and_memory_versions(db: Connection) -> None:
    """Memories may expire; each agent's memory set carries a version that changes on
    every write, so a persisted index can tell whether it is stale."""
    _run_script(
        db,
        """
        ALTER TABLE memories ADD COLUMN expires REAL;
        ALTER TABLE agents ADD COLUMN memory_version TEXT NOT NULL DEFAULT ''
        """,
    )


def m003_memory_switch(db: Connection) -> None:
    """The third ablation switch of the paper's conditions: memory off."""
    db.execute("ALTER TABLE agents ADD COLUMN memory_enabled INTEGER NOT NULL DEFAULT 1")


def m004_plans(db: Connection) -> None:
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


def m005_sharing_and_claims(db: Connection) -> None:
    """Whom an agent may tell each memory, and claims: what passed from agent to agent.

    A claim is a memory its first holder told someone (its text and embedding are that
    memory's, kept when it is forgotten). `claim_holders` has one row per agent that
    holds a claim and per source it has it from: the holder's memory carrying it, the
    teller ('' for the first holder) and the teller's memory of saying it (the TOLD
    side), hops from the first holder and the game time it was heard, the first time."""
    _run_script(
        db,
        """
        ALTER TABLE memories ADD COLUMN private INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE memories ADD COLUMN share_with_json TEXT NOT NULL DEFAULT '[]';
        CREATE TABLE claims (
            claim_id INTEGER PRIMARY KEY AUTOINCREMENT,
            text TEXT NOT NULL,
            origin_agent_id TEXT NOT NULL,
            origin_memory_id INTEGER NOT NULL,
            created REAL NOT NULL,
            embedding BLOB NOT NULL
        );
        CREATE TABLE claim_holders (
            claim_id INTEGER NOT NULL REFERENCES claims(claim_id) ON DELETE CASCADE,
            agent_id TEXT NOT NULL,
            memory_id INTEGER NOT NULL,
            from_agent_id TEXT NOT NULL,
            from_memory_id INTEGER,
            hops INTEGER NOT NULL,
            heard REAL NOT NULL,
            PRIMARY KEY (claim_id, agent_id, from_agent_id)
        );
        CREATE INDEX claim_holders_by_memory ON claim_holders(memory_id);
        CREATE INDEX claim_holders_by_agent ON claim_holders(agent_id, from_agent_id)
        """,
    )


def m006_relationships(db: Connection) -> None:
    """Each agent's short summary of its relationship with each agent it talked with,
    rewritten after every conversation of the two (memory/relationships.py)."""
    _run_script(
        db,
        """
        CREATE TABLE relationships (
            agent_id TEXT NOT NULL,
            other_id TEXT NOT NULL,
            summary TEXT NOT NULL,
            conversations INTEGER NOT NULL,
            updated REAL NOT NULL,
            PRIMARY KEY (agent_id, other_id)
        )
        """,
    )


def m007_contradictions(db: Connection) -> None:
    """A heard claim that disagrees with another memory of the agent about the same
    thing: the less supported memory, its support, and the one it contradicts."""
    _run_script(
        db,
        """
        CREATE TABLE contradictions (
            agent_id TEXT NOT NULL,
            memory_id INTEGER NOT NULL,
            contradicts_id INTEGER NOT NULL,
            slot TEXT NOT NULL,
            support REAL NOT NULL,
            against_support REAL NOT NULL,
            noticed REAL NOT NULL,
            PRIMARY KEY (agent_id, memory_id)
        )
        """,
    )


def m008_lexical_index(db: Connection) -> None:
    """A full-text index of the memories' descriptions (SQLite's FTS5, Porter stems, no
    positions: which memories hold a word), kept by triggers in the same transaction as
    every insert and delete of a memory, and built for the memories already stored
    (memory/lexical.py reads it). PostgreSQL's: a GIN index of English stems."""
    if _postgresql(db):
        db.execute(f"CREATE INDEX memories_fts ON memories USING gin ({POSTGRES_WORDS})")
        return
    db.execute(
        "CREATE VIRTUAL TABLE memories_fts USING fts5(description, content='memories',"
        " content_rowid='memory_id', tokenize='porter unicode61', detail='none')"
    )
    db.execute(
        "CREATE TRIGGER memories_fts_insert AFTER INSERT ON memories BEGIN"
        " INSERT INTO memories_fts(rowid, description) VALUES (new.memory_id, new.description);"
        " END"
    )
    db.execute(
        "CREATE TRIGGER memories_fts_delete AFTER DELETE ON memories BEGIN"
        " INSERT INTO memories_fts(memories_fts, rowid, description)"
        " VALUES ('delete', old.memory_id, old.description);"
        " END"
    )
    db.execute("INSERT INTO memories_fts(memories_fts) VALUES ('rebuild')")


def m009_commitments(db: Connection) -> None:
    """The events each memory says will take place at an hour of a day (memory/
    commitments.py), written with the memory and deleted with it (a trigger), and read
    for the memories already stored."""
    _run_script(
        db,
        """
        CREATE TABLE commitments (
            agent_id TEXT NOT NULL,
            memory_id INTEGER NOT NULL,
            activity TEXT NOT NULL,
            start REAL NOT NULL,
            "end" REAL NOT NULL
        );
        CREATE INDEX commitments_by_time ON commitments (agent_id, start)
        """,
    )
    if _postgresql(db):
        db.execute(
            "CREATE FUNCTION commitments_delete() RETURNS trigger LANGUAGE plpgsql AS"
            " $$ BEGIN DELETE FROM commitments WHERE memory_id = OLD.memory_id; RETURN OLD; END $$"
        )
        db.execute(
            "CREATE TRIGGER commitments_delete AFTER DELETE ON memories FOR EACH ROW"
            " EXECUTE FUNCTION commitments_delete()"
        )
    else:
        db.execute(  # one statement: _run_script would split it at its inner ';'
            "CREATE TRIGGER commitments_delete AFTER DELETE ON memories BEGIN"
            " DELETE FROM commitments WHERE memory_id = old.memory_id; END"
        )
    rows = db.execute("SELECT agent_id, memory_id, description, created FROM memories")
    db.executemany(
        'INSERT INTO commitments (agent_id, memory_id, activity, start, "end")'
        " VALUES (?, ?, ?, ?, ?)",
        [
            (agent_id, memory_id, c.activity, c.start, c.end)
            for agent_id, memory_id, description, created in rows.fetchall()
            for c in commitments_in(description, created)
        ],
    )


def m010_game_actions(db: Connection) -> None:
    """The game actions each agent may choose in conversation (game_actions.py), and
    each action an agent chose in a reply, until the game reports what became of it
    (then `memory_id`: the memory of it)."""
    _run_script(
        db,
        """
        ALTER TABLE agents ADD COLUMN actions_json TEXT NOT NULL DEFAULT '[]';
        CREATE TABLE offers (
            action_id TEXT PRIMARY KEY,
            agent_id TEXT NOT NULL,
            speaker_id TEXT NOT NULL,
            name TEXT NOT NULL,
            arguments_json TEXT NOT NULL,
            price REAL NOT NULL,
            currency TEXT NOT NULL,
            said TEXT NOT NULL,
            created REAL NOT NULL,
            memory_id INTEGER
        )
        """,
    )


MIGRATIONS: tuple[Callable[[Connection], None], ...] = (
    m001_create_schema,
    m002_expiry_and_memory_versions,
    m003_memory_switch,
    m004_plans,
    m005_sharing_and_claims,
    m006_relationships,
    m007_contradictions,
    m008_lexical_index,
    m009_commitments,
    m010_game_actions,
)
