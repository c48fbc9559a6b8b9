extends GutTest
## Calls end as values: the status name, never a crash.


func test_a_server_error_becomes_the_calls_status() -> void:
	var brain_call := NpcBrainCall.new("GetAgent", {"agent_id": "nobody"})
	watch_signals(brain_call)
	var error := {
		"status": "NOT_FOUND", "code": 5, "message": "agent 'nobody' does not exist", "field": ""
	}
	brain_call.fail(error, 404)
	assert_signal_emitted(brain_call, "finished")
	assert_true(brain_call.is_done())
	assert_false(brain_call.is_ok())
	assert_eq(brain_call.status, "NOT_FOUND")
	assert_eq(brain_call.code, 5)
	assert_eq(brain_call.http_status, 404)
	assert_eq(brain_call.error_text(), "NOT_FOUND: agent 'nobody' does not exist")


func test_an_answer_makes_the_call_ok() -> void:
	var brain_call := NpcBrainCall.new("Act", {})
	brain_call.succeed({"pending": true})
	assert_true(brain_call.is_ok())
	assert_eq(brain_call.code, 0)
	assert_eq(brain_call.response["pending"], true)


func test_the_client_reads_its_url() -> void:
	var client := NpcBrainClient.new()
	client.server_url = "http://localhost:6000/ignored/path"
	client.reconfigure()
	assert_eq(client.get("_host"), "localhost")
	assert_eq(client.get("_port"), 6000)
	client.free()
