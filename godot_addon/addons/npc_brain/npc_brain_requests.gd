class_name NpcBrainRequests
extends RefCounted
## Builds the JSON bodies the addon sends, in protobuf's JSON mapping of the server's
## request messages (proto field names, RFC 3339 game times).
##
## The contract fixtures in [code]godot_addon/tests/fixtures/[/code] hold these bodies
## exactly as built here; the server's test suite replays every fixture against a real
## server and [code]tests/test_npc_brain_requests.gd[/code] checks that these builders
## still produce them, so the addon and the server cannot drift apart.


## [param unix_seconds] (game time, seconds since 1970-01-01 UTC) as an RFC 3339 string,
## with milliseconds when they are not zero: "2023-02-13T08:00:00Z".
static func timestamp(unix_seconds: float) -> String:
	var whole: int = floori(unix_seconds)
	var millis: int = roundi((unix_seconds - whole) * 1000.0)
	if millis >= 1000:
		whole += 1
		millis = 0
	var text: String = Time.get_datetime_string_from_unix_time(whole, false)
	if millis > 0:
		text += ".%03d" % millis
	return text + "Z"


## One observation. [param importance] 1..10 overrides the model's rating; 0 lets the
## model rate it. [param address] is where it happened ("world:sector:arena[:object]").
static func observation(text: String, address: String = "", importance: int = 0) -> Dictionary:
	var body: Dictionary = {"text": text, "address": address}
	if importance > 0:
		body["importance"] = importance
	return body


## UpsertAgentRequest: creates or replaces the agent's persona and the game actions it
## may choose in conversation (replaced too: none given, none kept).
static func upsert_agent(
	world_id: String,
	agent_id: String,
	persona: NpcPersona,
	game_time_unix: float,
	actions: Array[NpcGameAction] = []
) -> Dictionary:
	var body := {
		"world_id": world_id,
		"agent_id": agent_id,
		"persona": persona.to_dict(),
		"game_time": timestamp(game_time_unix),
	}
	if not actions.is_empty():
		var declared: Array[Dictionary] = []
		for action: NpcGameAction in actions:
			declared.append(action.to_dict())
		body["actions"] = declared
	return body


## GetAgentRequest.
static func get_agent(world_id: String, agent_id: String) -> Dictionary:
	return {"world_id": world_id, "agent_id": agent_id}


## PerceiveRequest: what the agent perceived at the game time.
static func perceive(
	world_id: String,
	agent_id: String,
	game_time_unix: float,
	observations: Array[Dictionary],
	visible_addresses: PackedStringArray = PackedStringArray()
) -> Dictionary:
	return {
		"world_id": world_id,
		"agent_id": agent_id,
		"game_time": timestamp(game_time_unix),
		"observations": observations,
		"visible_addresses": Array(visible_addresses),
	}


## ActRequest: what the agent does now, waiting at most [param max_wait_ms] for the model.
static func act(
	world_id: String, agent_id: String, game_time_unix: float, max_wait_ms: int = 0
) -> Dictionary:
	return {
		"world_id": world_id,
		"agent_id": agent_id,
		"game_time": timestamp(game_time_unix),
		"max_wait_ms": max_wait_ms,
	}


## One agent's part of a TickRequest (an AgentTick).
static func agent_tick(
	agent_id: String,
	observations: Array[Dictionary],
	visible_addresses: PackedStringArray = PackedStringArray()
) -> Dictionary:
	return {
		"agent_id": agent_id,
		"observations": observations,
		"visible_addresses": Array(visible_addresses),
	}


## TickRequest: Perceive + Act for many agents of one world in one request.
static func tick(
	world_id: String, game_time_unix: float, agent_ticks: Array[Dictionary], max_wait_ms: int = 0
) -> Dictionary:
	return {
		"world_id": world_id,
		"game_time": timestamp(game_time_unix),
		"agents": agent_ticks,
		"max_wait_ms": max_wait_ms,
	}


## ConverseRequest: [param speaker_id] says [param utterance] to the agent.
static func converse(
	world_id: String,
	agent_id: String,
	game_time_unix: float,
	speaker_id: String,
	utterance: String,
	interview: bool = false
) -> Dictionary:
	return {
		"world_id": world_id,
		"agent_id": agent_id,
		"game_time": timestamp(game_time_unix),
		"speaker_id": speaker_id,
		"utterance": utterance,
		"interview": interview,
	}


## ReportOutcomeRequest: what became of the game action [param action_id] the agent
## chose; [param detail] in the game's words ("the player paid 2 coins").
static func report_outcome(
	world_id: String,
	agent_id: String,
	action_id: String,
	done: bool,
	detail: String,
	game_time_unix: float
) -> Dictionary:
	return {
		"world_id": world_id,
		"agent_id": agent_id,
		"action_id": action_id,
		"done": done,
		"detail": detail,
		"game_time": timestamp(game_time_unix),
	}


## RetrieveRequest: the [param k] memories that matter most for [param query] now
## (k = 0: the server's default).
static func retrieve(
	world_id: String, agent_id: String, game_time_unix: float, query: String, k: int = 0
) -> Dictionary:
	return {
		"world_id": world_id,
		"agent_id": agent_id,
		"game_time": timestamp(game_time_unix),
		"query": query,
		"k": k,
	}
