extends RefCounted
## What the tests that talk to servers need: where the servers are, and clients for them.
##
## The engine test run (tests/web/run.py) passes the servers on the engine's command line,
## after "--": [code]--npc-brain-server=URL[/code] (a real npc-brain serve),
## [code]--npc-brain-faults=URL[/code] (its fault gateway) and
## [code]--npc-brain-dead=URL[/code] (a port nothing listens on). Elsewhere (GUT in the
## editor) set the environment variables NPC_BRAIN_TEST_SERVER, NPC_BRAIN_TEST_FAULTS and
## NPC_BRAIN_TEST_DEAD; tests whose server is not given are pending.

## 2023-02-13T08:00:00Z, the morning of the paper's Valentine's Day party story.
const T0 := 1676275200.0
## The world the tests against a real server use.
const WORLD := "addon_tests"
## Seconds a test waits for the real server's model (a reply on a busy 2-core machine).
const MODEL_WAIT_S := 150.0


## The real npc-brain gateway's URL, or "".
static func server_url() -> String:
	return _setting("server", "NPC_BRAIN_TEST_SERVER")


## The fault gateway's URL, or "".
static func faults_url() -> String:
	return _setting("faults", "NPC_BRAIN_TEST_FAULTS")


## A URL where nothing listens, or "".
static func dead_url() -> String:
	return _setting("dead", "NPC_BRAIN_TEST_DEAD")


## A new client for [param url], child of [param test] (freed after the test), that
## retries quickly.
static func client(test: GutTest, url: String) -> NpcBrainClient:
	var made := NpcBrainClient.new()
	test.add_child_autofree(made)
	made.server_url = url
	made.retry_delay_s = 0.05
	made.max_retries = 3
	made.timeout_s = 10.0
	made.batch_ticks = true
	made.reconfigure()
	return made


## The NpcBrain autoload (what agents and the demo talk through), pointed at the real
## server, or null when there is none.
static func live_autoload(test: GutTest) -> NpcBrainClient:
	var autoload := test.get_node_or_null(^"/root/NpcBrain") as NpcBrainClient
	if autoload == null or server_url().is_empty():
		return null
	if autoload.server_url != server_url():
		autoload.server_url = server_url()
		autoload.reconfigure()
	return autoload


## A persona for the tests.
static func persona(full_name: String, home: String) -> NpcPersona:
	var made := NpcPersona.new()
	made.name = full_name
	made.age = 34
	made.innate = "friendly, outgoing, hospitable"
	made.currently = "planning a Valentine's Day party at Hobbs Cafe"
	made.home_address = home
	return made


## What the fault gateway received for [param agent_id]: [{"method", "at_ms", "agents"}].
static func faults_seen(test: GutTest, agent_id: String) -> Array:
	var asking: NpcBrainClient = client(test, faults_url())
	var seen := asking.send("Faults", {"agent_id": agent_id})
	await test.wait_until(seen.is_done, 10.0)
	return seen.response.get("requests", [])


## How many requests of [param method] the fault gateway received for [param agent_id].
static func faults_count(test: GutTest, agent_id: String, method: String) -> int:
	var count: int = 0
	for request: Dictionary in await faults_seen(test, agent_id):
		if request["method"] == method:
			count += 1
	return count


static func _setting(name: String, variable: String) -> String:
	var prefix: String = "--npc-brain-%s=" % name
	for argument: String in OS.get_cmdline_user_args():
		if argument.begins_with(prefix):
			return argument.trim_prefix(prefix)
	return OS.get_environment(variable)
