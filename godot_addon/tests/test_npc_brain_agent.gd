extends GutTest
## NpcBrainAgent end to end: against a real npc-brain serve it registers its persona,
## talks (the reply streams as signals) and thinks (its action arrives as an NpcAction);
## against the fault gateway it reports failures; in the editor it says what is missing.

const Support := preload("res://tests/support.gd")
const GameActions := preload("res://tests/test_npc_game_action.gd")


func test_an_agent_registers_talks_and_thinks() -> void:
	var brain: NpcBrainClient = Support.live_autoload(self)
	if brain == null:
		pending("needs a real npc-brain serve (tests/web/run.py)")
		return
	brain.game_time_unix = Support.T0
	var npc := Node.new()
	npc.name = "isabella"
	var agent := NpcBrainAgent.new()
	agent.world_id = Support.WORLD
	agent.persona = Support.persona("Isabella Rodriguez", "the Ville:Hobbs Cafe")
	agent.thinking = false
	agent.visible_addresses = PackedStringArray(["the Ville:Johnson Park"])
	npc.add_child(agent)
	watch_signals(agent)
	add_child_autofree(npc)
	assert_true(await wait_for_signal(agent.registered, 30.0), "registered")
	assert_eq(agent.agent_id, &"isabella", "the parent's name")
	assert_true(agent.is_registered)
	var registered: Array = get_signal_parameters(agent, "registered")
	if registered != null:
		assert_eq(registered[0]["persona"]["name"], "Isabella Rodriguez")

	assert_true(agent.say("Hi Isabella! What are you planning?"))
	assert_false(agent.say("And then?"), "one question at a time")
	var answered := func() -> bool:
		var ended: int = get_signal_emit_count(agent, "reply_finished")
		return ended + get_signal_emit_count(agent, "request_failed") > 0
	assert_true(await wait_until(answered, Support.MODEL_WAIT_S), "the reply ends")
	assert_signal_not_emitted(agent, "request_failed")
	assert_gt(get_signal_emit_count(agent, "reply_updated"), 0, "the reply streams")
	var finished: Array = get_signal_parameters(agent, "reply_finished")
	if finished != null:
		assert_ne(String(finished[0]).strip_edges(), "", "a reply")

	agent.observe("Klaus Mueller is reading in the park", "the Ville:Johnson Park", 3)
	assert_true(agent.think_now())
	assert_false(agent.think_now(), "one think at a time")
	assert_true(await wait_for_signal(agent.action_changed, 30.0), "an action")
	var action: NpcAction = agent.action
	assert_not_null(action)
	if action != null:
		assert_ne(action.description, "")
		assert_string_contains(action.address, "the Ville")
		assert_almost_eq(action.start_unix, Support.T0, 86400.0, "a game time of that day")
		assert_eq(get_signal_parameters(agent, "action_changed")[0], action)
	assert_signal_not_emitted(agent, "request_failed")


func test_an_agent_sells_what_it_declares_and_reports_it() -> void:
	var brain: NpcBrainClient = Support.live_autoload(self)
	if brain == null:
		pending("needs a real npc-brain serve (tests/web/run.py)")
		return
	brain.game_time_unix = Support.T0
	var agent := NpcBrainAgent.new()
	agent.agent_id = &"bram"
	agent.world_id = Support.WORLD
	agent.persona = Support.persona("Bram Holt", "the Ville:Johnson Park")
	agent.thinking = false
	var sale: NpcGameAction = GameActions.horseshoe_sale()
	agent.game_actions = [sale]
	watch_signals(agent)
	add_child_autofree(agent)
	assert_true(await wait_for_signal(agent.registered, 30.0), "registered")
	assert_true(agent.say("I'll take two horseshoes, please"))
	assert_true(await wait_for_signal(agent.action_requested, Support.MODEL_WAIT_S), "chosen")
	var chosen: Array = get_signal_parameters(agent, "action_requested")
	assert_eq(chosen[0], "sell")
	assert_eq(chosen[1], {"item": "horseshoe"})
	assert_ne(chosen[2], "", "an id to report")
	assert_almost_eq(float(agent.requested_action["price"]), 4.0, 0.001, "two at 2 coins")
	var reported := agent.report_outcome(chosen[2], true, "The player paid 4 coins.")
	assert_true(await wait_until(reported.is_done, 30.0), "ReportOutcome ends")
	assert_eq(reported.status, "OK", reported.error_text())
	assert_string_contains(String(reported.response.get("description", "")), "horseshoe")
	assert_signal_not_emitted(agent, "request_failed")


func test_an_agent_reports_a_failed_request() -> void:
	if Support.faults_url().is_empty():
		pending("needs the fault gateway (tests/web/run.py)")
		return
	var agent := NpcBrainAgent.new()
	agent.client = Support.client(self, Support.faults_url())
	agent.agent_id = &"too-large-agent"
	agent.persona = Support.persona("Maria Lopez", "the Ville:Johnson Park")
	watch_signals(agent)
	add_child_autofree(agent)
	assert_true(await wait_for_signal(agent.request_failed, 10.0), "request_failed")
	assert_eq(get_signal_parameters(agent, "request_failed")[0], "RESOURCE_EXHAUSTED")
	assert_false(agent.is_registered)
	assert_signal_not_emitted(agent, "registered")


func test_an_agent_that_is_set_up_thinks_through_its_client() -> void:
	if Support.faults_url().is_empty():
		pending("needs the fault gateway (tests/web/run.py)")
		return
	var agent := NpcBrainAgent.new()
	agent.client = Support.client(self, Support.faults_url())
	agent.agent_id = &"fine-agent"
	agent.persona = Support.persona("Maria Lopez", "the Ville:Johnson Park")
	agent.think_interval = 0.1
	watch_signals(agent)
	add_child_autofree(agent)
	assert_true(await wait_for_signal(agent.action_changed, 10.0), "thinks on its own")
	assert_signal_emit_count(agent, "registered", 1)
	assert_eq(agent.action.description, "fine-agent is idle")
	await wait_seconds(0.5)
	assert_signal_emit_count(agent, "action_changed", 1, "only a new action is news")


func test_the_editor_warns_about_what_is_missing() -> void:
	var agent: NpcBrainAgent = autofree(NpcBrainAgent.new())
	var warnings: PackedStringArray = agent._get_configuration_warnings()
	assert_string_contains(" ".join(warnings), "Set a persona")
	agent.persona = NpcPersona.new()
	warnings = agent._get_configuration_warnings()
	assert_string_contains(" ".join(warnings), "no name")
	agent.persona.name = "Maria Lopez"
	agent.client = autofree(NpcBrainClient.new())
	assert_eq(agent._get_configuration_warnings(), PackedStringArray())


func test_an_agent_without_a_persona_stays_quiet() -> void:
	var agent := NpcBrainAgent.new()
	agent.client = Support.client(self, Support.dead_url())
	watch_signals(agent)
	add_child_autofree(agent)
	assert_false(agent.say("Hello?"))
	assert_false(agent.think_now())
	await wait_frames(3)
	assert_false(agent.is_busy())
	assert_signal_not_emitted(agent, "request_failed")
