@tool
extends EditorPlugin
## Registers the [code]NpcBrain[/code] autoload (an [NpcBrainClient]) and its project
## settings under [code]npc_brain/[/code] (Project Settings > General, Advanced Settings on):
## one for each exported property of the client, with its type, range and default.
##
## The one script of the addon that runs only in the editor: an export template (the web
## engine of the addon's tests included) has no editor classes and cannot load it.

const AUTOLOAD_NAME := "NpcBrain"
const AUTOLOAD_PATH := "res://addons/npc_brain/npc_brain_client.gd"


func _enable_plugin() -> void:
	add_autoload_singleton(AUTOLOAD_NAME, AUTOLOAD_PATH)
	var client: Script = load(AUTOLOAD_PATH)
	for property: Dictionary in client.get_script_property_list():
		if not NpcBrainClient.is_setting(property):
			continue
		var path: String = NpcBrainClient.SETTINGS_PREFIX + String(property["name"])
		var default: Variant = client.get_property_default_value(property["name"])
		if not ProjectSettings.has_setting(path):
			ProjectSettings.set_setting(path, default)
		ProjectSettings.set_initial_value(path, default)
		ProjectSettings.add_property_info(
			{
				"name": path,
				"type": property["type"],
				"hint": property["hint"],
				"hint_string": property["hint_string"],
			}
		)
	ProjectSettings.save()


func _disable_plugin() -> void:
	remove_autoload_singleton(AUTOLOAD_NAME)
