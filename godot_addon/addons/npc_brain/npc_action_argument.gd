class_name NpcActionArgument
extends Resource
## What the game needs to know to do an [NpcGameAction]: one of its [member options]
## (an item, a place, an agent, a quest, another choice), or a whole number from
## [member min] to [member max].

## The kinds of argument, as the server names them.
enum Type { ITEM = 1, PLACE = 2, AGENT = 3, QUEST = 4, CHOICE = 5, NUMBER = 6 }

const TYPE_NAMES := {
	Type.ITEM: "ITEM",
	Type.PLACE: "PLACE",
	Type.AGENT: "AGENT",
	Type.QUEST: "QUEST",
	Type.CHOICE: "CHOICE",
	Type.NUMBER: "NUMBER",
}

## 1-64 of a-z, 0-9 and _ ("item", "gate"), unique among the action's arguments.
@export var name: String = ""
## What kind of thing it names.
@export var type: Type = Type.ITEM
## The values it may take (every type but NUMBER): at least one.
@export var options: Array[NpcActionOption] = []
## NUMBER: the smallest value allowed.
@export var min: int = 0
## NUMBER: the largest value allowed.
@export var max: int = 0


## The argument as the server's ActionArgument message.
func to_dict() -> Dictionary:
	var listed: Array[Dictionary] = []
	for option: NpcActionOption in options:
		listed.append(option.to_dict())
	return {"name": name, "type": TYPE_NAMES[type], "options": listed, "min": min, "max": max}
