extends GutTest
## The demo town (demo/town.tscn) against a real npc-brain serve: its three NPCs register
## and act, and the clock runs. (Named to run last: its agents plan their days.)

const Support := preload("res://tests/support.gd")
const TOWN := preload("res://demo/town.tscn")


func test_the_town_comes_to_life() -> void:
	var brain: NpcBrainClient = Support.live_autoload(self)
	if brain == null:
		pending("needs a real npc-brain serve (tests/web/run.py)")
		return
	brain.world_id = "addon_tests_town"
	var town: DemoTown = add_child_autofree(TOWN.instantiate())
	var npcs: Array[DemoNpc] = []
	for child: Node in town.get_children():
		if child is DemoNpc:
			npcs.append(child)
	assert_eq(npcs.size(), 3, "three NPCs")
	var all_act := func() -> bool:
		return npcs.all(func(npc: DemoNpc) -> bool: return npc.agent.action != null)
	assert_true(await wait_until(all_act, 60.0), "every NPC registers and acts")
	for npc: DemoNpc in npcs:
		assert_true(npc.agent.is_registered, String(npc.name))
		assert_string_contains(npc.agent.action.address, "the Ville")
	assert_gt(brain.game_time_unix, DemoTown.START_UNIX, "the clock runs")
	brain.world_id = ""
