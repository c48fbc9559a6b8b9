class_name NpcGameAction
extends Resource
## Something the game can make an NPC do when a player asks it (sell a ware, open a
## door): declared on its [NpcBrainAgent] in the inspector. In a reply the NPC may choose
## one, with arguments among those declared only; the agent then emits
## [signal NpcBrainAgent.action_requested], the game does it, and calls
## [method NpcBrainAgent.report_outcome].

## What the game calls it: 1-64 of a-z, 0-9 and _ ("sell", "open_door").
@export var name: String = ""
## What it does, in plain words a player's request is matched against ("sell one of my
## wares", "open the cellar door").
@export_multiline var description: String = ""
## What the game needs to know to do it (at most 4).
@export var arguments: Array[NpcActionArgument] = []
## What doing it costs the asker, in [member currency] (0: free, or priced by an ITEM
## argument's options).
@export_range(0.0, 1000000.0, 0.01, "or_greater") var price: float = 0.0
## The unit of every price of the action ("coins").
@export var currency: String = ""
## Lines a player might say to ask for it ("The cellar door's stuck."): a line is
## matched against the nearest of these as well as the description (at most 16).
@export var examples: PackedStringArray = PackedStringArray()


## The action as the server's GameAction message.
func to_dict() -> Dictionary:
	var listed: Array[Dictionary] = []
	for argument: NpcActionArgument in arguments:
		listed.append(argument.to_dict())
	return {
		"name": name,
		"description": description,
		"arguments": listed,
		"price": price,
		"currency": currency,
		"examples": Array(examples),
	}
