using System;

namespace NpcBrain.Client
{
    /// <summary>gRPC's status codes: what the server's error object calls a failure.</summary>
    public enum StatusCode
    {
        Ok = 0,
        Cancelled = 1,
        Unknown = 2,
        InvalidArgument = 3,
        DeadlineExceeded = 4,
        NotFound = 5,
        AlreadyExists = 6,
        PermissionDenied = 7,
        ResourceExhausted = 8,
        FailedPrecondition = 9,
        Aborted = 10,
        OutOfRange = 11,
        Unimplemented = 12,
        Internal = 13,
        Unavailable = 14,
        DataLoss = 15,
        Unauthenticated = 16,
    }

    /// <summary>
    /// A call that failed, retries included: the server's error object
    /// (<c>{"error": {"status", "code", "message", "field"}}</c>), or what the client saw
    /// when no answer came (<see cref="StatusCode.Unavailable"/> for a server that cannot
    /// be reached or a stream cut short, <see cref="StatusCode.DeadlineExceeded"/> for a
    /// timeout).
    /// </summary>
    public sealed class NpcBrainException : Exception
    {
        public NpcBrainException(
            StatusCode status, string message, string field = "", int httpStatus = 0,
            double retryAfterSeconds = 0, Exception inner = null)
            : base(message, inner)
        {
            Status = status;
            Field = field ?? "";
            HttpStatus = httpStatus;
            RetryAfterSeconds = retryAfterSeconds;
        }

        /// <summary>The gRPC status.</summary>
        public StatusCode Status { get; private set; }

        /// <summary>The status as the server names it, e.g. "INVALID_ARGUMENT".</summary>
        public string StatusName
        {
            get { return StatusNames.Of(Status); }
        }

        /// <summary>For INVALID_ARGUMENT, the request field at fault, e.g. "observations[1].text".</summary>
        public string Field { get; private set; }

        /// <summary>The HTTP status of the answer; 0 when none came.</summary>
        public int HttpStatus { get; private set; }

        /// <summary>The server's Retry-After, in seconds; 0 without one.</summary>
        public double RetryAfterSeconds { get; private set; }

        /// <summary>Whether the request never reached the server (so sending it again is safe).</summary>
        internal bool NotSent { get; set; }

        public override string ToString()
        {
            return StatusName + ": " + Message;
        }
    }

    /// <summary>gRPC's names of the status codes ("INVALID_ARGUMENT").</summary>
    public static class StatusNames
    {
        public static string Of(StatusCode code)
        {
            var name = code.ToString();
            var text = new System.Text.StringBuilder();
            for (var i = 0; i < name.Length; i++)
            {
                if (i > 0 && char.IsUpper(name[i]))
                {
                    text.Append('_');
                }
                text.Append(char.ToUpperInvariant(name[i]));
            }
            return text.ToString();
        }

        /// <summary>The code of a status name; Unknown for a name it does not know.</summary>
        public static StatusCode Parse(string name)
        {
            foreach (StatusCode code in Enum.GetValues(typeof(StatusCode)))
            {
                if (Of(code) == name)
                {
                    return code;
                }
            }
            return StatusCode.Unknown;
        }
    }
}
