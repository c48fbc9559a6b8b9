extends GutTest
## The client against a misbehaving gateway (the fault gateway of tests/web/run.py): what
## is sent again, what is not, and how long it waits. The agent id tells the fault
## gateway how to misbehave.

const Support := preload("res://tests/support.gd")


func before_each() -> void:
	if Support.faults_url().is_empty():
		pending("needs the fault gateway (tests/web/run.py)")


func test_a_stream_broken_halfway_is_not_sent_again() -> void:
	if Support.faults_url().is_empty():
		return
	var client := Support.client(self, Support.faults_url())
	var conversing := client.stream("Converse", _converse("broken-stream-1"))
	var tokens: Array[String] = []
	conversing.event_received.connect(func(event: Dictionary) -> void: tokens.append(event["token"]))
	assert_true(await wait_until(conversing.is_done, 20.0), "the call ends")
	assert_eq(tokens, ["Hello", " there"] as Array[String], "each token once")
	assert_ne(conversing.status, "OK")
	assert_eq(conversing.attempts, 1)
	assert_eq(await Support.faults_count(self, "broken-stream-1", "Converse"), 1)


func test_an_error_line_mid_stream_ends_the_call_with_its_status() -> void:
	if Support.faults_url().is_empty():
		return
	var client := Support.client(self, Support.faults_url())
	var conversing := client.stream("Converse", _converse("error-stream-1"))
	var tokens: Array[String] = []
	conversing.event_received.connect(func(event: Dictionary) -> void: tokens.append(event["token"]))
	assert_true(await wait_until(conversing.is_done, 20.0), "the call ends")
	assert_eq(tokens, ["Hello", " there"] as Array[String], "each token once")
	assert_eq(conversing.status, "UNAVAILABLE")
	assert_eq(conversing.message, "the model worker stopped")
	assert_eq(conversing.attempts, 1)
	assert_eq(await Support.faults_count(self, "error-stream-1", "Converse"), 1)


func test_a_whole_stream_is_read_once() -> void:
	if Support.faults_url().is_empty():
		return
	var client := Support.client(self, Support.faults_url())
	var conversing := client.stream("Converse", _converse("fine-stream-1"))
	watch_signals(conversing)
	assert_true(await wait_until(conversing.is_done, 20.0), "the call ends")
	assert_eq(conversing.status, "OK")
	assert_signal_emit_count(conversing, "event_received", 3)
	assert_eq(conversing.response["final"]["text"], "Hello there")


func test_a_reply_kept_alive_by_empty_lines_outlives_the_timeout() -> void:
	if Support.faults_url().is_empty():
		return
	var client := Support.client(self, Support.faults_url())
	client.timeout_s = 1.0
	var conversing := client.stream("Converse", _converse("waiting-2500-stream"))
	watch_signals(conversing)
	assert_true(await wait_until(conversing.is_done, 20.0), "the call ends")
	assert_eq(conversing.status, "OK", "2.5 s of keep-alive lines: the reply is coming")
	assert_signal_emit_count(conversing, "event_received", 3, "the empty lines are no events")


func test_a_silent_server_is_given_up_after_the_timeout() -> void:
	if Support.faults_url().is_empty():
		return
	var client := Support.client(self, Support.faults_url())
	client.timeout_s = 1.0
	var conversing := client.stream("Converse", _converse("slow-3000-stream"))
	assert_true(await wait_until(conversing.is_done, 20.0), "the call ends")
	assert_eq(conversing.status, "DEADLINE_EXCEEDED", "no byte for timeout_s")
	assert_eq(conversing.attempts, 1)


func test_reconfigure_sends_again_only_calls_safe_to_send_twice() -> void:
	if Support.faults_url().is_empty():
		return
	var client := Support.client(self, Support.faults_url())
	client.max_connections = 2
	var perceiving := client.send("Perceive", {"agent_id": "slow-1500-perceive"})
	var getting := client.send("GetAgent", {"agent_id": "slow-1500-get"})
	var both_seen := func() -> bool: return client.pending_count() == 2
	await wait_until(both_seen, 5.0)
	await wait_seconds(0.5)  # both requests are at the server now
	client.reconfigure()
	assert_true(await wait_until(perceiving.is_done, 20.0), "the Perceive ends")
	assert_true(await wait_until(getting.is_done, 20.0), "the GetAgent ends")
	assert_ne(perceiving.status, "OK", "a Perceive the server may have handled is not resent")
	assert_eq(await Support.faults_count(self, "slow-1500-perceive", "Perceive"), 1)
	assert_eq(getting.status, "OK", "a GetAgent is resent")
	assert_eq(await Support.faults_count(self, "slow-1500-get", "GetAgent"), 2)


func test_a_body_over_the_limit_is_not_sent_again() -> void:
	if Support.faults_url().is_empty():
		return
	var client := Support.client(self, Support.faults_url())
	var perceiving := client.send("Perceive", {"agent_id": "too-large-1"})
	assert_true(await wait_until(perceiving.is_done, 20.0), "the call ends")
	assert_eq(perceiving.status, "RESOURCE_EXHAUSTED")
	assert_eq(perceiving.http_status, 413)
	assert_eq(perceiving.attempts, 1)
	assert_eq(await Support.faults_count(self, "too-large-1", "Perceive"), 1)


func test_a_head_too_large_is_not_sent_again() -> void:
	if Support.faults_url().is_empty():
		return
	var client := Support.client(self, Support.faults_url())
	var getting := client.send("GetAgent", {"agent_id": "head-too-large-1"})
	assert_true(await wait_until(getting.is_done, 20.0), "the call ends")
	assert_eq(getting.status, "RESOURCE_EXHAUSTED")
	assert_eq(getting.http_status, 431)
	assert_eq(getting.attempts, 1)
	assert_eq(await Support.faults_count(self, "head-too-large-1", "GetAgent"), 1)


func test_a_busy_server_is_asked_again_with_growing_delays() -> void:
	if Support.faults_url().is_empty():
		return
	var client := Support.client(self, Support.faults_url())
	client.retry_delay_s = 0.2
	var perceiving := client.send("Perceive", {"agent_id": "busy-2-perceive"})
	assert_true(await wait_until(perceiving.is_done, 20.0), "the call ends")
	assert_eq(perceiving.status, "OK", "answered on the third attempt")
	assert_eq(perceiving.attempts, 3)
	var seen: Array = await Support.faults_seen(self, "busy-2-perceive")
	assert_eq(seen.size(), 3)
	if seen.size() == 3:
		var first_wait: float = seen[1]["at_ms"] - seen[0]["at_ms"]
		var second_wait: float = seen[2]["at_ms"] - seen[1]["at_ms"]
		assert_gt(first_wait, 190.0, "retry_delay_s before the first retry")
		assert_gt(second_wait, 390.0, "twice that before the second")


func test_retries_end_after_max_retries() -> void:
	if Support.faults_url().is_empty():
		return
	var client := Support.client(self, Support.faults_url())
	client.max_retries = 2
	var getting := client.send("GetAgent", {"agent_id": "busy-9-get"})
	assert_true(await wait_until(getting.is_done, 20.0), "the call ends")
	assert_eq(getting.status, "UNAVAILABLE")
	assert_eq(getting.http_status, 503)
	assert_eq(getting.attempts, 3)
	assert_eq(await Support.faults_count(self, "busy-9-get", "GetAgent"), 3)


func test_a_throttled_call_waits_as_long_as_the_server_asks() -> void:
	if Support.faults_url().is_empty():
		return
	var client := Support.client(self, Support.faults_url())
	var getting := client.send("GetAgent", {"agent_id": "throttled-1-get"})
	assert_true(await wait_until(getting.is_done, 20.0), "the call ends")
	assert_eq(getting.status, "OK")
	var seen: Array = await Support.faults_seen(self, "throttled-1-get")
	assert_eq(seen.size(), 2)
	if seen.size() == 2:
		assert_gt(seen[1]["at_ms"] - seen[0]["at_ms"], 950.0, "Retry-After: 1")


func test_a_lost_connection_is_sent_again_only_when_safe() -> void:
	if Support.faults_url().is_empty():
		return
	var client := Support.client(self, Support.faults_url())
	client.max_retries = 2
	var warm := client.send("GetAgent", {"agent_id": "warm-up"})  # the connection is reused next
	assert_true(await wait_until(warm.is_done, 20.0), "the first call ends")
	# The gateway closes the connection without an answer, every time. (A browser may send
	# such a request once more by itself: the server's count is not the client's.)
	var perceiving := client.send("Perceive", {"agent_id": "drop-1000-perceive"})
	assert_true(await wait_until(perceiving.is_done, 20.0), "the Perceive ends")
	assert_eq(perceiving.status, "UNAVAILABLE")
	assert_eq(perceiving.attempts, 1, "a Perceive may have been handled: not resent")
	var getting := client.send("GetAgent", {"agent_id": "drop-1000-get"})
	assert_true(await wait_until(getting.is_done, 20.0), "the GetAgent ends")
	assert_eq(getting.status, "UNAVAILABLE")
	assert_eq(getting.attempts, 3, "a GetAgent is resent")


func test_the_client_reconnects_when_the_server_is_back() -> void:
	if Support.faults_url().is_empty():
		return
	var client := Support.client(self, Support.dead_url())
	client.max_retries = 1
	var lost := client.send("GetAgent", {"agent_id": "nobody-home"})
	assert_true(await wait_until(lost.is_done, 20.0), "the call ends")
	assert_eq(lost.status, "UNAVAILABLE")
	assert_eq(lost.attempts, 2, "a call that surely did not arrive is sent again")
	client.server_url = Support.faults_url()
	client.reconfigure()
	var found := client.send("GetAgent", {"agent_id": "back-again"})
	assert_true(await wait_until(found.is_done, 20.0), "the call ends")
	assert_eq(found.status, "OK")
	assert_eq(found.response["agent_id"], "back-again")


func test_agents_thinking_in_one_frame_share_one_tick() -> void:
	if Support.faults_url().is_empty():
		return
	var client := Support.client(self, Support.faults_url())
	var none: Array[Dictionary] = []
	var first := client.think("", NpcBrainRequests.agent_tick("tick-a", none), Support.T0)
	var second := client.think("", NpcBrainRequests.agent_tick("tick-b", none), Support.T0)
	var later := client.think("", NpcBrainRequests.agent_tick("tick-c", none), Support.T0 + 60.0)
	var all_done := func() -> bool: return first.is_done() and second.is_done() and later.is_done()
	assert_true(await wait_until(all_done, 20.0), "the calls end")
	assert_eq(first.response.get("agent_id"), "tick-a")
	assert_eq(second.response.get("agent_id"), "tick-b")
	assert_eq(later.response.get("agent_id"), "tick-c")
	var seen: Array = await Support.faults_seen(self, "tick-a")
	assert_eq(seen.size(), 1, "one request")
	if seen.size() == 1:
		assert_eq(seen[0]["agents"], 2, "for both agents of the same game time")
	assert_eq(await Support.faults_count(self, "tick-c", "Tick"), 1, "another game time: another")


func test_without_batching_each_agent_sends_its_own_tick() -> void:
	if Support.faults_url().is_empty():
		return
	var client := Support.client(self, Support.faults_url())
	client.batch_ticks = false
	var none: Array[Dictionary] = []
	var first := client.think("", NpcBrainRequests.agent_tick("alone-a", none), Support.T0)
	var second := client.think("", NpcBrainRequests.agent_tick("alone-b", none), Support.T0)
	var both_done := func() -> bool: return first.is_done() and second.is_done()
	assert_true(await wait_until(both_done, 20.0), "the calls end")
	assert_eq(first.status, "OK")
	assert_eq(second.status, "OK")
	var seen: Array = await Support.faults_seen(self, "alone-a")
	assert_eq(seen.size(), 1)
	if seen.size() == 1:
		assert_eq(seen[0]["agents"], 1)


func test_one_bad_agent_of_a_tick_fails_alone() -> void:
	if Support.faults_url().is_empty():
		return
	var client := Support.client(self, Support.faults_url())
	watch_signals(client)
	var none: Array[Dictionary] = []
	var good := client.think("", NpcBrainRequests.agent_tick("good-one", none), Support.T0)
	var bad := client.think("", NpcBrainRequests.agent_tick("bad-one", none), Support.T0)
	var both_done := func() -> bool: return good.is_done() and bad.is_done()
	assert_true(await wait_until(both_done, 20.0), "the calls end")
	assert_eq(good.status, "OK")
	assert_eq(bad.status, "INVALID_ARGUMENT")
	assert_eq(bad.field, "agents[0].agent_id", "the field in the Tick it was sent alone in")
	assert_signal_emit_count(client, "request_failed", 1)
	assert_eq(await Support.faults_count(self, "good-one", "Tick"), 2, "the batch, then alone")


func _converse(agent_id: String) -> Dictionary:
	return NpcBrainRequests.converse("", agent_id, Support.T0, "player", "Hello?")
