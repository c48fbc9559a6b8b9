using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Net;
using System.Net.Http;
using System.Net.Http.Headers;
using System.Net.Sockets;
using System.Text;
using System.Threading;
using System.Threading.Tasks;
using Newtonsoft.Json;
using Newtonsoft.Json.Linq;

namespace NpcBrain.Client
{
    /// <summary>Where the server is and how patient the client is with it.</summary>
    public sealed class NpcBrainClientOptions
    {
        /// <summary>The server's HTTP/JSON door (<c>npc-brain serve</c> prints it).</summary>
        public string ServerUrl = "http://127.0.0.1:50052";

        /// <summary>Sent as "Authorization: Bearer &lt;token&gt;" when not empty.</summary>
        public string Token = "";

        /// <summary>The world of requests that name none ("" is the server's "default").</summary>
        public string WorldId = "";

        /// <summary>How many times a request the server did not handle is sent again.</summary>
        public int MaxRetries = 3;

        /// <summary>Wait before the first retry; doubled for each further one.</summary>
        public TimeSpan RetryDelay = TimeSpan.FromSeconds(0.25);

        /// <summary>Longest wait for an answer (for a stream: between two of its lines).</summary>
        public TimeSpan Timeout = TimeSpan.FromSeconds(15);
    }

    /// <summary>
    /// npc-brain's API over its HTTP/JSON door (<c>POST /v1/&lt;Method&gt;</c>), one async
    /// method per RPC, for any .NET engine or tool; Unity's <c>NpcBrainAgent</c> is built on
    /// it. Continuations run on the caller's context (Unity's main thread), so callbacks
    /// may touch the scene.
    ///
    /// A failure ends as a <see cref="NpcBrainException"/> carrying the gRPC status. A
    /// request the server surely did not handle (no connection; a 429 or 503 answer: the
    /// server busy) is sent again after <see cref="NpcBrainClientOptions.RetryDelay"/>,
    /// doubling each time (or the server's Retry-After, if longer), up to
    /// <see cref="NpcBrainClientOptions.MaxRetries"/> times; one that may have been handled
    /// (a connection lost mid-call) only when that is harmless (<see cref="RetrySafe"/>);
    /// a stream that has begun never is. These are the Godot addon's rules.
    /// </summary>
    public sealed class NpcBrainClient : IDisposable
    {
        /// <summary>RPCs that are safe to send twice: sending them again changes nothing
        /// the first one did not. Perceive, Tick and Converse are not.</summary>
        public static readonly ICollection<string> RetrySafe = new HashSet<string>
        {
            "UpsertAgent", "GetAgent", "Act", "Retrieve", "GetStats", "ListMemories",
            "ListSnapshots", "WhoKnows", "ReportOutcome",
        };

        static readonly JsonSerializerSettings JsonSettings = new JsonSerializerSettings
        {
            NullValueHandling = NullValueHandling.Ignore,
            Converters = { new GameTimeConverter() },
            DateParseHandling = DateParseHandling.None,
        };

        readonly HttpClient http;
        readonly JsonSerializer serializer = JsonSerializer.Create(JsonSettings);

        public NpcBrainClient(NpcBrainClientOptions options = null, HttpMessageHandler handler = null)
        {
            Options = options ?? new NpcBrainClientOptions();
            http = handler == null ? new HttpClient() : new HttpClient(handler);
            http.Timeout = System.Threading.Timeout.InfiniteTimeSpan;  // ours, per line
        }

        public NpcBrainClientOptions Options { get; private set; }

        public Task<Agent> UpsertAgentAsync(UpsertAgentRequest request, CancellationToken cancel = default(CancellationToken))
        {
            return Unary<Agent>("UpsertAgent", request, cancel);
        }

        public Task<Agent> GetAgentAsync(GetAgentRequest request, CancellationToken cancel = default(CancellationToken))
        {
            return Unary<Agent>("GetAgent", request, cancel);
        }

        public Task<PerceiveResponse> PerceiveAsync(PerceiveRequest request, CancellationToken cancel = default(CancellationToken))
        {
            return Unary<PerceiveResponse>("Perceive", request, cancel);
        }

        public Task<ActResponse> ActAsync(ActRequest request, CancellationToken cancel = default(CancellationToken))
        {
            return Unary<ActResponse>("Act", request, cancel);
        }

        public Task<TickResponse> TickAsync(TickRequest request, CancellationToken cancel = default(CancellationToken))
        {
            return Unary<TickResponse>("Tick", request, cancel);
        }

        public Task<RetrieveResponse> RetrieveAsync(RetrieveRequest request, CancellationToken cancel = default(CancellationToken))
        {
            return Unary<RetrieveResponse>("Retrieve", request, cancel);
        }

        public Task<ListMemoriesResponse> ListMemoriesAsync(ListMemoriesRequest request, CancellationToken cancel = default(CancellationToken))
        {
            return Unary<ListMemoriesResponse>("ListMemories", request, cancel);
        }

        public Task<Memory> AddMemoryAsync(AddMemoryRequest request, CancellationToken cancel = default(CancellationToken))
        {
            return Unary<Memory>("AddMemory", request, cancel);
        }

        public Task<ForgetMemoryResponse> ForgetMemoryAsync(ForgetMemoryRequest request, CancellationToken cancel = default(CancellationToken))
        {
            return Unary<ForgetMemoryResponse>("ForgetMemory", request, cancel);
        }

        public Task<ReflectResponse> ReflectAsync(ReflectRequest request, CancellationToken cancel = default(CancellationToken))
        {
            return Unary<ReflectResponse>("Reflect", request, cancel);
        }

        public Task<Stats> GetStatsAsync(GetStatsRequest request, CancellationToken cancel = default(CancellationToken))
        {
            return Unary<Stats>("GetStats", request, cancel);
        }

        public Task<Snapshot> SaveWorldAsync(SaveWorldRequest request, CancellationToken cancel = default(CancellationToken))
        {
            return Unary<Snapshot>("SaveWorld", request, cancel);
        }

        public Task<LoadWorldResponse> LoadWorldAsync(LoadWorldRequest request, CancellationToken cancel = default(CancellationToken))
        {
            return Unary<LoadWorldResponse>("LoadWorld", request, cancel);
        }

        public Task<ListSnapshotsResponse> ListSnapshotsAsync(ListSnapshotsRequest request, CancellationToken cancel = default(CancellationToken))
        {
            return Unary<ListSnapshotsResponse>("ListSnapshots", request, cancel);
        }

        public Task<WhoKnowsResponse> WhoKnowsAsync(WhoKnowsRequest request, CancellationToken cancel = default(CancellationToken))
        {
            return Unary<WhoKnowsResponse>("WhoKnows", request, cancel);
        }

        /// <summary>Tells an NPC what became of a game action it chose in a reply
        /// (<c>Utterance.GameAction.ActionId</c>); returns its memory of it.</summary>
        public Task<Memory> ReportOutcomeAsync(ReportOutcomeRequest request, CancellationToken cancel = default(CancellationToken))
        {
            return Unary<Memory>("ReportOutcome", request, cancel);
        }

        /// <summary>
        /// Talks to an NPC: <paramref name="onToken"/> gets each piece of the reply as it
        /// streams, and the task ends with the whole reply as checked and stored (its text
        /// is the pieces joined). A stream cut short fails once, with Unavailable, and is
        /// never sent again: the NPC may have heard the line.
        /// </summary>
        public async Task<Utterance> ConverseAsync(
            ConverseRequest request, Action<string> onToken = null,
            CancellationToken cancel = default(CancellationToken))
        {
            var body = Body(request);
            for (var attempt = 1; ; attempt++)
            {
                HttpResponseMessage response;
                try
                {
                    response = await Send("Converse", body, cancel);
                    if (!response.IsSuccessStatusCode)
                    {
                        throw await Failure(response);
                    }
                }
                catch (NpcBrainException error)
                {
                    if (!MaySendAgain("Converse", error, attempt))
                    {
                        throw;
                    }
                    await Task.Delay(Backoff(attempt, error), cancel);
                    continue;
                }
                using (response)
                {
                    return await ReadStream(response, onToken, cancel);
                }
            }
        }

        public void Dispose()
        {
            http.Dispose();
        }

        async Task<T> Unary<T>(string method, object request, CancellationToken cancel)
        {
            var body = Body(request);
            for (var attempt = 1; ; attempt++)
            {
                try
                {
                    using (var response = await Send(method, body, cancel))
                    {
                        if (!response.IsSuccessStatusCode)
                        {
                            throw await Failure(response);
                        }
                        var text = await WithTimeout(response.Content.ReadAsStringAsync(), response, cancel);
                        return JsonConvert.DeserializeObject<T>(text, JsonSettings);
                    }
                }
                catch (NpcBrainException error)
                {
                    if (!MaySendAgain(method, error, attempt))
                    {
                        throw;
                    }
                    await Task.Delay(Backoff(attempt, error), cancel);
                }
            }
        }

        string Body(object request)
        {
            var json = JObject.FromObject(request, serializer);
            var scoped = request.GetType().GetProperty("WorldId") != null;
            var named = json["world_id"] != null && (string)json["world_id"] != "";
            if (scoped && !named && !string.IsNullOrEmpty(Options.WorldId))
            {
                json["world_id"] = Options.WorldId;
            }
            return json.ToString(Formatting.None);
        }

        async Task<HttpResponseMessage> Send(string method, string body, CancellationToken cancel)
        {
            var message = new HttpRequestMessage(HttpMethod.Post, Options.ServerUrl.TrimEnd('/') + "/v1/" + method)
            {
                Content = new StringContent(body, Encoding.UTF8, "application/json"),
            };
            if (!string.IsNullOrEmpty(Options.Token))
            {
                message.Headers.Authorization = new AuthenticationHeaderValue("Bearer", Options.Token);
            }
            using (var timeout = CancellationTokenSource.CreateLinkedTokenSource(cancel))
            {
                timeout.CancelAfter(Options.Timeout);
                try
                {
                    return await http.SendAsync(message, HttpCompletionOption.ResponseHeadersRead, timeout.Token);
                }
                catch (OperationCanceledException) when (!cancel.IsCancellationRequested)
                {
                    throw new NpcBrainException(
                        StatusCode.DeadlineExceeded, method + ": no answer in " + Options.Timeout.TotalSeconds + " s");
                }
                catch (HttpRequestException error)
                {
                    var unsent = Refused(error);
                    throw new NpcBrainException(
                        StatusCode.Unavailable, method + ": " + (unsent ? "cannot reach " + Options.ServerUrl : "connection lost"),
                        inner: error) { NotSent = unsent };
                }
            }
        }

        async Task<Utterance> ReadStream(HttpResponseMessage response, Action<string> onToken, CancellationToken cancel)
        {
            var stream = await WithTimeout(response.Content.ReadAsStreamAsync(), response, cancel);
            using (var reader = new StreamReader(stream, Encoding.UTF8))
            {
                while (true)
                {
                    string line;
                    try
                    {
                        line = await WithTimeout(reader.ReadLineAsync(), response, cancel);
                    }
                    catch (IOException error)
                    {
                        throw new NpcBrainException(StatusCode.Unavailable, "Converse: the reply stream was cut", inner: error);
                    }
                    if (line == null)
                    {
                        throw new NpcBrainException(StatusCode.Unavailable, "Converse: the reply stream ended before its final event");
                    }
                    if (line.Trim().Length == 0)
                    {
                        continue;  // the server's keep-alive while the model is busy
                    }
                    var ev = JObject.Parse(line);
                    if (ev["error"] != null)
                    {
                        throw FromErrorObject(ev["error"], 0, 0);
                    }
                    if (ev["token"] != null && onToken != null)
                    {
                        onToken((string)ev["token"]);
                    }
                    if (ev["final"] != null)
                    {
                        return ev["final"].ToObject<Utterance>(serializer);
                    }
                }
            }
        }

        async Task<T> WithTimeout<T>(Task<T> reading, HttpResponseMessage response, CancellationToken cancel)
        {
            var done = await Task.WhenAny(reading, Task.Delay(Options.Timeout, cancel));
            if (done != reading)
            {
                response.Dispose();  // ends the read
                cancel.ThrowIfCancellationRequested();
                throw new NpcBrainException(
                    StatusCode.DeadlineExceeded, "no answer in " + Options.Timeout.TotalSeconds + " s");
            }
            return await reading;
        }

        async Task<NpcBrainException> Failure(HttpResponseMessage response)
        {
            var status = (int)response.StatusCode;
            var retryAfter = RetryAfter(response.Headers.RetryAfter);
            var text = await response.Content.ReadAsStringAsync();
            response.Dispose();
            try
            {
                var error = JObject.Parse(text)["error"];
                if (error != null)
                {
                    return FromErrorObject(error, status, retryAfter);
                }
            }
            catch (JsonReaderException)
            {
            }
            var code = status == 429 ? StatusCode.ResourceExhausted
                : status == 503 ? StatusCode.Unavailable : StatusCode.Unknown;
            return new NpcBrainException(code, "HTTP " + status + ": " + text, "", status, retryAfter);
        }

        static NpcBrainException FromErrorObject(JToken error, int httpStatus, double retryAfter)
        {
            var name = (string)error["status"] ?? "UNKNOWN";
            return new NpcBrainException(
                StatusNames.Parse(name), (string)error["message"] ?? name, (string)error["field"] ?? "",
                httpStatus, retryAfter);
        }

        bool MaySendAgain(string method, NpcBrainException error, int attempt)
        {
            var declined = error.HttpStatus == 429 || error.HttpStatus == 503;
            var lost = error.HttpStatus == 0 && error.Status == StatusCode.Unavailable && !error.NotSent;
            return attempt <= Options.MaxRetries
                && (error.NotSent || declined || (lost && RetrySafe.Contains(method)));
        }

        TimeSpan Backoff(int attempt, NpcBrainException error)
        {
            var seconds = Options.RetryDelay.TotalSeconds * Math.Pow(2, attempt - 1);
            return TimeSpan.FromSeconds(Math.Max(seconds, error.RetryAfterSeconds));
        }

        static double RetryAfter(RetryConditionHeaderValue header)
        {
            if (header == null || !header.Delta.HasValue)
            {
                return 0;
            }
            return Math.Max(header.Delta.Value.TotalSeconds, 0);
        }

        /// <summary>Whether a request failed before any of it reached the server (the
        /// connection refused): then sending it again can change nothing twice.</summary>
        static bool Refused(Exception error)
        {
            for (var inner = error; inner != null; inner = inner.InnerException)
            {
                var socket = inner as SocketException;
                if (socket != null && socket.SocketErrorCode == SocketError.ConnectionRefused)
                {
                    return true;
                }
                var web = inner as WebException;
                if (web != null && web.Status == WebExceptionStatus.ConnectFailure)
                {
                    return true;
                }
            }
            return false;
        }
    }

    /// <summary>Game times as the JSON mapping writes Timestamps: RFC 3339 in UTC
    /// ("2023-02-13T08:00:00Z"); a DateTime of unspecified kind is taken as UTC.</summary>
    sealed class GameTimeConverter : JsonConverter
    {
        public override bool CanConvert(Type type)
        {
            return type == typeof(DateTime) || type == typeof(DateTime?);
        }

        public override void WriteJson(JsonWriter writer, object value, JsonSerializer serializer)
        {
            var time = (DateTime)value;
            var utc = time.Kind == DateTimeKind.Unspecified
                ? DateTime.SpecifyKind(time, DateTimeKind.Utc) : time.ToUniversalTime();
            writer.WriteValue(utc.ToString("yyyy-MM-dd'T'HH:mm:ss.fff'Z'", CultureInfo.InvariantCulture));
        }

        public override object ReadJson(JsonReader reader, Type type, object existing, JsonSerializer serializer)
        {
            if (reader.TokenType == JsonToken.Null)
            {
                return null;
            }
            if (reader.Value is DateTime)
            {
                return ((DateTime)reader.Value).ToUniversalTime();
            }
            return DateTime.Parse(
                (string)reader.Value, CultureInfo.InvariantCulture,
                DateTimeStyles.AdjustToUniversal | DateTimeStyles.AssumeUniversal);
        }
    }
}
