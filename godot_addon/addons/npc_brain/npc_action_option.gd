class_name NpcActionOption
extends Resource
## One value an argument of an [NpcGameAction] may take: a ware with its price, a door,
## a quest. The NPC chooses only among the options declared.

## What the game receives: 1-64 of a-z, 0-9 and _ ("horseshoe", "east_gate").
@export var value: String = ""
## How the NPC says it ("a horseshoe", "the east gate"); empty: the value's words.
@export var label: String = ""
## For an ITEM: the price of one, in the action's currency (0: the action's own price).
@export_range(0.0, 1000000.0, 0.01, "or_greater") var price: float = 0.0
## Other names players call it by ("hand axe" for a hatchet): a line naming one names
## the option as its label does. At most 8.
@export var aliases: PackedStringArray = PackedStringArray()


## The option as the server's ActionOption message.
func to_dict() -> Dictionary:
	return {"value": value, "label": label, "price": price, "aliases": Array(aliases)}
