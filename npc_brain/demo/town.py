"""The town: sectors of arenas holding objects, addressed world:sector:arena[:object]."""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

from npc_brain.demo.errors import DemoError
from npc_brain.demo.fields import Fields, read_toml

SHIPPED_TOWN = "smallville"  # the paper's town; the others: shipped_towns()


def shipped_towns() -> list[str]:
    """The towns shipped with the package: data/<town>/ holding town.toml and cast.toml."""
    data = resources.files("npc_brain.demo") / "data"
    return sorted(d.name for d in data.iterdir() if (d / "town.toml").is_file())


def shipped_file(town: str, name: str) -> Traversable:
    """A file of a shipped town ("town.toml", "cast.toml")."""
    if town not in shipped_towns():
        raise DemoError(f"--town: {town!r} is not one of {', '.join(shipped_towns())}")
    return resources.files("npc_brain.demo") / "data" / town / name


@dataclass(frozen=True)
class Arena:
    """A room or open space of a sector, with the objects in it."""

    world: str
    sector: str
    name: str
    objects: tuple[str, ...]

    @property
    def address(self) -> str:
        return f"{self.world}:{self.sector}:{self.name}"

    def object_address(self, name: str) -> str:
        return f"{self.address}:{name}"


@dataclass(frozen=True)
class Town:
    name: str
    arenas: tuple[Arena, ...]

    def addresses(self) -> set[str]:
        """Every arena's and object's address."""
        found = {a.address for a in self.arenas}
        found.update(a.object_address(o) for a in self.arenas for o in a.objects)
        return found

    def places(self) -> tuple[str, ...]:
        """The names of the town's places (its sectors), in order."""
        return tuple(dict.fromkeys(a.sector for a in self.arenas))

    def sector_of(self, address: str) -> str:
        """The world:sector part of an address: agents there see each other."""
        return ":".join(address.split(":")[:2])

    def arena_of(self, address: str) -> Arena | None:
        arena_address = ":".join(address.split(":")[:3])
        return next((a for a in self.arenas if a.address == arena_address), None)

    def visible_from(self, address: str) -> list[str]:
        """What an agent at `address` sees: the arena it is in and the arena's objects.
        (It also sees the agents anywhere in its sector; see the simulation.)"""
        arena = self.arena_of(address)
        if arena is None:
            return [address]
        return [arena.address, *(arena.object_address(o) for o in arena.objects)]


def load_town(path: Path | None = None, shipped: str = SHIPPED_TOWN) -> Town:
    """The town in `path`, or the shipped town `shipped`."""
    if path is None:
        with resources.as_file(shipped_file(shipped, "town.toml")) as p:
            return parse_town(read_toml(p), f"{shipped}/town.toml")
    return parse_town(read_toml(path), str(path))


def parse_town(table: object, source: str) -> Town:
    """Checks a town table: `name`, then `[sectors."<sector>".arenas]` of object lists."""
    fields = Fields(table, "", source)
    name = _part(fields, fields.text("name", required=True), "name")
    sectors = fields.raw("sectors")
    if not isinstance(sectors, dict) or not sectors:
        raise fields.error("sectors", 'must hold at least one [sectors."<name>".arenas] table')
    fields.done()
    arenas: list[Arena] = []
    for sector_name, sector_table in sectors.items():
        sector = Fields(sector_table, f"sectors.{sector_name}", source)
        _part(sector, sector_name, "")
        rooms = sector.raw("arenas")
        if not isinstance(rooms, dict) or not rooms:
            raise sector.error("arenas", "must be a table of arenas, each a list of objects")
        sector.done()
        room_fields = Fields(rooms, sector.name("arenas"), source)
        for arena_name in rooms:
            _part(room_fields, arena_name, arena_name)
            objects = room_fields.texts(arena_name)
            for i, obj in enumerate(objects):
                _part(room_fields, obj, f"{arena_name}[{i}]")
            arenas.append(Arena(name, sector_name, arena_name, objects))
    return Town(name, tuple(arenas))


def _part(fields: Fields, value: str, key: str) -> str:
    """An address part: not empty, no ':' (the separator)."""
    if not value.strip() or ":" in value:
        raise fields.error(key, f"{value!r} must be a non-empty name without ':'")
    return value
