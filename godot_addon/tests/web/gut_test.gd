# gdlint: disable=max-public-methods
class_name GutTest
extends Node
## A stand-in for GUT's [code]GutTest[/code] (https://github.com/bitwes/Gut), for engines
## where GUT is not installed: the web engine of the test run (see runner.gd). It has the
## part of GUT's API the addon's tests use, with GUT's names and meanings, so the same
## test files run under GUT in the editor and here. This folder has a .gdignore: a
## project with GUT installed never sees this class.
##
## The runner calls [method before_all], then for each [code]test_*[/code] method
## [method before_each], the test (awaited), [method after_each], and reads
## [method take_result].

const SIGNAL_ARGS_MAX := 6

var _failures: PackedStringArray = PackedStringArray()
var _asserts: int = 0
var _pending: String = ""
var _watched: Dictionary = {}  # instance id -> {signal name: [argument arrays]}
var _to_free: Array[Object] = []


#region Hooks (override in tests)

func before_all() -> void:
	pass


func before_each() -> void:
	pass


func after_each() -> void:
	pass


func after_all() -> void:
	pass

#endregion

#region Asserts


func assert_eq(got: Variant, expected: Variant, text: String = "") -> void:
	_check(_same(got, expected), "expected %s, got %s" % [_show(expected), _show(got)], text)


func assert_ne(got: Variant, not_expected: Variant, text: String = "") -> void:
	_check(not _same(got, not_expected), "expected anything but %s" % _show(got), text)


func assert_true(got: Variant, text: String = "") -> void:
	_check(got is bool and got, "expected true, got %s" % _show(got), text)


func assert_false(got: Variant, text: String = "") -> void:
	_check(got is bool and not got, "expected false, got %s" % _show(got), text)


func assert_null(got: Variant, text: String = "") -> void:
	_check(got == null, "expected null, got %s" % _show(got), text)


func assert_not_null(got: Variant, text: String = "") -> void:
	_check(got != null, "expected something, got null", text)


func assert_gt(got: Variant, than: Variant, text: String = "") -> void:
	_check(got > than, "expected more than %s, got %s" % [_show(than), _show(got)], text)


func assert_lt(got: Variant, than: Variant, text: String = "") -> void:
	_check(got < than, "expected less than %s, got %s" % [_show(than), _show(got)], text)


func assert_between(got: Variant, low: Variant, high: Variant, text: String = "") -> void:
	var problem := "expected %s..%s, got %s" % [_show(low), _show(high), _show(got)]
	_check(got >= low and got <= high, problem, text)


func assert_almost_eq(got: Variant, expected: Variant, error: Variant, text: String = "") -> void:
	var problem := "expected %s +- %s, got %s" % [_show(expected), _show(error), _show(got)]
	_check(absf(float(got) - float(expected)) <= float(error), problem, text)


func assert_has(container: Variant, value: Variant, text: String = "") -> void:
	_check(_has(container, value), "%s does not have %s" % [_show(container), _show(value)], text)


func assert_does_not_have(container: Variant, value: Variant, text: String = "") -> void:
	_check(not _has(container, value), "%s has %s" % [_show(container), _show(value)], text)


func assert_string_contains(got: String, search: String, match_case: bool = true) -> void:
	var found: bool = got.contains(search) if match_case else got.containsn(search)
	_check(found, "%s does not contain %s" % [_show(got), _show(search)], "")


func assert_is(got: Variant, type: Variant, text: String = "") -> void:
	_check(is_instance_of(got, type), "%s is not of the expected type" % _show(got), text)


func fail_test(text: String) -> void:
	_check(false, "failed", text)


func pass_test(_text: String = "") -> void:
	_asserts += 1


## Marks the test pending (not run to the end); the runner counts it as not passed.
func pending(text: String = "") -> void:
	_pending = text if not text.is_empty() else "pending"

#endregion

#region Signals


## Records every signal [param object] emits from now on.
func watch_signals(object: Object) -> void:
	var emitted: Dictionary = {}
	_watched[object.get_instance_id()] = emitted
	for info: Dictionary in object.get_signal_list():
		var signal_name: String = info["name"]
		var count: int = (info["args"] as Array).size()
		if count > SIGNAL_ARGS_MAX or emitted.has(signal_name):
			continue
		emitted[signal_name] = []
		var record: Callable = Callable(self, "_record_%d" % count).bind(emitted[signal_name])
		object.connect(signal_name, record)


func get_signal_emit_count(object: Object, signal_name: String) -> int:
	return _emissions(object, signal_name).size()


## The arguments of the [param index]th emission (-1: the last), or null.
func get_signal_parameters(object: Object, signal_name: String, index: int = -1) -> Variant:
	var emissions: Array = _emissions(object, signal_name)
	if emissions.is_empty() or index >= emissions.size():
		return null
	return emissions[index]


func assert_signal_emitted(object: Object, signal_name: String, text: String = "") -> void:
	var count: int = get_signal_emit_count(object, signal_name)
	_check(count > 0, "signal %s was not emitted" % signal_name, text)


func assert_signal_not_emitted(object: Object, signal_name: String, text: String = "") -> void:
	var count: int = get_signal_emit_count(object, signal_name)
	_check(count == 0, "signal %s was emitted %d times" % [signal_name, count], text)


func assert_signal_emit_count(
	object: Object, signal_name: String, times: int, text: String = ""
) -> void:
	var count: int = get_signal_emit_count(object, signal_name)
	_check(count == times, "signal %s: %d emissions, not %d" % [signal_name, count, times], text)

#endregion

#region Waits (await them)


func wait_seconds(seconds: float, _text: String = "") -> void:
	await get_tree().create_timer(seconds, true, false, true).timeout


func wait_frames(frames: int, _text: String = "") -> void:
	for _frame: int in frames:
		await get_tree().process_frame


## Waits for [param awaited] at most [param max_wait] seconds; true if it was emitted.
func wait_for_signal(awaited: Signal, max_wait: float, _text: String = "") -> bool:
	var seen: Array[bool] = [false]
	var mark := func(_a: Variant = null, _b: Variant = null, _c: Variant = null) -> void:
		seen[0] = true
	awaited.connect(mark, CONNECT_ONE_SHOT)
	var deadline: int = Time.get_ticks_msec() + int(max_wait * 1000.0)
	while not seen[0] and Time.get_ticks_msec() < deadline:
		await get_tree().process_frame
	if not seen[0] and awaited.is_connected(mark):
		awaited.disconnect(mark)
	return seen[0]


## Waits until [param predicate] returns true, at most [param max_wait] seconds; returns
## its last answer.
func wait_until(predicate: Callable, max_wait: float, _text: String = "") -> bool:
	var deadline: int = Time.get_ticks_msec() + int(max_wait * 1000.0)
	while not predicate.call():
		if Time.get_ticks_msec() >= deadline:
			return false
		await get_tree().process_frame
	return true

#endregion

#region Freeing


## Adds [param node] as a child; it is freed after the test.
func add_child_autofree(node: Node) -> Node:
	add_child(node)
	_to_free.append(node)
	return node


## Frees [param object] after the test.
func autofree(object: Object) -> Object:
	_to_free.append(object)
	return object


func autoqfree(object: Object) -> Object:
	return autofree(object)

#endregion

#region For the runner


## The last test's result, and a fresh start for the next one: {"failures":
## PackedStringArray, "asserts": int, "pending": String}. Frees what the test asked.
func take_result() -> Dictionary:
	var result := {"failures": _failures, "asserts": _asserts, "pending": _pending}
	_failures = PackedStringArray()
	_asserts = 0
	_pending = ""
	_watched.clear()
	for object: Object in _to_free:
		if is_instance_valid(object) and not object is RefCounted:
			if object is Node:
				(object as Node).queue_free()
			else:
				object.free()
	_to_free.clear()
	return result

#endregion

#region Private


func _check(ok: bool, problem: String, text: String) -> void:
	_asserts += 1
	if not ok:
		_failures.append(problem if text.is_empty() else "%s: %s" % [text, problem])


func _same(got: Variant, expected: Variant) -> bool:
	var numbers := [TYPE_INT, TYPE_FLOAT]
	var texts := [TYPE_STRING, TYPE_STRING_NAME]
	if typeof(got) in numbers and typeof(expected) in numbers:
		return got == expected
	if typeof(got) in texts and typeof(expected) in texts:
		return String(got) == String(expected)
	return typeof(got) == typeof(expected) and got == expected


func _has(container: Variant, value: Variant) -> bool:
	if container is Dictionary:
		return (container as Dictionary).has(value)
	if container is Array:
		return (container as Array).has(value)
	if container is String:
		return (container as String).contains(String(value))
	return value in container


func _show(value: Variant) -> String:
	if value is String:
		return '"%s"' % value
	return var_to_str(value).left(300)


func _emissions(object: Object, signal_name: String) -> Array:
	var emitted: Dictionary = _watched.get(object.get_instance_id(), {})
	return emitted.get(signal_name, [])


func _record_0(into: Array) -> void:
	into.append([])


func _record_1(a: Variant, into: Array) -> void:
	into.append([a])


func _record_2(a: Variant, b: Variant, into: Array) -> void:
	into.append([a, b])


func _record_3(a: Variant, b: Variant, c: Variant, into: Array) -> void:
	into.append([a, b, c])


func _record_4(a: Variant, b: Variant, c: Variant, d: Variant, into: Array) -> void:
	into.append([a, b, c, d])


func _record_5(a: Variant, b: Variant, c: Variant, d: Variant, e: Variant, into: Array) -> void:
	into.append([a, b, c, d, e])


func _record_6(
	a: Variant, b: Variant, c: Variant, d: Variant, e: Variant, f: Variant, into: Array
) -> void:
	into.append([a, b, c, d, e, f])

#endregion
