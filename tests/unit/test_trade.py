"""Wares, orders, totals and offers (mind/talk/trade.py), in two settings: a frontier
trading post and an orbital station."""

from __future__ import annotations

import pytest

from npc_brain.memory.records import MemoryKind, MemoryRecord, Source, SourceKind
from npc_brain.mind.talk.trade import (
    Ware,
    counted,
    holding,
    not_sold,
    offered,
    ordered,
    price_of,
    things_asked,
    total,
    unwanted,
    ware,
)


def _memory(text: str) -> MemoryRecord:
    return MemoryRecord(
        MemoryKind.OBSERVATION, text, 0.0, 1.0, source=Source(SourceKind.AUTHOR), memory_id=1
    )


POST = [
    ware(_memory(t))
    for t in (
        "Silas Reed sells a box of cartridges for 3 dollars",
        "Silas Reed sells a sack of flour for 1 dollars",
        "Silas Reed sells a wool blanket for 4 dollars",
    )
]
STATION = [
    ware(_memory(t))
    for t in (
        "Ines Vo sells anti-rad pills for 15 credits",
        "Ines Vo sells a hangar berth, per day for 25 credits",
    )
]


def test_a_memory_that_says_no_price_is_no_ware() -> None:
    assert ware(_memory("Silas Reed sold flour to the sheriff.")) is None


@pytest.mark.parametrize(
    ("line", "said"),
    [
        (
            "two boxes of cartridges and a blanket",
            "Two boxes of cartridges and a wool blanket come to 10 dollars.",
        ),
        ("I'll take 3 sacks of flour", "Three sacks of flour come to 3 dollars."),
        ("gimme five boxes of cartridges", "Five boxes of cartridges come to 15 dollars."),
    ],
)
def test_an_order_comes_to_its_wares_times_how_many(line: str, said: str) -> None:
    wares = [w for w in POST if w is not None]
    assert total(ordered(line, wares)) == said


def test_a_ware_counted_by_its_measure_comes_to_its_total() -> None:
    hire = Ware("", "a day's camel hire", 9, "dirhams")
    assert total([(4, hire)]) == "Four days' camel hire comes to 36 dirhams."
    hauling = Ware("", "hauling for one crate", 10, "credits")
    assert total([(6, hauling)]) == "Hauling for six crates comes to 60 credits."


@pytest.mark.parametrize(
    ("line", "wanted", "unwanted_items"),
    [
        ("dont need a wool blanket, just flour", ["a sack of flour"], ["a wool blanket"]),
        ("not the cartridges, a blanket", ["a wool blanket"], ["a box of cartridges"]),
        ("got a long ride and no blanket", ["a wool blanket"], []),
        ("I'm not hungry, just a blanket", ["a wool blanket"], []),
        ("can't you sell me a blanket?", ["a wool blanket"], []),
    ],
)
def test_a_ware_said_not_to_be_wanted_is_not_ordered(
    line: str, wanted: list[str], unwanted_items: list[str]
) -> None:
    wares = [w for w in POST if w is not None]
    assert [w.item for _, w in ordered(line, wares)] == wanted
    assert [w.item for w in unwanted(line, wares)] == unwanted_items


def test_a_price_is_said_in_the_number_its_item_and_sum_take() -> None:
    flour, pills, berth = POST[1], STATION[0], STATION[1]
    assert flour and pills and berth
    assert price_of(flour) == "A sack of flour is 1 dollar."
    assert price_of(pills) == "Anti-rad pills are 15 credits."
    assert price_of(berth) == "A hangar berth is 25 credits per day."


def test_an_offer_below_the_price_is_read_and_held_against() -> None:
    wares = [w for w in STATION if w is not None]
    orders = ordered("15 credits for pills is robbery. 10?", wares)
    assert [w.item for _, w in orders] == ["anti-rad pills"]
    assert offered("15 credits for pills is robbery. 10?", orders) == 10
    assert holding(orders[0][1]) == "It's 15 credits for anti-rad pills, and I won't take less."


def test_a_quantity_is_no_offer() -> None:
    wares = [w for w in POST if w is not None]
    orders = ordered("3 sacks of flour please", wares)
    assert offered("3 sacks of flour please", orders) is None


def test_a_number_that_labels_a_thing_is_no_offer() -> None:
    wares = [w for w in STATION if w is not None]
    line = "Could I get anti-rad pills? I'm on shift next to bay 3."
    assert offered(line, ordered(line, wares)) is None
    assert offered("I'll give you 9 for the pills", ordered("the pills", wares)) == 9


def test_half_a_dozen_is_six() -> None:
    wares = [w for w in POST if w is not None]
    assert ordered("half a dozen sacks of flour", wares)[0][0] == 6
    assert ordered("half a dozen of them sacks of flour", wares)[0][0] == 6  # "of them", "of the"


def test_a_number_reaches_past_two_adjectives_and_of_them() -> None:
    wares = [w for w in POST if w is not None]
    (order,) = ordered("half a dozen of them heavy grey wool blankets, partner", wares)
    assert order[0] == 6


def test_a_ware_is_named_by_the_last_part_of_its_compound_not_as_a_modifier() -> None:
    saddle = ware(_memory("Silas Reed sells a saddlebag for 6 dollars"))
    flour = ware(_memory("Silas Reed sells a sack of flour for 1 dollars"))
    assert saddle is not None and flour is not None
    assert ordered("need two bags for the trail", [saddle, flour]) == [(2, saddle)]
    # "flour recipe" names a recipe, not the flour
    assert ordered("teach me your flour recipe?", [saddle, flour]) == []
    assert ordered("a sack of flour tonight", [saddle, flour]) == [(1, flour)]


def test_a_number_of_the_wares_unit_counts_it_in_another_sentence_too() -> None:
    berth = ware(_memory("Ines Vo sells a day's berth for 25 credits"))
    assert berth is not None
    (order,) = ordered("I'll be in port four days. Paying the berth up front.", [berth])
    assert order == (4, berth)  # "day's" is the day


def test_what_a_speaker_takes_back_is_not_ordered() -> None:
    wares = [w for w in POST if w is not None]
    items = [w.item for _, w in ordered("a sack of flour... no, actually, a wool blanket", wares)]
    kept = [w.item for _, w in ordered("a wool blanket", wares)]
    assert items == kept and len(kept) == 1
    # a correction naming no ware takes nothing back
    assert ordered("two sacks of flour, I mean it", wares) == ordered("two sacks of flour", wares)


def test_a_line_that_names_no_ware_orders_nothing() -> None:
    wares = [w for w in STATION if w is not None]
    assert ordered("do you sell poison?", wares) == []


@pytest.mark.parametrize(
    ("line", "things"),
    [
        ("Do you sell horses?", [("horse",)]),
        ("Got any fish hooks?", [("fish", "hook")]),
        ("I'd like two fresh loaves and a fish pie", [("loaf",), ("fish", "pie")]),
        ("What's the price of a wool blanket?", [("wool", "blanket")]),
        ("Do you sell dynamite?", [("dynamite",)]),  # after a verb of trade
        ("Is anything being sold off this week?", []),  # news in general, a time
        ("How much for the lot?", []),  # words of trading name no thing
        ("3 dollars is robbery, 2?", [("dollar",)]),  # a noun said of something: none
        ("Is that your final offer?", []),
    ],
)
def test_the_things_a_line_of_trade_asks_for_are_its_introduced_nouns(
    line: str, things: list[tuple[str, ...]]
) -> None:
    assert things_asked(line) == things


def test_a_thing_none_of_the_wares_is_is_said_in_the_plural() -> None:
    stock = [w for w in POST if w is not None]
    assert not_sold("Do you sell horses?", stock) == ["horses"]
    assert not_sold("Any oxygen canisters?", [w for w in STATION if w]) == ["oxygen canisters"]
    assert not_sold("Got a blanket?", stock) == []  # one of the wares
    assert not_sold("How much are 3 dollars?", stock) == []  # its units are no thing
    assert not_sold("How much?", stock) == []


@pytest.mark.parametrize(
    ("n", "item", "said"),
    [
        (2, "room for the night", "two rooms for the night"),
        (3, "loaf of bread", "three loaves of bread"),
        (6, "hauling for one crate", "hauling for six crates"),
        (4, "lobster pot", "four lobster pots"),
        (4, "a day's camel hire", "four days' camel hire"),  # a measure is what is counted
        (2, "a week's mooring", "two weeks' mooring"),
    ],
)
def test_the_noun_counted_is_the_one_before_a_preposition(n: int, item: str, said: str) -> None:
    assert counted(n, item) == said


def test_a_count_is_read_within_its_stretch_and_of_your_wares() -> None:
    """ "Three hundred, boxes and all" is a sum, not three boxes (the comma ends the
    stretch); "four of your blankets" counts them; a ware named again with a count takes
    it ("a box of matches ... three of your boxes of cartridges")."""
    wares = [w for w in POST if w is not None]
    assert ordered("Three hundred, blankets and all", wares)[0][0] == 1
    assert ordered("could I take four of your wool blankets?", wares)[0][0] == 4
    line = "cartridges are what I need. I'll have three boxes of cartridges."
    assert ordered(line, wares)[0][0] == 3


def test_a_ware_with_an_aside_after_a_comma_is_counted_at_its_head() -> None:
    assert counted(3, "the Gull, with her nets and oars") == "three Gulls, with her nets and oars"


def test_a_noun_a_modal_follows_is_who_may_do_a_thing_not_a_thing_asked() -> None:
    assert things_asked("any way a fellow could earn his supper round here?") == []
    assert things_asked("do you sell boats?") == [("boat",)]
