class_name DemoTown
extends Node2D
## A tiny town for the npc-brain demo: three places drawn as boxes, three NPCs that
## think with a running [code]npc-brain serve[/code], and a text box to talk to the
## selected NPC. Game time runs at one game minute per real second from 08:00.

## Game seconds that pass per real second.
const TIME_SCALE := 60.0
## 2023-02-13 08:00 UTC, the morning of the paper's Valentine's Day party story.
const START_UNIX := 1676275200.0
## Places: address -> rectangle on screen.
const PLACES := {
	"the Ville:Hobbs Cafe": Rect2(60, 80, 260, 170),
	"the Ville:Oak Hill College:library": Rect2(420, 80, 260, 170),
	"the Ville:Johnson Park": Rect2(240, 330, 260, 150),
}

var _npcs: Array[DemoNpc] = []
var _selected: DemoNpc = null
var _clock: Label
var _talk_to: Label
var _input: LineEdit
var _server_note: Label


func _ready() -> void:
	_client().game_time_unix = START_UNIX
	_build_ui()
	_add_npc(
		_persona(
			"Isabella Rodriguez",
			34,
			"friendly, outgoing, hospitable",
			"planning a Valentine's Day party at Hobbs Cafe on February 14th, 5pm",
			"the Ville:Hobbs Cafe"
		),
		&"isabella",
		Color.TOMATO,
		Vector2(150, 170),
		_cafe_actions()
	)
	_add_npc(
		_persona(
			"Klaus Mueller",
			20,
			"kind, inquisitive, passionate",
			"writing a research paper on the effects of gentrification",
			"the Ville:Oak Hill College:library"
		),
		&"klaus",
		Color.CORNFLOWER_BLUE,
		Vector2(540, 170)
	)
	_add_npc(
		_persona(
			"Maria Lopez",
			21,
			"energetic, enthusiastic, inquisitive",
			"studying physics and streaming games on Twitch",
			"the Ville:Johnson Park"
		),
		&"maria",
		Color.MEDIUM_SEA_GREEN,
		Vector2(370, 400)
	)
	_select(_npcs[0])


## What Isabella can do when asked: sell from the cafe's menu, open the back door.
static func _cafe_actions() -> Array[NpcGameAction]:
	var menu := NpcActionArgument.new()
	menu.name = "item"
	menu.type = NpcActionArgument.Type.ITEM
	for item: Array in [["coffee", "a cup of coffee", 3.0], ["croissant", "a croissant", 4.0]]:
		var option := NpcActionOption.new()
		option.value = item[0]
		option.label = item[1]
		option.price = item[2]
		menu.options.append(option)
	var sell := NpcGameAction.new()
	sell.name = "sell"
	sell.description = "sell food and drink from the cafe menu"
	sell.arguments = [menu]
	sell.currency = "coins"
	var open := NpcGameAction.new()
	open.name = "open_back_door"
	open.description = "open the cafe's back door onto the alley"
	var actions: Array[NpcGameAction] = [sell, open]
	return actions


func _process(delta: float) -> void:
	var client: NpcBrainClient = _client()
	client.game_time_unix += delta * TIME_SCALE
	var clock: String = Time.get_datetime_string_from_unix_time(int(client.game_time_unix), true)
	_clock.text = "game time %s" % clock.substr(0, 16)


func _draw() -> void:
	var font: Font = ThemeDB.fallback_font
	draw_rect(Rect2(Vector2.ZERO, get_viewport_rect().size), Color(0.2, 0.24, 0.2))
	for address: String in PLACES:
		var box: Rect2 = PLACES[address]
		draw_rect(box, Color(0.36, 0.32, 0.28))
		draw_rect(box, Color(0.8, 0.75, 0.65), false, 2.0)
		var title: String = address.get_slice(":", address.get_slice_count(":") - 1)
		draw_string(font, box.position + Vector2(8, 20), title, HORIZONTAL_ALIGNMENT_LEFT, -1, 14)


## A spot inside the place of [param address] (the longest known place it starts with),
## or [param fallback] when the address is none of the town's places.
func spot_for(address: String, fallback: Vector2) -> Vector2:
	var best: String = ""
	for place: String in PLACES:
		if address.begins_with(place) and place.length() > best.length():
			best = place
	if best.is_empty():
		return fallback
	var box: Rect2 = PLACES[best]
	return box.position + Vector2(randf_range(30, box.size.x - 30), randf_range(50, box.size.y - 20))


func _client() -> NpcBrainClient:
	return get_node(^"/root/NpcBrain") as NpcBrainClient


func _persona(
	full_name: String, age: int, innate: String, currently: String, home: String
) -> NpcPersona:
	var persona := NpcPersona.new()
	persona.name = full_name
	persona.age = age
	persona.innate = innate
	persona.currently = currently
	persona.home_address = home
	persona.daily_requirements = PackedStringArray(["have breakfast", "work", "see friends"])
	return persona


func _add_npc(
	persona: NpcPersona,
	id: StringName,
	tint: Color,
	at: Vector2,
	actions: Array[NpcGameAction] = []
) -> void:
	var npc := DemoNpc.new(persona, id, tint, actions)
	npc.position = at
	add_child(npc)
	npc.agent.visible_addresses = PackedStringArray(PLACES.keys())
	npc.agent.observation_source = _what_is_seen_by.bind(npc)
	npc.agent.request_failed.connect(_on_agent_request_failed)
	npc.selected.connect(_on_npc_selected)
	_npcs.append(npc)


## What [param npc] sees now: the other NPCs near it and what they are doing.
func _what_is_seen_by(npc: DemoNpc) -> Array:
	var seen: Array = []
	for other: DemoNpc in _npcs:
		if other == npc or other.position.distance_to(npc.position) > 200.0:
			continue
		var action: NpcAction = other.agent.action
		var doing: String = action.description if action != null else "idle"
		seen.append("%s is %s" % [other.agent.persona.name, doing])
	return seen


func _build_ui() -> void:
	var layer := CanvasLayer.new()
	add_child(layer)
	_clock = Label.new()
	_clock.position = Vector2(16, 12)
	layer.add_child(_clock)
	_server_note = Label.new()
	_server_note.position = Vector2(300, 12)
	_server_note.add_theme_color_override("font_color", Color.ORANGE)
	layer.add_child(_server_note)
	var bar := HBoxContainer.new()
	bar.position = Vector2(16, 520)
	bar.size = Vector2(700, 32)
	layer.add_child(bar)
	_talk_to = Label.new()
	bar.add_child(_talk_to)
	_input = LineEdit.new()
	_input.placeholder_text = "say something and press Enter"
	_input.custom_minimum_size = Vector2(420, 0)
	_input.text_submitted.connect(_on_input_text_submitted)
	bar.add_child(_input)


func _select(npc: DemoNpc) -> void:
	for other: DemoNpc in _npcs:
		other.is_selected = other == npc
	_selected = npc
	_talk_to.text = "To %s:" % npc.agent.persona.name


func _on_npc_selected(npc: DemoNpc) -> void:
	_select(npc)


func _on_input_text_submitted(text: String) -> void:
	if _selected == null or text.strip_edges().is_empty():
		return
	if _selected.agent.say(text):
		_input.clear()


func _on_agent_request_failed(status: String, message: String) -> void:
	if status == "UNAVAILABLE":
		_server_note.text = "no server: run `npc-brain serve` (%s)" % message
	else:
		_server_note.text = "%s: %s" % [status, message.left(80)]
