@tool
extends EditorPlugin
## Registers the [code]NpcBrain[/code] autoload (an [NpcBrainClient]) and its project
## settings under [code]npc_brain/[/code] (Project Settings > General, Advanced Settings on).

const AUTOLOAD_NAME := "NpcBrain"
const AUTOLOAD_PATH := "res://addons/npc_brain/npc_brain_client.gd"


func _enable_plugin() -> void:
	add_autoload_singleton(AUTOLOAD_NAME, AUTOLOAD_PATH)
	for setting: Dictionary in NpcBrainClient.SETTINGS:
		var path: String = NpcBrainClient.SETTINGS_PREFIX + String(setting["name"])
		if not ProjectSettings.has_setting(path):
			ProjectSettings.set_setting(path, setting["default"])
		ProjectSettings.set_initial_value(path, setting["default"])
		ProjectSettings.add_property_info({
			"name": path,
			"type": typeof(setting["default"]),
			"hint": setting.get("hint", PROPERTY_HINT_NONE),
			"hint_string": setting.get("hint_string", ""),
		})
	ProjectSettings.save()


func _disable_plugin() -> void:
	remove_autoload_singleton(AUTOLOAD_NAME)
