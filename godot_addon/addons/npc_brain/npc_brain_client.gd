@icon("res://addons/npc_brain/icons/npc_brain_client.svg")
class_name NpcBrainClient
extends Node
## The connection to an npc-brain server. The plugin adds it as the autoload
## [code]NpcBrain[/code]; its settings live under [code]npc_brain/[/code] in the project
## settings: one for each exported property below, read when the client starts.
##
## Every request returns an [NpcBrainCall] at once and is answered over later frames:
## calls wait in one queue served by at most [member max_connections] keep-alive HTTP
## connections, polled in [method Node._process], so fifty NPCs share two sockets and no
## frame ever waits for the network or the model. The thinking of every agent in a frame
## travels as one Tick request per world. A request the server surely did not handle
## (no connection; a 429 or 503 answer: the server busy) is sent again after
## [member retry_delay_s], doubling each time (or the server's Retry-After, if longer), up
## to [member max_retries] times; one that may have been handled (a lost connection) only
## when that is harmless ([constant RETRY_SAFE]); a stream that has begun never is. A
## failure ends as an error value on the call, with the gRPC status name.

## A call failed, retries included (agents also report their own failures).
signal request_failed(brain_call: NpcBrainCall)

## Prefix of the project settings this client reads (the plugin registers them): the
## setting of an exported property [code]x[/code] is [code]npc_brain/x[/code].
const SETTINGS_PREFIX := "npc_brain/"
## RPCs that are safe to send twice (after a connection was lost mid-call, or closed by
## [method reconfigure]): sending them again changes nothing the first one did not.
const RETRY_SAFE := [
	"UpsertAgent", "GetAgent", "Act", "Retrieve", "GetStats", "ListMemories", "ListSnapshots",
	"WhoKnows", "ReportOutcome"
]
## HTTP statuses of answers to requests the server did not handle and asks to send again
## later: 429 (RESOURCE_EXHAUSTED: a queue or the connections are full) and 503
## (UNAVAILABLE). Other RESOURCE_EXHAUSTED answers (413: body over the limit, 431: head
## too large) can never succeed and are not sent again.
const RETRY_HTTP_STATUSES := [429, 503]

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
var _batches: Dictionary = {}  # "world|game time" -> TickBatch
var _host: String = "127.0.0.1"
var _port: int = 50052
var _tls: TLSOptions = null


## The agents of one world thinking at one game time in this frame: one Tick request.
class TickBatch:
	var world: String
	var game_time: float
	var members: Array[NpcBrainCall] = []

	func _init(batch_world: String, batch_game_time: float) -> void:
		world = batch_world
		game_time = batch_game_time


func _ready() -> void:
	process_mode = Node.PROCESS_MODE_ALWAYS  # answers keep arriving while the game is paused
	for property: Dictionary in get_property_list():
		var path: String = SETTINGS_PREFIX + String(property["name"])
		if is_setting(property) and ProjectSettings.has_setting(path):
			set(property["name"], ProjectSettings.get_setting(path))
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

## Whether [param property] (an entry of [method Object.get_property_list]) is one of the
## client's settings: an exported property (the plugin registers one project setting
## for each, with its type, range and default).
static func is_setting(property: Dictionary) -> bool:
	var usage: int = property.get("usage", 0)
	return usage & PROPERTY_USAGE_SCRIPT_VARIABLE != 0 and usage & PROPERTY_USAGE_EDITOR != 0


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
		_batches[key] = TickBatch.new(world, game_time)
	(_batches[key] as TickBatch).members.append(member)
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
	for batch: TickBatch in _batches.values():
		count += batch.members.size()
	for connection: NpcBrainConnection in _connections:
		if not connection.is_idle():
			count += 1
	return count


## Applies changed settings ([member server_url], [member token], timeouts): open
## connections close. Calls in flight are sent again on new ones when they had not
## reached the server yet or are [constant RETRY_SAFE]; the others (the server may have
## handled them: a Perceive, a Tick, a Converse) end with CANCELLED.
func reconfigure() -> void:
	var cancelled: Array[NpcBrainCall] = []
	for connection: NpcBrainConnection in _connections:
		var in_flight: NpcBrainCall = connection.current
		var sent: bool = connection.is_sent()
		connection.close()
		if in_flight == null:
			continue
		if not sent:
			in_flight.attempts -= 1  # it never left
			_queue.push_front(in_flight)
		elif RETRY_SAFE.has(in_flight.method) and in_flight.events_received == 0:
			_queue.push_front(in_flight)
		else:
			cancelled.append(in_flight)
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
	for brain_call: NpcBrainCall in cancelled:
		var text: String = "reconfigure() closed the connection; the server may have handled it"
		_end_call(brain_call, NpcBrainCall.client_error(NpcBrainCall.Code.CANCELLED, text), 0)

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
	brain_call: NpcBrainCall,
	answer: Dictionary,
	http_status: int,
	unsent: bool,
	retry_after_s: float
) -> void:
	if not answer.has("error"):
		brain_call.succeed(answer, http_status)
		return
	var error: Dictionary = answer["error"]
	var declined: bool = RETRY_HTTP_STATUSES.has(http_status)
	var lost: bool = http_status == 0 and int(error.get("code", -1)) == NpcBrainCall.Code.UNAVAILABLE
	var again: bool = unsent or declined or (lost and RETRY_SAFE.has(brain_call.method))
	if again and brain_call.events_received == 0 and brain_call.attempts <= max_retries:
		var delay: float = retry_delay_s * pow(2.0, brain_call.attempts - 1)
		delay = maxf(delay, retry_after_s)
		brain_call.retry_at_msec = Time.get_ticks_msec() + int(delay * 1000.0)
		_queue.append(brain_call)
		return
	_end_call(brain_call, error, http_status)


func _end_call(brain_call: NpcBrainCall, error: Dictionary, http_status: int) -> void:
	brain_call.fail(error, http_status)
	if brain_call.batch.is_empty():  # a batch's agents report their own failures
		request_failed.emit(brain_call)


func _flush_batches() -> void:
	var batches: Dictionary = _batches
	_batches = {}
	for batch: TickBatch in batches.values():
		_send_tick(batch.members, batch.world, batch.game_time)


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
				var missing := NpcBrainCall.client_error(NpcBrainCall.Code.INTERNAL, "no result")
				_fail_member(member, missing, 200)
		return
	var one_bad: bool = (
		batch_call.has_code(NpcBrainCall.Code.INVALID_ARGUMENT)
		or batch_call.has_code(NpcBrainCall.Code.NOT_FOUND)
	)
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
