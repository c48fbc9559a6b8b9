extends Node
## Runs the addon's GUT-style tests in an engine without GUT and without the editor (the
## web engine of the test run, see README "Tests"): loads every script and scene of the
## project, then runs every [code]test_*[/code] method of [code]res://tests/test_*.gd[/code]
## (files by name, methods in order), prints a line per test and a summary line, and
## quits with 0 when every test passed, else 1.
##
## A test fails on a failed assert, on a script error while it runs (an error in release
## builds ends the function silently, so errors are caught by a [Logger]), or when it
## has not finished after [constant TEST_TIMEOUT_S].

## The one script an export template cannot load: an [EditorPlugin] (no editor classes).
const EDITOR_ONLY := ["res://addons/npc_brain/plugin.gd"]
const TESTS_DIR := "res://tests/"
const TEST_TIMEOUT_S := 180.0

var _log := ErrorLog.new()


## Collects the errors the engine reports (script errors included).
class ErrorLog:
	extends Logger

	var errors: PackedStringArray = PackedStringArray()

	func _log_error(
		function: String,
		file: String,
		line: int,
		code: String,
		rationale: String,
		_editor_notify: bool,
		error_type: int,
		_script_backtraces: Array[ScriptBacktrace]
	) -> void:
		if error_type == ERROR_TYPE_WARNING:
			return
		var text: String = rationale if not rationale.is_empty() else code
		errors.append("%s (%s:%d in %s)" % [text, file.get_file(), line, function])

	func take() -> PackedStringArray:
		var taken: PackedStringArray = errors
		errors = PackedStringArray()
		return taken


func _ready() -> void:
	await get_tree().process_frame  # the root takes children again
	_add_autoloads()
	OS.add_logger(_log)
	print("npc-brain engine tests: Godot %s" % Engine.get_version_info()["string"])
	var broken: int = _load_everything()
	var totals := {"run": 0, "passed": 0, "failed": 0, "pending": 0}
	for path: String in _test_files():
		await _run_file(path, totals)
	print(
		(
			"GDScript tests: %d run, %d passed, %d failed, %d pending; %d scripts did not load"
			% [totals["run"], totals["passed"], totals["failed"], totals["pending"], broken]
		)
	)
	var ok: bool = broken == 0 and totals["run"] > 0 and totals["passed"] == totals["run"]
	OS.remove_logger(_log)
	get_tree().quit(0 if ok else 1)


## Adds the project's autoloads, which the packer moved to [runner_autoload] (Godot 4.6's
## web template crashed in its first frame with them as autoloads).
func _add_autoloads() -> void:
	for property: Dictionary in ProjectSettings.get_property_list():
		var key: String = property["name"]
		if not key.begins_with("runner_autoload/"):
			continue
		var path: String = String(ProjectSettings.get_setting(key)).trim_prefix("*")
		var node: Node = null
		if path.ends_with(".tscn"):
			node = (load(path) as PackedScene).instantiate()
		else:
			node = (load(path) as GDScript).new()
		node.name = key.trim_prefix("runner_autoload/")
		get_tree().root.add_child(node)


## Loads every script and scene but the editor-only ones; returns how many failed.
func _load_everything() -> int:
	var loaded: int = 0
	var broken: int = 0
	for path: String in _files_under("res://"):
		if EDITOR_ONLY.has(path) or not (path.ends_with(".gd") or path.ends_with(".tscn")):
			continue
		var resource: Resource = load(path)
		var usable: bool = resource != null
		if resource is GDScript:
			usable = (resource as GDScript).can_instantiate()
		elif resource is PackedScene:
			usable = (resource as PackedScene).can_instantiate()
		var errors: PackedStringArray = _log.take()
		if usable and errors.is_empty():
			loaded += 1
		else:
			broken += 1
			print("  LOAD FAILED  %s: %s" % [path, "; ".join(errors)])
	print("loaded %d scripts and scenes (%s: editor only, not loaded)" % [loaded, EDITOR_ONLY])
	return broken


func _files_under(dir: String) -> PackedStringArray:
	var found := PackedStringArray()
	for file: String in DirAccess.get_files_at(dir):
		found.append(dir.path_join(file))
	for sub: String in DirAccess.get_directories_at(dir):
		if not sub.begins_with("."):
			found.append_array(_files_under(dir.path_join(sub)))
	return found


func _test_files() -> PackedStringArray:
	var found := PackedStringArray()
	for file: String in DirAccess.get_files_at(TESTS_DIR):
		if file.begins_with("test_") and file.ends_with(".gd"):
			found.append(TESTS_DIR + file)
	found.sort()
	return found


func _run_file(path: String, totals: Dictionary) -> void:
	var script := load(path) as GDScript
	var test: GutTest = null
	if script != null and script.can_instantiate():
		test = script.new() as GutTest
	if test == null:
		totals["run"] += 1
		totals["failed"] += 1
		print("  FAIL  %s: not a GutTest script that loads (%s)" % [path, "; ".join(_log.take())])
		return
	add_child(test)
	await test.before_all()
	for method: String in _test_methods(script):
		await _run_test(test, path.get_file(), method, totals)
	await test.after_all()
	test.take_result()
	test.queue_free()


func _test_methods(script: GDScript) -> PackedStringArray:
	var found := PackedStringArray()
	for method: Dictionary in script.get_script_method_list():
		var method_name: String = method["name"]
		if method_name.begins_with("test_") and not found.has(method_name):
			found.append(method_name)
	return found


func _run_test(test: GutTest, file: String, method: String, totals: Dictionary) -> void:
	_log.take()
	var started: int = Time.get_ticks_msec()
	await test.before_each()
	var state := {"done": false}
	var body := func() -> void:
		await test.call(method)
		state["done"] = true
	body.call()
	var deadline: int = started + int(TEST_TIMEOUT_S * 1000.0)
	while not state["done"] and Time.get_ticks_msec() < deadline:
		await get_tree().process_frame
	await test.after_each()
	var result: Dictionary = test.take_result()
	var failures: PackedStringArray = result["failures"]
	if not state["done"]:
		failures.append("did not finish in %d s" % TEST_TIMEOUT_S)
	for error: String in _log.take():
		failures.append("error: " + error)
	var seconds: float = (Time.get_ticks_msec() - started) / 1000.0
	totals["run"] += 1
	if not failures.is_empty():
		totals["failed"] += 1
		print("  FAIL  %s %s (%.2f s): %d problems" % [file, method, seconds, failures.size()])
		for failure: String in failures:
			print("        " + failure)
	elif not String(result["pending"]).is_empty():
		totals["pending"] += 1
		print("  PENDING  %s %s: %s" % [file, method, result["pending"]])
	else:
		totals["passed"] += 1
		print("  ok    %s %s (%.2f s, %d asserts)" % [file, method, seconds, result["asserts"]])
