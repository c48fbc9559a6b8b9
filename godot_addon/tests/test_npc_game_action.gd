extends GutTest
## Game actions declared as typed resources become the server's GameAction messages.


static func horseshoe_sale() -> NpcGameAction:
	var option := NpcActionOption.new()
	option.value = "horseshoe"
	option.label = "a horseshoe"
	option.price = 2.0
	option.aliases = PackedStringArray(["horse shoe"])
	var item := NpcActionArgument.new()
	item.name = "item"
	item.type = NpcActionArgument.Type.ITEM
	item.options = [option]
	var sell := NpcGameAction.new()
	sell.name = "sell"
	sell.description = "sell one of my wares"
	sell.arguments = [item]
	sell.currency = "coins"
	return sell


func test_a_declared_action_is_the_servers_game_action_message() -> void:
	var count := NpcActionArgument.new()
	count.name = "count"
	count.type = NpcActionArgument.Type.NUMBER
	count.min = 1
	count.max = 10
	var sell := horseshoe_sale()
	sell.arguments.append(count)
	sell.examples = PackedStringArray(["My mare's thrown a shoe."])
	assert_eq(
		sell.to_dict(),
		{
			"name": "sell",
			"description": "sell one of my wares",
			"arguments": [
				{
					"name": "item",
					"type": "ITEM",
					"options":
					[
						{
							"value": "horseshoe",
							"label": "a horseshoe",
							"price": 2.0,
							"aliases": ["horse shoe"],
						}
					],
					"min": 0,
					"max": 0,
				},
				{"name": "count", "type": "NUMBER", "options": [], "min": 1, "max": 10},
			],
			"price": 0.0,
			"currency": "coins",
			"examples": ["My mare's thrown a shoe."],
		}
	)


func test_an_upsert_carries_the_agents_actions() -> void:
	var persona := NpcPersona.new()
	persona.name = "Bram Holt"
	var actions: Array[NpcGameAction] = [horseshoe_sale()]
	var body := NpcBrainRequests.upsert_agent("oakvale", "bram", persona, 0.0, actions)
	assert_eq(body["actions"][0]["name"], "sell")
	assert_false(NpcBrainRequests.upsert_agent("oakvale", "bram", persona, 0.0).has("actions"))
	var report := NpcBrainRequests.report_outcome("oakvale", "bram", "a1", true, "paid", 60.0)
	assert_eq(report["action_id"], "a1")
	assert_eq(report["game_time"], "1970-01-01T00:01:00Z")
