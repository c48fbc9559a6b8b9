"""Scale-out: worlds in one PostgreSQL shared by several `npc-brain serve` processes, each
figure beside its baseline in the same run (bench section "scale-out", about 5 minutes).

- failover: two servers, lease 3 s; 10 times, a writer loads the owner, the owner is
  SIGKILLed, and a client that follows `npc-brain-owner` finds the world on the other
  server: acknowledged writes lost, and the time from the kill to the world served;
- a forced lease race, 1,000 tries (tests/postgres/race.py): writers at once;
- Perceive writes/s through a real server, and the store's own writes/s, on PostgreSQL
  against SQLite on this machine;
- Retrieve p99 on a world of 100,000 memories just taken over (loaded) from PostgreSQL,
  against the same world loaded from SQLite;
- 4 servers, 200 worlds, clients calling any server and following the owner's address:
  worlds per server, and whether each is served by exactly one;
- the database stopped for 3 s, then restarted, under load: status codes seen, and the
  time from the restart to the first success.

    python -m bench --only scale-out
"""

from __future__ import annotations

import os
import random
import sys
import threading
import time
from collections import Counter
from pathlib import Path
from tempfile import TemporaryDirectory

import grpc
import numpy as np
from google.protobuf.timestamp_pb2 import Timestamp

from bench.common import Row, p50_p99
from npc_brain.config import Settings
from npc_brain.memory import postgres
from npc_brain.memory.records import MemoryKind, NewMemory
from npc_brain.memory.store import Perception, WorldStore
from npc_brain.memory.stores import PostgresStores
from npc_brain.persona import AgentRecord, Persona
from npc_brain.v1 import brain_pb2 as pb
from npc_brain.v1 import brain_pb2_grpc
from tests.integration.server_process import ServerProcess, stored_memories
from tests.postgres.race import lease_race
from tests.postgres.server import TemporaryPostgres

SECTION = "scale-out"
LEASE_S = 3.0
KILLS = 10
T0 = 1_676_365_200
WORDS = (  # the memories' and queries' vocabulary
    "bread",
    "harbour",
    "lantern",
    "festival",
    "saffron",
    "mayor",
    "boat",
    "gull",
    "net",
    "anchor",
    "smithy",
    "horseshoe",
    "tavern",
    "ale",
    "rumour",
    "letter",
    "key",
    "gate",
    "bell",
    "tower",
    "market",
    "cheese",
    "wool",
    "loom",
    "mill",
    "river",
    "bridge",
    "storm",
    "lighthouse",
    "chapel",
    "choir",
    "herb",
    "potion",
    "sword",
    "shield",
    "wagon",
    "road",
    "inn",
)


def _log(text: str) -> None:
    print(f"[scale-out] {text}", file=sys.stderr, flush=True)


def _shared(data_dir: Path, url: str, *flags: str) -> ServerProcess:
    return ServerProcess(data_dir, "--store-url", url, *flags)


def _perceive(stub: brain_pb2_grpc.BrainStub, world: str, text: str, seconds: int) -> str:
    reply = stub.Perceive(
        pb.PerceiveRequest(
            world_id=world,
            agent_id="npc",
            game_time=Timestamp(seconds=seconds),
            observations=[pb.Observation(text=text, importance=1)],
        ),
        timeout=30,
    )
    return str(reply.memory_ids[0])


def _upsert(stub: brain_pb2_grpc.BrainStub, world: str) -> None:
    stub.UpsertAgent(
        pb.UpsertAgentRequest(world_id=world, agent_id="npc", persona=pb.Persona(name="Ada")),
        timeout=30,
    )


def _memory_ids(stub: brain_pb2_grpc.BrainStub, world: str) -> set[str]:
    return set(stored_memories(stub, "npc", world))


def failover(database: TemporaryPostgres, folder: Path) -> tuple[int, int, list[float]]:
    """(acknowledged writes, lost, seconds from each kill to the world served again)."""
    url = database.create_database("failover")
    flags = ("--lease-seconds", str(LEASE_S))
    servers = [_shared(folder / f"server{i}", url, *flags) for i in range(2)]
    _upsert(servers[0].stub, "town")
    acked: set[str] = set()
    lost: set[str] = set()
    takeovers = []
    try:
        for cycle in range(KILLS):
            owner, heir = servers[cycle % 2], servers[1 - cycle % 2]
            stop = threading.Event()

            def write(
                server: ServerProcess = owner, cycle: int = cycle, stop: threading.Event = stop
            ) -> None:
                for i in range(100_000):
                    try:
                        acked.add(_perceive(server.stub, "town", f"event {cycle}.{i}", T0 + i))
                    except (grpc.RpcError, ValueError):
                        return
                    if stop.is_set():
                        return

            writer = threading.Thread(target=write)
            writer.start()
            time.sleep(1.0)
            owner.kill()
            killed = time.monotonic()
            stop.set()
            writer.join(timeout=60)
            while True:
                try:
                    stored = _memory_ids(heir.stub, "town")
                    break
                except grpc.RpcError as error:
                    if error.code() != grpc.StatusCode.UNAVAILABLE:
                        raise
                    time.sleep(0.05)
            takeovers.append(time.monotonic() - killed)
            lost |= acked - stored
            _log(
                f"kill {cycle + 1}: server {cycle % 2} SIGKILLed with {len(acked)} writes"
                f" acked; server {1 - cycle % 2} serves the world {takeovers[-1]:.2f} s later"
                f" with {len(stored)} memories; lost so far {len(lost)}"
            )
            servers[cycle % 2] = _shared(folder / f"restarted{cycle}", url, *flags)
        return len(acked), len(lost), takeovers
    finally:
        for server in servers:
            server.kill()


def race(database: TemporaryPostgres) -> str:
    pool = postgres.connect(database.create_database("race"), 4, 10)
    try:
        result = lease_race(pool, 1000)
    finally:
        pool.close()
    _log(f"lease race: {result}")
    return (
        f"{result.overlaps} at once; {result.writes} writes, {result.owners} owners,"
        f" epochs {'in order' if result.epochs_in_order else 'OUT OF ORDER'}"
    )


def perceive_rate(data_dir: Path, *flags: str, writes: int = 300) -> float:
    """Perceive calls a second through a real server, 4 clients at once."""
    server = ServerProcess(data_dir, *flags)
    try:
        _upsert(server.stub, "town")
        _perceive(server.stub, "town", "warm up", T0)

        def client(k: int) -> None:
            for i in range(writes // 4):
                _perceive(server.stub, "town", f"{random.choice(WORDS)} {k}.{i}", T0 + i)

        threads = [threading.Thread(target=client, args=(k,)) for k in range(4)]
        start = time.perf_counter()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        return writes / (time.perf_counter() - start)
    finally:
        server.stop()


def store_rate(store: WorldStore, writes: int = 500) -> float:
    """The store's own committed writes a second: one Perceive's perception each."""
    store.bind_embedding_model("bench", 4)
    store.upsert_agent(AgentRecord("npc", Persona("Ada")))
    vector = np.ones((1, 4), np.float32)
    start = time.perf_counter()
    for i in range(writes):
        memory = NewMemory(MemoryKind.OBSERVATION, f"{random.choice(WORDS)} {i}", T0 + i, 1.0)
        store.add_perceptions([Perception("npc", ["town:square"], T0 + i, [memory], vector)])
    rate = writes / (time.perf_counter() - start)
    store.close()
    return rate


def _fill(store: WorldStore, count: int, model: tuple[str, int]) -> None:
    """`count` memories of one NPC, random unit embeddings, texts of a small vocabulary."""
    rng = np.random.default_rng(3)
    store.bind_embedding_model(*model)
    store.upsert_agent(AgentRecord("npc", Persona("Ada")))
    for start in range(0, count, 2000):
        n = min(2000, count - start)
        vectors = rng.standard_normal((n, model[1])).astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        memories = [
            NewMemory(
                MemoryKind.OBSERVATION,
                " ".join(rng.choice(WORDS, 6)),
                T0 + 60 * (start + i),
                float(rng.integers(1, 10)),
            )
            for i in range(n)
        ]
        store.add_memories("npc", memories, vectors)
    store.close()


def retrieval_after_takeover(server: ServerProcess, calls: int = 200) -> tuple[float, list[float]]:
    """(seconds of the first Retrieve: the world loaded, its index built; each later one)."""
    rng = random.Random(5)

    def retrieve() -> float:
        query = " ".join(rng.sample(WORDS, 3))
        start = time.perf_counter()
        server.stub.Retrieve(
            pb.RetrieveRequest(
                world_id="town",
                agent_id="npc",
                game_time=Timestamp(seconds=T0 + 60 * 200_000),
                query=query,
                k=10,
            ),
            timeout=600,
        )
        return time.perf_counter() - start

    first = retrieve()
    return first, [retrieve() for _ in range(calls)]


def spread(database: TemporaryPostgres, folder: Path, worlds: int = 200) -> tuple[str, bool]:
    """4 servers; each world's first call goes to a random one, which serves it or names
    its owner. Returns (worlds per server, whether every world has exactly one owner that
    serves it while the others refuse it)."""
    url = database.create_database("spread")
    servers = [_shared(folder / f"spread{i}", url) for i in range(4)]
    by_address = {f"127.0.0.1:{s.port}": s for s in servers}
    redirects = 0
    try:
        for w in range(worlds):
            world = f"world-{w}"
            for call in (_upsert, lambda stub, world: _perceive(stub, world, "opened", T0)):
                server = random.choice(servers)  # a client that knows nothing of owners
                for _ in range(3):
                    try:
                        call(server.stub, world)
                        break
                    except grpc.RpcError as error:
                        owner = dict(error.trailing_metadata() or ()).get("npc-brain-owner")
                        if error.code() != grpc.StatusCode.UNAVAILABLE or owner not in by_address:
                            raise
                        server, redirects = by_address[owner], redirects + 1
        with postgres.connect(url, 1, 10) as pool, pool.connection() as connection:
            owners = dict(
                connection.execute("SELECT world_id, address FROM public.npc_brain_worlds")
            )
        exactly_one = len(owners) == worlds
        for world in random.sample(sorted(owners), 20):  # the others refuse it
            for address, server in by_address.items():
                try:
                    _memory_ids(server.stub, world)
                    exactly_one &= address == owners[world]
                except grpc.RpcError as error:
                    exactly_one &= address != owners[world]
                    exactly_one &= error.code() == grpc.StatusCode.UNAVAILABLE
        counts = Counter(owners.values())
        per_server = " / ".join(str(counts[a]) for a in by_address)
        _log(f"spread: worlds per server {per_server}; {redirects} calls followed the owner")
        return f"{per_server} worlds per server ({redirects} redirects)", exactly_one
    finally:
        for server in servers:
            server.stop()


def outage(database: TemporaryPostgres, folder: Path) -> tuple[Counter[str], float]:
    """Status codes of Perceive calls under load while the database is stopped for 3 s,
    and the seconds from its restart to the first success."""
    url = database.create_database("outage")
    server = _shared(folder / "outage", url, "--store-timeout-seconds", "1")
    codes: Counter[str] = Counter()
    successes: list[float] = []
    stop = threading.Event()
    _upsert(server.stub, "town")

    def load(k: int) -> None:
        i = 0
        while not stop.is_set():
            i += 1
            try:
                _perceive(server.stub, "town", f"load {k}.{i}", T0 + i)
                codes["OK"] += 1
                successes.append(time.monotonic())
            except grpc.RpcError as error:
                codes[error.code().name] += 1
                time.sleep(0.05)

    threads = [threading.Thread(target=load, args=(k,)) for k in range(2)]
    try:
        for thread in threads:
            thread.start()
        time.sleep(2)
        database.stop("fast")
        time.sleep(3)
        database.start()
        restarted = time.monotonic()
        time.sleep(8)
    finally:
        stop.set()
        for thread in threads:
            thread.join(timeout=60)
        server.stop()
    after = [t for t in successes if t > restarted]
    return codes, (after[0] - restarted) if after else float("inf")


def rows() -> list[Row]:
    os.environ["NPC_BRAIN_HTTP_PORT"] = "-1"  # the servers' gRPC doors are enough here
    out: list[Row] = []
    with TemporaryDirectory() as tmp, TemporaryPostgres() as database:
        folder = Path(tmp)
        _log("failover: 10 SIGKILLs of the owning server")
        acked, lost, takeovers = failover(database, folder)
        out.append(
            Row(
                SECTION,
                f"acked writes lost over {KILLS} SIGKILLs of the owner, the other server"
                " taking over each time",
                f"{lost} of {acked}",
                "0 allowed",
                "met" if lost == 0 else "NOT MET",
                "0",
            )
        )
        worst = max(takeovers)
        out.append(
            Row(
                SECTION,
                "owner's death to the world served by another (worst / median)",
                f"{worst:.2f} / {float(np.median(takeovers)):.2f} s",
                f"lease {LEASE_S:g} s",
                f"lease + {worst - LEASE_S:.2f} s",
                "<= lease + 2 s",
            )
        )
        _log("lease race: 1,000 tries")
        race_result = race(database)
        out.append(
            Row(
                SECTION,
                "two servers writing one world at once, forced lease race (1,000 tries)",
                race_result,
                "0 allowed",
                "met" if race_result.startswith("0 ") else "NOT MET",
                "0",
            )
        )
        _log("Perceive writes/s: SQLite, then PostgreSQL")
        sqlite_calls = perceive_rate(folder / "rate-sqlite")
        pg_calls = perceive_rate(
            folder / "rate-pg", "--store-url", database.create_database("rate")
        )
        out.append(
            Row(
                SECTION,
                "Perceive calls/s, 4 clients, a real server",
                f"{pg_calls:.0f}/s PostgreSQL",
                f"{sqlite_calls:.0f}/s SQLite",
                f"{pg_calls / sqlite_calls:.2f}x",
                ">= 0.5x",
            )
        )
        sqlite_store = store_rate(WorldStore(folder / "store.sqlite3"))
        pool = postgres.connect(database.create_database("store"), 2, 10)
        pg_store = store_rate(WorldStore(postgres.PostgresDatabase(pool, "town")))
        pool.close()
        out.append(
            Row(
                SECTION,
                "the store's committed writes/s (one perception each, fsync on)",
                f"{pg_store:.0f}/s PostgreSQL",
                f"{sqlite_store:.0f}/s SQLite",
                f"{pg_store / sqlite_store:.2f}x",
                ">= 0.5x",
            )
        )
        out += _retrieval_rows(database, folder)
        _log("4 servers, 200 worlds")
        spread_text, exactly_one = spread(database, folder)
        out.append(
            Row(
                SECTION,
                "4 servers, 200 worlds, one PostgreSQL",
                spread_text,
                "every world served by exactly one",
                "yes" if exactly_one else "NO",
                "shown",
            )
        )
        _log("database stopped 3 s under load, then restarted")
        codes, recovered = outage(database, folder)
        out.append(
            Row(
                SECTION,
                "database stopped 3 s under load, then restarted",
                ", ".join(f"{k} {v}" for k, v in sorted(codes.items())),
                f"first success {recovered:.1f} s after the restart",
                f"{codes.get('INTERNAL', 0)} INTERNAL",
                "0 INTERNAL",
            )
        )
    return out


def _retrieval_rows(database: TemporaryPostgres, folder: Path) -> list[Row]:
    memories = 100_000
    from npc_brain.llm.llama import LlamaEmbedder

    settings = Settings()
    embedder = LlamaEmbedder(settings.embed_model_path(), threads=1)
    model = (embedder.model_id, embedder.dimension)
    del embedder  # the servers load their own
    _log(f"retrieval: {memories:,} memories written to SQLite and to PostgreSQL")
    sqlite_dir = folder / "big-sqlite"
    _fill(WorldStore(sqlite_dir / "worlds" / "town.sqlite3"), memories, model)
    url = database.create_database("big")
    stores = PostgresStores(url, "bench:0", lease_s=60, max_connections=2, timeout_s=60)
    _fill(stores.open("town", create=True), memories, model)
    stores.close()  # gives the world back: the server takes it at once
    flags = ("--exact-retrieval-limit", "10000")
    sqlite_server = ServerProcess(sqlite_dir, *flags)
    try:
        sqlite_first, sqlite_calls = retrieval_after_takeover(sqlite_server)
    finally:
        sqlite_server.stop()
    pg_server = _shared(folder / "big-pg", url, *flags)
    try:
        pg_first, pg_calls = retrieval_after_takeover(pg_server)
    finally:
        pg_server.stop()
    (pg_p50, pg_p99), (sqlite_p50, sqlite_p99) = p50_p99(pg_calls), p50_p99(sqlite_calls)
    return [
        Row(
            SECTION,
            f"Retrieve p50 / p99, {memories:,} memories, world just taken over (its HNSW"
            " index building in the background meanwhile)",
            f"{pg_p50:.0f} / {pg_p99:.0f} ms PostgreSQL",
            f"{sqlite_p50:.0f} / {sqlite_p99:.0f} ms SQLite",
            f"{pg_p99 / sqlite_p99:.2f}x (p99)",
            "<= 1.2x",
        ),
        Row(
            SECTION,
            f"taking the world over: its first Retrieve ({memories:,} memories loaded)",
            f"{pg_first:.1f} s PostgreSQL",
            f"{sqlite_first:.1f} s SQLite",
            f"{pg_first / sqlite_first:.2f}x",
            "",
        ),
    ]
