class_name NpcBrainClient
extends Node
## The connection to an npc-brain server. The plugin adds it as the autoload
## [code]NpcBrain[/code]; its settings live under [code]npc_brain/[/code] in the project
## settings.
##
## Every request returns an [NpcBrainCall] at once and is answered over later frames:
## calls wait in one queue served by at most [member max_connections] keep-alive HTTP
## connections, polled in [method Node._process], so fifty NPCs share two sockets and no
## frame ever waits for the network or the model. The thinking of every agent in a frame
## travels as one Tick request per world. A request the server surely did not handle
## (no connection, a closed idle connection, the server busy) is sent again after
## [member retry_delay_s], doubling each time, up to [member max_retries] times. A
## failure ends as an error value on the call, with the gRPC status name.

## A call failed, retries included (agents also report their own failures).
signal request_failed(brain_call: NpcBrainCall)

## Prefix of the project settings this client reads (the plugin registers them).
const SETTINGS_PREFIX := "npc_brain/"
## The project settings: each names a property of this client.
const SETTINGS := [
	{"name": "server_url", "default": "http://127.0.0.1:50052"},
	{"name": "token", "default": ""},
	{"name": "world_id", "default": ""},
	{
		"name": "max_connections",
		"default": 2,
		"hint": PROPERTY_HINT_RANGE,
		"hint_string": "1,8",
	},
	{
		"name": "timeout_s",
		"default": 15.0,
		"hint": PROPERTY_HINT_RANGE,
		"hint_string": "0.5,300,0.5,suffix:s",
	},
	{
		"name": "connect_timeout_s",
		"default": 3.0,
		"hint": PROPERTY_HINT_RANGE,
		"hint_string": "0.5,60,0.5,suffix:s",
	},
	{"name": "max_retries", "default": 3, "hint": PROPERTY_HINT_RANGE, "hint_string": "0,10"},
	{
		"name": "retry_delay_s",
		"default": 0.25,
		"hint": PROPERTY_HINT_RANGE,
		"hint_string": "0.05,10,0.05,suffix:s",
	},
	{"name": "batch_ticks", "default": true},
]
## RPCs that are safe to send twice (after a connection was lost mid-call).
const RETRY_SAFE := [
	"UpsertAgent", "GetAgent", "Act", "Retrieve", "GetStats", "ListMemories", "ListSnapshots"
]
## Statuses the server answers when it did not handle a request: send it again later.
const RETRY_STATUSES := ["UNAVAILABLE", "RESOURCE_EXHAUSTED"]

## The server's HTTP/JSON gateway ([code]npc-brain serve[/code] prints it).
@export var server_url: String = "http://127.0.0.1:50052"
## Sent as "Authorization: Bearer <token>" when not empty.
@export var token: String = ""
## The world of requests that do not name one ("" is the server's "default").
@export var world_id: String = ""
## Most connections open at once (a streamed conversation holds one while it lasts).
@export_range(1, 8) var max_connections: int = 2
## Longest wait for an answer (for a stream: between two of its lines).
@export_range(0.5, 300.0, 0.5, "suffix:s") var timeout_s: float = 15.0
## Longest wait for a connection.
@export_range(0.5, 60.0, 0.5, "suffix:s") var connect_timeout_s: float = 3.0
## How many times a request the server did not handle is sent again.
@export_range(0, 10) var max_retries: int = 3
## Wait before the first retry; doubled for each further one.
@export_range(0.05, 10.0, 0.05, "suffix:s") var retry_delay_s: float = 0.25
## Send the thinking of all agents of a frame as one Tick request per world.
@export var batch_ticks: bool = true

## The game clock, in seconds since 1970-01-01 UTC: game time, never the wall clock. Set
## it as your clock runs; agents without their own [member NpcBrainAgent.game_time_source]
## read it. A paused clock freezes minds.
var game_time_unix: float = 0.0

var _queue: Array[NpcBrainCall] = []
var _connections: Array[NpcBrainConnection] = []
var _batches: Dictionary = {}
var _host: String = "127.0.0.1"
var _port: int = 50052
var _tls: TLSOptions = null


func _ready() -> void:
	process_mode = Node.PROCESS_MODE_ALWAYS  # answers keep arriving while the game is paused
	for setting: Dictionary in SETTINGS:
		var path: String = SETTINGS_PREFIX + String(setting["name"])
		if ProjectSettings.has_setting(path):
			set(setting["name"], ProjectSettings.get_setting(path))
	reconfigure()


func _process(_delta: float) -> void:
	_flush_batches()
	_dispatch()
	for connection: NpcBrainConnection in _connections:
		connection.poll()


func _exit_tree() -> void:
	for connection: NpcBrainConnection in _connections:
		connection.close()
	_connections.clear()


#region Public

## Sends the unary RPC [param method] ("GetAgent", ...) with [param body], the request
## message in protobuf's JSON mapping. Returns at once.
func send(method: String, body: Dictionary) -> NpcBrainCall:
	var brain_call := NpcBrainCall.new(method, body, false)
	_queue.append(brain_call)
	return brain_call


## Sends the server-streaming RPC [param method] (Converse): each line of the answer
## arrives as [signal NpcBrainCall.event_received]; the call's response is the last one.
func stream(method: String, body: Dictionary) -> NpcBrainCall:
	var brain_call := NpcBrainCall.new(method, body, true)
	_queue.push_front(brain_call)  # a player is waiting for this one
	return brain_call


## Perceive + Act for one agent (an AgentTick from [method NpcBrainRequests.agent_tick]).
## Agents thinking in the same frame share one Tick request; the call's response is the
## agent's AgentResult {"agent_id", "action", "pending", "memory_ids"}.
func think(world: String, agent_tick: Dictionary, game_time: float) -> NpcBrainCall:
	var member := NpcBrainCall.new("Tick", agent_tick, false)
	var key := "%s|%.3f" % [world, game_time]
	if not _batches.has(key):
		_batches[key] = {"world": world, "game_time": game_time, "members": []}
	var members: Array = _batches[key]["members"]
	members.append(member)
	if not batch_ticks:
		_flush_batches()
	return member


## UpsertAgent: creates or replaces an agent from its persona.
func upsert_agent(agent_id: String, persona: NpcPersona, world: String = "") -> NpcBrainCall:
	var body := NpcBrainRequests.upsert_agent(_world(world), agent_id, persona, game_time_unix)
	return send("UpsertAgent", body)


## GetAgent.
func get_agent(agent_id: String, world: String = "") -> NpcBrainCall:
	return send("GetAgent", NpcBrainRequests.get_agent(_world(world), agent_id))


## Perceive: observations from [method NpcBrainRequests.observation].
func perceive(
	agent_id: String,
	observations: Array[Dictionary],
	visible_addresses: PackedStringArray = PackedStringArray(),
	world: String = ""
) -> NpcBrainCall:
	var body := NpcBrainRequests.perceive(
		_world(world), agent_id, game_time_unix, observations, visible_addresses
	)
	return send("Perceive", body)


## Act: what the agent does now.
func act(agent_id: String, max_wait_ms: int = 0, world: String = "") -> NpcBrainCall:
	return send("Act", NpcBrainRequests.act(_world(world), agent_id, game_time_unix, max_wait_ms))


## Converse, streamed: [param speaker_id] says [param utterance] to the agent.
func converse(
	agent_id: String, speaker_id: String, utterance: String, world: String = ""
) -> NpcBrainCall:
	var body := NpcBrainRequests.converse(
		_world(world), agent_id, game_time_unix, speaker_id, utterance
	)
	return stream("Converse", body)


## Retrieve: the memories that matter most for [param query] now, with their scores.
func retrieve(agent_id: String, query: String, k: int = 0, world: String = "") -> NpcBrainCall:
	var body := NpcBrainRequests.retrieve(_world(world), agent_id, game_time_unix, query, k)
	return send("Retrieve", body)


## Calls not answered yet (queued, batched or in flight).
func pending_count() -> int:
	var count: int = _queue.size()
	for entry: Dictionary in _batches.values():
		count += (entry["members"] as Array).size()
	for connection: NpcBrainConnection in _connections:
		if not connection.is_idle():
			count += 1
	return count


## Applies changed settings ([member server_url], [member token], timeouts): open
## connections close and calls in flight are sent again on new ones.
func reconfigure() -> void:
	for connection: NpcBrainConnection in _connections:
		if connection.current != null:
			connection.current.attempts -= 1
			_queue.push_front(connection.current)
		connection.close()
	_connections.clear()
	var url: String = server_url.strip_edges()
	if not url.begins_with("http://") and not url.begins_with("https://"):
		push_warning("npc_brain/server_url must start with http:// or https://, got %s" % url)
		url = "http://" + url
	var secure: bool = url.begins_with("https://")
	var authority: String = url.substr(url.find("://") + 3).get_slice("/", 0)
	var colon: int = authority.rfind(":")
	if colon != -1 and not authority.ends_with("]"):
		_host = authority.left(colon)
		_port = authority.substr(colon + 1).to_int()
	else:
		_host = authority
		_port = 443 if secure else 80
	_host = _host.trim_prefix("[").trim_suffix("]")
	_tls = TLSOptions.client() if secure else null

#endregion

#region Private


func _world(world: String) -> String:
	return world if not world.is_empty() else world_id


func _headers() -> PackedStringArray:
	var headers := PackedStringArray(
		["Content-Type: application/json", "Accept: application/json, application/x-ndjson"]
	)
	if not token.is_empty():
		headers.append("Authorization: Bearer " + token)
	return headers


func _dispatch() -> void:
	var now: int = Time.get_ticks_msec()
	var index: int = 0
	while index < _queue.size():
		if _queue[index].retry_at_msec > now:
			index += 1
			continue
		var connection: NpcBrainConnection = _idle_connection()
		if connection == null:
			return
		var next: NpcBrainCall = _queue[index]
		_queue.remove_at(index)
		connection.start(next)


func _idle_connection() -> NpcBrainConnection:
	for connection: NpcBrainConnection in _connections:
		if connection.is_idle():
			return connection
	if _connections.size() >= max_connections:
		return null
	var connection := NpcBrainConnection.new(
		_host, _port, _tls, _headers(), timeout_s, connect_timeout_s, _on_connection_done
	)
	_connections.append(connection)
	return connection


func _on_connection_done(
	brain_call: NpcBrainCall, answer: Dictionary, http_status: int, retryable: bool
) -> void:
	if not answer.has("error"):
		brain_call.succeed(answer, http_status)
		return
	var error: Dictionary = answer["error"]
	var declined: bool = http_status != 0 and RETRY_STATUSES.has(error.get("status", ""))
	var lost: bool = http_status == 0 and error.get("status", "") == "UNAVAILABLE"
	var again: bool = retryable or declined or (lost and RETRY_SAFE.has(brain_call.method))
	if again and brain_call.attempts <= max_retries:
		var delay: float = retry_delay_s * pow(2.0, brain_call.attempts - 1)
		brain_call.retry_at_msec = Time.get_ticks_msec() + int(delay * 1000.0)
		_queue.append(brain_call)
		return
	brain_call.fail(error, http_status)
	if brain_call.batch.is_empty():
		request_failed.emit(brain_call)


func _flush_batches() -> void:
	var batches: Dictionary = _batches
	_batches = {}
	for entry: Dictionary in batches.values():
		var members: Array[NpcBrainCall] = []
		members.assign(entry["members"])
		_send_tick(members, entry["world"], entry["game_time"])


func _send_tick(members: Array[NpcBrainCall], world: String, game_time: float) -> void:
	var ticks: Array[Dictionary] = []
	for member: NpcBrainCall in members:
		ticks.append(member.request)
	var batch_call := send("Tick", NpcBrainRequests.tick(world, game_time, ticks, 0))
	batch_call.batch = members
	batch_call.finished.connect(_on_tick_call_finished.bind(world, game_time))


func _on_tick_call_finished(batch_call: NpcBrainCall, world: String, game_time: float) -> void:
	var members: Array[NpcBrainCall] = batch_call.batch
	if batch_call.is_ok():
		var results: Dictionary = {}
		for result: Dictionary in batch_call.response.get("results", []):
			results[result.get("agent_id", "")] = result
		for member: NpcBrainCall in members:
			var agent_id: String = member.request.get("agent_id", "")
			if results.has(agent_id):
				member.succeed(results[agent_id], batch_call.http_status)
			else:
				_fail_member(member, NpcBrainCall.client_error("INTERNAL", 13, "no result"), 200)
		return
	var one_bad: bool = batch_call.status == "INVALID_ARGUMENT" or batch_call.status == "NOT_FOUND"
	if members.size() > 1 and one_bad:
		for member: NpcBrainCall in members:  # alone, so that only the faulty agent fails
			var alone: Array[NpcBrainCall] = [member]
			_send_tick(alone, world, game_time)
		return
	for member: NpcBrainCall in members:
		_fail_member(member, batch_call.error_object(), batch_call.http_status)


func _fail_member(member: NpcBrainCall, error: Dictionary, http_status: int) -> void:
	member.fail(error, http_status)
	request_failed.emit(member)

#endregion
