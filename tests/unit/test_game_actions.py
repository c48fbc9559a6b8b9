"""Game actions with fakes: declarations checked field by field, kept with the agent
through a restart, chosen only among what was declared (a property test over random
declarations and lines), and their outcomes remembered once."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from npc_brain import game_actions
from npc_brain.action import Line
from npc_brain.errors import InvalidArgument, NotFound
from npc_brain.game_actions import (
    ActionArgument,
    ActionOption,
    ArgumentType,
    ChosenAction,
    GameAction,
    Offer,
)
from npc_brain.llm.fakes import SchemaChat
from npc_brain.memory.migrations import MIGRATIONS, m010_game_actions
from npc_brain.mind.talk.acts import Act, Deal, Need, Vote
from npc_brain.mind.talk.deeds import (
    _asks_about,
    _counted,
    _head,
    _measure,
    _named_whole,
    _options_named,
    _owned,
    _prices_another,
    _pricing,
    _promise,
    _said_number,
    declared_wares,
    deed_answer,
)
from npc_brain.mind.talk.outcomes import outcome_text
from npc_brain.mind.talk.scene import Answer, Scene
from npc_brain.mind.talk.trade import Ware, ordered
from npc_brain.mind.talk.understand import Heard
from npc_brain.persona import AgentRecord, Persona
from tests.conftest import make_brain

NOW = 2_000_000_000.0
NUMBER = ArgumentType.NUMBER
TRADER = Persona("Oda Vance", 50, "shrewd", "keeps the trading post at Dry Wells", pronouns="she")
WATER = ActionOption("water_skin", "a water skin", 3)
SELL = GameAction(
    "sell",
    "sell one of my wares",
    (
        ActionArgument(
            "item", ArgumentType.ITEM, (WATER, ActionOption("rope", "a coil of rope", 2))
        ),
        ActionArgument("count", ArgumentType.NUMBER, (), 1, 10),
    ),
    currency="shells",
)
GUIDE = GameAction(
    "guide",
    "lead the asker across the dunes to an oasis",
    (
        ActionArgument(
            "oasis",
            ArgumentType.PLACE,
            (
                ActionOption("red_oasis", "the red oasis"),
                ActionOption("salt_oasis", "the salt oasis"),
            ),
        ),
    ),
    price=20,
    currency="shells",
    examples=("I need to get to the oasis.", "show me the way across the sand"),
)


def _aliased(alias: str) -> ActionOption:
    """An option with `alias` as its one alias, or nine times over for "w"."""
    return ActionOption("water_skin", "a water skin", 3, (alias,) * (9 if alias == "w" else 1))


def _converse(brain: object, line: str, actions: tuple[GameAction, ...] = ()) -> Line:
    async def talk() -> Line:
        final = None
        async for event in brain.converse("w", "oda", NOW, "player", line, actions=actions):  # type: ignore[attr-defined]
            if isinstance(event, Line):
                final = event
        assert final is not None
        return final

    return asyncio.run(talk())


@pytest.mark.parametrize(
    ("actions", "field"),
    [
        ((GameAction("Sell!", "d"),), "actions[0].name"),
        ((GameAction("sell", ""),), "actions[0].description"),
        ((GameAction("sell", "x" * 501),), "actions[0].description"),
        ((GameAction("a", "d"), GameAction("a", "e")), "actions[1].name"),
        ((GameAction("a", "d", price=-1),), "actions[0].price"),
        ((GameAction("a", "d", price=float("nan")),), "actions[0].price"),
        ((GameAction("a", "d", (ActionArgument("x", None),)),), "actions[0].arguments[0].type"),
        (
            (GameAction("a", "d", (ActionArgument("x", ArgumentType.ITEM),)),),
            "actions[0].arguments[0].options",
        ),
        (
            (GameAction("a", "d", (ActionArgument("n", ArgumentType.NUMBER, (WATER,), 1, 2),)),),
            "actions[0].arguments[0].options",
        ),
        (
            (GameAction("a", "d", (ActionArgument("n", ArgumentType.NUMBER, (), 5, 1),)),),
            "actions[0].arguments[0].max",
        ),
        (
            (GameAction("a", "d", (ActionArgument("x", ArgumentType.ITEM, (WATER, WATER)),)),),
            "actions[0].arguments[0].options[1].value",
        ),
        (
            (
                GameAction(
                    "a", "d", tuple(ActionArgument(f"x{i}", ArgumentType.NUMBER) for i in range(5))
                ),
            ),
            "actions[0].arguments",
        ),
        ((GameAction("a", "d", examples=("ok", " ")),), "actions[0].examples[1]"),
        ((GameAction("a", "d", examples=("x" * 501,)),), "actions[0].examples[0]"),
        ((GameAction("a", "d", examples=("x",) * 17),), "actions[0].examples"),
        (
            (GameAction("a", "d", (ActionArgument("x", ArgumentType.ITEM, (_aliased(" "),)),)),),
            "actions[0].arguments[0].options[0].aliases[0]",
        ),
        (
            (GameAction("a", "d", (ActionArgument("x", ArgumentType.ITEM, (_aliased("w"),)),)),),
            "actions[0].arguments[0].options[0].aliases",
        ),
    ],
)
def test_a_bad_declaration_is_refused_naming_its_field_and_stores_nothing(
    tmp_path: Path, actions: tuple[GameAction, ...], field: str
) -> None:
    brain = make_brain(tmp_path)
    try:
        with pytest.raises(InvalidArgument) as refused:
            asyncio.run(brain.upsert_agent("w", "oda", TRADER, NOW, actions=actions))
        assert refused.value.field == field
        assert "w" not in brain.world_ids()
    finally:
        brain.close()


def test_declared_actions_are_kept_with_the_agent_and_replaced_by_the_next_upsert(
    tmp_path: Path,
) -> None:
    brain = make_brain(tmp_path)
    asyncio.run(brain.upsert_agent("w", "oda", TRADER, NOW, actions=(SELL, GUIDE)))
    brain.close()
    again = make_brain(tmp_path)
    try:
        assert asyncio.run(again.get_agent("w", "oda")).actions == (SELL, GUIDE)
        asyncio.run(again.upsert_agent("w", "oda", TRADER, NOW))
        assert asyncio.run(again.get_agent("w", "oda")).actions == ()
    finally:
        again.close()


def test_a_store_from_before_game_actions_reads_its_agents_with_none() -> None:
    db = sqlite3.connect(":memory:")
    for migration in MIGRATIONS[: MIGRATIONS.index(m010_game_actions)]:
        migration(db)
    db.execute(
        "INSERT INTO agents (agent_id, persona_json, reflection_enabled, planning_enabled)"
        " VALUES ('oda', '{}', 1, 1)"
    )
    m010_game_actions(db)
    (actions,) = db.execute("SELECT actions_json FROM agents").fetchone()
    assert game_actions.loads(actions) == ()


def test_actions_stored_before_examples_were_declared_read_with_none() -> None:
    stored = json.loads(game_actions.dumps((GUIDE,)))
    del stored[0]["examples"]
    assert game_actions.loads(json.dumps(stored)) == (replace(GUIDE, examples=()),)


def test_an_options_aliases_are_stored_and_sent_and_read_back() -> None:
    from npc_brain.server.convert import game_actions_from_pb, game_actions_to_pb

    skin = ActionOption("water_skin", "a water skin", 3, ("canteen", "water bag"))
    sell = GameAction("sell", "sell wares", (ActionArgument("item", ArgumentType.ITEM, (skin,)),))
    assert game_actions.loads(game_actions.dumps((sell,))) == (sell,)
    assert game_actions_from_pb(game_actions_to_pb((sell,))) == (sell,)
    stored = json.loads(game_actions.dumps((sell,)))
    del stored[0]["arguments"][0]["options"][0]["aliases"]  # stored before aliases
    (read,) = game_actions.loads(json.dumps(stored))
    assert read.arguments[0].options[0].aliases == ()


def test_a_ware_is_named_and_meant_by_an_alias_the_game_declared() -> None:
    """ "two canteens" names the water skin its game calls a canteen too; the rope is
    not named by the skin's aliases."""
    skin = ActionOption("water_skin", "a water skin", 3, ("canteen",))
    rope = ActionOption("rope", "a coil of rope", 2)
    sell = GameAction(
        "sell", "sell wares", (ActionArgument("item", ArgumentType.ITEM, (skin, rope)),)
    )
    wares = declared_wares((sell,))
    assert [(n, w.value) for n, w in ordered("two canteens, quick", wares)] == [(2, "water_skin")]
    assert [w.value for _, w in ordered("a coil of rope", wares)] == ["rope"]


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    line=st.sampled_from(
        [
            "I'll take two water skins",
            "three coils of rope please",
            "can you guide me to the salt oasis?",
            "take me across the dunes",
            "how much is a water skin?",
            "give me everything or I burn this place",
            "hello!",
            "what do you think of the weather?",
        ]
    )
    | st.text(max_size=60),
    count_max=st.integers(min_value=1, max_value=5),
)
@example(line="13¹", count_max=1)  # a digit int() does not read ("¹".isdigit() is true)
def test_only_declared_actions_and_values_are_ever_chosen(
    tmp_path_factory: pytest.TempPathFactory, line: str, count_max: int
) -> None:
    if not line.strip() or "\x00" in line:
        return
    sell = GameAction(
        "sell",
        SELL.description,
        (SELL.arguments[0], ActionArgument("count", ArgumentType.NUMBER, (), 1, count_max)),
        currency="shells",
    )
    declared = (sell, GUIDE)
    brain = make_brain(tmp_path_factory.mktemp("fuzz"), SchemaChat(text="sure"))
    try:
        asyncio.run(brain.upsert_agent("w", "oda", TRADER, NOW, actions=declared))
        chosen = _converse(brain, line).game_action
        if chosen is None:
            return
        action = next(a for a in declared if a.name == chosen.name)
        assert set(chosen.arguments) == {a.name for a in action.arguments}
        for argument in action.arguments:
            value = chosen.arguments[argument.name]
            if argument.type is ArgumentType.NUMBER:
                assert argument.low <= int(value) <= argument.high
            else:
                assert value in {o.value for o in argument.options}
        assert chosen.price >= 0 and chosen.currency == "shells"
    finally:
        brain.close()


def test_a_purchase_is_chosen_priced_said_and_remembered_once_reported(tmp_path: Path) -> None:
    brain = make_brain(tmp_path, SchemaChat(text="sure"))
    try:
        asyncio.run(brain.upsert_agent("w", "oda", TRADER, NOW, actions=(SELL, GUIDE)))
        final = _converse(brain, "I'll take two water skins")
        chosen = final.game_action
        assert chosen is not None
        assert (chosen.name, chosen.arguments, chosen.price) == (
            "sell",
            {"item": "water_skin", "count": "2"},
            6,
        )
        assert "6 shells" in final.text
        memory = asyncio.run(
            brain.report_outcome("w", "oda", chosen.action_id, True, "paid in shells", NOW + 60)
        )
        assert memory.description == (
            "Oda Vance sold two water skins to player for 6 shells. Paid in shells."
        )
        repeat = asyncio.run(
            brain.report_outcome("w", "oda", chosen.action_id, False, "", NOW + 120)
        )
        assert repeat.memory_id == memory.memory_id
        with pytest.raises(NotFound):
            asyncio.run(brain.report_outcome("w", "oda", "nope", True, "", NOW))
    finally:
        brain.close()


def test_a_free_ware_is_handed_over_and_said_free(tmp_path: Path) -> None:
    valve = ActionOption("valve", "a pressure valve")
    issue = GameAction(
        "issue", "sign out a spare part", (ActionArgument("part", ArgumentType.ITEM, (valve,)),)
    )
    brain = make_brain(tmp_path, SchemaChat(text="sure"))
    try:
        asyncio.run(brain.upsert_agent("w", "oda", TRADER, NOW, actions=(issue,)))
        given = _converse(brain, "I'll take two pressure valves")
        assert given.game_action is not None and given.game_action.price == 0
        assert "Here are two pressure valves." in given.text
        assert _converse(brain, "How much is a pressure valve?").text == (
            "A pressure valve is free."
        )
    finally:
        brain.close()


def test_actions_given_for_one_call_replace_the_stored_ones(tmp_path: Path) -> None:
    brain = make_brain(tmp_path, SchemaChat(text="sure"))
    try:
        asyncio.run(brain.upsert_agent("w", "oda", TRADER, NOW, actions=(GUIDE,)))
        assert _converse(brain, "I'll take two water skins", (SELL,)).game_action is not None
        assert _converse(brain, "I'll take two water skins").game_action is None
    finally:
        brain.close()


def test_an_outcome_is_remembered_in_plain_words() -> None:
    chosen = ChosenAction("a1", "guide", {"oasis": "red_oasis"}, 20, "shells")
    offer = Offer(chosen, "oda", "mara", "lead the asker to an oasis (the red oasis) for", NOW)
    assert outcome_text("Oda Vance", "Mara Quill", offer, True, "") == (
        "Oda Vance led the asker to an oasis (the red oasis) for Mara Quill for 20 shells."
    )
    assert outcome_text("Oda Vance", "Mara Quill", offer, False, "a sandstorm") == (
        "Oda Vance agreed to lead the asker to an oasis (the red oasis) for Mara Quill for "
        "20 shells, but it did not happen. A sandstorm."
    )


@pytest.mark.parametrize(
    ("line", "asks"),
    [
        ("how much is a water skin?", True),
        ("how many skins do you have left?", True),
        ("what's the fee?", False),  # the deal's vote decides it (below)
        ("would you sell me some rope?", False),
        ("two water skins please", False),
    ],
)
def test_a_question_of_amount_is_told_whatever_the_deal(line: str, asks: bool) -> None:
    assert _asks_about(_heard(line)) is asks


def test_a_sure_deal_read_as_asking_is_told_even_in_words_no_rule_knows() -> None:
    slang = "whatcha want for that camel"
    assert not _asks_about(_heard(slang))
    assert _asks_about(_heard(slang, Vote("ask", {"ask": 0.8, "order": 0.2}, "")))
    assert not _asks_about(_heard(slang, Vote("ask", {"ask": 0.5, "order": 0.5}, "")))
    ordered = _heard("can I have a water skin?", Vote("order", {"order": 0.9}, ""))
    assert not _asks_about(ordered)


def test_a_price_question_naming_a_ware_is_of_another_action_only_when_it_says_its_verb() -> None:
    """To one who sells hand nets and mends them, "what's a hand net cost?" asks the
    price of one; "what do you charge to mend a hand net?", of the mending."""
    net = ActionOption("hand_net", "a hand net", 6)
    sell = GameAction("sell", "sell nets", (ActionArgument("item", ArgumentType.ITEM, (net,)),))
    mend = GameAction(
        "mend_net",
        "mend a torn net",
        (ActionArgument("net", ArgumentType.ITEM, (ActionOption("hand_net", "a hand net"),)),),
    )
    (ware,) = [w for w in declared_wares((sell,))]
    assert not _prices_another("what's a hand net cost?", ware, mend)
    assert _prices_another("what do you charge to mend a hand net?", ware, mend)
    assert not _prices_another("what's a hand net cost?", ware, sell)
    assert _prices_another("what would a cake to order cost?", ware, GUIDE)  # takes no net


def test_a_price_asked_by_a_priced_actions_verb_is_that_actions_in_any_form() -> None:
    """To a smith who sells horseshoes and shoes horses, "what to get a mule shod?" asks
    the shoeing's price whatever the line is nearest; the verb said as a word of the ware
    ("a re-shod horseshoe") asks nothing of the shoeing."""
    shoe = ActionOption("horseshoe", "a horseshoe", 2)
    sell = GameAction("sell", "sell wares", (ActionArgument("item", ArgumentType.ITEM, (shoe,)),))
    shoeing = GameAction("shoe_horse", "shoe the customer's horse", price=3)
    actions = (sell, shoeing)
    assert _pricing("what to get a mule shod?", actions, [0.6, 0.2], []) is shoeing
    asked = [(1, w) for w in declared_wares((sell,))]
    assert _pricing("how much for a horseshoe?", actions, [0.6, 0.2], asked) is sell
    free = GameAction("shoe_horse", "shoe the customer's horse")  # nothing to say
    assert _pricing("what to get a mule shod?", (sell, free), [0.2, 0.1], []) is None


@pytest.mark.parametrize(
    ("guiding", "said"), [(0.45, "A night's stabling is 4 shells."), (0.6, "It's 20 shells.")]
)
def test_a_price_asked_by_a_wares_measure_is_its_unless_the_line_is_well_nearer_another(
    guiding: float, said: str
) -> None:
    """ "How much is it for a night?" names the measure stabling is sold by: its price
    is said, though the line is a little nearer the guide's description; well nearer
    (DISTINCT_MARGIN), it asks the guide's price."""
    stabling = ActionOption("stabling", "a night's stabling", 4)
    sell = replace(SELL, arguments=(ActionArgument("item", ArgumentType.ITEM, (stabling,)),))
    cosines = {SELL.description: 0.4, GUIDE.description: guiding}
    answer = _deed_answer(_heard("How much is it for a night?"), (sell, GUIDE), cosines)
    assert answer is not None and answer.deed is None
    assert answer.text == said


def _heard(line: str, deal: Vote | None = None) -> Heard:
    vote = Vote("trade", {"trade": 1.0}, "")
    vector = np.zeros(3, np.float32)
    return Heard(line, Act.TRADE, vote, None, (), (), (), None, vector, deal)


def test_a_ware_is_named_by_its_head() -> None:
    def head(item: str) -> set[str]:
        return _head(Ware("", item, 1, ""))

    assert head("a room for the night") == {"room"}
    assert head("a bottle of plum brandy") == {"bottl", "brandi"}
    assert head("hand net") == {"net"}
    assert head("mooring, per week") == {"moor"}


def test_a_player_the_world_does_not_know_is_you_in_what_the_npc_says() -> None:
    from npc_brain.mind.talk.scene import as_you

    said = "Oda Vance sold a water skin to player for 3 shells. The player paid."
    assert as_you(said, "player") == (
        "Oda Vance sold a water skin to you for 3 shells. The player paid."
    )
    assert as_you("players gather at the well", "player") == "players gather at the well"


def test_the_npc_promises_in_the_lines_words_only_what_the_action_does() -> None:
    assert _promise("can you guide me to the salt oasis?", GUIDE) == "guide you to the salt oasis"
    assert _promise("could you show me the way across the sand?", GUIDE) == (
        "show you the way across the sand"
    )  # the verb of one of its example lines
    assert _promise("open the armoury for me", GUIDE) == ""
    assert _promise("captain, open the east gate", GUIDE) == ""


@pytest.mark.parametrize(("share", "bought"), [(0.9, True), (0.5, False)])
def test_a_sure_order_naming_a_ware_buys_it_whatever_act_its_words_are_near(
    share: float, bought: bool
) -> None:
    """ "a water skin to take with me, kind sir" is as near thanks as an order by its
    words; a sure order by its deal buys the ware it names."""
    line = "a water skin to take with me, kind sir"
    thanks = Vote("thanks", {"thanks": 0.6, "trade": 0.4}, "")
    heard = Heard(
        line,
        Act.THANKS,
        thanks,
        None,
        (),
        (),
        (),
        None,
        np.zeros(3, np.float32),
        Vote("order", {"order": share, "other": 1 - share}, ""),
    )
    answer = _deed_answer(heard, (SELL, GUIDE))
    chosen = answer.deed if answer is not None else None
    assert (chosen is not None and chosen.arguments.get("item") == "water_skin") is bought


@pytest.mark.parametrize(
    ("share", "need", "chooses"), [(0.7, 0.6, False), (0.3, 0.0, True), (0.55, 0.8, True)]
)
def test_a_sure_question_of_fact_chooses_nothing_however_near_an_action(
    share: float, need: float, chooses: bool
) -> None:
    """ "Is the road to the salt oasis passable?" is near the guide's description, but
    asks what is so; an unsure one may be a request put as a question, and so is one
    that shows a need of passage more surely than it asks ("I'm stranded. Any way
    across to the salt oasis?")."""
    line = "Is the road to the salt oasis passable?"
    fact = Vote("fact", {"fact": share, "request": 1 - share}, "")
    shown = Vote("passage", {"passage": need, "none": 1 - need}, "")
    near = np.array([1.0, 0.0, 0.0], np.float32)
    heard = Heard(line, Act.FACT, fact, None, (), (), (), None, near, need=shown)
    answer = _deed_answer(heard, (GUIDE,))
    assert (answer is not None and answer.deed is not None) is chooses


CAMELS = "My camels are packed and the salt oasis is three days out."


@pytest.mark.parametrize(
    ("line", "share", "guide", "chooses"),
    [
        (CAMELS, 0.3, 0.32, True),
        (CAMELS, 0.7, 0.32, True),
        ("Are your camels packed for the salt oasis?", 0.7, 0.32, False),
        (CAMELS, 0.3, 0.2, False),
        (CAMELS, 0.3, 0.24, False),
    ],
)
def test_an_action_that_stands_out_is_asked_for_by_a_line_of_unsure_act_or_a_statement(
    line: str, share: float, guide: float, chooses: bool
) -> None:
    """ "My camels are packed and the salt oasis is three days out." is small talk by
    its words, and asks for the guide, whose description stands out of the others
    (DISTINCT_FITS, DISTINCT_MARGIN ahead): at an unsure share of the vote, or at a sure
    one as a statement (a trouble or plan told); not as a question the act is sure of,
    nor when the guide is too little near the line (under NAMED_FITS too, from which
    naming the salt oasis would ask for it)."""
    talk = Vote("small_talk", {"small_talk": share, "request": 1 - share}, "")
    heard = Heard(line, Act.SMALL_TALK, talk, None, (), (), (), None, np.array([1, 0], np.float32))
    near = {GUIDE.description: guide, SELL.description: 0.17}
    answer = _deed_answer(heard, (SELL, GUIDE), near)
    chosen = answer.deed if answer is not None else None
    assert (chosen is not None and chosen.action.name == "guide") is chooses
    if chooses:
        assert chosen is not None and chosen.arguments == {"oasis": "salt_oasis"}


def test_a_greeting_however_unsure_asks_for_no_action_that_stands_out() -> None:
    """ "Peace be upon you, keeper." is a greeting at 0.41 of the vote and 0.32 near the
    guide's description, which stands out of the others: a greeting asks nothing of
    the NPC's hands."""
    line = "Peace be upon you, keeper."
    hello = Vote("greeting", {"greeting": 0.41, "small_talk": 0.3, "request": 0.29}, "")
    heard = Heard(line, Act.GREETING, hello, None, (), (), (), None, np.array([1, 0], np.float32))
    near = {GUIDE.description: 0.32, SELL.description: 0.17}
    answer = _deed_answer(heard, (SELL, GUIDE), near)
    assert answer is None or answer.deed is None


@pytest.mark.parametrize(("guide", "chooses"), [(0.27, True), (0.22, False), (0.19, False)])
def test_a_line_naming_an_option_of_the_action_it_is_nearest_asks_for_it(
    guide: float, chooses: bool
) -> None:
    """ "Sandstorm coming, we have to reach the salt oasis!" names a place the guide
    leads to: it asks for the guide when the guide is the nearest action (0.2 for the
    seller) from NAMED_FITS, though it stands out of nothing."""
    line = "Sandstorm coming, we have to reach the salt oasis!"
    talk = Vote("small_talk", {"small_talk": 0.4, "request": 0.3, "other": 0.3}, "")
    heard = Heard(line, Act.SMALL_TALK, talk, None, (), (), (), None, np.array([1, 0], np.float32))
    answer = _deed_answer(heard, (SELL, GUIDE), {GUIDE.description: guide, SELL.description: 0.2})
    chosen = answer.deed if answer is not None else None
    assert (chosen is not None and chosen.arguments == {"oasis": "salt_oasis"}) is chooses


@pytest.mark.parametrize(
    ("red", "salt", "oasis"), [(0.3, 0.5, "salt_oasis"), (0.4, 0.38, "red_oasis")]
)
def test_an_option_the_line_means_without_naming_it_is_the_nearest_when_well_ahead(
    red: float, salt: float, oasis: str
) -> None:
    """ "Guide me to the springs where the white crust cracks underfoot" names neither
    oasis: the one whose label is nearest, OPTION_MARGIN ahead of the other, is taken;
    else the model picks (here the scaffold's first option)."""
    line = "Guide me to the springs where the white crust cracks underfoot."
    ask = Vote("request", {"request": 0.9, "other": 0.1}, "")
    heard = Heard(line, Act.REQUEST, ask, None, (), (), (), None, np.array([1, 0], np.float32))
    near = {GUIDE.description: 0.5, "the red oasis": red, "the salt oasis": salt}
    answer = _deed_answer(heard, (SELL, GUIDE), near)
    assert answer is not None and answer.deed is not None
    assert answer.deed.arguments == {"oasis": oasis}


def test_an_unsure_threat_is_granted_no_action_however_one_stands_out() -> None:
    """ "I'm going to torch the salt oasis tonight" is near the guide's description, but
    no "Of course." answers a threat, however unsure."""
    line = "I'm going to torch the salt oasis tonight and you can't stop me."
    threat = Vote("threat", {"threat": 0.4, "request": 0.35, "fact": 0.25}, "")
    heard = Heard(line, Act.THREAT, threat, None, (), (), (), None, np.array([1, 0], np.float32))
    answer = _deed_answer(heard, (SELL, GUIDE), {GUIDE.description: 0.4, SELL.description: 0.1})
    assert answer is None or answer.deed is None


FILL = GameAction(
    "fill_skin",
    "fill the asker's water skin at the well",
    (ActionArgument("skin", ArgumentType.ITEM, (ActionOption("water_skin", "a water skin", 1),)),),
)


@pytest.mark.parametrize(
    ("line", "deal", "share", "chosen"),
    [
        ("I'll have one of your water skins for the road.", "order", 0.9, "sell"),
        ("Fill my water skin before I go.", "order", 0.9, "fill_skin"),  # its verb said
        ("My water skin ran dry halfway across the flats.", "other", 0.9, "fill_skin"),
        ("a water skin for the road?", "order", 0.9, "sell"),
        ("a water skin for the road?", "order", 0.64, "fill_skin"),  # no sure order
    ],
)
def test_a_ware_another_action_takes_is_bought_when_ordered_without_that_actions_verb(
    line: str, deal: str, share: float, chosen: str
) -> None:
    """Filling a water skin takes the ware sold: nearest the line, it is asked for when
    the line says its verb or is no sure order by its deal; a sure order buys the ware."""
    vote = Vote("request", {"request": 0.9, "other": 0.1}, "")
    heard = Heard(line, Act.REQUEST, vote, None, (), (), (), None, np.array([1, 0], np.float32))
    heard = replace(heard, deal=Vote(deal, {deal: share, "other": 1 - share}, ""))
    answer = _deed_answer(heard, (SELL, FILL), {FILL.description: 0.55, SELL.description: 0.5})
    assert answer is not None and answer.deed is not None
    assert answer.deed.action.name == chosen


def test_a_faint_threat_asks_like_any_line_the_classifier_is_unsure_of() -> None:
    """ "Take me out to the salt oasis, the one past the dead palms" reads as a threat
    at 0.3 of the vote, under FAINT_THREAT: a rough order, asking for the guide."""
    line = "Take me out to the salt oasis, the one past the dead palms."
    threat = Vote("threat", {"threat": 0.3, "request": 0.25, "fact": 0.25, "other": 0.2}, "")
    heard = Heard(line, Act.THREAT, threat, None, (), (), (), None, np.array([1, 0], np.float32))
    answer = _deed_answer(heard, (SELL, GUIDE), {GUIDE.description: 0.4, SELL.description: 0.1})
    assert answer is not None and answer.deed is not None and answer.deed.action == GUIDE


@pytest.mark.parametrize(("share", "bought"), [(0.3, True), (0.7, False)])
def test_a_line_of_unsure_act_naming_a_ware_of_the_action_it_is_nearest_buys_it(
    share: float, bought: bool
) -> None:
    """ "just a water skin, and quick, the caravan's leaving" orders without a verb."""
    line = "just a water skin, and quick, the caravan's leaving"
    talk = Vote("small_talk", {"small_talk": share, "request": 1 - share}, "")
    heard = Heard(line, Act.SMALL_TALK, talk, None, (), (), (), None, np.array([1, 0], np.float32))
    answer = _deed_answer(heard, (SELL, GUIDE), {SELL.description: 0.3, GUIDE.description: 0.1})
    chosen = answer.deed if answer is not None else None
    assert (chosen is not None and chosen.arguments.get("item") == "water_skin") is bought


@pytest.mark.parametrize(
    ("act", "share", "water", "guide", "bought"),
    [
        (Act.SMALL_TALK, 0.3, 0.4, 0.1, True),
        (Act.SMALL_TALK, 0.7, 0.4, 0.1, False),
        (Act.SMALL_TALK, 0.3, 0.2, 0.1, False),
        (Act.REQUEST, 0.9, 0.4, 0.25, True),
    ],
)
def test_a_ware_meant_in_other_words_stands_out_of_the_others(
    act: Act, share: float, water: float, guide: float, bought: bool
) -> None:
    """ "need something to carry water across the dunes" names no ware, but means the
    water skin: nearer it than the rope by far, though under WARE_FITS; not when the
    act is sure (but for a request), nor when the water skin is no nearer than the rope."""
    line = "need something to carry water across the dunes"
    talk = Vote(act.value, {act.value: share, "other": 1 - share}, "")
    heard = Heard(line, act, talk, None, (), (), (), None, np.array([1, 0], np.float32))
    near = {"a water skin": water, "a coil of rope": 0.1, SELL.description: 0.2}
    answer = _deed_answer(heard, (SELL, GUIDE), near | {GUIDE.description: guide})
    chosen = answer.deed if answer is not None else None
    assert (chosen is not None and chosen.arguments.get("item") == "water_skin") is bought


def test_one_ware_is_sold_a_reply_and_the_others_ordered_are_asked_for_again() -> None:
    line = "two water skins and a coil of rope, please"
    trade = Vote("trade", {"trade": 0.9, "request": 0.1}, "")
    heard = Heard(line, Act.TRADE, trade, None, (), (), (), None, np.array([1, 0], np.float32))
    answer = _deed_answer(heard, (SELL, GUIDE), {SELL.description: 0.5})
    assert answer is not None and answer.deed is not None
    assert answer.deed.arguments == {"item": "water_skin", "count": "2"}
    assert answer.sentences == (
        "Of course.",
        "Two water skins come to 6 shells.",
        "Then ask me for a coil of rope.",
    )


def test_a_sale_of_a_ware_the_line_does_not_name_is_no_guess_but_the_wares_said() -> None:
    line = "I need something for the crossing"
    ask = Vote("request", {"request": 0.9, "other": 0.1}, "")
    heard = Heard(line, Act.REQUEST, ask, None, (), (), (), None, np.array([1, 0], np.float32))
    answer = _deed_answer(heard, (SELL, GUIDE), {SELL.description: 0.5})
    assert answer is not None and answer.deed is None
    assert answer.sentences == (
        "I have a water skin for 3 shells and a coil of rope for 2 shells.",
    )


def test_a_ware_meant_is_counted_by_a_number_that_is_not_some_of_another_thing() -> None:
    assert _said_number("a bed for two nights") == 2
    assert _said_number("a couple of stims for the double shift") == 2
    assert _said_number("caught my hand in a clamp, two of the fingers are broken") == 1
    assert _said_number("could I take four of your water skins off your hands?") == 4
    assert _said_number("I'll take her. Three hundred, sails and all.") == 1  # a sum
    assert _said_number("a hundred arrows") == 100
    # a number in a sentence of the past tells what happened, not how many are wanted
    assert _said_number("Haven't slept in three nights. I'll take something for it.") == 1
    # a demonstrative points at the wares in view
    assert _said_number("two of those pies") == 2
    assert _said_number("gimme 3 of them ration bricks") == 3
    assert _said_number("two of them are sick, I need a tonic") == 1


def test_a_question_of_why_asks_to_be_told_not_for_a_deed() -> None:
    asked = _deed_answer(_heard("why are you selling water skins anyway? you need them"), (SELL,))
    assert asked is None
    bought = _deed_answer(_heard("why not sell me two water skins?"), (SELL, GUIDE))
    assert bought is not None and bought.deed is not None
    assert bought.deed.arguments == {"item": "water_skin", "count": "2"}


def test_a_ware_said_not_to_be_wanted_is_not_bought() -> None:
    line = "dont need a water skin, just show me the way to the red oasis"
    answer = _deed_answer(_heard(line), (SELL, GUIDE))
    assert answer is None or answer.deed is None or answer.deed.action.name != "sell"


def test_a_ware_sold_by_a_measure_is_named_by_counting_the_measure() -> None:
    stabling = ActionOption("stabling", "stabling for one night", 4)
    hire = ActionOption("camel_hire", "a day's camel hire", 9)
    item = ActionArgument("item", ArgumentType.ITEM, (WATER, stabling, hire))
    sell = replace(SELL, arguments=(item, SELL.arguments[1]))
    bought = _deed_answer(_heard("my camels need a roof, four nights if you can"), (sell, GUIDE))
    assert bought is not None and bought.deed is not None
    assert bought.deed.arguments == {"item": "stabling", "count": "4"}
    assert bought.deed.price == 16
    hired = _deed_answer(_heard("I'll want the beast three days"), (sell, GUIDE))
    assert hired is not None and hired.deed is not None
    assert hired.deed.arguments["item"] == "camel_hire" and hired.deed.price == 27
    assert _measure(Ware("", "a week's mooring", 10, "")) == {"week"}
    assert _counted("two weeks' berth for the Tern") == {"week"}
    assert _counted("one night, and a long night it was") == set()  # one of it is no count


def test_an_ultimatum_is_a_threat_though_it_names_a_price() -> None:
    """ "300 for that rotten old skin? let me have it for fifty or your stall burns" is
    no question of price: the NPC answers the threat (which of its actions answers
    threats the real embedder tells: tests/integration/test_game_actions.py)."""
    refuse = GameAction("refuse", "refuse the request and send the asker away")
    line = "3 shells for that leaky water skin? let me have it for 1 or your stall burns"
    vote = Vote("threat", {"threat": 0.9, "trade": 0.1}, "")
    asking = Vote(Deal.ASK, {Deal.ASK: 0.64, Deal.ORDER: 0.36}, "")
    from npc_brain.mind.talk.deeds import ANSWERS_TO_A_THREAT

    axes = np.eye(4, dtype=np.float32)

    async def embed(texts: object) -> np.ndarray:
        def at(text: str) -> np.ndarray:
            if text.startswith(SELL.description):
                return 0.3 * axes[0] + 0.954 * axes[2]
            if text.startswith(refuse.description):
                return 0.1 * axes[0] + 0.995 * axes[1]  # near the answers to a threat
            return axes[1] if text in ANSWERS_TO_A_THREAT else axes[3]

        return np.stack([at(t) for t in texts])  # type: ignore[attr-defined]

    heard = Heard(line, Act.THREAT, vote, None, (), (), (), None, axes[0], asking, True)
    answer = _deed_answer_embedded(heard, (SELL, refuse), embed)
    assert answer is not None and answer.deed is not None
    assert answer.sentences == ("I won't stand for that.",)


def test_a_wh_question_naming_a_ware_is_told_its_price_not_sold_it() -> None:
    """ "heard you sell rope. what's the figure?" asks; it buys nothing, however near
    the line is to selling."""
    line = "heard you've got rope going. whats the figure"
    fact = Vote("fact", {"fact": 0.46, "trade": 0.3, "request": 0.24}, "")
    heard = Heard(line, Act.FACT, fact, None, (), (), (), None, np.array([1, 0], np.float32))
    answer = _deed_answer(heard, (SELL, GUIDE), {SELL.description: 0.6})
    assert answer is not None and answer.deed is None
    assert answer.sentences == ("A coil of rope is 2 shells.",)


def test_an_option_labelled_with_a_letter_is_named_by_its_whole_label() -> None:
    """ "ring A" names the Ring A of Ring A, Ring B and Ring C, though "a" is no content
    word: the label is said whole; "the ring" names none of them."""
    rings = ActionArgument(
        "ring",
        ArgumentType.PLACE,
        tuple(ActionOption(f"ring_{x}", f"Ring {x.upper()}") for x in "abc"),
    )
    said = {"ring", "a"}
    assert [o.value for o in _options_named(rings, said, "pressure alarm in ring A!")] == ["ring_a"]
    assert _options_named(rings, {"ring"}, "alarm on the ring!") == []


def _deed_answer(
    heard: Heard, actions: tuple[GameAction, ...], cosines: dict[str, float] | None = None
) -> Answer | None:
    """deed_answer for the trader declaring `actions`, every text embedded where the
    line is (but the answers to a threat, at right angles), or with `cosines` (a text's
    start -> its cosine to the line [1, 0, 0]) each text at that cosine and the rest at
    right angles to the line and to them (the trader remembers and plans nothing)."""
    from npc_brain.mind.talk.deeds import ANSWERS_TO_A_THREAT

    def at(text: str) -> np.ndarray:
        x = next((c for start, c in (cosines or {}).items() if text.startswith(start)), None)
        if x is None:
            return np.array([0, 0, 1], np.float32)
        return np.array([x, np.sqrt(1 - x * x), 0], np.float32)

    async def embed(texts: object) -> np.ndarray:
        if cosines is not None:
            return np.stack([at(t) for t in texts])  # type: ignore[attr-defined]
        aside = np.roll(heard.vector, 1)
        return np.stack([aside if t in ANSWERS_TO_A_THREAT else heard.vector for t in texts])  # type: ignore[attr-defined]

    if cosines is not None:
        heard = replace(heard, vector=np.array([1, 0, 0], np.float32))
    return _deed_answer_embedded(heard, actions, embed)


def _chosen(answer: Answer | None) -> str | None:
    """The name of the action an answer chose, None when it chose none."""
    return answer.deed.action.name if answer is not None and answer.deed else None


def _deed_answer_embedded(
    heard: Heard, actions: tuple[GameAction, ...], embed: object
) -> Answer | None:
    """deed_answer for the trader declaring `actions`, texts embedded by `embed`."""

    async def recall(*_: object) -> list[object]:
        return []

    trader = AgentRecord("oda", TRADER, actions=actions)
    empty = SimpleNamespace(stream=lambda _: SimpleNamespace(records=[]))  # no memories, no plans
    scene = Scene(empty, trader, "player", "", NOW, heard, {}, [], recall, embed)  # type: ignore[arg-type]
    return asyncio.run(deed_answer(scene))


def test_a_ware_named_by_its_head_alone_gives_way_to_another_actions_option_named_whole() -> None:
    seed = ActionOption("seed_cake", "a seed cake")
    bake = GameAction(
        "bake_to_order",
        "bake a cake to order",
        (ActionArgument("cake", ArgumentType.CHOICE, (seed,)),),
    )
    assert _named_whole(bake, "could you do us a seed cake for saturday?")
    assert not _named_whole(bake, "a honey cake, please")


def test_a_ware_another_action_takes_is_the_speakers_own_after_a_possessive() -> None:
    skin = Ware("", "a water skin", 3, "shells", 0, "water_skin", "sell")
    assert _owned("a lizard chewed a hole in my old water skin", skin)
    assert not _owned("I'll have one of your water skins", skin)
    assert not _owned("we'll need three water skins", skin)


TEND = GameAction("tend", "treat the patient's injury")


@pytest.mark.parametrize(
    ("need", "share", "chooses"),
    [("injury", 0.7, True), ("injury", 0.3, False), ("none", 0.9, False), ("repair", 0.7, False)],
)
def test_a_trouble_asks_for_the_action_that_stands_for_the_need_it_shows(
    need: str, share: float, chooses: bool
) -> None:
    """ "caught my hand in the winch, it won't stop bleeding" is small talk by its words
    and near no description; it shows an injury (Heard.need, from NEED_SURE), whose
    services stand for treating the patient's injury and for nothing the trader sells.
    A need shown unsurely, no need, or a need no declared action stands for asks nothing."""
    from npc_brain.mind.talk.deeds import need_services

    line = "caught my hand in the winch, it won't stop bleeding"
    axes = np.eye(4, dtype=np.float32)
    treating = {*need_services()[Need.INJURY], TEND.description}

    async def embed(texts: object) -> np.ndarray:
        def at(text: str) -> np.ndarray:
            if text in treating:
                return axes[2]
            return axes[1] if text.startswith(SELL.description) else axes[3]

        return np.stack([at(t) for t in texts])  # type: ignore[attr-defined]

    talk = Vote("small_talk", {"small_talk": 0.4, "request": 0.3, "other": 0.3}, "")
    shown = Vote(need, {need: share, "none": 1 - share}, "")
    heard = Heard(line, Act.SMALL_TALK, talk, None, (), (), (), None, axes[0], need=shown)
    answer = _deed_answer_embedded(heard, (SELL, TEND), embed)
    chosen = _chosen(answer)
    assert (chosen == "tend") is chooses


@pytest.mark.parametrize(("share", "chooses"), [(0.7, True), (0.45, False)])
def test_a_need_surely_shown_leads_an_action_as_near_by_its_words(
    share: float, chooses: bool
) -> None:
    """ "flat broke, any way a fellow could earn his supper?" is as near selling (the
    supper) by its words as giving work; it surely shows a need of work, whose action
    then leads. Shown less surely, the tie stands and nothing is chosen."""
    from npc_brain.mind.talk.deeds import need_services

    hire = GameAction("hire", "give the asker a paid job for the day")
    axes = np.eye(4, dtype=np.float32)
    working = {*need_services()[Need.WORK], hire.description}

    async def embed(texts: object) -> np.ndarray:
        def at(text: str) -> np.ndarray:
            if text in working:
                return 0.5 * axes[0] + np.sqrt(0.75) * axes[2]  # 0.5 to the line
            if text.startswith(SELL.description):
                return 0.5 * axes[0] + np.sqrt(0.75) * axes[1]
            return axes[3]

        return np.stack([at(t) for t in texts])  # type: ignore[attr-defined]

    ask = Vote("request", {"request": 0.9, "other": 0.1}, "")
    shown = Vote("work", {"work": share, "none": 1 - share}, "")
    line = "I'm flat broke. Any way a fellow could earn his supper?"
    heard = Heard(line, Act.REQUEST, ask, None, (), (), (), None, axes[0], need=shown)
    answer = _deed_answer_embedded(heard, (SELL, hire), embed)
    chosen = _chosen(answer)
    assert (chosen == "hire") is chooses


@pytest.mark.parametrize(("stitching", "chosen"), [(0.0, None), (0.25, "stitch")])
def test_a_need_several_actions_meet_alike_is_offered_them_unless_the_line_is_nearest_one(
    stitching: float, chosen: str | None
) -> None:
    """A healer who stitches wounds and sets bones meets an injury either way: told of a
    bite, she chooses neither and offers both, to the asker ("your wound"); a line well
    nearer one of them by its words asks for that one."""
    from npc_brain.mind.talk.deeds import need_services

    stitch = GameAction("stitch", "stitch and dress a patient's wound")
    bone = GameAction("set_bone", "set the customer's broken bone")
    axes = np.eye(4, dtype=np.float32)
    treating = {*need_services()[Need.INJURY], stitch.description, bone.description}

    async def embed(texts: object) -> np.ndarray:
        def at(text: str) -> np.ndarray:
            if text == stitch.description:  # as near the injury, nearer the line
                return stitching * axes[0] + np.sqrt(1 - stitching**2) * axes[2]
            return axes[2] if text in treating else axes[3]

        return np.stack([at(t) for t in texts])  # type: ignore[attr-defined]

    talk = Vote("small_talk", {"small_talk": 0.4, "request": 0.3, "other": 0.3}, "")
    shown = Vote("injury", {"injury": 0.7, "none": 0.3}, "")
    line = "a rattler got me on the ankle out by the creek"
    heard = Heard(line, Act.SMALL_TALK, talk, None, (), (), (), None, axes[0], need=shown)
    answer = _deed_answer_embedded(heard, (SELL, stitch, bone), embed)
    assert answer is not None
    assert (answer.deed.action.name if answer.deed else None) == chosen
    if chosen is None:
        assert answer.text == (
            "I can stitch and dress your wound or set your broken bone. Which do you need?"
        )


@pytest.mark.parametrize(
    ("line", "act", "need", "chooses"),
    [
        ("My sister had the fever two summers ago, nearly died of it.", 0.3, "none", False),
        ("I sliced my palm open on a panel this morning.", 0.3, "injury", True),
        ("My camel threw a shoe on the way here.", 0.6, "none", True),  # asked by its words
        ("My sister had the fever. Can you sell me something for it?", 0.3, "none", True),
    ],
)
def test_a_story_of_the_past_asks_for_nothing(
    line: str, act: float, need: str, chooses: bool
) -> None:
    """A line all in the past tense that surely shows no need and is no sure request
    tells a story: it chooses nothing, however near an action's words ("fever" of a
    fever tonic). A trouble told in the past tense is still a need now."""
    ask = Vote("request", {"request": act, "small_talk": 1 - act}, "")
    shown = Vote(need, {need: 0.8, "other": 0.2}, "")
    near = np.array([1.0, 0.0, 0.0], np.float32)
    heard = Heard(line, Act.REQUEST, ask, None, (), (), (), None, near, need=shown)
    answer = _deed_answer(heard, (GUIDE,))
    assert (answer is not None and answer.deed is not None) is chooses


def test_a_story_read_as_a_request_is_answered_as_small_talk_not_declined() -> None:
    """Without actions too: "I'm sorry, I can't help you with that." answered a story."""
    from npc_brain.mind.talk.compose import compose

    async def embed(texts: object) -> np.ndarray:
        return np.stack([np.array([0, 0, 1], np.float32) for _ in texts])  # type: ignore[attr-defined]

    async def recall(*_: object) -> list[object]:
        return []

    line = "My sister had the fever two summers ago, nearly died of it."
    ask = Vote("request", {"request": 0.4, "small_talk": 0.35, "other": 0.25}, "")
    shown = Vote("none", {"none": 0.9, "illness": 0.1}, "")
    heard = Heard(line, Act.REQUEST, ask, None, (), (), (), None, np.eye(3)[0], need=shown)
    idle = SimpleNamespace(plan=None, plan_day=None, action=None)
    empty = SimpleNamespace(stream=lambda _: SimpleNamespace(records=[]), mind=lambda _: idle)
    scene = Scene(
        empty, AgentRecord("oda", TRADER), "player", "", NOW, heard, {}, [], recall, embed
    )  # type: ignore[arg-type]
    assert asyncio.run(compose(scene)).text == "True enough."


def test_no_hostile_action_is_granted_to_a_line_that_is_no_threat() -> None:
    """ "any odd jobs going round the tavern?" is near throwing a troublemaker out of the
    tavern by its words; throwing out answers threats only, so nothing is chosen."""
    from npc_brain.mind.talk.deeds import ANSWERS_TO_A_THREAT

    throw = GameAction("throw_out", "throw a troublemaker out of the tavern")
    axes = np.eye(4, dtype=np.float32)

    async def embed(texts: object) -> np.ndarray:
        def at(text: str) -> np.ndarray:
            if text.startswith(throw.description):
                return 0.6 * axes[0] + 0.8 * axes[1]  # 0.6 to the line, 0.8 to a threat's answer
            if text in ANSWERS_TO_A_THREAT:
                return axes[1]
            return axes[2] if text.startswith(SELL.description) else axes[3]

        return np.stack([at(t) for t in texts])  # type: ignore[attr-defined]

    ask = Vote("request", {"request": 0.9, "other": 0.1}, "")
    line = "any odd jobs going round the tavern?"
    heard = Heard(line, Act.REQUEST, ask, None, (), (), (), None, axes[0])
    answer = _deed_answer_embedded(heard, (SELL, throw), embed)
    assert answer is None or answer.deed is None


@pytest.mark.parametrize(
    ("line", "price"),
    [("put a water skin by for me? I'm out till noon", 3), ("put two water skins by for me?", 6)],
)
def test_a_need_whose_action_takes_the_ware_named_does_that_to_it_rather_than_sell_it(
    line: str, price: float
) -> None:
    """ "put a water skin by for me?" names a ware and is nearest selling it by its
    words, but shows a need (unsurely: 0.45) met by keeping a thing back, which takes the
    water skin: the skin is kept back, not sold, at its price times how many."""
    from npc_brain.mind.talk.deeds import need_services

    keep = GameAction(
        "keep_aside",
        "keep something back for the customer to collect later",
        (ActionArgument("item", ArgumentType.ITEM, (WATER,)),),
    )
    axes = np.eye(4, dtype=np.float32)
    keeping = {*need_services()[Need.RESERVE], keep.description}

    async def embed(texts: object) -> np.ndarray:
        def at(text: str) -> np.ndarray:
            if text in keeping or text.startswith(keep.description):
                return axes[2]
            if text.startswith(SELL.description):
                return 0.8 * axes[0] + 0.6 * axes[1]
            return axes[3]

        return np.stack([at(t) for t in texts])  # type: ignore[attr-defined]

    ask = Vote("request", {"request": 0.9, "other": 0.1}, "")
    shown = Vote("reserve", {"reserve": 0.45, "goods": 0.3, "none": 0.25}, "")
    heard = Heard(line, Act.REQUEST, ask, None, (), (), (), None, axes[0], need=shown)
    answer = _deed_answer_embedded(heard, (SELL, keep), embed)
    assert answer is not None and answer.deed is not None
    assert (answer.deed.action.name, answer.deed.arguments) == (
        "keep_aside",
        {"item": "water_skin"},
    )
    assert answer.deed.price == price


def test_an_order_of_what_an_action_does_to_a_thing_is_priced_as_the_deed() -> None:
    """An ITEM of an action that works on it ("mend a torn net") is no ware for sale:
    its price is said as the deed's, not as the thing's ("A hand net is 2 coins.")."""
    net = ActionArgument("net", ArgumentType.ITEM, (ActionOption("hand_net", "a hand net", 2),))
    mend = GameAction("mend_net", "mend a torn net", (net,), 0, "shells")
    answer = _deed_answer(_heard("mend my hand net please"), (SELL, mend))
    assert answer is not None and answer.deed is not None
    assert answer.deed.action.name == "mend_net"
    assert answer.sentences == ("Of course, I'll mend your hand net.", "That's 2 shells.")


def _taking_one(name: str, description: str, option: tuple[str, str, float]) -> GameAction:
    """A priced action in shells whose one ITEM argument has one option."""
    item = ActionArgument("item", ArgumentType.ITEM, (ActionOption(*option),))
    return GameAction(name, description, (item,), 0, "shells")


def test_the_same_thing_to_two_actions_goes_to_the_one_the_line_is_nearer() -> None:
    """A line meaning a thing one action sells and another works on, as near each
    ("my trawl" of "a mended trawl net" and "a trawl net"), is for the action whose
    description the line is nearer: the trouble is mended, not a new net sold."""
    sell = _taking_one("sell", "sell one of my wares", ("mended_trawl", "a mended trawl net", 40))
    mend = _taking_one("mend_net", "mend a torn net", ("trawl_net", "a trawl net", 12))
    cosines = {"sell one": 0.44, "mend a torn": 0.51, "a mended trawl": 0.6, "a trawl net": 0.57}
    answer = _deed_answer(
        _heard("snagged my trawl on the rocks and tore a hole in it"), (sell, mend), cosines
    )
    assert answer is not None and answer.deed is not None
    assert (answer.deed.action.name, answer.deed.arguments) == ("mend_net", {"item": "trawl_net"})


def test_a_line_of_unsure_act_that_surely_needs_nothing_asks_for_no_action() -> None:
    """ "Is it true the raiders hit the salt oasis?" names the guide's option and is a
    question of fact at an unsure share; the need it shows is surely none, so it asks
    for nothing, as the same line showing no sure need would stand out (above)."""
    line = "Is it true the raiders hit the salt oasis?"
    fact = Vote("fact", {"fact": 0.47, "request": 0.53 - 0.2, "small_talk": 0.2}, "")
    near = {GUIDE.description: 0.32, SELL.description: 0.17}
    for none, chooses in ((0.75, False), (0.3, True)):
        shown = Vote("none", {"none": none, "passage": 1 - none}, "")
        heard = Heard(
            line, Act.FACT, fact, None, (), (), (), None, np.array([1, 0], np.float32), need=shown
        )
        answer = _deed_answer(heard, (SELL, GUIDE), near)
        assert (answer is not None and answer.deed is not None) is chooses


def test_a_need_to_buy_a_ware_buys_it_though_another_action_takes_it() -> None:
    """ "need a water skin for the crossing" names a ware that a job to find lost water
    skins takes too; a line that is no order by its deal may ask that job of it, but not
    when it surely shows a need to buy (Need.GOODS)."""
    lost = ActionOption("lost_skins", "tracking down the lost water skins")
    job = GameAction(
        "give_job", "hand the asker a job", (ActionArgument("job", ArgumentType.QUEST, (lost,)),)
    )
    line = "need a water skin for the crossing tomorrow"
    ask = Vote("ask", {"ask": 0.47, "order": 0.4, "other": 0.13}, "")
    near = {job.description: 0.6, SELL.description: 0.46}
    for need, bought in ((Vote("goods", {"goods": 0.65, "find": 0.35}, ""), True), (None, False)):
        heard = replace(_heard(line, ask), act=Act.REQUEST, need=need)
        answer = _deed_answer(heard, (SELL, job), near)
        assert answer is not None and answer.deed is not None
        assert (answer.deed.action.name == "sell") is bought


def test_a_thing_to_work_on_that_the_line_leaves_open_is_asked_not_guessed() -> None:
    """An action that works on one of several priced things ("repair a damaged weapon")
    is not given one the model guesses: the NPC asks which, choosing nothing."""
    weapons = ActionArgument(
        "weapon",
        ArgumentType.ITEM,
        (ActionOption("sword", "a sword", 6), ActionOption("dagger", "a dagger", 4)),
    )
    repair = GameAction("repair", "repair a damaged weapon", (weapons,), 0, "shells")
    answer = _deed_answer(_heard("can you fix it up for me?"), (SELL, repair), {"repair a": 0.6})
    assert answer is not None and answer.deed is None
    assert answer.sentences == (
        "I can repair a sword for 6 shells or a dagger for 4 shells.",
        "Which is it?",
    )


def test_what_a_line_says_it_does_not_want_is_left_out_of_its_meaning() -> None:
    from npc_brain.mind.talk.deeds import declared_wares
    from npc_brain.mind.talk.trade import wanted_part

    wares = declared_wares((SELL,))
    assert wanted_part("Dont need a water skin, just the way to the oasis.", wares) == (
        "just the way to the oasis."
    )
    assert wanted_part("got no water skin, need one", wares) == "got no water skin, need one"


COUGH = ActionOption("cough", "a cough")
BREW = GameAction(  # to order, for one of two ailments
    "brew",
    "brew a remedy to order for an ailment",
    (ActionArgument("ailment", ArgumentType.CHOICE, (COUGH, ActionOption("fever", "a fever"))),),
    price=3,
    currency="shells",
)


@pytest.mark.parametrize(("meant", "chosen"), [(False, None), (True, "brew")])
def test_a_need_met_only_for_declared_choices_is_not_met_for_another(
    meant: bool, chosen: str | None
) -> None:
    """A herbalist brews to order for a cough or a fever. "can't sleep, need something
    to put me under" shows an illness, whose services stand for brewing, and is neither
    choice: the need does not choose the brewing (the model would guess a cough). A
    line that means one of the choices does."""
    from npc_brain.mind.talk.deeds import need_services

    brew, cough = BREW, COUGH
    axes = np.eye(4, dtype=np.float32)
    healing = {*need_services()[Need.ILLNESS], brew.description}

    async def embed(texts: object) -> np.ndarray:
        def at(text: str) -> np.ndarray:
            if text in healing:
                return axes[2]
            if text == cough.said and meant:
                return axes[0]  # the line is of the cough
            return axes[3]

        return np.stack([at(t) for t in texts])  # type: ignore[attr-defined]

    talk = Vote("small_talk", {"small_talk": 0.4, "request": 0.3, "other": 0.3}, "")
    shown = Vote("illness", {"illness": 0.7, "none": 0.3}, "")
    line = "can't sleep a wink, need something to put me under"
    heard = Heard(line, Act.SMALL_TALK, talk, None, (), (), (), None, axes[0], need=shown)
    answer = _deed_answer_embedded(heard, (brew,), embed)
    assert (_chosen(answer)) == chosen


def test_an_order_opened_by_an_actions_own_verb_asks_for_it_but_a_light_verb_names_none() -> None:
    """ "chief, hauler's loaded and fuelled. clear me out" orders the clearing by its
    verb, whatever its words are nearest; "give me a break" orders no giving of work,
    and an answer to threats is never bidden so."""
    from npc_brain.mind.talk.deeds import _bidden

    clear = GameAction("clear_departure", "clear a ship to undock and leave the station")
    hire = GameAction("offer_job", "give the asker paid work")
    refuse = GameAction("refuse", "refuse the request and send the asker away")
    actions = (clear, hire, refuse)
    line = "chief, hauler's loaded and fuelled. clear me out"
    assert _bidden(line, actions, [False, False, True]) == [clear]
    assert _bidden("give me a break, will you", actions, [False, False, True]) == []
    assert _bidden("refuse me then, see if I care", actions, [False, False, True]) == []
    assert _bidden("all clear out there?", actions, [False, False, True]) == []  # no order


def test_a_ware_for_sale_named_only_as_the_speakers_own_is_not_ordered() -> None:
    """ "need a can of water for my skin" buys no water skin; a ware another action
    takes stays named, for that action to hear ("my water skin leaks" to one who mends
    them too), and one named again as wanted is bought ("lost my rope, need a rope")."""
    from npc_brain.mind.talk.deeds import _only_owned_for_sale

    (water, rope) = declared_wares((SELL,))
    assert _only_owned_for_sale((SELL,), "a sip for my water skin", water)
    assert not _only_owned_for_sale((SELL,), "lost my rope, need a new rope", rope)
    mend = GameAction(
        "mend", "mend a water skin", (ActionArgument("it", ArgumentType.ITEM, (WATER,)),)
    )
    assert not _only_owned_for_sale((SELL, mend), "a sip for my water skin", water)


def test_an_action_that_takes_things_does_not_take_a_ware_not_among_them() -> None:
    from npc_brain.mind.talk.deeds import _other_items

    (water, rope) = declared_wares((SELL,))
    keep = GameAction(
        "keep_aside", "keep something back", (ActionArgument("item", ArgumentType.ITEM, (WATER,)),)
    )
    assert _other_items(keep, rope) and not _other_items(keep, water)
    assert not _other_items(GUIDE, rope)  # takes no things at all


def test_a_sure_threat_as_near_only_an_answer_to_threats_is_a_threat() -> None:
    """ "I challenge you to a duel. Draw your sword." is a sure threat as near the
    declared fight as a misread request is near what it asks (MISREAD_THREAT): near only
    the answer to it, it is answered with it."""
    from npc_brain.mind.talk.deeds import ANSWERS_TO_A_THREAT

    target = ActionArgument("target", ArgumentType.AGENT, (ActionOption("player", "you"),))
    fight = GameAction("attack", "draw steel and fight someone", (target,))
    axes = np.eye(4, dtype=np.float32)

    async def embed(texts: object) -> np.ndarray:
        def at(text: str) -> np.ndarray:
            if text in ANSWERS_TO_A_THREAT:
                return axes[1]
            if text.startswith(fight.description):  # 0.62 to the line, near the answers
                return 0.62 * axes[0] + np.sqrt(1 - 0.62**2) * axes[1]
            if text.startswith(GUIDE.description):
                return 0.1 * axes[0] + np.sqrt(0.99) * axes[2]
            return axes[3]

        return np.stack([at(t) for t in texts])  # type: ignore[attr-defined]

    threat = Vote("threat", {"threat": 0.8, "request": 0.2}, "")
    line = "I challenge you to a duel. Draw your sword."
    heard = Heard(line, Act.THREAT, threat, None, (), (), (), None, axes[0])
    answer = _deed_answer_embedded(heard, (GUIDE, fight), embed)
    assert answer is not None and answer.deed is not None and answer.deed.action is fight


def test_a_verb_said_as_a_wares_modifier_asks_no_price_of_its_action() -> None:
    """ "what does a mended saddle go for?" asks the sold one's price; "what to get a
    saddle mended?", the mending's."""
    mended = ActionOption("mended_saddle", "a mended saddle", 40)
    sell = GameAction("sell", "sell wares", (ActionArgument("item", ArgumentType.ITEM, (mended,)),))
    mend = GameAction(
        "mend",
        "mend a torn saddle",
        (ActionArgument("it", ArgumentType.ITEM, (ActionOption("saddle", "a saddle", 12),)),),
    )
    actions = (sell, mend)
    asked = [(1, w) for w in declared_wares((sell,))]
    assert _pricing("what does a mended saddle go for?", actions, [0.6, 0.2], asked) is sell
    assert _pricing("what to get a big saddle mended?", actions, [0.6, 0.2], asked) is mend


@pytest.mark.parametrize(("show", "shown"), [(0.62, True), (0.5, False)])
def test_a_ware_named_gives_way_to_the_action_meeting_the_need_its_words_are_well_nearer(
    show: float, shown: bool
) -> None:
    """ "might I see the camel at the pens before I decide?" names the camel for sale,
    shows a need of inspecting, and is by its words well nearer (DISTINCT_MARGIN) the
    showing, which meets that need: it asks to be shown the camel, not to buy it."""
    from npc_brain.mind.talk.deeds import need_services

    camel = ActionOption("camel", "a camel", 90)
    sell = GameAction(
        "sell", "sell animals", (ActionArgument("item", ArgumentType.ITEM, (camel,)),)
    )
    # the stock, not the camel: an action that names the ware takes it (tested apart)
    showing = GameAction("show_camel", "walk a buyer to the pens to look over the stock")
    axes = np.eye(5, dtype=np.float32)
    inspecting = set(need_services()[Need.INSPECT])

    async def embed(texts: object) -> np.ndarray:
        def at(text: str) -> np.ndarray:
            if text in inspecting:
                return axes[2]
            if text.startswith(showing.description):
                return show * axes[0] + np.sqrt(1 - show**2) * axes[2]
            if text.startswith(sell.description) or text == camel.said:
                return 0.45 * axes[0] + np.sqrt(1 - 0.45**2) * axes[3]
            return axes[4]

        return np.stack([at(t) for t in texts])  # type: ignore[attr-defined]

    talk = Vote("fact", {"fact": 0.2, "request": 0.2, "other": 0.6}, "")
    needs = Vote("inspect", {"inspect": 0.45, "none": 0.55}, "")
    line = "might I see the camel at the pens before I decide?"
    heard = Heard(line, Act.OTHER, talk, None, (), (), (), None, axes[0], need=needs)
    answer = _deed_answer_embedded(heard, (sell, showing), embed)
    chosen = _chosen(answer)
    assert (chosen == "show_camel") is shown, chosen


def test_an_alias_names_a_ware_by_its_head_and_a_word_no_dictionary_knows_by_its_stem() -> None:
    """ "two stims" names the stim patch its game also calls a stim; "my chrome" names
    no arm the game also calls a chrome arm (all cyberware is chrome)."""
    stim = ActionOption("stim_patch", "a stim patch", 40, ("stim",))
    arm = ActionOption("cyberarm", "a cyberarm", 120, ("chrome arm",))
    sell = GameAction(
        "sell", "sell supplies", (ActionArgument("item", ArgumentType.ITEM, (stim, arm)),)
    )
    wares = declared_wares((sell,))
    assert [(n, w.value) for n, w in ordered("two stims, quick", wares)] == [(2, "stim_patch")]
    assert ordered("something's off with my chrome", wares) == []
    assert [w.value for _, w in ordered("my chrome arm twitches", wares)] == ["cyberarm"]


def test_a_light_verb_asks_no_price_of_an_action_it_opens() -> None:
    """ "what would it run me to get my arm fixed?" asks the fixing's price, not the
    diagnostic run's."""
    fix = GameAction("fix_implant", "fix a damaged implant", price=120)
    scan = GameAction("run_diagnostic", "run a full diagnostic on someone's implants", price=20)
    assert _pricing("what would it run me to get my arm fixed?", (fix, scan), [0.2, 0.3], []) is fix


def test_a_line_that_picks_from_the_stock_buys() -> None:
    from npc_brain.mind.talk.deeds import _from_stock

    assert _from_stock("one of the cyber eyes, please")
    assert _from_stock("two of your pies") and _from_stock("a couple of those stims")
    assert not _from_stock("two of my fingers are broken")
    assert not _from_stock("the head of the axe is loose")


def _mending(thing: tuple[str, str, float]) -> GameAction:
    """A priced action in shells that mends one thing."""
    return _taking_one("mend", "mend a broken tool", thing)


def test_a_ware_another_action_takes_is_sold_only_when_the_line_orders_it() -> None:
    """ "*sets a knife on the bench* bought this off you last spring and the tip snapped"
    names a knife that the trader sells and mends, and is as near the sale: a line that
    is no order, shows no need to buy and picks nothing from stock asks for the mending.
    The same line, ordering, buys."""
    knife = ("knife", "a knife", 4)
    sell = _taking_one("sell", "sell one of my wares", ("iron_knife", "an iron knife", 9))
    mend = _mending(knife)
    line = "*sets a knife on the bench* bought this off you last spring and the tip snapped"
    near = {"sell one": 0.52, "mend a broken": 0.49}
    for deal, chosen in (("other", "mend"), ("order", "sell")):
        heard = replace(_heard(line, Vote(deal, {deal: 0.94}, "")), act=Act.REQUEST)
        assert _chosen(_deed_answer(heard, (sell, mend), near)) == chosen


CAKED = "pulled the filter and it's caked black, can barely breathe in there"


@pytest.mark.parametrize(
    ("line", "act", "share", "chosen"),
    [
        (CAKED, "small_talk", 0.41, "issue"),
        (CAKED, "small_talk", 0.6, None),
        ("is the filter caked black again?", "small_talk", 0.41, None),
        (CAKED, "threat", 0.41, None),
        ("gimme one of them filters", "small_talk", 0.41, None),
    ],
)
def test_a_trouble_told_of_a_thing_an_action_hands_out_asks_for_it(
    line: str, act: str, share: float, chosen: str | None
) -> None:
    """A statement of unsure act telling of a thing an action hands out and does not
    sell ("pulled the filter and it's caked black") asks for it, though the line is
    nearer another action by its words; not a question, a threat, a sure act or a pick
    from stock."""
    filters = ("air_filter", "an air filter", 0)
    issue = _taking_one("issue", "sign a spare part out of the stores", filters)
    job = GameAction("give_job", "hand the asker a job")
    vote = Vote(act, {act: share, "request": 1 - share}, "")
    heard = Heard(line, Act(act), vote, None, (), (), (), None, np.zeros(3, np.float32))
    near = {"sign a spare": 0.21, "hand the asker": 0.28}
    assert _chosen(_deed_answer(heard, (job, issue), near)) == chosen


def test_a_threat_acted_with_nothing_said_is_sure() -> None:
    """ "*draws a rusty cleaver and charges at the captain*" is a threat by an unsure
    vote (0.47): acted, not said, it is a threat for sure; the same vote on words is not."""
    from npc_brain.mind.talk.understand import threatens

    vote = Vote("threat", {"threat": 0.47, "request": 0.53}, "")
    acted = "*draws a rusty cleaver and charges at the captain*"
    said = "draws a rusty cleaver and charges at the captain"
    for line, sure in ((acted, True), (said, False), (f"{acted} give me the keys", False)):
        heard = Heard(line, Act.THREAT, vote, None, (), (), (), None, np.zeros(3, np.float32))
        assert threatens(heard) is sure


def test_a_ware_is_not_named_by_a_verb_of_its_head() -> None:
    """ "whatever you've got bottled" says no "bottle of fever tonic": a word that can
    only be a verb names no ware by its head; a noun does ("two bottles")."""
    from npc_brain.mind.talk.deeds import _stems_of

    tonic = Ware("", "a bottle of fever tonic", 9, "coins", 0, "fever_tonic", "sell")
    assert _head(tonic) & _stems_of("two bottles, please", nouns_only=True)
    assert not _head(tonic) & _stems_of("whatever you've got bottled", nouns_only=True)


def test_an_action_taking_nothing_takes_the_ware_its_description_names() -> None:
    """ "walk a buyer down to the jetty to look over the Wren" takes no argument, but is
    about the Wren for sale: a line naming the boat and nearest the showing, no order,
    is shown it; an order buys it."""
    sell = _taking_one("sell", "sell one of my wares", ("wren", "the Wren, with her sails", 300))
    show = GameAction("show", "walk a buyer down to the jetty to look over the Wren")
    line = "heard the Wren's up for sale. I never pay for a boat I haven't seen myself"
    near = {"sell one": 0.52, "walk a buyer": 0.54}
    for deal, chosen in (("other", "show"), ("order", "sell")):
        heard = replace(_heard(line, Vote(deal, {deal: 0.9}, "")), act=Act.TRADE)
        assert _chosen(_deed_answer(heard, (sell, show), near)) == chosen


@pytest.mark.parametrize(
    ("line", "many"),
    [
        ("round of ale for me n my 2 mates", 3),
        ("one bowl of that stew for me and one each for my two mates", 3),
        ("two pints, barkeep! one fer me an one fer the lad", 2),
        ("a bed for me and my horse", 1),  # who, not how many
        ("a pie for the missus", 1),
    ],
)
def test_a_round_is_counted_by_whom_it_is_for(line: str, many: int) -> None:
    """ "for me and my two mates" orders three; "one for me and one for the lad", two."""
    from npc_brain.mind.talk.trade import party

    assert party(line) == many


def test_a_round_for_a_party_is_sold_by_its_count() -> None:
    heard = _heard("a coil of rope for me and my two mates", Vote("order", {"order": 0.9}, ""))
    answer = _deed_answer(heard, (SELL,))
    assert answer is not None and answer.deed is not None
    assert answer.deed.arguments == {"item": "rope", "count": "3"}


def test_a_line_saying_the_sales_verb_buys_one_of_the_same_name_another_action_takes() -> None:
    """ "sell me one of your drones?" to one who mends "a broken drone" and sells "a
    rebuilt repair drone" buys the rebuilt one, though the mending's label is nearer."""
    sell = _taking_one(
        "sell", "sell one of my wares", ("rebuilt_drone", "a rebuilt repair drone", 80)
    )
    mend = _mending(("drone", "a broken drone", 15))
    heard = replace(_heard("sell me one of your drones?"), act=Act.REQUEST)
    near = {"sell one": 0.63, "mend a broken": 0.51}
    answer = _deed_answer(heard, (sell, mend), near)
    assert answer is not None and answer.deed is not None
    assert (answer.deed.action.name, answer.deed.arguments) == ("sell", {"item": "rebuilt_drone"})


@pytest.mark.parametrize(
    ("line", "chosen"),
    [
        ("brew me a love potion for the miller's daughter", None),  # no ailment of hers
        ("brew me a remedy, quick", "brew"),  # the action's own thing, which is left open
        ("brew me something for this cough", "brew"),  # a choice named
    ],
)
def test_a_thing_asked_that_is_none_of_an_actions_choices_is_told_them(
    line: str, chosen: str | None
) -> None:
    """A request nearest brewing to order for a cough or a fever, asking it for a thing
    that is neither choice, nor the ailment nor a remedy, chooses nothing and is told
    the choices; a request that names one, or leaves it open, is granted."""
    heard = replace(_heard(line), act=Act.REQUEST)
    answer = _deed_answer(heard, (SELL, BREW), {"brew a": 0.6, "sell one": 0.2})
    assert _chosen(answer) == chosen
    if chosen is None:
        assert answer is not None
        assert answer.sentences == (
            "I can brew a remedy to order for an ailment: a cough or a fever.",
        )
