extends GutTest
## The request builders make exactly the bodies of the contract fixtures, which the
## server's test suite replays against a real server (tests/rpc/test_godot_contract.py).

const FIXTURES := "res://tests/fixtures/"
const T0 := 1676275200.0  # 2023-02-13T08:00:00Z
const T1 := 1676275500.0  # 2023-02-13T08:05:00Z


func test_timestamps_are_rfc_3339_utc() -> void:
	assert_eq(NpcBrainRequests.timestamp(T0), "2023-02-13T08:00:00Z")
	assert_eq(NpcBrainRequests.timestamp(T0 + 0.25), "2023-02-13T08:00:00.250Z")
	assert_eq(NpcBrainRequests.timestamp(T0 + 0.9996), "2023-02-13T08:00:01Z")


func test_upsert_agent_matches_its_fixtures() -> void:
	var isabella := NpcBrainRequests.upsert_agent("", "isabella", _isabella(), T0)
	_assert_builds("01_upsert_agent_isabella", isabella)
	var klaus := NpcPersona.new()
	klaus.name = "Klaus Mueller"
	klaus.age = 20
	klaus.innate = "kind, inquisitive"
	klaus.currently = "writing a research paper"
	klaus.home_address = "the Ville:Oak Hill College:library"
	_assert_builds("02_upsert_agent_klaus", NpcBrainRequests.upsert_agent("", "klaus", klaus, T0))


func test_get_agent_matches_its_fixtures() -> void:
	_assert_builds("03_get_agent", NpcBrainRequests.get_agent("", "isabella"))
	_assert_builds("09_get_agent_unknown", NpcBrainRequests.get_agent("", "nobody"))


func test_perceive_matches_its_fixtures() -> void:
	var observations: Array[Dictionary] = [
		NpcBrainRequests.observation(
			"Klaus Mueller is reading at the library", "the Ville:Oak Hill College:library"
		),
		NpcBrainRequests.observation("the coffee machine is brewing coffee", "the Ville:Hobbs Cafe", 2),
	]
	var visible := PackedStringArray(["the Ville:Hobbs Cafe"])
	_assert_builds(
		"04_perceive", NpcBrainRequests.perceive("", "isabella", T0, observations, visible)
	)
	var empty: Array[Dictionary] = [NpcBrainRequests.observation("")]
	_assert_builds("10_perceive_empty_text", NpcBrainRequests.perceive("", "isabella", T1, empty))


func test_act_matches_its_fixture() -> void:
	_assert_builds("05_act", NpcBrainRequests.act("", "isabella", T0, 0))


func test_tick_matches_its_fixtures() -> void:
	var seen: Array[Dictionary] = [
		NpcBrainRequests.observation("Maria Lopez is streaming games", "the Ville:Johnson Park")
	]
	var nothing: Array[Dictionary] = []
	var ticks: Array[Dictionary] = [
		NpcBrainRequests.agent_tick(
			"isabella", seen, PackedStringArray(["the Ville:Johnson Park"])
		),
		NpcBrainRequests.agent_tick("klaus", nothing),
	]
	_assert_builds("06_tick", NpcBrainRequests.tick("", T1, ticks, 0))
	var with_unknown: Array[Dictionary] = [
		NpcBrainRequests.agent_tick("isabella", nothing),
		NpcBrainRequests.agent_tick("nobody", nothing),
	]
	_assert_builds("11_tick_unknown_agent", NpcBrainRequests.tick("", T1, with_unknown, 0))


func test_converse_matches_its_fixture() -> void:
	var body := NpcBrainRequests.converse(
		"", "isabella", T1, "player", "Hi Isabella! Any plans for Valentine's Day?"
	)
	_assert_builds("07_converse", body)


func test_retrieve_matches_its_fixture() -> void:
	_assert_builds(
		"08_retrieve", NpcBrainRequests.retrieve("", "isabella", T1, "Valentine's Day party", 3)
	)


func test_report_outcome_matches_its_fixture() -> void:
	var body := NpcBrainRequests.report_outcome(
		"", "isabella", "never-chosen", true, "the player paid 3 coins", T1
	)
	_assert_builds("12_report_outcome_unknown", body)


func _isabella() -> NpcPersona:
	var persona := NpcPersona.new()
	persona.name = "Isabella Rodriguez"
	persona.age = 34
	persona.innate = "friendly, outgoing, hospitable"
	persona.learned = "runs Hobbs Cafe"
	persona.currently = "planning a Valentine's Day party at Hobbs Cafe"
	persona.lifestyle = "goes to bed around 11pm, wakes up around 6am"
	persona.home_address = "the Ville:Hobbs Cafe"
	persona.daily_requirements = PackedStringArray(["open the cafe at 8am"])
	return persona


func _assert_builds(fixture_name: String, built: Dictionary) -> void:
	var text := FileAccess.get_file_as_string(FIXTURES + fixture_name + ".json")
	var fixture: Dictionary = JSON.parse_string(text)
	var expected: String = JSON.stringify(_normalised(fixture["request"]), "", true)
	var round_trip: Variant = JSON.parse_string(JSON.stringify(built))
	var actual: String = JSON.stringify(_normalised(round_trip), "", true)
	assert_eq(actual, expected, fixture_name)


## JSON numbers come back as floats: whole ones become ints so both sides print alike.
func _normalised(value: Variant) -> Variant:
	if value is float and is_equal_approx(value, roundf(value)):
		return int(value)
	if value is Array:
		var items: Array = []
		for item: Variant in value:
			items.append(_normalised(item))
		return items
	if value is Dictionary:
		var copy: Dictionary = {}
		for key: Variant in value:
			copy[key] = _normalised(value[key])
		return copy
	return value
