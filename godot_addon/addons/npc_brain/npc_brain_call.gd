class_name NpcBrainCall
extends RefCounted
## One request to the brain server: made at once by [NpcBrainClient], answered later.
##
## Wait for it with [code]await brain_call.finished[/code] or connect [signal finished]; it is
## never emitted during the call that created this object, so connecting right after
## is always in time. Errors are values: [member status] is "OK" or the gRPC status
## name ("INVALID_ARGUMENT", "NOT_FOUND", ...; "UNAVAILABLE" when the server cannot be
## reached, "DEADLINE_EXCEEDED" when the answer took longer than the client's timeout).
## [codeblock]
## var brain_call := NpcBrain.send("GetAgent", {"agent_id": "isabella"})
## await brain_call.finished
## if brain_call.is_ok():
##     print(brain_call.response["persona"]["name"])
## else:
##     print(brain_call.error_text())
## [/codeblock]

## A streamed answer's event (one NDJSON line), e.g. {"token": "Hi"}.
signal event_received(event: Dictionary)
## The call is over; read [member status] and [member response].
signal finished(brain_call: NpcBrainCall)

## The gRPC status codes: [member code] is one of them once the call is over, and
## [member status] its name.
enum Code {
	OK = 0,
	CANCELLED = 1,
	UNKNOWN = 2,
	INVALID_ARGUMENT = 3,
	DEADLINE_EXCEEDED = 4,
	NOT_FOUND = 5,
	ALREADY_EXISTS = 6,
	PERMISSION_DENIED = 7,
	RESOURCE_EXHAUSTED = 8,
	FAILED_PRECONDITION = 9,
	ABORTED = 10,
	OUT_OF_RANGE = 11,
	UNIMPLEMENTED = 12,
	INTERNAL = 13,
	UNAVAILABLE = 14,
	DATA_LOSS = 15,
	UNAUTHENTICATED = 16,
}

## The RPC, e.g. "Perceive".
var method: String
## The request body (the request message in protobuf's JSON mapping).
var request: Dictionary
## Whether the answer is a stream of events (Converse).
var streaming: bool = false
## The answer: the reply message, or for a stream its last event ({"final": {...}}).
var response: Dictionary = {}
## "" while running, then "OK" or the gRPC status name.
var status: String = ""
## The gRPC status, a [enum Code] (-1 while running).
var code: int = -1
## The error message; for INVALID_ARGUMENT it starts with the field's name.
var message: String = ""
## For INVALID_ARGUMENT, the offending field, e.g. "observations[1].text".
var field: String = ""
## The HTTP status of the answer (0 when none came).
var http_status: int = 0
## How many times the request has been sent.
var attempts: int = 0
## How many events of a streamed answer arrived ([signal event_received]). A call whose
## answer has begun is never sent again: the game would see its events twice.
var events_received: int = 0
## Used by the client: when (Time.get_ticks_msec()) a retry may be sent.
var retry_at_msec: int = 0
## Used by the client: the members of a batched Tick, or the batch this call belongs to.
var batch: Array[NpcBrainCall] = []


func _init(rpc_method: String, body: Dictionary, is_streaming: bool = false) -> void:
	method = rpc_method
	request = body
	streaming = is_streaming


## Whether the call is over.
func is_done() -> bool:
	return not status.is_empty()


## Whether the call is over and succeeded.
func is_ok() -> bool:
	return status == "OK"


## Whether the call is over with [param status_code] (a [enum Code]).
func has_code(status_code: Code) -> bool:
	return is_done() and code == status_code


## "STATUS: message", for logs.
func error_text() -> String:
	return "%s: %s" % [status, message]


## Used by the client: ends the call with an answer. Emits [signal finished].
func succeed(answer: Dictionary, http: int = 200) -> void:
	response = answer
	status = "OK"
	code = 0
	http_status = http
	finished.emit(self)


## Used by the client: ends the call with an error. Emits [signal finished].
## [param error] is the server's error object {"status", "code", "message", "field"}.
func fail(error: Dictionary, http: int = 0) -> void:
	status = String(error.get("status", "UNKNOWN"))
	code = int(error.get("code", 2))
	message = String(error.get("message", ""))
	field = String(error.get("field", ""))
	http_status = http
	finished.emit(self)


## The error as the server's error object.
func error_object() -> Dictionary:
	return {"status": status, "code": code, "message": message, "field": field}


## An error object made on this side of the wire, e.g. for [constant Code.UNAVAILABLE].
static func client_error(status_code: Code, text: String) -> Dictionary:
	var status_name: String = Code.find_key(status_code)
	return {"status": status_name, "code": status_code, "message": text, "field": ""}
