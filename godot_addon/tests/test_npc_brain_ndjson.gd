extends GutTest
## NDJSON lines are found however the stream is cut into chunks.


func test_lines_split_across_chunks_are_joined() -> void:
	var reader := NpcBrainNdjson.new()
	var first: Array[Dictionary] = reader.feed('{"token": "Hel'.to_utf8_buffer())
	assert_eq(first.size(), 0)
	assert_true(reader.has_partial_line())
	var rest: Array[Dictionary] = reader.feed('lo"}\n{"token": "!"}\n{"fi'.to_utf8_buffer())
	assert_eq(rest.size(), 2)
	assert_eq(rest[0]["token"], "Hello")
	assert_eq(rest[1]["token"], "!")
	var last: Array[Dictionary] = reader.feed('nal": {"text": "Hello!"}}\n'.to_utf8_buffer())
	assert_eq(last[0]["final"]["text"], "Hello!")
	assert_false(reader.has_partial_line())


func test_a_character_cut_in_two_survives() -> void:
	var reader := NpcBrainNdjson.new()
	var bytes := '{"token": "café"}\n'.to_utf8_buffer()
	var cut := bytes.size() - 4  # inside the two bytes of "é"
	assert_eq(reader.feed(bytes.slice(0, cut)).size(), 0)
	var events: Array[Dictionary] = reader.feed(bytes.slice(cut))
	assert_eq(events[0]["token"], "café")


func test_a_line_that_is_not_an_object_becomes_an_internal_error() -> void:
	var events: Array[Dictionary] = NpcBrainNdjson.new().feed("[1, 2]\n".to_utf8_buffer())
	assert_eq(events[0]["error"]["status"], "INTERNAL")
