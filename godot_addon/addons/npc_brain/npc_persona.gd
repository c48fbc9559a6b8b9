@icon("res://addons/npc_brain/icons/npc_persona.svg")
class_name NpcPersona
extends Resource
## Who an NPC is: the persona the brain thinks and talks with.
##
## Make one in the inspector (New NpcPersona) or save it as a [code].tres[/code] and
## share it between scenes. An [NpcBrainAgent] sends it to the server when it is ready
## (UpsertAgent, idempotent), so editing the resource and restarting the game updates
## the NPC without losing its memories.

## Full name, e.g. "Isabella Rodriguez". Required.
@export var name: String = ""
## Age in years; 0 means unknown.
@export_range(0, 1000, 1, "suffix:years") var age: int = 0
## Innate traits, e.g. "friendly, outgoing, hospitable".
@export_multiline var innate: String = ""
## Learned traits and background.
@export_multiline var learned: String = ""
## What the NPC is busy with these days.
@export_multiline var currently: String = ""
## Daily rhythm, e.g. "goes to bed around 11pm, wakes up around 6am".
@export_multiline var lifestyle: String = ""
## Home in the world tree ("world:sector:arena[:object]"); the NPC knows this place.
@export var home_address: String = ""
## Things the NPC must do every day.
@export var daily_requirements: PackedStringArray = PackedStringArray()
## How others speak of the NPC: he, she or they (empty: they).
@export var pronouns: String = ""


## The persona as the server's Persona message (protobuf JSON, proto field names).
func to_dict() -> Dictionary:
	return {
		"name": name,
		"age": age,
		"innate": innate,
		"learned": learned,
		"currently": currently,
		"lifestyle": lifestyle,
		"home_address": home_address,
		"daily_requirements": Array(daily_requirements),
		"pronouns": pronouns,
	}
