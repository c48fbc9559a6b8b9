extends GutTest
## One source for the settings: the client's exported properties are the project settings
## the plugin registers (npc_brain/<name>) and the client reads when it starts.

const SETTINGS := [
	"server_url",
	"token",
	"world_id",
	"max_connections",
	"timeout_s",
	"connect_timeout_s",
	"max_retries",
	"retry_delay_s",
	"batch_ticks",
]


func test_the_settings_are_the_exported_properties() -> void:
	var script: Script = load("res://addons/npc_brain/npc_brain_client.gd")
	var names: Array[String] = []
	var hints: Dictionary = {}
	for property: Dictionary in script.get_script_property_list():
		if NpcBrainClient.is_setting(property):
			names.append(property["name"])
			hints[property["name"]] = property["hint_string"]
	assert_eq(names, SETTINGS as Array[String])
	assert_string_contains(hints["timeout_s"], "suffix:s")
	assert_true(hints["max_connections"].begins_with("1"), "a range of 1..8")


func test_the_client_reads_its_settings_when_it_starts() -> void:
	ProjectSettings.set_setting("npc_brain/timeout_s", 42.0)
	ProjectSettings.set_setting("npc_brain/server_url", "http://localhost:6001")
	var client := NpcBrainClient.new()
	add_child_autofree(client)
	ProjectSettings.clear("npc_brain/timeout_s")
	ProjectSettings.clear("npc_brain/server_url")
	assert_eq(client.timeout_s, 42.0)
	assert_eq(client.get("_port"), 6001)
	assert_eq(client.max_retries, 3, "a setting not in the project keeps its default")
