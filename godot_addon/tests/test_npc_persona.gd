extends GutTest
## A persona becomes the server's Persona message.


func test_to_dict_has_every_persona_field() -> void:
	var persona := NpcPersona.new()
	persona.name = "Maria Lopez"
	persona.age = 21
	persona.daily_requirements = PackedStringArray(["study physics"])
	var body: Dictionary = persona.to_dict()
	var fields := [
		"name",
		"age",
		"innate",
		"learned",
		"currently",
		"lifestyle",
		"home_address",
		"daily_requirements",
		"pronouns",
	]
	assert_eq(body.keys(), fields)
	assert_eq(body["daily_requirements"], ["study physics"])
	assert_eq(body["age"], 21)
