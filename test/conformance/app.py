"""The request models of every route the gateway serves, rebuilt from API-SPEC.md and CONTRACTS.md as a
FastAPI + Pydantic v2 service would declare them. Only validation matters: each route answers 200 with what it
validated. `record.py` sends the cases of `cases.json` to this app and writes its answers to `goldens.json`.

Project decisions that are not in the spec but are part of the contract, and therefore of these models:
- text never holds a NUL character (PostgreSQL cannot store it): a `value_error` on the field, or on the item;
- `after` of the stream is at most 2**53 - 1 (a larger one cannot be a line's seq);
- enums list their values in the spec's order.
"""

import json
import re
from enum import Enum
from typing import Annotated, Any, Literal, Optional, Union
from uuid import UUID
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from fastapi import Body, FastAPI, Path, Query
from pydantic import AfterValidator, AwareDatetime, BaseModel, BeforeValidator, Field, model_validator


def _holds_nul(value: Any) -> bool:
    if isinstance(value, str):
        return "\x00" in value
    if isinstance(value, dict):
        return any(_holds_nul(k) or _holds_nul(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_holds_nul(v) for v in value)
    return False


def _no_nul(value: Any) -> Any:
    if _holds_nul(value):
        raise ValueError("text must not contain the NUL character")
    return value


def _unique(value: Any) -> Any:
    if value is not None and len(set(value)) != len(value):
        raise ValueError("list items must be unique")
    return value


NoNul = AfterValidator(_no_nul)
Text = Annotated[str, NoNul]
FreeObject = Annotated[dict[str, Any], NoNul]

_SEGMENT_CHAR = r"[^/\\\u0000-\u001f\u007f]"
_SEGMENT_FIRST = r"[^./\\\u0000-\u001f\u007f]"
MEMORY_SEGMENT = rf"(?:{_SEGMENT_FIRST}{_SEGMENT_CHAR}*|\.{_SEGMENT_FIRST}{_SEGMENT_CHAR}*|\.\.{_SEGMENT_CHAR}+)"
MEMORY_PATH_PATTERN = rf"^(?:{MEMORY_SEGMENT}/)?{MEMORY_SEGMENT}$"
MEMORY_FOLDER_PATTERN = rf"^{MEMORY_SEGMENT}$"
# The memory path rules in words (libs/contracts/src/dto/memory-path.ts): the 422 says the rule, not the pattern.
MEMORY_PATH_RULE = (
    "a memory path is a name, or one folder and a name ('notes.md', 'projects/plan.md'): no other slash, no "
    "empty part, '.' or '..', backslash or control character"
)
MEMORY_FOLDER_RULE = "a memory folder is one name ('projects'): no slash, no '.' or '..', backslash or control character"
MIMETYPE_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}$"
MAX_SAFE_INTEGER = 2**53 - 1


def _matching(pattern: str, rule: str):
    def check(value: str) -> str:
        if not re.search(pattern, value):
            raise ValueError(rule)
        return value

    return AfterValidator(check)


MemoryPath = Annotated[str, Field(max_length=512), _matching(MEMORY_PATH_PATTERN, MEMORY_PATH_RULE)]
MemoryFolder = Annotated[str, _matching(MEMORY_FOLDER_PATTERN, MEMORY_FOLDER_RULE)]


class Scope(str, Enum):
    organization = "organization"
    private = "private"


class Store(str, Enum):
    googledrive = "googledrive"
    sharepoint = "sharepoint"
    draganddrop = "draganddrop"


class HumanMessage(BaseModel):
    content: Annotated[str, Field(max_length=30000), NoNul]
    source_ids: Optional[list[int]] = None
    document_ids: Optional[list[Text]] = None
    disabled_tools: Optional[
        list[Annotated[Union[Literal["web", "company_documents"], Annotated[str, Field(pattern=r"^mcp:")]], NoNul]]
    ] = None
    file_ids: Optional[Annotated[list[Text], Field(max_length=5), AfterValidator(_unique)]] = None


class StartChatOptions(BaseModel):
    agent_id: Text
    user_id: Text
    max_steps: Annotated[int, Field(ge=1)] = 60
    memory_namespace: Optional[Annotated[str, Field(max_length=128), NoNul]] = None


class StartChat(BaseModel):
    name: Optional[Text] = None
    project_id: Optional[Text] = None
    message: HumanMessage
    options: StartChatOptions


class PostMessageOptions(BaseModel):
    user_id: Optional[Text] = None
    max_steps: Optional[Annotated[int, Field(ge=1)]] = None
    memory_namespace: Optional[Annotated[str, Field(max_length=128), NoNul]] = None


class PostMessage(BaseModel):
    message: HumanMessage
    options: Optional[PostMessageOptions] = None


class ThreadOwnerOptions(BaseModel):
    user_id: Optional[Text] = None


class UpdateThread(BaseModel):
    name: Optional[Annotated[str, Field(min_length=1, max_length=200), NoNul]] = None
    starred: Optional[bool] = None
    options: Optional[ThreadOwnerOptions] = None


class WriteMemoryFile(BaseModel):
    namespace: Optional[Annotated[str, Field(max_length=128), NoNul]] = None
    path: MemoryPath
    content: Annotated[str, Field(max_length=262144), NoNul]
    purpose: Annotated[str, Field(max_length=1000), NoNul]
    version: Optional[Text] = None


class CreateShareLink(BaseModel):
    expires_at: Optional[AwareDatetime] = None
    password: Optional[Annotated[str, Field(min_length=1, max_length=1024), NoNul]] = None


UserId = Annotated[str, Field(min_length=1, max_length=256), NoNul]


class ConnectionCredentials(BaseModel):
    access_token: Annotated[str, Field(min_length=1, max_length=8192), NoNul]
    refresh_token: Annotated[str, Field(min_length=1, max_length=8192), NoNul] = None
    expires_at: AwareDatetime = None


class CreateConnection(BaseModel):
    name: Annotated[str, Field(min_length=1, max_length=200), NoNul]
    kind: Store
    credentials: ConnectionCredentials = None
    user_id: UserId = None


class CreateSource(BaseModel):
    connection_id: Annotated[str, Field(min_length=1), NoNul]
    store: Store
    config: FreeObject
    scope: Scope
    name: Optional[Annotated[str, Field(min_length=1, max_length=200), NoNul]] = None
    user_id: UserId = None


class UpdateSource(BaseModel):
    name: Annotated[str, Field(min_length=1, max_length=200), NoNul] = None
    connection_id: Annotated[str, Field(min_length=1), NoNul] = None
    config: FreeObject = None
    user_id: UserId = None


class AddDocuments(BaseModel):
    file_ids: Annotated[list[Text], Field(min_length=1, max_length=100), AfterValidator(_unique)]
    user_id: UserId = None


class CreateQueryTemplate(BaseModel):
    name: Annotated[str, Field(min_length=1, max_length=200), NoNul]
    content: Annotated[str, Field(max_length=30000), NoNul]
    description: Annotated[str, Field(max_length=2000), NoNul] = ""
    metadata: FreeObject = None
    icon_uri: Annotated[str, Field(max_length=2048), NoNul] = ""
    icon_color: Annotated[str, Field(max_length=64), NoNul] = ""
    background_color: Annotated[str, Field(max_length=64), NoNul] = ""
    scope: Scope = Scope.private
    user_id: UserId = None


class UpdateQueryTemplate(BaseModel):
    name: Annotated[str, Field(min_length=1, max_length=200), NoNul] = None
    content: Annotated[str, Field(max_length=30000), NoNul] = None
    description: Annotated[str, Field(max_length=2000), NoNul] = None
    metadata: FreeObject = None
    icon_uri: Annotated[str, Field(max_length=2048), NoNul] = None
    icon_color: Annotated[str, Field(max_length=64), NoNul] = None
    background_color: Annotated[str, Field(max_length=64), NoNul] = None
    scope: Scope = None
    user_id: UserId = None


class UpdateSkill(BaseModel):
    display_name: Optional[Annotated[str, Field(min_length=1, max_length=200), NoNul]] = None
    active: Optional[bool] = None
    scope: Optional[Scope] = None
    user_id: UserId = None


# Routes recorded after the first harness (issue 35): webhooks, end-user tokens, routines, agents, the AI SDK chat.
class WebhookEvent(str, Enum):
    message_completed = "message.completed"
    message_failed = "message.failed"
    message_cancelled = "message.cancelled"
    message_requires_action = "message.requires_action"
    source_synced = "source.synced"
    source_failed = "source.failed"
    message_feedback = "message.feedback"
    user_erased = "user.erased"


def _deliverable_url(value: str) -> str:
    """The gateway's first URL rules (libs/egress assertEgressUrl); where the address points is checked after."""
    if not re.match(r"^[A-Za-z][A-Za-z0-9+.-]*:", value):
        raise ValueError("not a URL")
    if not re.match(r"^https?:", value, re.IGNORECASE):
        raise ValueError("only http and https URLs are accepted")
    return value


WebhookUrl = Annotated[str, Field(max_length=2048), NoNul, AfterValidator(_deliverable_url)]
WebhookEvents = Annotated[list[WebhookEvent], Field(min_length=1, max_length=5), AfterValidator(_unique)]
WebhookDescription = Optional[Annotated[str, Field(max_length=1000), NoNul]]


class CreateWebhook(BaseModel):
    url: WebhookUrl
    events: WebhookEvents
    description: WebhookDescription = None
    active: bool = None


class UpdateWebhook(BaseModel):
    url: WebhookUrl = None
    events: WebhookEvents = None
    description: WebhookDescription = None
    active: bool = None


class MintEndUserToken(BaseModel):
    user_id: Annotated[str, Field(min_length=1, max_length=256), NoNul]
    ttl_seconds: Annotated[int, Field(ge=60, le=86400)] = None
    agent_ids: Annotated[list[UUID], Field(max_length=10)] = None


class RoutineOptions(BaseModel):
    max_steps: Optional[Annotated[int, Field(ge=1)]] = None
    memory_namespace: Optional[Annotated[str, Field(max_length=128), NoNul]] = None


def _five_fields(value: str) -> str:
    """The gateway's first schedule rule (libs/routines checkSchedule); cron-parser's own checks follow there."""
    fields = len(value.split())
    if fields != 5:
        raise ValueError(f"a schedule is a cron expression of 5 fields, this one has {fields}")
    return value


def _known_timezone(value: str) -> str:
    try:
        ZoneInfo(value)
    except (ZoneInfoNotFoundError, ValueError):
        raise ValueError(f'unknown time zone {json.dumps(value)}; use an IANA name such as "Europe/Paris"')
    return value


Schedule = Annotated[str, Field(max_length=200), NoNul, AfterValidator(_five_fields)]
Timezone = Annotated[str, Field(max_length=64), NoNul, AfterValidator(_known_timezone)]


class CreateRoutine(BaseModel):
    name: Annotated[str, Field(min_length=1, max_length=200), NoNul]
    agent_id: Text
    user_id: Text
    schedule: Schedule
    timezone: Timezone = None
    message: HumanMessage
    options: RoutineOptions = None
    active: bool = None


class UpdateRoutine(BaseModel):
    name: Annotated[str, Field(min_length=1, max_length=200), NoNul] = None
    agent_id: Text = None
    user_id: Text = None
    schedule: Schedule = None
    timezone: Timezone = None
    message: HumanMessage = None
    options: RoutineOptions = None
    active: bool = None


MODEL_ID_PATTERN = r"^(builtin|openai:\S+|anthropic:\S+)$"
TOOL_NAME_PATTERN = r"^(clock|web|company_documents|skill_read|memory|mcp:[A-Za-z0-9_-]{1,40})$"
MCP_NAME = Annotated[str, Field(pattern=r"^[A-Za-z0-9_-]{1,40}$"), NoNul]


MCP_REFUSED_FIELDS = ("command", "args")


def _only_refused_fields(value: Any) -> Any:
    """The gateway's refusal echoes only the refused fields, never a secret beside them (`RefuseFields`)."""
    if isinstance(value, dict) and any(field in value for field in MCP_REFUSED_FIELDS):
        return {field: value[field] for field in MCP_REFUSED_FIELDS if field in value}
    return value


class McpServer(BaseModel):
    name: MCP_NAME
    server: MCP_NAME = None
    env: FreeObject = None
    url: Annotated[str, Field(max_length=2048), NoNul] = None
    headers: FreeObject = None

    @model_validator(mode="before")
    @classmethod
    def _refuse_command(cls, value: Any) -> Any:
        if isinstance(value, dict) and ("command" in value or "args" in value):
            raise ValueError(
                "command and args are not accepted: a stdio MCP server is one of the operator's catalogue, "
                "named by server"
            )
        return value


class Compaction(BaseModel):
    threshold_tokens: Annotated[int, Field(ge=0)]
    keep_recent_messages: Annotated[int, Field(ge=1, le=1000)] = None


class CreateAgent(BaseModel):
    name: Annotated[str, Field(min_length=1, max_length=200), NoNul]
    instructions: Annotated[str, Field(max_length=30000), NoNul] = None
    model: Annotated[str, Field(pattern=MODEL_ID_PATTERN), NoNul] = None
    memory_namespace: Optional[Annotated[str, Field(min_length=1, max_length=128), NoNul]] = None
    token_budget: Optional[Annotated[int, Field(ge=0)]] = None
    tools: Optional[Annotated[list[Annotated[str, Field(pattern=TOOL_NAME_PATTERN)]], Field(max_length=50)]] = None
    mcp: Annotated[list[Annotated[McpServer, BeforeValidator(_only_refused_fields)]], Field(max_length=20)] = None
    compaction: Optional[Compaction] = None
    temperature: Annotated[float, Field(ge=0, le=2)] = None
    max_output_tokens: Annotated[int, Field(ge=1)] = None


class UpdateAgent(CreateAgent):
    name: Annotated[str, Field(min_length=1, max_length=200), NoNul] = None


class AiSdkTrigger(str, Enum):
    submit_message = "submit-message"
    regenerate_message = "regenerate-message"


class AiSdkChat(BaseModel):
    id: Annotated[str, Field(min_length=1, max_length=128), NoNul]
    messages: Annotated[list[dict[str, Any]], Field(min_length=1)]
    trigger: AiSdkTrigger
    messageId: Text = None
    agent_id: Text = None
    user_id: Text = None
    file_ids: Annotated[list[Text], Field(max_length=5)] = None


app = FastAPI()

OwnerQuery = Annotated[Optional[Text], Query()]
EndUser = Annotated[Optional[UserId], Query()]
ThreadId = Annotated[UUID, Path()]


def _dump(value: Any) -> Any:
    if not isinstance(value, BaseModel):
        return value
    try:
        return value.model_dump(mode="json")
    except ValueError:  # nested deeper than the serializer goes: validation passed, that is what counts
        return "(validated)"


def ok(**validated: Any) -> dict[str, Any]:
    """What the route validated, converted: shows the coercions Pydantic made."""
    return {name: _dump(value) for name, value in validated.items()}


# Chat (API-SPEC 4.2, 4.3; CONTRACTS §4, §5)
@app.post("/chat")
def start_chat(body: StartChat):
    return ok(body=body)


@app.get("/chat")
def list_threads(
    user_id: Annotated[Text, Query()],
    limit: Annotated[int, Query(ge=1, le=100)] = 20,
    agent_ids: Annotated[Optional[list[UUID]], Query(max_length=10)] = None,
):
    return ok(user_id=user_id, limit=limit, agent_ids=agent_ids)


@app.get("/chat/messages/{message_id}/stream")
def stream(
    message_id: Annotated[UUID, Path()],
    after: Annotated[Optional[int], Query(ge=-1, le=MAX_SAFE_INTEGER)] = None,
    user_id: OwnerQuery = None,
):
    return ok(message_id=str(message_id), after=after, user_id=user_id)


@app.post("/chat/{thread_id}")
def post_message(thread_id: ThreadId, body: PostMessage, user_id: OwnerQuery = None):
    return ok(thread_id=str(thread_id), body=body, user_id=user_id)


@app.get("/chat/{thread_id}")
def get_thread(thread_id: ThreadId, user_id: OwnerQuery = None):
    return ok(thread_id=str(thread_id), user_id=user_id)


@app.put("/chat/{thread_id}")
def update_thread(thread_id: ThreadId, body: UpdateThread, user_id: OwnerQuery = None):
    return ok(thread_id=str(thread_id), body=body, user_id=user_id)


@app.delete("/chat/{thread_id}")
def delete_thread(thread_id: ThreadId, user_id: OwnerQuery = None):
    return ok(thread_id=str(thread_id), user_id=user_id)


# Files (API-SPEC 4.4; CONTRACTS §8)
@app.get("/chat/files/upload")
def upload_permission(
    filename: Annotated[str, Query(max_length=255, pattern=r"^[^/]+$"), NoNul],
    mimetype: Annotated[str, Query(pattern=MIMETYPE_PATTERN)],
    user_id: OwnerQuery = None,
):
    return ok(filename=filename, mimetype=mimetype, user_id=user_id)


@app.get("/chat/files/{file_id}")
def get_file(file_id: Annotated[UUID, Path()], user_id: OwnerQuery = None):
    return ok(file_id=str(file_id), user_id=user_id)


@app.post("/chat/files/{file_id}/share_links")
def create_share_link(file_id: Annotated[UUID, Path()], body: CreateShareLink, user_id: OwnerQuery = None):
    return ok(file_id=str(file_id), body=body, user_id=user_id)


@app.delete("/chat/files/{file_id}/share_links/{link_id}")
def revoke_share_link(
    file_id: Annotated[UUID, Path()], link_id: Annotated[UUID, Path()], user_id: OwnerQuery = None
):
    return ok(file_id=str(file_id), link_id=str(link_id), user_id=user_id)


# Memory (API-SPEC 4.5; CONTRACTS §7)
@app.get("/memory/file")
def read_memory_file(
    path: Annotated[MemoryPath, Query()],
    namespace: Annotated[Optional[str], Query(max_length=128), NoNul] = None,
    user_id: OwnerQuery = None,
):
    return ok(namespace=namespace, path=path, user_id=user_id)


@app.put("/memory/file")
def write_memory_file(body: WriteMemoryFile):
    return ok(body=body)


@app.get("/memory/files")
def list_memory_files(
    namespace: Annotated[Optional[str], Query(max_length=128), NoNul] = None,
    folder: Annotated[Optional[MemoryFolder], Query()] = None,
    user_id: OwnerQuery = None,
):
    return ok(namespace=namespace, folder=folder, user_id=user_id)


# Data sources and connections (API-SPEC 4.6; CONTRACTS §9)
@app.post("/dc/connections")
def create_connection(body: CreateConnection, user_id: EndUser = None):
    return ok(body=body, user_id=user_id)


@app.get("/dc/connections/{id}")
def get_connection(id: Annotated[UUID, Path()], user_id: EndUser = None):
    return ok(id=str(id), user_id=user_id)


@app.post("/dc/sources")
def create_source(body: CreateSource, user_id: EndUser = None):
    return ok(body=body, user_id=user_id)


@app.put("/dc/sources/{source_pid}")
def update_source(
    source_pid: Annotated[str, Path(max_length=64), NoNul], body: UpdateSource, user_id: EndUser = None
):
    return ok(source_pid=source_pid, body=body, user_id=user_id)


@app.post("/dc/sources/{source_pid}/documents")
def add_documents(
    source_pid: Annotated[str, Path(max_length=64), NoNul], body: AddDocuments, user_id: EndUser = None
):
    return ok(source_pid=source_pid, body=body, user_id=user_id)


# Query templates (API-SPEC 4.7; CONTRACTS §10)
@app.post("/agent_execution/query_templates")
def create_template(body: CreateQueryTemplate, user_id: EndUser = None):
    return ok(body=body, user_id=user_id)


@app.get("/agent_execution/query_templates")
def list_templates(
    user_id: EndUser = None,
    limit: Annotated[Optional[int], Query(ge=1, le=100)] = None,
    offset: Annotated[Optional[int], Query(ge=0)] = None,
):
    return ok(user_id=user_id, limit=limit, offset=offset)


@app.put("/agent_execution/query_templates/{id}")
def update_template(id: Annotated[UUID, Path()], body: UpdateQueryTemplate, user_id: EndUser = None):
    return ok(id=str(id), body=body, user_id=user_id)


# Skills (API-SPEC 4.8; CONTRACTS §11)
@app.put("/skills/{skill_pid}")
def update_skill(
    skill_pid: Annotated[str, Path(max_length=100), NoNul], body: UpdateSkill, user_id: EndUser = None
):
    return ok(skill_pid=skill_pid, body=body, user_id=user_id)


# Webhooks (CONTRACTS §14)
@app.post("/webhooks")
def create_webhook(body: CreateWebhook):
    return ok(body=body)


@app.put("/webhooks/{id}")
def update_webhook(id: Annotated[UUID, Path()], body: UpdateWebhook):
    return ok(id=str(id), body=body)


@app.get("/webhooks/{id}/deliveries")
def list_deliveries(id: Annotated[UUID, Path()], limit: Annotated[Optional[int], Query(ge=1, le=100)] = None):
    return ok(id=str(id), limit=limit)


# End-user tokens (CONTRACTS §17)
@app.post("/end-user-tokens")
def mint_end_user_token(body: MintEndUserToken):
    return ok(body=body)


# Routines (CONTRACTS §13): the owner is the body's on create, the query's elsewhere.
RoutineOwner = Annotated[Text, Query()]


@app.post("/routines")
def create_routine(body: CreateRoutine):
    return ok(body=body)


@app.get("/routines")
def list_routines(user_id: RoutineOwner):
    return ok(user_id=user_id)


@app.put("/routines/{id}")
def update_routine(id: Annotated[UUID, Path()], body: UpdateRoutine, user_id: RoutineOwner):
    return ok(id=str(id), body=body, user_id=user_id)


@app.post("/routines/{id}/run")
def run_routine(id: Annotated[UUID, Path()], user_id: RoutineOwner):
    return ok(id=str(id), user_id=user_id)


# Agents (CONTRACTS §15)
@app.post("/agents")
def create_agent(body: CreateAgent):
    return ok(body=body)


@app.put("/agents/{id}")
def update_agent(id: Annotated[UUID, Path()], body: UpdateAgent):
    return ok(id=str(id), body=body)


# The AI SDK chat protocol (CONTRACTS §17) and compaction (§19)
@app.post("/ai-sdk/chat")
def ai_sdk_chat(body: AiSdkChat):
    return ok(body=body)


@app.post("/chat/{thread_id}/compact")
def compact_thread(thread_id: ThreadId, user_id: OwnerQuery = None):
    return ok(thread_id=str(thread_id), user_id=user_id)
