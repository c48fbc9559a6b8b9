class_name NpcBrainNdjson
extends RefCounted
## Splits a byte stream into JSON objects, one per line (NDJSON), however the bytes are
## cut into chunks (a line, or a UTF-8 character, may span two chunks).

const NEWLINE := 10

var _pending: PackedByteArray = PackedByteArray()


## Adds received bytes; returns the objects of the lines they completed, in order. A line
## that is not a JSON object becomes an INTERNAL error object.
func feed(bytes: PackedByteArray) -> Array[Dictionary]:
	_pending.append_array(bytes)
	var objects: Array[Dictionary] = []
	var start: int = 0
	var newline: int = _pending.find(NEWLINE, start)
	while newline != -1:
		var line: String = _pending.slice(start, newline).get_string_from_utf8().strip_edges()
		if not line.is_empty():
			objects.append(parse_line(line))
		start = newline + 1
		newline = _pending.find(NEWLINE, start)
	_pending = _pending.slice(start)
	return objects


## Whether bytes of an unfinished line are waiting for more.
func has_partial_line() -> bool:
	return not _pending.is_empty()


## One line as a JSON object, or an INTERNAL error object when it is not one.
static func parse_line(line: String) -> Dictionary:
	var parsed: Variant = JSON.parse_string(line)
	if parsed is Dictionary:
		return parsed
	var text: String = "not a JSON object: %s" % line.left(80)
	return {"error": NpcBrainCall.client_error(NpcBrainCall.Code.INTERNAL, text)}
