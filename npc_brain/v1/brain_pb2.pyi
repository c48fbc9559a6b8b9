import datetime

from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ArgumentType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ARGUMENT_TYPE_UNSPECIFIED: _ClassVar[ArgumentType]
    ITEM: _ClassVar[ArgumentType]
    PLACE: _ClassVar[ArgumentType]
    AGENT: _ClassVar[ArgumentType]
    QUEST: _ClassVar[ArgumentType]
    CHOICE: _ClassVar[ArgumentType]
    NUMBER: _ClassVar[ArgumentType]

class MemoryKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    MEMORY_KIND_UNSPECIFIED: _ClassVar[MemoryKind]
    OBSERVATION: _ClassVar[MemoryKind]
    REFLECTION: _ClassVar[MemoryKind]
    PLAN: _ClassVar[MemoryKind]
    DIALOGUE: _ClassVar[MemoryKind]
    THOUGHT: _ClassVar[MemoryKind]

class SourceKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SOURCE_KIND_UNSPECIFIED: _ClassVar[SourceKind]
    SEEN: _ClassVar[SourceKind]
    HEARD: _ClassVar[SourceKind]
    TOLD: _ClassVar[SourceKind]
    AUTHOR: _ClassVar[SourceKind]
ARGUMENT_TYPE_UNSPECIFIED: ArgumentType
ITEM: ArgumentType
PLACE: ArgumentType
AGENT: ArgumentType
QUEST: ArgumentType
CHOICE: ArgumentType
NUMBER: ArgumentType
MEMORY_KIND_UNSPECIFIED: MemoryKind
OBSERVATION: MemoryKind
REFLECTION: MemoryKind
PLAN: MemoryKind
DIALOGUE: MemoryKind
THOUGHT: MemoryKind
SOURCE_KIND_UNSPECIFIED: SourceKind
SEEN: SourceKind
HEARD: SourceKind
TOLD: SourceKind
AUTHOR: SourceKind

class Persona(_message.Message):
    __slots__ = ("name", "age", "innate", "learned", "currently", "lifestyle", "home_address", "daily_requirements", "pronouns")
    NAME_FIELD_NUMBER: _ClassVar[int]
    AGE_FIELD_NUMBER: _ClassVar[int]
    INNATE_FIELD_NUMBER: _ClassVar[int]
    LEARNED_FIELD_NUMBER: _ClassVar[int]
    CURRENTLY_FIELD_NUMBER: _ClassVar[int]
    LIFESTYLE_FIELD_NUMBER: _ClassVar[int]
    HOME_ADDRESS_FIELD_NUMBER: _ClassVar[int]
    DAILY_REQUIREMENTS_FIELD_NUMBER: _ClassVar[int]
    PRONOUNS_FIELD_NUMBER: _ClassVar[int]
    name: str
    age: int
    innate: str
    learned: str
    currently: str
    lifestyle: str
    home_address: str
    daily_requirements: _containers.RepeatedScalarFieldContainer[str]
    pronouns: str
    def __init__(self, name: _Optional[str] = ..., age: _Optional[int] = ..., innate: _Optional[str] = ..., learned: _Optional[str] = ..., currently: _Optional[str] = ..., lifestyle: _Optional[str] = ..., home_address: _Optional[str] = ..., daily_requirements: _Optional[_Iterable[str]] = ..., pronouns: _Optional[str] = ...) -> None: ...

class Agent(_message.Message):
    __slots__ = ("world_id", "agent_id", "persona", "reflection_enabled", "planning_enabled", "memory_enabled", "relationships", "actions")
    WORLD_ID_FIELD_NUMBER: _ClassVar[int]
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    PERSONA_FIELD_NUMBER: _ClassVar[int]
    REFLECTION_ENABLED_FIELD_NUMBER: _ClassVar[int]
    PLANNING_ENABLED_FIELD_NUMBER: _ClassVar[int]
    MEMORY_ENABLED_FIELD_NUMBER: _ClassVar[int]
    RELATIONSHIPS_FIELD_NUMBER: _ClassVar[int]
    ACTIONS_FIELD_NUMBER: _ClassVar[int]
    world_id: str
    agent_id: str
    persona: Persona
    reflection_enabled: bool
    planning_enabled: bool
    memory_enabled: bool
    relationships: _containers.RepeatedCompositeFieldContainer[Relationship]
    actions: _containers.RepeatedCompositeFieldContainer[GameAction]
    def __init__(self, world_id: _Optional[str] = ..., agent_id: _Optional[str] = ..., persona: _Optional[_Union[Persona, _Mapping]] = ..., reflection_enabled: _Optional[bool] = ..., planning_enabled: _Optional[bool] = ..., memory_enabled: _Optional[bool] = ..., relationships: _Optional[_Iterable[_Union[Relationship, _Mapping]]] = ..., actions: _Optional[_Iterable[_Union[GameAction, _Mapping]]] = ...) -> None: ...

class Relationship(_message.Message):
    __slots__ = ("other_agent_id", "summary", "conversations", "updated")
    OTHER_AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    SUMMARY_FIELD_NUMBER: _ClassVar[int]
    CONVERSATIONS_FIELD_NUMBER: _ClassVar[int]
    UPDATED_FIELD_NUMBER: _ClassVar[int]
    other_agent_id: str
    summary: str
    conversations: int
    updated: _timestamp_pb2.Timestamp
    def __init__(self, other_agent_id: _Optional[str] = ..., summary: _Optional[str] = ..., conversations: _Optional[int] = ..., updated: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class UpsertAgentRequest(_message.Message):
    __slots__ = ("world_id", "agent_id", "persona", "game_time", "reflection_enabled", "planning_enabled", "memory_enabled", "actions")
    WORLD_ID_FIELD_NUMBER: _ClassVar[int]
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    PERSONA_FIELD_NUMBER: _ClassVar[int]
    GAME_TIME_FIELD_NUMBER: _ClassVar[int]
    REFLECTION_ENABLED_FIELD_NUMBER: _ClassVar[int]
    PLANNING_ENABLED_FIELD_NUMBER: _ClassVar[int]
    MEMORY_ENABLED_FIELD_NUMBER: _ClassVar[int]
    ACTIONS_FIELD_NUMBER: _ClassVar[int]
    world_id: str
    agent_id: str
    persona: Persona
    game_time: _timestamp_pb2.Timestamp
    reflection_enabled: bool
    planning_enabled: bool
    memory_enabled: bool
    actions: _containers.RepeatedCompositeFieldContainer[GameAction]
    def __init__(self, world_id: _Optional[str] = ..., agent_id: _Optional[str] = ..., persona: _Optional[_Union[Persona, _Mapping]] = ..., game_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., reflection_enabled: _Optional[bool] = ..., planning_enabled: _Optional[bool] = ..., memory_enabled: _Optional[bool] = ..., actions: _Optional[_Iterable[_Union[GameAction, _Mapping]]] = ...) -> None: ...

class GameAction(_message.Message):
    __slots__ = ("name", "description", "arguments", "price", "currency", "examples")
    NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    ARGUMENTS_FIELD_NUMBER: _ClassVar[int]
    PRICE_FIELD_NUMBER: _ClassVar[int]
    CURRENCY_FIELD_NUMBER: _ClassVar[int]
    EXAMPLES_FIELD_NUMBER: _ClassVar[int]
    name: str
    description: str
    arguments: _containers.RepeatedCompositeFieldContainer[ActionArgument]
    price: float
    currency: str
    examples: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, name: _Optional[str] = ..., description: _Optional[str] = ..., arguments: _Optional[_Iterable[_Union[ActionArgument, _Mapping]]] = ..., price: _Optional[float] = ..., currency: _Optional[str] = ..., examples: _Optional[_Iterable[str]] = ...) -> None: ...

class ActionArgument(_message.Message):
    __slots__ = ("name", "type", "options", "min", "max")
    NAME_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    MIN_FIELD_NUMBER: _ClassVar[int]
    MAX_FIELD_NUMBER: _ClassVar[int]
    name: str
    type: ArgumentType
    options: _containers.RepeatedCompositeFieldContainer[ActionOption]
    min: int
    max: int
    def __init__(self, name: _Optional[str] = ..., type: _Optional[_Union[ArgumentType, str]] = ..., options: _Optional[_Iterable[_Union[ActionOption, _Mapping]]] = ..., min: _Optional[int] = ..., max: _Optional[int] = ...) -> None: ...

class ActionOption(_message.Message):
    __slots__ = ("value", "label", "price", "aliases")
    VALUE_FIELD_NUMBER: _ClassVar[int]
    LABEL_FIELD_NUMBER: _ClassVar[int]
    PRICE_FIELD_NUMBER: _ClassVar[int]
    ALIASES_FIELD_NUMBER: _ClassVar[int]
    value: str
    label: str
    price: float
    aliases: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, value: _Optional[str] = ..., label: _Optional[str] = ..., price: _Optional[float] = ..., aliases: _Optional[_Iterable[str]] = ...) -> None: ...

class ChosenAction(_message.Message):
    __slots__ = ("action_id", "name", "arguments", "price", "currency")
    class ArgumentsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    ACTION_ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    ARGUMENTS_FIELD_NUMBER: _ClassVar[int]
    PRICE_FIELD_NUMBER: _ClassVar[int]
    CURRENCY_FIELD_NUMBER: _ClassVar[int]
    action_id: str
    name: str
    arguments: _containers.ScalarMap[str, str]
    price: float
    currency: str
    def __init__(self, action_id: _Optional[str] = ..., name: _Optional[str] = ..., arguments: _Optional[_Mapping[str, str]] = ..., price: _Optional[float] = ..., currency: _Optional[str] = ...) -> None: ...

class ReportOutcomeRequest(_message.Message):
    __slots__ = ("world_id", "agent_id", "action_id", "done", "detail", "game_time")
    WORLD_ID_FIELD_NUMBER: _ClassVar[int]
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    ACTION_ID_FIELD_NUMBER: _ClassVar[int]
    DONE_FIELD_NUMBER: _ClassVar[int]
    DETAIL_FIELD_NUMBER: _ClassVar[int]
    GAME_TIME_FIELD_NUMBER: _ClassVar[int]
    world_id: str
    agent_id: str
    action_id: str
    done: bool
    detail: str
    game_time: _timestamp_pb2.Timestamp
    def __init__(self, world_id: _Optional[str] = ..., agent_id: _Optional[str] = ..., action_id: _Optional[str] = ..., done: _Optional[bool] = ..., detail: _Optional[str] = ..., game_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class GetAgentRequest(_message.Message):
    __slots__ = ("world_id", "agent_id")
    WORLD_ID_FIELD_NUMBER: _ClassVar[int]
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    world_id: str
    agent_id: str
    def __init__(self, world_id: _Optional[str] = ..., agent_id: _Optional[str] = ...) -> None: ...

class Source(_message.Message):
    __slots__ = ("kind", "agent_id")
    KIND_FIELD_NUMBER: _ClassVar[int]
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    kind: SourceKind
    agent_id: str
    def __init__(self, kind: _Optional[_Union[SourceKind, str]] = ..., agent_id: _Optional[str] = ...) -> None: ...

class Observation(_message.Message):
    __slots__ = ("text", "subject", "predicate", "object", "address", "source", "importance", "expires", "private", "share_with")
    TEXT_FIELD_NUMBER: _ClassVar[int]
    SUBJECT_FIELD_NUMBER: _ClassVar[int]
    PREDICATE_FIELD_NUMBER: _ClassVar[int]
    OBJECT_FIELD_NUMBER: _ClassVar[int]
    ADDRESS_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    IMPORTANCE_FIELD_NUMBER: _ClassVar[int]
    EXPIRES_FIELD_NUMBER: _ClassVar[int]
    PRIVATE_FIELD_NUMBER: _ClassVar[int]
    SHARE_WITH_FIELD_NUMBER: _ClassVar[int]
    text: str
    subject: str
    predicate: str
    object: str
    address: str
    source: Source
    importance: int
    expires: _timestamp_pb2.Timestamp
    private: bool
    share_with: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, text: _Optional[str] = ..., subject: _Optional[str] = ..., predicate: _Optional[str] = ..., object: _Optional[str] = ..., address: _Optional[str] = ..., source: _Optional[_Union[Source, _Mapping]] = ..., importance: _Optional[int] = ..., expires: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., private: _Optional[bool] = ..., share_with: _Optional[_Iterable[str]] = ...) -> None: ...

class PerceiveRequest(_message.Message):
    __slots__ = ("world_id", "agent_id", "game_time", "observations", "visible_addresses")
    WORLD_ID_FIELD_NUMBER: _ClassVar[int]
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    GAME_TIME_FIELD_NUMBER: _ClassVar[int]
    OBSERVATIONS_FIELD_NUMBER: _ClassVar[int]
    VISIBLE_ADDRESSES_FIELD_NUMBER: _ClassVar[int]
    world_id: str
    agent_id: str
    game_time: _timestamp_pb2.Timestamp
    observations: _containers.RepeatedCompositeFieldContainer[Observation]
    visible_addresses: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, world_id: _Optional[str] = ..., agent_id: _Optional[str] = ..., game_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., observations: _Optional[_Iterable[_Union[Observation, _Mapping]]] = ..., visible_addresses: _Optional[_Iterable[str]] = ...) -> None: ...

class PerceiveResponse(_message.Message):
    __slots__ = ("memory_ids",)
    MEMORY_IDS_FIELD_NUMBER: _ClassVar[int]
    memory_ids: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, memory_ids: _Optional[_Iterable[str]] = ...) -> None: ...

class Memory(_message.Message):
    __slots__ = ("memory_id", "kind", "description", "subject", "predicate", "object", "address", "source", "created", "last_accessed", "importance", "evidence_ids", "depth", "expires", "private", "share_with")
    MEMORY_ID_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    SUBJECT_FIELD_NUMBER: _ClassVar[int]
    PREDICATE_FIELD_NUMBER: _ClassVar[int]
    OBJECT_FIELD_NUMBER: _ClassVar[int]
    ADDRESS_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    CREATED_FIELD_NUMBER: _ClassVar[int]
    LAST_ACCESSED_FIELD_NUMBER: _ClassVar[int]
    IMPORTANCE_FIELD_NUMBER: _ClassVar[int]
    EVIDENCE_IDS_FIELD_NUMBER: _ClassVar[int]
    DEPTH_FIELD_NUMBER: _ClassVar[int]
    EXPIRES_FIELD_NUMBER: _ClassVar[int]
    PRIVATE_FIELD_NUMBER: _ClassVar[int]
    SHARE_WITH_FIELD_NUMBER: _ClassVar[int]
    memory_id: str
    kind: MemoryKind
    description: str
    subject: str
    predicate: str
    object: str
    address: str
    source: Source
    created: _timestamp_pb2.Timestamp
    last_accessed: _timestamp_pb2.Timestamp
    importance: float
    evidence_ids: _containers.RepeatedScalarFieldContainer[str]
    depth: int
    expires: _timestamp_pb2.Timestamp
    private: bool
    share_with: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, memory_id: _Optional[str] = ..., kind: _Optional[_Union[MemoryKind, str]] = ..., description: _Optional[str] = ..., subject: _Optional[str] = ..., predicate: _Optional[str] = ..., object: _Optional[str] = ..., address: _Optional[str] = ..., source: _Optional[_Union[Source, _Mapping]] = ..., created: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., last_accessed: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., importance: _Optional[float] = ..., evidence_ids: _Optional[_Iterable[str]] = ..., depth: _Optional[int] = ..., expires: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., private: _Optional[bool] = ..., share_with: _Optional[_Iterable[str]] = ...) -> None: ...

class AddMemoryRequest(_message.Message):
    __slots__ = ("world_id", "agent_id", "game_time", "kind", "observation")
    WORLD_ID_FIELD_NUMBER: _ClassVar[int]
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    GAME_TIME_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    OBSERVATION_FIELD_NUMBER: _ClassVar[int]
    world_id: str
    agent_id: str
    game_time: _timestamp_pb2.Timestamp
    kind: MemoryKind
    observation: Observation
    def __init__(self, world_id: _Optional[str] = ..., agent_id: _Optional[str] = ..., game_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., kind: _Optional[_Union[MemoryKind, str]] = ..., observation: _Optional[_Union[Observation, _Mapping]] = ...) -> None: ...

class Weights(_message.Message):
    __slots__ = ("recency", "importance", "relevance")
    RECENCY_FIELD_NUMBER: _ClassVar[int]
    IMPORTANCE_FIELD_NUMBER: _ClassVar[int]
    RELEVANCE_FIELD_NUMBER: _ClassVar[int]
    recency: float
    importance: float
    relevance: float
    def __init__(self, recency: _Optional[float] = ..., importance: _Optional[float] = ..., relevance: _Optional[float] = ...) -> None: ...

class RetrieveRequest(_message.Message):
    __slots__ = ("world_id", "agent_id", "game_time", "query", "k", "weights", "kinds", "created_after", "created_before")
    WORLD_ID_FIELD_NUMBER: _ClassVar[int]
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    GAME_TIME_FIELD_NUMBER: _ClassVar[int]
    QUERY_FIELD_NUMBER: _ClassVar[int]
    K_FIELD_NUMBER: _ClassVar[int]
    WEIGHTS_FIELD_NUMBER: _ClassVar[int]
    KINDS_FIELD_NUMBER: _ClassVar[int]
    CREATED_AFTER_FIELD_NUMBER: _ClassVar[int]
    CREATED_BEFORE_FIELD_NUMBER: _ClassVar[int]
    world_id: str
    agent_id: str
    game_time: _timestamp_pb2.Timestamp
    query: str
    k: int
    weights: Weights
    kinds: _containers.RepeatedScalarFieldContainer[MemoryKind]
    created_after: _timestamp_pb2.Timestamp
    created_before: _timestamp_pb2.Timestamp
    def __init__(self, world_id: _Optional[str] = ..., agent_id: _Optional[str] = ..., game_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., query: _Optional[str] = ..., k: _Optional[int] = ..., weights: _Optional[_Union[Weights, _Mapping]] = ..., kinds: _Optional[_Iterable[_Union[MemoryKind, str]]] = ..., created_after: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., created_before: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class ScoredMemory(_message.Message):
    __slots__ = ("memory", "score", "recency", "importance", "relevance", "dense_rank", "lexical_rank")
    MEMORY_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    RECENCY_FIELD_NUMBER: _ClassVar[int]
    IMPORTANCE_FIELD_NUMBER: _ClassVar[int]
    RELEVANCE_FIELD_NUMBER: _ClassVar[int]
    DENSE_RANK_FIELD_NUMBER: _ClassVar[int]
    LEXICAL_RANK_FIELD_NUMBER: _ClassVar[int]
    memory: Memory
    score: float
    recency: float
    importance: float
    relevance: float
    dense_rank: int
    lexical_rank: int
    def __init__(self, memory: _Optional[_Union[Memory, _Mapping]] = ..., score: _Optional[float] = ..., recency: _Optional[float] = ..., importance: _Optional[float] = ..., relevance: _Optional[float] = ..., dense_rank: _Optional[int] = ..., lexical_rank: _Optional[int] = ...) -> None: ...

class RetrieveResponse(_message.Message):
    __slots__ = ("memories",)
    MEMORIES_FIELD_NUMBER: _ClassVar[int]
    memories: _containers.RepeatedCompositeFieldContainer[ScoredMemory]
    def __init__(self, memories: _Optional[_Iterable[_Union[ScoredMemory, _Mapping]]] = ...) -> None: ...

class Utterance(_message.Message):
    __slots__ = ("speaker_id", "text", "end_conversation", "intent", "act", "topic", "game_action")
    SPEAKER_ID_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    END_CONVERSATION_FIELD_NUMBER: _ClassVar[int]
    INTENT_FIELD_NUMBER: _ClassVar[int]
    ACT_FIELD_NUMBER: _ClassVar[int]
    TOPIC_FIELD_NUMBER: _ClassVar[int]
    GAME_ACTION_FIELD_NUMBER: _ClassVar[int]
    speaker_id: str
    text: str
    end_conversation: bool
    intent: str
    act: str
    topic: str
    game_action: ChosenAction
    def __init__(self, speaker_id: _Optional[str] = ..., text: _Optional[str] = ..., end_conversation: _Optional[bool] = ..., intent: _Optional[str] = ..., act: _Optional[str] = ..., topic: _Optional[str] = ..., game_action: _Optional[_Union[ChosenAction, _Mapping]] = ...) -> None: ...

class Action(_message.Message):
    __slots__ = ("description", "address", "start", "duration_minutes", "emoji", "object_state", "chat_with_agent_id", "chat")
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    ADDRESS_FIELD_NUMBER: _ClassVar[int]
    START_FIELD_NUMBER: _ClassVar[int]
    DURATION_MINUTES_FIELD_NUMBER: _ClassVar[int]
    EMOJI_FIELD_NUMBER: _ClassVar[int]
    OBJECT_STATE_FIELD_NUMBER: _ClassVar[int]
    CHAT_WITH_AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    CHAT_FIELD_NUMBER: _ClassVar[int]
    description: str
    address: str
    start: _timestamp_pb2.Timestamp
    duration_minutes: int
    emoji: str
    object_state: str
    chat_with_agent_id: str
    chat: _containers.RepeatedCompositeFieldContainer[Utterance]
    def __init__(self, description: _Optional[str] = ..., address: _Optional[str] = ..., start: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., duration_minutes: _Optional[int] = ..., emoji: _Optional[str] = ..., object_state: _Optional[str] = ..., chat_with_agent_id: _Optional[str] = ..., chat: _Optional[_Iterable[_Union[Utterance, _Mapping]]] = ...) -> None: ...

class ActRequest(_message.Message):
    __slots__ = ("world_id", "agent_id", "game_time", "max_wait_ms")
    WORLD_ID_FIELD_NUMBER: _ClassVar[int]
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    GAME_TIME_FIELD_NUMBER: _ClassVar[int]
    MAX_WAIT_MS_FIELD_NUMBER: _ClassVar[int]
    world_id: str
    agent_id: str
    game_time: _timestamp_pb2.Timestamp
    max_wait_ms: int
    def __init__(self, world_id: _Optional[str] = ..., agent_id: _Optional[str] = ..., game_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., max_wait_ms: _Optional[int] = ...) -> None: ...

class ActResponse(_message.Message):
    __slots__ = ("action", "pending")
    ACTION_FIELD_NUMBER: _ClassVar[int]
    PENDING_FIELD_NUMBER: _ClassVar[int]
    action: Action
    pending: bool
    def __init__(self, action: _Optional[_Union[Action, _Mapping]] = ..., pending: _Optional[bool] = ...) -> None: ...

class AgentTick(_message.Message):
    __slots__ = ("agent_id", "observations", "visible_addresses")
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    OBSERVATIONS_FIELD_NUMBER: _ClassVar[int]
    VISIBLE_ADDRESSES_FIELD_NUMBER: _ClassVar[int]
    agent_id: str
    observations: _containers.RepeatedCompositeFieldContainer[Observation]
    visible_addresses: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, agent_id: _Optional[str] = ..., observations: _Optional[_Iterable[_Union[Observation, _Mapping]]] = ..., visible_addresses: _Optional[_Iterable[str]] = ...) -> None: ...

class TickRequest(_message.Message):
    __slots__ = ("world_id", "game_time", "agents", "max_wait_ms", "lockstep")
    WORLD_ID_FIELD_NUMBER: _ClassVar[int]
    GAME_TIME_FIELD_NUMBER: _ClassVar[int]
    AGENTS_FIELD_NUMBER: _ClassVar[int]
    MAX_WAIT_MS_FIELD_NUMBER: _ClassVar[int]
    LOCKSTEP_FIELD_NUMBER: _ClassVar[int]
    world_id: str
    game_time: _timestamp_pb2.Timestamp
    agents: _containers.RepeatedCompositeFieldContainer[AgentTick]
    max_wait_ms: int
    lockstep: bool
    def __init__(self, world_id: _Optional[str] = ..., game_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., agents: _Optional[_Iterable[_Union[AgentTick, _Mapping]]] = ..., max_wait_ms: _Optional[int] = ..., lockstep: _Optional[bool] = ...) -> None: ...

class AgentResult(_message.Message):
    __slots__ = ("agent_id", "action", "pending", "memory_ids")
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    PENDING_FIELD_NUMBER: _ClassVar[int]
    MEMORY_IDS_FIELD_NUMBER: _ClassVar[int]
    agent_id: str
    action: Action
    pending: bool
    memory_ids: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, agent_id: _Optional[str] = ..., action: _Optional[_Union[Action, _Mapping]] = ..., pending: _Optional[bool] = ..., memory_ids: _Optional[_Iterable[str]] = ...) -> None: ...

class TickResponse(_message.Message):
    __slots__ = ("results",)
    RESULTS_FIELD_NUMBER: _ClassVar[int]
    results: _containers.RepeatedCompositeFieldContainer[AgentResult]
    def __init__(self, results: _Optional[_Iterable[_Union[AgentResult, _Mapping]]] = ...) -> None: ...

class ConverseRequest(_message.Message):
    __slots__ = ("world_id", "agent_id", "game_time", "speaker_id", "utterance", "conversation_id", "interview", "actions")
    WORLD_ID_FIELD_NUMBER: _ClassVar[int]
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    GAME_TIME_FIELD_NUMBER: _ClassVar[int]
    SPEAKER_ID_FIELD_NUMBER: _ClassVar[int]
    UTTERANCE_FIELD_NUMBER: _ClassVar[int]
    CONVERSATION_ID_FIELD_NUMBER: _ClassVar[int]
    INTERVIEW_FIELD_NUMBER: _ClassVar[int]
    ACTIONS_FIELD_NUMBER: _ClassVar[int]
    world_id: str
    agent_id: str
    game_time: _timestamp_pb2.Timestamp
    speaker_id: str
    utterance: str
    conversation_id: str
    interview: bool
    actions: _containers.RepeatedCompositeFieldContainer[GameAction]
    def __init__(self, world_id: _Optional[str] = ..., agent_id: _Optional[str] = ..., game_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., speaker_id: _Optional[str] = ..., utterance: _Optional[str] = ..., conversation_id: _Optional[str] = ..., interview: _Optional[bool] = ..., actions: _Optional[_Iterable[_Union[GameAction, _Mapping]]] = ...) -> None: ...

class ConverseEvent(_message.Message):
    __slots__ = ("token", "final")
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    FINAL_FIELD_NUMBER: _ClassVar[int]
    token: str
    final: Utterance
    def __init__(self, token: _Optional[str] = ..., final: _Optional[_Union[Utterance, _Mapping]] = ...) -> None: ...

class ListMemoriesRequest(_message.Message):
    __slots__ = ("world_id", "agent_id", "kinds", "page_size", "page_token", "created_after", "created_before")
    WORLD_ID_FIELD_NUMBER: _ClassVar[int]
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    KINDS_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    CREATED_AFTER_FIELD_NUMBER: _ClassVar[int]
    CREATED_BEFORE_FIELD_NUMBER: _ClassVar[int]
    world_id: str
    agent_id: str
    kinds: _containers.RepeatedScalarFieldContainer[MemoryKind]
    page_size: int
    page_token: str
    created_after: _timestamp_pb2.Timestamp
    created_before: _timestamp_pb2.Timestamp
    def __init__(self, world_id: _Optional[str] = ..., agent_id: _Optional[str] = ..., kinds: _Optional[_Iterable[_Union[MemoryKind, str]]] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ..., created_after: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., created_before: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class ListMemoriesResponse(_message.Message):
    __slots__ = ("memories", "next_page_token")
    MEMORIES_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    memories: _containers.RepeatedCompositeFieldContainer[Memory]
    next_page_token: str
    def __init__(self, memories: _Optional[_Iterable[_Union[Memory, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class ForgetMemoryRequest(_message.Message):
    __slots__ = ("world_id", "agent_id", "memory_id")
    WORLD_ID_FIELD_NUMBER: _ClassVar[int]
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    MEMORY_ID_FIELD_NUMBER: _ClassVar[int]
    world_id: str
    agent_id: str
    memory_id: str
    def __init__(self, world_id: _Optional[str] = ..., agent_id: _Optional[str] = ..., memory_id: _Optional[str] = ...) -> None: ...

class ForgetMemoryResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ReflectRequest(_message.Message):
    __slots__ = ("world_id", "agent_id", "game_time")
    WORLD_ID_FIELD_NUMBER: _ClassVar[int]
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    GAME_TIME_FIELD_NUMBER: _ClassVar[int]
    world_id: str
    agent_id: str
    game_time: _timestamp_pb2.Timestamp
    def __init__(self, world_id: _Optional[str] = ..., agent_id: _Optional[str] = ..., game_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class ReflectResponse(_message.Message):
    __slots__ = ("reflections",)
    REFLECTIONS_FIELD_NUMBER: _ClassVar[int]
    reflections: _containers.RepeatedCompositeFieldContainer[Memory]
    def __init__(self, reflections: _Optional[_Iterable[_Union[Memory, _Mapping]]] = ...) -> None: ...

class GetStatsRequest(_message.Message):
    __slots__ = ("world_id", "agent_id")
    WORLD_ID_FIELD_NUMBER: _ClassVar[int]
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    world_id: str
    agent_id: str
    def __init__(self, world_id: _Optional[str] = ..., agent_id: _Optional[str] = ...) -> None: ...

class Stats(_message.Message):
    __slots__ = ("model_calls", "prompt_tokens", "completion_tokens", "calls_by_kind", "game_hours", "calls_by_hour", "cached_prompt_tokens", "refusals_by_check")
    class CallsByKindEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    class RefusalsByCheckEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    MODEL_CALLS_FIELD_NUMBER: _ClassVar[int]
    PROMPT_TOKENS_FIELD_NUMBER: _ClassVar[int]
    COMPLETION_TOKENS_FIELD_NUMBER: _ClassVar[int]
    CALLS_BY_KIND_FIELD_NUMBER: _ClassVar[int]
    GAME_HOURS_FIELD_NUMBER: _ClassVar[int]
    CALLS_BY_HOUR_FIELD_NUMBER: _ClassVar[int]
    CACHED_PROMPT_TOKENS_FIELD_NUMBER: _ClassVar[int]
    REFUSALS_BY_CHECK_FIELD_NUMBER: _ClassVar[int]
    model_calls: int
    prompt_tokens: int
    completion_tokens: int
    calls_by_kind: _containers.ScalarMap[str, int]
    game_hours: float
    calls_by_hour: _containers.RepeatedCompositeFieldContainer[HourCalls]
    cached_prompt_tokens: int
    refusals_by_check: _containers.ScalarMap[str, int]
    def __init__(self, model_calls: _Optional[int] = ..., prompt_tokens: _Optional[int] = ..., completion_tokens: _Optional[int] = ..., calls_by_kind: _Optional[_Mapping[str, int]] = ..., game_hours: _Optional[float] = ..., calls_by_hour: _Optional[_Iterable[_Union[HourCalls, _Mapping]]] = ..., cached_prompt_tokens: _Optional[int] = ..., refusals_by_check: _Optional[_Mapping[str, int]] = ...) -> None: ...

class HourCalls(_message.Message):
    __slots__ = ("hour", "calls")
    HOUR_FIELD_NUMBER: _ClassVar[int]
    CALLS_FIELD_NUMBER: _ClassVar[int]
    hour: _timestamp_pb2.Timestamp
    calls: int
    def __init__(self, hour: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., calls: _Optional[int] = ...) -> None: ...

class SaveWorldRequest(_message.Message):
    __slots__ = ("world_id", "label")
    WORLD_ID_FIELD_NUMBER: _ClassVar[int]
    LABEL_FIELD_NUMBER: _ClassVar[int]
    world_id: str
    label: str
    def __init__(self, world_id: _Optional[str] = ..., label: _Optional[str] = ...) -> None: ...

class Snapshot(_message.Message):
    __slots__ = ("snapshot_id", "world_id", "label", "saved_at")
    SNAPSHOT_ID_FIELD_NUMBER: _ClassVar[int]
    WORLD_ID_FIELD_NUMBER: _ClassVar[int]
    LABEL_FIELD_NUMBER: _ClassVar[int]
    SAVED_AT_FIELD_NUMBER: _ClassVar[int]
    snapshot_id: str
    world_id: str
    label: str
    saved_at: _timestamp_pb2.Timestamp
    def __init__(self, snapshot_id: _Optional[str] = ..., world_id: _Optional[str] = ..., label: _Optional[str] = ..., saved_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class LoadWorldRequest(_message.Message):
    __slots__ = ("world_id", "snapshot_id")
    WORLD_ID_FIELD_NUMBER: _ClassVar[int]
    SNAPSHOT_ID_FIELD_NUMBER: _ClassVar[int]
    world_id: str
    snapshot_id: str
    def __init__(self, world_id: _Optional[str] = ..., snapshot_id: _Optional[str] = ...) -> None: ...

class LoadWorldResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ListSnapshotsRequest(_message.Message):
    __slots__ = ("world_id",)
    WORLD_ID_FIELD_NUMBER: _ClassVar[int]
    world_id: str
    def __init__(self, world_id: _Optional[str] = ...) -> None: ...

class ListSnapshotsResponse(_message.Message):
    __slots__ = ("snapshots",)
    SNAPSHOTS_FIELD_NUMBER: _ClassVar[int]
    snapshots: _containers.RepeatedCompositeFieldContainer[Snapshot]
    def __init__(self, snapshots: _Optional[_Iterable[_Union[Snapshot, _Mapping]]] = ...) -> None: ...

class WhoKnowsRequest(_message.Message):
    __slots__ = ("world_id", "memory_id", "query", "k")
    WORLD_ID_FIELD_NUMBER: _ClassVar[int]
    MEMORY_ID_FIELD_NUMBER: _ClassVar[int]
    QUERY_FIELD_NUMBER: _ClassVar[int]
    K_FIELD_NUMBER: _ClassVar[int]
    world_id: str
    memory_id: str
    query: str
    k: int
    def __init__(self, world_id: _Optional[str] = ..., memory_id: _Optional[str] = ..., query: _Optional[str] = ..., k: _Optional[int] = ...) -> None: ...

class WhoKnowsResponse(_message.Message):
    __slots__ = ("claims",)
    CLAIMS_FIELD_NUMBER: _ClassVar[int]
    claims: _containers.RepeatedCompositeFieldContainer[Claim]
    def __init__(self, claims: _Optional[_Iterable[_Union[Claim, _Mapping]]] = ...) -> None: ...

class Claim(_message.Message):
    __slots__ = ("claim_id", "text", "origin_agent_id", "origin_memory_id", "relevance", "holders")
    CLAIM_ID_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    ORIGIN_AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    ORIGIN_MEMORY_ID_FIELD_NUMBER: _ClassVar[int]
    RELEVANCE_FIELD_NUMBER: _ClassVar[int]
    HOLDERS_FIELD_NUMBER: _ClassVar[int]
    claim_id: str
    text: str
    origin_agent_id: str
    origin_memory_id: str
    relevance: float
    holders: _containers.RepeatedCompositeFieldContainer[ClaimHolder]
    def __init__(self, claim_id: _Optional[str] = ..., text: _Optional[str] = ..., origin_agent_id: _Optional[str] = ..., origin_memory_id: _Optional[str] = ..., relevance: _Optional[float] = ..., holders: _Optional[_Iterable[_Union[ClaimHolder, _Mapping]]] = ...) -> None: ...

class ClaimHolder(_message.Message):
    __slots__ = ("agent_id", "memory_id", "heard_from", "since", "hops", "confidence", "sources", "chain")
    AGENT_ID_FIELD_NUMBER: _ClassVar[int]
    MEMORY_ID_FIELD_NUMBER: _ClassVar[int]
    HEARD_FROM_FIELD_NUMBER: _ClassVar[int]
    SINCE_FIELD_NUMBER: _ClassVar[int]
    HOPS_FIELD_NUMBER: _ClassVar[int]
    CONFIDENCE_FIELD_NUMBER: _ClassVar[int]
    SOURCES_FIELD_NUMBER: _ClassVar[int]
    CHAIN_FIELD_NUMBER: _ClassVar[int]
    agent_id: str
    memory_id: str
    heard_from: str
    since: _timestamp_pb2.Timestamp
    hops: int
    confidence: float
    sources: _containers.RepeatedScalarFieldContainer[str]
    chain: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, agent_id: _Optional[str] = ..., memory_id: _Optional[str] = ..., heard_from: _Optional[str] = ..., since: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., hops: _Optional[int] = ..., confidence: _Optional[float] = ..., sources: _Optional[_Iterable[str]] = ..., chain: _Optional[_Iterable[str]] = ...) -> None: ...
