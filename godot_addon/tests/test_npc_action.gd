extends GutTest
## An Action message becomes a typed NpcAction and back, and status codes are an enum.

const ACTION := {
	"description": "brewing coffee for the morning rush",
	"address": "the Ville:Hobbs Cafe:cafe:coffee machine",
	"start": "2023-02-13T08:00:00.250Z",
	"duration_minutes": 15,
	"emoji": "☕",
	"object_state": "brewing coffee",
	"chat_with_agent_id": "",
	"chat": [{"speaker_id": "isabella", "text": "Good morning!", "end_conversation": false}],
}


func test_an_action_message_becomes_an_npc_action_and_back() -> void:
	var action := NpcAction.from_dict(ACTION)
	assert_eq(action.description, "brewing coffee for the morning rush")
	assert_eq(action.address, "the Ville:Hobbs Cafe:cafe:coffee machine")
	assert_almost_eq(action.start_unix, 1676275200.25, 0.001)
	assert_almost_eq(action.end_unix(), 1676275200.25 + 15 * 60, 0.001)
	assert_eq(action.duration_minutes, 15)
	assert_eq(action.emoji, "☕")
	assert_eq(action.object_state, "brewing coffee")
	assert_false(action.is_chat())
	assert_eq(action.chat[0]["text"], "Good morning!")
	assert_eq(action.to_dict(), ACTION)
	assert_true(action.equals(NpcAction.from_dict(ACTION)))
	var moved := NpcAction.from_dict(ACTION)
	moved.address = "the Ville:Johnson Park"
	assert_false(action.equals(moved))
	assert_false(action.equals(null))


func test_an_empty_message_is_an_empty_action() -> void:
	var action := NpcAction.from_dict({})
	assert_eq(action.description, "")
	assert_eq(action.start_unix, 0.0)
	assert_eq(action.chat, [] as Array[Dictionary])


func test_times_are_read_as_the_server_writes_them() -> void:
	assert_eq(NpcAction.unix_time("2023-02-13T08:00:00Z"), 1676275200.0)
	assert_almost_eq(NpcAction.unix_time("2023-02-13T08:00:00.5Z"), 1676275200.5, 0.001)
	assert_eq(NpcAction.unix_time(""), 0.0)
	var round_trip := NpcBrainRequests.timestamp(1676275200.25)
	assert_almost_eq(NpcAction.unix_time(round_trip), 1676275200.25, 0.001)


func test_status_codes_are_an_enum() -> void:
	assert_eq(NpcBrainCall.Code.NOT_FOUND, 5)
	assert_eq(NpcBrainCall.Code.UNAUTHENTICATED, 16)
	var error := NpcBrainCall.client_error(NpcBrainCall.Code.UNAVAILABLE, "gone")
	assert_eq(error, {"status": "UNAVAILABLE", "code": 14, "message": "gone", "field": ""})
	var brain_call := NpcBrainCall.new("GetAgent", {})
	assert_false(brain_call.has_code(NpcBrainCall.Code.OK), "not over yet")
	brain_call.fail(error)
	assert_true(brain_call.has_code(NpcBrainCall.Code.UNAVAILABLE))
	assert_eq(brain_call.status, "UNAVAILABLE")
