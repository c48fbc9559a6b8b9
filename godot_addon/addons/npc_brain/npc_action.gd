@icon("res://addons/npc_brain/icons/npc_action.svg")
class_name NpcAction
extends RefCounted
## What an NPC does: the server's Action message, typed. [NpcBrainAgent] hands it over in
## [signal NpcBrainAgent.action_changed].
## [codeblock]
## func _on_brain_action_changed(action: NpcAction) -> void:
##     $Status.text = "%s %s" % [action.emoji, action.description]
##     walk_to(action.address)
## [/codeblock]

## What it does, e.g. "brewing coffee for the morning rush".
var description: String = ""
## Where: "world:sector:arena[:object]", a place the NPC knows.
var address: String = ""
## When it started, in game time (seconds since 1970-01-01 UTC).
var start_unix: float = 0.0
## How long it lasts, in game minutes.
var duration_minutes: int = 0
## An emoji for it, e.g. "☕".
var emoji: String = ""
## The state it puts the object at [member address] in, e.g. "brewing coffee"; "" if none.
var object_state: String = ""
## The agent it talks with, or "".
var chat_with_agent_id: String = ""
## That conversation's lines so far: {"speaker_id", "text", "end_conversation"} each.
var chat: Array[Dictionary] = []


## The action of an Action message in protobuf's JSON mapping (what the server answers).
static func from_dict(message: Dictionary) -> NpcAction:
	var action := NpcAction.new()
	action.description = String(message.get("description", ""))
	action.address = String(message.get("address", ""))
	action.start_unix = unix_time(String(message.get("start", "")))
	action.duration_minutes = int(message.get("duration_minutes", 0))
	action.emoji = String(message.get("emoji", ""))
	action.object_state = String(message.get("object_state", ""))
	action.chat_with_agent_id = String(message.get("chat_with_agent_id", ""))
	for line: Variant in message.get("chat", []):
		if line is Dictionary:
			action.chat.append(line)
	return action


## Seconds since 1970-01-01 UTC of an RFC 3339 time in UTC as the server writes them
## ("2023-02-13T08:00:00Z", "2023-02-13T08:00:00.250Z"); 0 for "".
static func unix_time(rfc3339: String) -> float:
	var text: String = rfc3339.strip_edges().trim_suffix("Z")
	if text.is_empty():
		return 0.0
	var fraction: float = 0.0
	if text.contains("."):
		fraction = ("0." + text.get_slice(".", 1)).to_float()
		text = text.get_slice(".", 0)
	return Time.get_unix_time_from_datetime_string(text) + fraction


## The Action message in protobuf's JSON mapping.
func to_dict() -> Dictionary:
	return {
		"description": description,
		"address": address,
		"start": NpcBrainRequests.timestamp(start_unix),
		"duration_minutes": duration_minutes,
		"emoji": emoji,
		"object_state": object_state,
		"chat_with_agent_id": chat_with_agent_id,
		"chat": chat.duplicate(true),
	}


## When it ends, in game time.
func end_unix() -> float:
	return start_unix + duration_minutes * 60.0


## Whether it is a conversation with another agent.
func is_chat() -> bool:
	return not chat_with_agent_id.is_empty()


## Whether [param other] is the same action (every field equal).
func equals(other: NpcAction) -> bool:
	return other != null and to_dict() == other.to_dict()
