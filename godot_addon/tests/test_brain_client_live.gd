extends GutTest
## The client against a real npc-brain serve: a streamed Converse and GetStats, every
## shortcut, a batched Tick with an unknown agent in it, the errors as values. (Named to
## run first: the Converse waits for the model, which the other tests keep busy later.)

const Support := preload("res://tests/support.gd")

var _client: NpcBrainClient = null


func before_each() -> void:
	_client = null
	if Support.server_url().is_empty():
		pending("needs a real npc-brain serve (tests/web/run.py)")
		return
	_client = Support.client(self, Support.server_url())
	_client.world_id = Support.WORLD
	_client.game_time_unix = Support.T0
	_client.timeout_s = 30.0


func test_a_converse_streams_tokens_then_its_final_line() -> void:
	if _client == null:
		return
	_client.timeout_s = Support.MODEL_WAIT_S
	var persona := Support.persona("Maria Lopez", "the Ville:Johnson Park")
	var upserted := _client.upsert_agent("maria", persona)
	assert_true(await wait_until(upserted.is_done, 30.0), "UpsertAgent ends")
	var talking := _client.converse("maria", "player", "Hello Maria, how are you?")
	var tokens: Array[String] = []
	talking.event_received.connect(
		func(event: Dictionary) -> void: tokens.append(event.get("token", ""))
	)
	assert_true(await wait_until(talking.is_done, Support.MODEL_WAIT_S), "Converse ends")
	assert_eq(talking.status, "OK", talking.error_text())
	assert_eq(talking.attempts, 1)
	assert_eq(talking.events_received, tokens.size())
	assert_gt(tokens.size(), 1, "tokens, then the final event")
	var final: Dictionary = talking.response.get("final", {})
	assert_eq(final.get("speaker_id"), "maria")
	assert_ne(String(final.get("text", "")).strip_edges(), "")

	var stats := _client.send("GetStats", {"world_id": Support.WORLD, "agent_id": "maria"})
	assert_true(await wait_until(stats.is_done, 30.0), "GetStats ends")
	assert_eq(stats.status, "OK", stats.error_text())
	assert_gt(int(stats.response.get("model_calls", "0")), 0)
	var hours: Array = stats.response.get("calls_by_hour", [])
	assert_eq(hours.size(), 1, "calls in one game hour")
	if hours.size() == 1:
		assert_eq(hours[0]["hour"], "2023-02-13T08:00:00Z", "the hour's start, as a time")
		assert_eq(hours[0]["calls"], stats.response["model_calls"], "int64 as a string")


func test_upsert_get_perceive_act_and_retrieve() -> void:
	if _client == null:
		return
	var persona := Support.persona("Klaus Mueller", "the Ville:Oak Hill College:library")
	var upserted := _client.upsert_agent("klaus", persona)
	assert_true(await wait_until(upserted.is_done, 30.0), "UpsertAgent ends")
	assert_eq(upserted.status, "OK", upserted.error_text())
	var got := _client.get_agent("klaus")
	assert_true(await wait_until(got.is_done, 30.0), "GetAgent ends")
	assert_eq(got.response.get("persona", {}).get("name"), "Klaus Mueller")
	assert_eq(got.response.get("world_id"), Support.WORLD)

	var observations: Array[Dictionary] = [
		NpcBrainRequests.observation(
			"Isabella Rodriguez is planning a Valentine's Day party at Hobbs Cafe",
			"the Ville:Hobbs Cafe",
			8
		),
		NpcBrainRequests.observation("the library is quiet", "the Ville:Oak Hill College:library"),
	]
	var perceived := _client.perceive("klaus", observations)
	assert_true(await wait_until(perceived.is_done, 30.0), "Perceive ends")
	assert_eq(perceived.status, "OK", perceived.error_text())
	assert_eq((perceived.response.get("memory_ids", []) as Array).size(), 2)

	var acting := _client.act("klaus", 0)
	assert_true(await wait_until(acting.is_done, 30.0), "Act ends")
	assert_eq(acting.status, "OK", acting.error_text())
	var action := NpcAction.from_dict(acting.response.get("action", {}))
	assert_ne(action.address, "", "an action at a place")

	var found := _client.retrieve("klaus", "Valentine's Day party", 2)
	assert_true(await wait_until(found.is_done, 30.0), "Retrieve ends")
	var memories: Array = found.response.get("memories", [])
	assert_between(memories.size(), 1, 2)
	if not memories.is_empty():
		var best: Dictionary = memories[0]
		assert_string_contains(best["memory"]["description"], "Valentine")
		assert_gt(float(best["score"]), 0.0)


func test_errors_are_values() -> void:
	if _client == null:
		return
	var persona := Support.persona("Wolfgang Schulz", "the Ville:Oak Hill College:library")
	var upserted := _client.upsert_agent("wolfgang", persona)
	assert_true(await wait_until(upserted.is_done, 30.0), "UpsertAgent ends")
	var unknown := _client.get_agent("nobody-at-all")
	assert_true(await wait_until(unknown.is_done, 30.0), "GetAgent ends")
	assert_eq(unknown.status, "NOT_FOUND")
	assert_true(unknown.has_code(NpcBrainCall.Code.NOT_FOUND))
	assert_eq(unknown.http_status, 404)
	var empty: Array[Dictionary] = [NpcBrainRequests.observation("")]
	var refused := _client.perceive("wolfgang", empty)
	assert_true(await wait_until(refused.is_done, 30.0), "Perceive ends")
	assert_eq(refused.status, "INVALID_ARGUMENT")
	assert_eq(refused.field, "observations[0].text")
	assert_eq(refused.attempts, 1)


func test_a_batched_tick_answers_each_agent_and_fails_only_the_unknown_one() -> void:
	if _client == null:
		return
	for agent_id: String in ["tick_one", "tick_two"]:
		var body := NpcBrainRequests.upsert_agent(
			Support.WORLD, agent_id, Support.persona(agent_id, "the Ville:Johnson Park"), Support.T0
		)
		body["planning_enabled"] = false  # one quick decision, no day plan to wait for
		var upserted := _client.send("UpsertAgent", body)
		assert_true(await wait_until(upserted.is_done, 30.0), "UpsertAgent ends")
		assert_eq(upserted.status, "OK", upserted.error_text())
	watch_signals(_client)
	var none: Array[Dictionary] = []
	var members: Array[NpcBrainCall] = []
	for agent_id: String in ["tick_one", "tick_two", "tick_ghost"]:
		var agent_tick := NpcBrainRequests.agent_tick(agent_id, none)
		members.append(_client.think(Support.WORLD, agent_tick, Support.T0 + 60.0))
	var all_done := func() -> bool:
		return members.all(func(member: NpcBrainCall) -> bool: return member.is_done())
	assert_true(await wait_until(all_done, 30.0), "every agent's answer arrives")
	assert_eq(members[0].status, "OK", members[0].error_text())
	assert_eq(members[0].response.get("agent_id"), "tick_one")
	assert_eq(members[1].status, "OK", members[1].error_text())
	assert_eq(members[1].response.get("agent_id"), "tick_two")
	assert_ne(NpcAction.from_dict(members[1].response.get("action", {})).address, "")
	assert_eq(members[2].status, "NOT_FOUND")
	assert_signal_emit_count(_client, "request_failed", 1, "only the unknown agent fails")
