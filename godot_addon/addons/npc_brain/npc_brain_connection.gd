class_name NpcBrainConnection
extends RefCounted
## One keep-alive HTTP/1.1 connection to the server, driven by [method poll] once a
## frame: it never waits, so a slow model never stalls the game.
##
## Used by [NpcBrainClient]; a connection carries one call at a time.

enum Phase { IDLE, CONNECTING, WAITING, READING }

## The connection has been idle this long: close it before the server does.
const IDLE_CLOSE_MSEC := 60000

## The call in flight, or null.
var current: NpcBrainCall = null

var _http: HTTPClient = HTTPClient.new()
var _host: String
var _port: int
var _tls: TLSOptions = null
var _headers: PackedStringArray
var _timeout_msec: int
var _connect_timeout_msec: int
var _phase: Phase = Phase.IDLE
var _deadline_msec: int = 0
var _idle_since_msec: int = 0
var _reused: bool = false
var _body: PackedByteArray = PackedByteArray()
var _lines: NpcBrainNdjson = null
var _last_event: Dictionary = {}
var _on_done: Callable


## [param on_done] is called with (brain_call, answer: Dictionary, http_status: int,
## unsent: bool, retry_after_s: float) when a call ends: the answer is the reply message
## (for a stream, its final event), or {"error": {...}} from the server or from this side
## of the wire; [code]unsent[/code] says the request surely never reached the server (it
## may be sent again whatever it is); [code]retry_after_s[/code] is the server's
## Retry-After (0 without one).
func _init(
	host: String,
	port: int,
	tls: TLSOptions,
	headers: PackedStringArray,
	timeout_s: float,
	connect_timeout_s: float,
	on_done: Callable
) -> void:
	_host = host
	_port = port
	_tls = tls
	_headers = headers
	_timeout_msec = int(timeout_s * 1000.0)
	_connect_timeout_msec = int(connect_timeout_s * 1000.0)
	_on_done = on_done
	_http.read_chunk_size = 16384


## Whether the connection can take a call.
func is_idle() -> bool:
	return current == null


## Whether the call in flight has been sent (then the server may have handled it).
func is_sent() -> bool:
	return current != null and (_phase == Phase.WAITING or _phase == Phase.READING)


## Starts [param new_call]; the answer arrives over the next frames' [method poll]s.
func start(new_call: NpcBrainCall) -> void:
	current = new_call
	current.attempts += 1
	_body = PackedByteArray()
	_lines = NpcBrainNdjson.new() if current.streaming else null
	_last_event = {}
	_http.poll()
	if _http.get_status() == HTTPClient.STATUS_CONNECTED:
		_reused = true
		_send()
		return
	_reused = false
	_http.close()
	var error: Error = _http.connect_to_host(_host, _port, _tls)
	if error != OK:
		var text: String = "cannot connect to %s:%d (%s)" % [_host, _port, error_string(error)]
		_end_with_transport_error(text, true)
		return
	_phase = Phase.CONNECTING
	_deadline_msec = Time.get_ticks_msec() + _connect_timeout_msec


## Advances the call in flight; call once a frame.
func poll() -> void:
	if current == null:
		var idle_for: int = Time.get_ticks_msec() - _idle_since_msec
		if _http.get_status() != HTTPClient.STATUS_DISCONNECTED and idle_for > IDLE_CLOSE_MSEC:
			_http.close()
		return
	_http.poll()
	var status: HTTPClient.Status = _http.get_status()
	if _phase == Phase.CONNECTING:
		if status == HTTPClient.STATUS_CONNECTED:
			_send()
		elif status != HTTPClient.STATUS_RESOLVING and status != HTTPClient.STATUS_CONNECTING:
			_end_with_transport_error("cannot connect to %s:%d" % [_host, _port], true)
		elif Time.get_ticks_msec() > _deadline_msec:
			_end_with_transport_error("no connection to %s:%d in time" % [_host, _port], true)
		return
	if status == HTTPClient.STATUS_REQUESTING:
		if Time.get_ticks_msec() > _deadline_msec:
			_end_with_error(NpcBrainCall.Code.DEADLINE_EXCEEDED, "no answer in time", false)
		return
	if status == HTTPClient.STATUS_BODY or _http.has_response():
		_read()
		return
	# The connection ended before any answer. A reused keep-alive connection that the
	# server closed between requests did not carry the request: it may be sent again. A
	# browser pools connections itself (and retries such a request on its own), so there
	# a lost answer may come from a handled request.
	var unsent: bool = _reused and _phase == Phase.WAITING and not OS.has_feature("web")
	_end_with_transport_error("the connection to the server was lost", unsent)


## Closes the connection (the call in flight, if any, is dropped without an answer).
func close() -> void:
	current = null
	_phase = Phase.IDLE
	_http.close()


func _send() -> void:
	var body: String = JSON.stringify(current.request)
	var error: Error = _http.request(
		HTTPClient.METHOD_POST, "/v1/" + current.method, _headers, body
	)
	if error != OK:
		_end_with_transport_error("cannot send the request (%s)" % error_string(error), true)
		return
	_phase = Phase.WAITING
	_deadline_msec = Time.get_ticks_msec() + _timeout_msec


func _read() -> void:
	_phase = Phase.READING
	var streamed: bool = current.streaming and _http.get_response_code() == 200
	while _http.get_status() == HTTPClient.STATUS_BODY:
		var chunk: PackedByteArray = _http.read_response_body_chunk()
		if chunk.is_empty():
			break
		if streamed:
			# Any bytes, a keep-alive line included, show the answer is coming.
			_deadline_msec = Time.get_ticks_msec() + _timeout_msec
			for event: Dictionary in _lines.feed(chunk):
				_last_event = event
				if not event.has("error"):
					current.events_received += 1
					current.event_received.emit(event)
				if current == null:  # a handler closed the connection
					return
		else:
			_body.append_array(chunk)
	if _http.get_status() == HTTPClient.STATUS_BODY:
		if Time.get_ticks_msec() > _deadline_msec:
			var text: String = "the answer did not arrive in time"
			_end_with_error(NpcBrainCall.Code.DEADLINE_EXCEEDED, text, false)
		return
	_finish(streamed)


func _finish(streamed: bool) -> void:
	var http_status: int = _http.get_response_code()
	var answer: Dictionary = _last_event
	if not streamed:
		answer = NpcBrainNdjson.parse_line(_body.get_string_from_utf8())
	if streamed and not answer.has("final") and not answer.has("error"):
		# Cut before its final event (the server or the network went away): what arrived
		# was delivered, so this is an error of its own, never sent again.
		var cut: String = "the stream ended after %d events, without its final event"
		var error: Dictionary = NpcBrainCall.client_error(
			NpcBrainCall.Code.UNAVAILABLE, cut % current.events_received
		)
		answer = {"error": error}
	elif http_status != 200 and not answer.has("error"):
		var text: String = "HTTP %d without an error object" % http_status
		answer = {"error": NpcBrainCall.client_error(NpcBrainCall.Code.UNKNOWN, text)}
	var retry_after_s: float = 0.0
	if http_status == 429 or http_status == 503:
		var headers: Dictionary = _http.get_response_headers_as_dictionary()
		for name: String in headers:
			if name.to_lower() == "retry-after":
				retry_after_s = maxf(String(headers[name]).to_float(), 0.0)
	_on_done.call(_release(), answer, http_status, false, retry_after_s)


func _end_with_transport_error(text: String, unsent: bool) -> void:
	_end_with_error(NpcBrainCall.Code.UNAVAILABLE, text, unsent)


func _end_with_error(status_code: NpcBrainCall.Code, text: String, unsent: bool) -> void:
	_http.close()  # a half-read answer would poison the next request on this connection
	var error: Dictionary = NpcBrainCall.client_error(status_code, text)
	_on_done.call(_release(), {"error": error}, 0, unsent, 0.0)


func _release() -> NpcBrainCall:
	var done: NpcBrainCall = current
	current = null
	_phase = Phase.IDLE
	_idle_since_msec = Time.get_ticks_msec()
	return done
