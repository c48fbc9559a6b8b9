"""Domain errors. The transport maps each class to a status once (server/status.py).

    NpcBrainError
    ├── InvalidArgument      bad input; names the field; nothing changed
    ├── NotFound             unknown agent or memory
    ├── FailedPrecondition   the world or the server is not in a state to do it
    ├── Unimplemented        the feature belongs to an issue that has not landed
    ├── ResourceExhausted    a queue or limit is full; retry later (carries a hint)
    ├── Unauthenticated      the call lacks the server's token
    ├── DeadlineExceeded     the work could not start or finish in the time allowed
    └── Unavailable          the store cannot be reached, or another server owns the world

No module here imports grpc.
"""


class NpcBrainError(Exception):
    """Base of every error the brain reports to a caller."""


class InvalidArgument(NpcBrainError):
    """A request field is invalid; `field` names it (dotted path, e.g. `persona.name`)."""

    def __init__(self, field: str, problem: str) -> None:
        super().__init__(f"{field}: {problem}")
        self.field = field


class NotFound(NpcBrainError):
    """An agent, memory or snapshot does not exist."""


class FailedPrecondition(NpcBrainError):
    """The operation cannot run in the current state (e.g. embedding model mismatch)."""


class Unimplemented(NpcBrainError):
    """The RPC exists in the contract but its feature has not landed yet."""


class ResourceExhausted(NpcBrainError):
    """A bounded queue or limit is full; `retry_after_s` is a hint for when to try again
    (the transport sends it as gRPC trailing metadata `retry-after-ms` and as HTTP's
    `Retry-After`)."""

    def __init__(self, message: str, retry_after_s: float = 1.0) -> None:
        super().__init__(message)
        self.retry_after_s = retry_after_s


class Unauthenticated(NpcBrainError):
    """The call carries no token, or the wrong one."""


class DeadlineExceeded(NpcBrainError):
    """The work could not start or finish within its deadline."""


class Unavailable(NpcBrainError):
    """The world cannot be served here now: its database is unreachable, or another
    server holds the world (`owner`: that server's advertised address, or '')."""

    def __init__(self, message: str, owner: str = "", retry_after_s: float = 1.0) -> None:
        super().__init__(message)
        self.owner = owner
        self.retry_after_s = retry_after_s
