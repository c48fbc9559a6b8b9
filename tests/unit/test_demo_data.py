"""The demo's town and cast files: the shipped ones load, bad ones get precise errors."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from npc_brain.demo.cast import load_cast, parse_cast
from npc_brain.demo.errors import DataError, DemoError
from npc_brain.demo.town import load_town, parse_town, shipped_towns
from npc_brain.memory.commitments import commitments_in

TOWN = {
    "name": "the Ville",
    "sectors": {
        "Hobbs Cafe": {"arenas": {"cafe": ["counter", "piano"], "kitchen": []}},
        "home": {"arenas": {"room": ["bed"]}},
    },
}
HOME, CAFE = "the Ville:home:room", "the Ville:Hobbs Cafe:cafe"


def agent(**fields: object) -> dict[str, object]:
    return {"id": "isabella", "name": "Isabella Rodriguez", "home": HOME} | fields


def cast(*agents: dict[str, object], seeds: list[dict[str, object]] | None = None) -> object:
    table: dict[str, object] = {"agents": list(agents) or [agent()]}
    if seeds is not None:
        table["seeds"] = seeds
    return table


SEED = {
    "id": "party",
    "holder": "isabella",
    "memory": "a Valentine's party",
    "key_phrases": ["valentine"],
}
EVENT = {"event_place": CAFE, "event_start": "2023-02-14T17:00", "event_end": "2023-02-14T19:00"}


def test_the_shipped_town_and_cast_load_with_isabellas_party_first() -> None:
    town = load_town()
    everyone = load_cast(town)
    assert len(everyone.members) == 25
    assert len({m.agent_id for m in everyone.members}) == 25
    isabella = everyone.members[0]
    assert isabella.name == "Isabella Rodriguez"
    party = next(s for s in everyone.seeds if s.holder == "isabella")
    for phrase in ("Valentine's Day party", "Hobbs Cafe", "February 14", "5 pm to 7 pm"):
        assert phrase in party.memory
    assert any("mayor" in s.memory for s in everyone.seeds if s.holder == "sam")
    assert party.event is not None and party.event.place == "the Ville:Hobbs Cafe"
    assert party.event.end - party.event.start == 2 * 3600  # 5 pm to 7 pm
    # each seed is judged by interview on facts its question does not give away
    facts = dict(party.facts)
    assert set(facts) == {"host", "place", "date"} and "Hobbs Cafe" in facts["place"]
    for seed in everyone.seeds:
        assert seed.question and seed.facts
        given = [p for _, phrases in seed.facts for p in phrases if p in seed.question]
        assert given == []
    assert "Hobbs Cafe" in town.places() and len(town.places()) == len(set(town.places()))
    assert {"Hobbs Cafe", "Oak Hill College", "Johnson Park", "Harvey Oak Supply Store"} <= {
        a.sector for a in town.arenas
    }
    # the holders of both seeds are among the first three (the integration test's cast)
    assert {s.seed_id for s in everyone.first(3).seeds} == {"party", "mayor"}


@pytest.mark.parametrize("shipped", shipped_towns())
def test_every_shipped_town_loads_with_its_seeds_judged_and_their_holders_first(
    shipped: str,
) -> None:
    town = load_town(shipped=shipped)
    everyone = load_cast(town, shipped=shipped)
    assert len({m.agent_id for m in everyone.members}) == len(everyone.members) >= 10
    assert {s.holder for s in everyone.seeds} <= {m.agent_id for m in everyone.first(3).members}
    for seed in everyone.seeds:
        assert len(seed.questions) == 3 and seed.facts
        assert not [p for _, phrases in seed.facts for p in phrases if p in seed.question]
        if seed.event is not None:  # the event's place and hours are found in its memory
            (commitment,) = commitments_in(seed.memory, seed.event.start - 86400)
            assert (commitment.start, commitment.end) == (seed.event.start, seed.event.end)
            assert seed.event.place.split(":")[1] in commitment.activity


def test_a_town_not_shipped_is_refused_naming_the_option() -> None:
    assert {"smallville", "copperpeak"} <= set(shipped_towns())
    with pytest.raises(DemoError, match=r"--town: 'atlantis' is not one of copperpeak, "):
        load_town(shipped="atlantis")


def test_first_keeps_only_the_seeds_whose_holder_is_in() -> None:
    town = parse_town(TOWN, "town.toml")
    two = cast(agent(), agent(id="sam", name="Sam Moore"), seeds=[SEED | {"holder": "sam"}])
    assert parse_cast(two, "cast.toml", town).first(1).seeds == ()


def test_town_addresses_and_what_an_agent_sees() -> None:
    town = parse_town(TOWN, "town.toml")
    assert {CAFE, CAFE + ":counter", "the Ville:Hobbs Cafe:kitchen", HOME} <= town.addresses()
    assert town.visible_from(CAFE + ":piano") == [CAFE, CAFE + ":counter", CAFE + ":piano"]
    assert town.sector_of(CAFE + ":piano") == "the Ville:Hobbs Cafe"
    assert town.visible_from("the Ville:nowhere:at all") == ["the Ville:nowhere:at all"]


@pytest.mark.parametrize(
    ("table", "field", "problem"),
    [
        ({"sectors": TOWN["sectors"]}, "name", "is required"),
        ({"name": "the Ville", "sectors": {}}, "sectors", "at least one"),
        ({"name": "a:b", "sectors": TOWN["sectors"]}, "name", "without ':'"),
        ({"name": "v", "sectors": {"s": {"arenas": {}}}}, "sectors.s.arenas", "table of arenas"),
        (
            {"name": "v", "sectors": {"s": {"arenas": {"a": [1]}}}},
            "sectors.s.arenas.a[0]",
            "string",
        ),
        ({"name": "v", "sectors": {"s": {"arenas": {"a:b": []}}}}, "sectors.s.arenas.a:b", "':'"),
        ({"name": "v", "sectors": {"s": {"rooms": {}}}}, "sectors.s.arenas", "table of arenas"),
        (TOWN | {"colour": "red"}, "colour", "not a known key"),
    ],
)
def test_a_bad_town_names_the_field(table: object, field: str, problem: str) -> None:
    with pytest.raises(DataError) as raised:
        parse_town(table, "town.toml")
    assert raised.value.field == field
    assert problem in str(raised.value)
    assert str(raised.value).startswith(f"town.toml: {field}: ")


@pytest.mark.parametrize(
    ("table", "field", "problem"),
    [
        ({}, "agents", "[[agents]]"),
        (cast(agent(home="the Ville:moon:crater")), "agents[0].home", "not an address"),
        (cast(agent(places=[CAFE, "the Ville:moon"])), "agents[0].places[1]", "not an address"),
        (cast(agent(), agent()), "agents[1].id", "already the id"),
        (cast(agent(id="no spaces")), "agents[0].id", "[A-Za-z0-9_.-]"),
        (cast(agent(name="")), "agents[0].name", "must not be empty"),
        (cast(agent(age=-1)), "agents[0].age", "outside 0..200"),
        (cast(agent(age="old")), "agents[0].age", "integer"),
        (cast(agent(memories="one")), "agents[0].memories", "list of strings"),
        (cast(agent(hobby="chess")), "agents[0].hobby", "not a known key"),
        (cast(seeds=[SEED | {"holder": "klaus"}]), "seeds[0].holder", "not the id of an agent"),
        (cast(seeds=[SEED, SEED]), "seeds[1].id", "already the id"),
        (cast(seeds=[SEED | {"key_phrases": ["mayor"]}]), "seeds[0].key_phrases", "none of them"),
        (cast(seeds=[SEED | {"key_phrases": []}]), "seeds[0].key_phrases", "at least one"),
        (cast(seeds=[SEED | {"host": ["Isabella"]}]), "seeds[0].question", "is needed"),
        (cast(seeds=[{"id": "x", "holder": "isabella"}]), "seeds[0].memory", "is required"),
        (cast(seeds=[SEED | {"event_place": CAFE}]), "seeds[0].event_start", "is needed"),
        (
            cast(seeds=[SEED | EVENT | {"event_place": "the Ville:moon"}]),
            "seeds[0].event_place",
            "no address",
        ),
        (
            cast(seeds=[SEED | EVENT | {"event_start": "soon"}]),
            "seeds[0].event_start",
            "not an ISO time",
        ),
        (
            cast(seeds=[SEED | EVENT | {"event_end": "2023-02-14T16:00"}]),
            "seeds[0].event_end",
            "not after",
        ),
    ],
)
def test_a_bad_cast_names_the_field(table: object, field: str, problem: str) -> None:
    town = parse_town(TOWN, "town.toml")
    with pytest.raises(DataError) as raised:
        parse_cast(table, "cast.toml", town)
    assert raised.value.field == field
    assert problem in str(raised.value)


def test_files_that_are_missing_or_not_toml_are_named(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="does not exist"):
        load_town(tmp_path / "none.toml")
    bad = tmp_path / "cast.toml"
    bad.write_text("[[agents]\nid = ")
    with pytest.raises(DataError, match=r"cast.toml: file: is not valid TOML"):
        load_cast(load_town(), bad)


def test_no_code_outside_the_towns_data_names_their_people_places_or_news() -> None:
    """A town is data: the code works for any town, so no module names a shipped town's
    people (full or first name), places (sectors) or news (seed titles)."""
    names: set[str] = set()
    for shipped in shipped_towns():
        town = load_town(shipped=shipped)
        cast = load_cast(town, shipped=shipped)
        names |= {m.name for m in cast.members} | {m.name.split()[0] for m in cast.members}
        names |= {a.sector for a in town.arenas} | {town.name} | {s.title for s in cast.seeds}
    package = Path(__file__).resolve().parents[2] / "npc_brain"
    found = [
        f"{path.relative_to(package)}: {name}"
        for path in package.rglob("*.py")
        if "data" not in path.relative_to(package).parts
        for name in names
        if re.search(rf"\b{re.escape(name)}\b", path.read_text())
    ]
    assert found == []
