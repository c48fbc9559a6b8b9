class_name DemoNpc
extends Node2D
## A townsperson of the demo: a circle with a name, its current action and emoji above
## it, a speech bubble for conversations, and an [NpcBrainAgent] that does its thinking.

## The NPC was clicked.
signal selected(npc: DemoNpc)

const RADIUS := 14.0
const SPEED := 60.0
const BUBBLE_SECONDS := 6.0

## The NPC's colour.
var color: Color = Color.CORNFLOWER_BLUE
## Where the NPC walks to (the centre of the place of its action).
var target: Vector2
## Whether the NPC is the one the text box talks to.
var is_selected: bool = false:
	set(value):
		is_selected = value
		queue_redraw()
## The agent that thinks for this NPC.
var agent: NpcBrainAgent

var _status: Label
var _bubble: Label
var _bubble_left: float = 0.0
var _answering: bool = false


func _init(
	persona: NpcPersona, id: StringName, tint: Color, actions: Array[NpcGameAction] = []
) -> void:
	color = tint
	name = String(id)
	agent = NpcBrainAgent.new()
	agent.agent_id = id
	agent.persona = persona
	agent.game_actions = actions
	agent.think_interval = 2.0
	add_child(agent)


func _ready() -> void:
	target = position
	_status = _label(Vector2(-90, -48), 180, Color.WHITE)
	_status.text = "%s\n(waking up)" % agent.persona.name
	_bubble = _label(Vector2(-110, -110), 220, Color.BLACK)
	var style := StyleBoxFlat.new()
	style.bg_color = Color(1, 1, 0.92)
	style.set_corner_radius_all(8)
	style.set_content_margin_all(6)
	_bubble.add_theme_stylebox_override("normal", style)
	_bubble.visible = false
	agent.action_changed.connect(_on_agent_action_changed)
	agent.reply_updated.connect(_on_agent_reply_updated)
	agent.reply_finished.connect(_on_agent_reply_finished)
	agent.request_failed.connect(_on_agent_request_failed)
	agent.action_requested.connect(_on_agent_action_requested)


func _process(delta: float) -> void:
	position = position.move_toward(target, SPEED * delta)
	if _bubble.visible and _bubble_left > 0.0:
		_bubble_left -= delta
		if _bubble_left <= 0.0:
			_bubble.visible = false


func _draw() -> void:
	draw_circle(Vector2.ZERO, RADIUS, color)
	if is_selected:
		draw_arc(Vector2.ZERO, RADIUS + 4.0, 0.0, TAU, 32, Color.YELLOW, 2.0)


func _unhandled_input(event: InputEvent) -> void:
	var click := event as InputEventMouseButton
	if click != null and click.pressed and click.button_index == MOUSE_BUTTON_LEFT:
		if get_local_mouse_position().length() <= RADIUS + 4.0:
			selected.emit(self)
			get_viewport().set_input_as_handled()


## Shows [param text] in the speech bubble for a few seconds.
func show_bubble(text: String) -> void:
	_bubble.text = text
	_bubble.visible = true
	_bubble_left = BUBBLE_SECONDS


func _label(at: Vector2, width: float, font_color: Color) -> Label:
	var label := Label.new()
	label.position = at
	label.size = Vector2(width, 0)
	label.horizontal_alignment = HORIZONTAL_ALIGNMENT_CENTER
	label.vertical_alignment = VERTICAL_ALIGNMENT_BOTTOM
	label.grow_vertical = Control.GROW_DIRECTION_BEGIN
	label.autowrap_mode = TextServer.AUTOWRAP_WORD_SMART
	label.add_theme_color_override("font_color", font_color)
	label.add_theme_font_size_override("font_size", 12)
	add_child(label)
	return label


func _on_agent_action_changed(action: NpcAction) -> void:
	_status.text = "%s\n%s %s" % [agent.persona.name, action.emoji, action.description]
	var town := get_parent() as DemoTown
	if town != null:
		target = town.spot_for(action.address, position)
	if not action.chat.is_empty():
		var said: Dictionary = action.chat[0]
		show_bubble("%s: %s" % [said.get("speaker_id", ""), said.get("text", "")])


func _on_agent_reply_updated(token: String) -> void:
	if not _answering:
		_answering = true
		_bubble.text = ""
	_bubble.text += token
	_bubble.visible = true
	_bubble_left = BUBBLE_SECONDS


func _on_agent_reply_finished(text: String) -> void:
	_answering = false
	show_bubble(text)


## The NPC chose one of its game actions: the demo "does" it (shows it above the NPC)
## and tells the NPC it happened, so it remembers what it sold or opened.
func _on_agent_action_requested(action_name: String, args: Dictionary, id: String) -> void:
	var price: float = float(agent.requested_action.get("price", 0.0))
	var what: String = ", ".join(args.values())
	var paid: String = (
		" for %s %s" % [price, agent.requested_action.get("currency", "")] if price > 0 else ""
	)
	_status.text = "%s\n[%s %s%s]" % [agent.persona.name, action_name, what, paid]
	agent.report_outcome(id, true, "Done in the demo town%s." % paid)


func _on_agent_request_failed(status: String, message: String) -> void:
	_answering = false
	_status.text = "%s\n[%s] %s" % [agent.persona.name, status, message.left(60)]
