@tool
@icon("res://addons/npc_brain/icons/npc_brain_agent.svg")
class_name NpcBrainAgent
extends Node
## Connects one NPC to the brain server. Add it as a child of the NPC.
##
## On ready it sends its [member persona] (UpsertAgent). Then every [member think_interval]
## it sends what the NPC perceived since the last time and asks what to do (one batched
## Tick), and emits [signal action_changed] when the answer differs. [method say] talks to
## the NPC: the reply streams as [signal reply_updated], then [signal reply_finished].
## An agent keeps at most one request in flight and skips a think while one is running;
## nothing here ever waits, so [method Node._process] never stalls.
##
## The game tells the agent what its NPC perceives in two ways, mixed freely: call
## [method observe] when something happens, or set [member observation_source] to a
## Callable that returns what the NPC perceives at each think.

## The NPC's action changed (also [member action]).
signal action_changed(action: NpcAction)
## A piece of the NPC's reply to [method say], as it is generated.
signal reply_updated(token: String)
## The NPC's whole reply to [method say].
signal reply_finished(text: String)
## The NPC ended the conversation with its last reply.
signal conversation_ended
## The server knows the agent now (its persona was upserted).
signal registered(agent: Dictionary)
## A request of this agent failed; [param status] is the gRPC status name.
signal request_failed(status: String, message: String)
## In its reply the NPC chose one of its [member game_actions]: [param action_name] with
## [param args] ({argument name: option value, or a NUMBER's digits}). Do it, then call
## [method report_outcome] with [param id]. [member requested_action] has its price.
signal action_requested(action_name: String, args: Dictionary, id: String)

## The agent's id on the server (1-64 of A-Z a-z 0-9 _ . -); empty: the parent's name.
@export var agent_id: StringName = &""
## The world the agent lives in; empty: the client's world ("default" on the server).
@export var world_id: StringName = &""
## What the game can make the NPC do when asked (sell, open a door); sent with the
## persona. The NPC chooses only among these ([signal action_requested]).
@export var game_actions: Array[NpcGameAction] = []
## Who the NPC is; sent to the server on ready.
@export var persona: NpcPersona:
	set(value):
		persona = value
		update_configuration_warnings()
## How often the agent perceives and decides.
@export_range(0.1, 60.0, 0.1, "suffix:s") var think_interval: float = 1.0
## Think every interval; off: the agent only talks and thinks on [method think_now].
@export var thinking: bool = true

## Called at each think with no arguments; returns what the NPC perceives now: an Array
## of Strings (observation texts) and/or Dictionaries (from
## [method NpcBrainRequests.observation]).
var observation_source: Callable
## Called with no arguments; returns the game time (seconds since 1970-01-01 UTC).
## Unset: [member NpcBrainClient.game_time_unix] of the autoload.
var game_time_source: Callable
## The areas and objects the NPC sees now ("world:sector:arena:object"); they become
## places it knows and may go to.
var visible_addresses: PackedStringArray = PackedStringArray()
## The current action (see [signal action_changed]); null until the first answer.
var action: NpcAction = null
## Whether the server has the agent's persona.
var is_registered: bool = false
## The client this agent talks through; null: the [code]NpcBrain[/code] autoload.
var client: NpcBrainClient = null
## The last game action the NPC chose, as the server sent it: action_id, name,
## arguments, price (what it asked, a price times how many) and currency; {} if none.
var requested_action: Dictionary = {}

var _in_flight: NpcBrainCall = null
var _observations: Array[Dictionary] = []
var _to_say: Dictionary = {}
var _reply: String = ""
var _since_think: float = 0.0
var _warned_clock: bool = false


func _ready() -> void:
	if Engine.is_editor_hint():
		return
	if agent_id.is_empty():
		agent_id = StringName(get_parent().name if get_parent() != null else name)
	if persona == null:
		push_warning("NpcBrainAgent %s has no persona; it will not think" % agent_id)
		return
	_register()


func _process(delta: float) -> void:
	if Engine.is_editor_hint():
		return
	_since_think += delta
	if _in_flight != null or persona == null:
		return
	if not _to_say.is_empty():
		_start_saying()
	elif _since_think < think_interval:
		return
	elif not is_registered:
		_register()
	elif thinking:
		think_now()


#region Public

## Queues an observation for the next think: [param text] happened at [param address];
## [param importance] 1..10 overrides the model's rating (0: the model rates it).
func observe(text: String, address: String = "", importance: int = 0) -> void:
	if text.strip_edges().is_empty():
		push_warning("NpcBrainAgent %s: observe() needs a text" % agent_id)
		return
	_observations.append(NpcBrainRequests.observation(text, address, importance))


## Perceives and decides now, unless a request is in flight (then returns false).
func think_now() -> bool:
	var brain: NpcBrainClient = _client()
	if _in_flight != null or brain == null or not is_registered:
		return false
	_since_think = 0.0
	var observations: Array[Dictionary] = _observations
	_observations = []
	observations.append_array(_observations_from_source())
	var agent_tick := NpcBrainRequests.agent_tick(agent_id, observations, visible_addresses)
	_in_flight = brain.think(_world(brain), agent_tick, _game_time(brain))
	_in_flight.finished.connect(_on_think_call_finished.bind(observations))
	return true


## Says [param text] to the NPC as [param speaker_id] (the player by default). The
## reply streams as [signal reply_updated] then [signal reply_finished]. Waits for a
## request in flight to end first; returns false (and warns) if the NPC is already
## answering or has no persona.
func say(text: String, speaker_id: String = "player") -> bool:
	if text.strip_edges().is_empty():
		push_warning("NpcBrainAgent %s: say() needs a text" % agent_id)
		return false
	if not _to_say.is_empty() or (_in_flight != null and _in_flight.streaming):
		push_warning("NpcBrainAgent %s is still answering; say() ignored" % agent_id)
		return false
	if persona == null:
		push_warning("NpcBrainAgent %s has no persona; say() ignored" % agent_id)
		return false
	_to_say = {"text": text, "speaker_id": speaker_id}
	return true


## Tells the NPC what became of an action it chose ([signal action_requested]): it
## remembers it ("Bram Holt sold two horseshoes to player for 4 coins."). Safe to send
## again; its call answers the Memory stored. Does not wait for other requests.
func report_outcome(action_id: String, done: bool, detail: String = "") -> NpcBrainCall:
	var brain: NpcBrainClient = _client()
	if brain == null:
		return null
	var body := NpcBrainRequests.report_outcome(
		_world(brain), agent_id, action_id, done, detail, _game_time(brain)
	)
	var reporting := brain.send("ReportOutcome", body)
	reporting.finished.connect(
		func(done_call: NpcBrainCall) -> void:
			if not done_call.is_ok():
				_report(done_call)
	)
	return reporting


## Whether a request of this agent is in flight.
func is_busy() -> bool:
	return _in_flight != null


## What is missing for this agent to think (the editor shows it on the node).
func _get_configuration_warnings() -> PackedStringArray:
	var warnings := PackedStringArray()
	if persona == null:
		warnings.append("Set a persona (New NpcPersona): without one the agent does not think.")
	elif persona.name.strip_edges().is_empty():
		warnings.append("The persona has no name: the server refuses it.")
	var url_setting: String = NpcBrainClient.SETTINGS_PREFIX + "server_url"
	if client == null and not ProjectSettings.has_setting("autoload/NpcBrain"):
		warnings.append(
			"No NpcBrain autoload: enable the npc-brain plugin (Project Settings > Plugins)."
		)
	elif ProjectSettings.has_setting(url_setting):
		var url: String = String(ProjectSettings.get_setting(url_setting)).strip_edges()
		if not url.begins_with("http://") and not url.begins_with("https://"):
			warnings.append("%s must start with http:// or https://: %s" % [url_setting, url])
	return warnings

#endregion

#region Private


func _client() -> NpcBrainClient:
	if client != null:
		return client
	var autoload := get_node_or_null(^"/root/NpcBrain") as NpcBrainClient
	if autoload == null:
		push_error("the NpcBrain autoload is missing: enable the npc-brain plugin")
	return autoload


func _world(brain: NpcBrainClient) -> String:
	return String(world_id) if not world_id.is_empty() else brain.world_id


func _game_time(brain: NpcBrainClient) -> float:
	var now: float = brain.game_time_unix
	if game_time_source.is_valid():
		now = float(game_time_source.call())
	if now <= 0.0 and not _warned_clock:
		_warned_clock = true
		push_warning("the game clock is at 1970: set NpcBrain.game_time_unix or game_time_source")
	return now


func _observations_from_source() -> Array[Dictionary]:
	var found: Array[Dictionary] = []
	if not observation_source.is_valid():
		return found
	var perceived: Variant = observation_source.call()
	if not perceived is Array:
		push_warning("NpcBrainAgent %s: observation_source must return an Array" % agent_id)
		return found
	for item: Variant in perceived:
		if item is String and not (item as String).strip_edges().is_empty():
			found.append(NpcBrainRequests.observation(item))
		elif item is Dictionary:
			found.append(item)
	return found


func _register() -> void:
	var brain: NpcBrainClient = _client()
	if brain == null:
		return
	_since_think = 0.0
	var body := NpcBrainRequests.upsert_agent(
		_world(brain), agent_id, persona, _game_time(brain), game_actions
	)
	_in_flight = brain.send("UpsertAgent", body)
	_in_flight.finished.connect(_on_upsert_call_finished)


func _start_saying() -> void:
	var brain: NpcBrainClient = _client()
	if brain == null:
		_to_say = {}
		return
	var body := NpcBrainRequests.converse(
		_world(brain), agent_id, _game_time(brain), _to_say["speaker_id"], _to_say["text"]
	)
	_to_say = {}
	_reply = ""
	_in_flight = brain.stream("Converse", body)
	_in_flight.event_received.connect(_on_converse_call_event_received)
	_in_flight.finished.connect(_on_converse_call_finished)


func _on_upsert_call_finished(brain_call: NpcBrainCall) -> void:
	_in_flight = null
	if brain_call.is_ok():
		is_registered = true
		registered.emit(brain_call.response)
	else:
		_report(brain_call)


func _on_think_call_finished(brain_call: NpcBrainCall, sent: Array[Dictionary]) -> void:
	_in_flight = null
	if not brain_call.is_ok():
		var lost: bool = brain_call.has_code(NpcBrainCall.Code.UNAVAILABLE)
		if lost or brain_call.has_code(NpcBrainCall.Code.DEADLINE_EXCEEDED):
			# Sent again with the next think (the server keeps one copy of an observation
			# it already has at the same address).
			sent.append_array(_observations)
			_observations = sent
		elif brain_call.has_code(NpcBrainCall.Code.NOT_FOUND):
			is_registered = false  # the server lost the agent (another world or data dir)
		_report(brain_call)
		return
	var next := NpcAction.from_dict(brain_call.response.get("action", {}))
	if not next.equals(action):
		action = next
		action_changed.emit(action)


func _on_converse_call_event_received(event: Dictionary) -> void:
	if event.has("token"):
		var token: String = event["token"]
		_reply += token
		reply_updated.emit(token)


func _on_converse_call_finished(brain_call: NpcBrainCall) -> void:
	_in_flight = null
	if not brain_call.is_ok():
		_report(brain_call)
		return
	var final: Dictionary = brain_call.response.get("final", {})
	reply_finished.emit(String(final.get("text", _reply)))
	var chosen: Dictionary = final.get("game_action", {})
	if not chosen.is_empty():
		requested_action = chosen
		var args: Dictionary = chosen.get("arguments", {})
		action_requested.emit(String(chosen["name"]), args, String(chosen["action_id"]))
	if final.get("end_conversation", false):
		conversation_ended.emit()


func _report(brain_call: NpcBrainCall) -> void:
	if brain_call.has_code(NpcBrainCall.Code.INVALID_ARGUMENT):
		push_warning("NpcBrainAgent %s: %s" % [agent_id, brain_call.message])
	request_failed.emit(brain_call.status, brain_call.message)

#endregion
