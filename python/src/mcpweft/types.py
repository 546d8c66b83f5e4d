"""JSON shapes of MCP 2025-11-25 as ``TypedDict``s, and the content helper classes.

Results cross from the Rust core as plain dicts; these types only describe them.
"""

from __future__ import annotations

import base64
import os
from typing import Any, Literal, Optional, TypedDict, Union

JsonObject = dict[str, Any]
ContentBlock = dict[str, Any]
LoggingLevel = Literal["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]
TaskSupport = Literal["forbidden", "optional", "required"]
#: Who may call a tool bound to an app view (MCP Apps): the model, the view, or both.
Visibility = Literal["model", "app"]


class AppCsp(TypedDict, total=False):
    """The origins an app view may reach, from which the host builds its Content Security Policy."""

    connectDomains: list[str]
    resourceDomains: list[str]
    frameDomains: list[str]
    baseUriDomains: list[str]


class AppView(TypedDict):
    """An app view as a client or host reads it: its ``ui://`` URI, its HTML, and its
    ``_meta.ui`` (``csp``, ``permissions``, ``domain``, ``prefersBorder``)."""

    uri: str
    html: str
    meta: JsonObject


ListKind = Literal["tools", "resources", "resourceTemplates", "prompts", "tasks"]


class Icon(TypedDict, total=False):
    src: str
    mimeType: str
    sizes: list[str]
    theme: Literal["light", "dark"]


class Implementation(TypedDict, total=False):
    name: str
    version: str
    title: str
    description: str
    icons: list[Icon]
    websiteUrl: str


class Tool(TypedDict, total=False):
    name: str
    title: str
    description: str
    icons: list[Icon]
    inputSchema: JsonObject
    outputSchema: JsonObject
    annotations: JsonObject
    execution: JsonObject
    _meta: JsonObject


class CallToolResult(TypedDict, total=False):
    content: list[ContentBlock]
    structuredContent: JsonObject
    isError: bool
    _meta: JsonObject


class Resource(TypedDict, total=False):
    uri: str
    name: str
    title: str
    description: str
    mimeType: str
    icons: list[Icon]
    size: int


class ResourceTemplate(TypedDict, total=False):
    uriTemplate: str
    name: str
    title: str
    description: str
    mimeType: str
    icons: list[Icon]


class ResourceContents(TypedDict, total=False):
    uri: str
    mimeType: str
    text: str
    blob: str


class ReadResourceResult(TypedDict, total=False):
    contents: list[ResourceContents]


class PromptArgument(TypedDict, total=False):
    name: str
    description: str
    required: bool


class Prompt(TypedDict, total=False):
    name: str
    title: str
    description: str
    icons: list[Icon]
    arguments: list[PromptArgument]


class PromptMessage(TypedDict):
    role: Literal["user", "assistant"]
    content: ContentBlock


class GetPromptResult(TypedDict, total=False):
    description: str
    messages: list[PromptMessage]


class Completion(TypedDict, total=False):
    values: list[str]
    total: int
    hasMore: bool


class CompleteResult(TypedDict, total=False):
    completion: Completion


class SamplingMessage(TypedDict):
    role: Literal["user", "assistant"]
    content: Union[ContentBlock, list[ContentBlock]]


class CreateMessageResult(TypedDict, total=False):
    role: Literal["user", "assistant"]
    content: Union[ContentBlock, list[ContentBlock]]
    model: str
    stopReason: str


class ElicitResult(TypedDict, total=False):
    action: Literal["accept", "decline", "cancel"]
    content: JsonObject


class Root(TypedDict, total=False):
    uri: str
    name: str


class ProgressParams(TypedDict, total=False):
    progressToken: Union[str, int]
    progress: float
    total: float
    message: str


class LogMessage(TypedDict, total=False):
    level: LoggingLevel
    logger: str
    data: Any


class Task(TypedDict, total=False):
    taskId: str
    status: Literal["working", "input_required", "completed", "failed", "cancelled"]
    statusMessage: str
    createdAt: str
    lastUpdatedAt: str
    ttl: Optional[int]
    pollInterval: int


class CreateTaskResult(TypedDict, total=False):
    task: Task


class Notification(TypedDict):
    """A notification from the server: its method and params."""

    method: str
    params: JsonObject


class SubscriptionFilter(TypedDict, total=False):
    """The notifications a ``subscriptions/listen`` stream carries: changes of the tool, prompt
    or resource lists, and updates of the resources whose URIs ``resourceSubscriptions`` lists."""

    toolsListChanged: bool
    promptsListChanged: bool
    resourcesListChanged: bool
    resourceSubscriptions: list[str]


class InitializeResult(TypedDict, total=False):
    protocolVersion: str
    capabilities: JsonObject
    serverInfo: Implementation
    instructions: str


def _format_mime_type(kind: str, format: str) -> str:
    """The MIME type of a format name, as FastMCP's ``format=`` gives it: ``png`` is
    ``image/png`` for an image, ``pdf`` the type its file extension has for a file."""
    if kind in ("image", "audio"):
        return f"{kind}/{format.lower()}"
    import mimetypes  # Imported on use: most servers never send media, and it loads urllib.

    return mimetypes.guess_type(f"file.{format}")[0] or "application/octet-stream"


class _Media:
    """Binary content with a MIME type, sent base64-encoded."""

    kind: str = ""
    default_mime_type: str = "application/octet-stream"

    def __init__(
        self,
        data: Optional[bytes] = None,
        mime_type: Optional[str] = None,
        *,
        path: Union[str, os.PathLike[str], None] = None,
        format: Optional[str] = None,
    ) -> None:
        if format is not None and mime_type is None:
            mime_type = _format_mime_type(self.kind, format)
        if (data is None) == (path is None):
            raise TypeError(f"{type(self).__name__} takes either data or path=, not both or neither")
        if path is not None:
            import mimetypes  # Imported on use: most servers never send media, and it loads urllib.

            with open(path, "rb") as source:
                data = source.read()
            mime_type = mime_type or mimetypes.guess_type(os.fspath(path))[0]
        self.data: bytes = bytes(data or b"")
        self.mime_type: str = mime_type or self.default_mime_type
        self.name = None if path is None else os.path.basename(os.fspath(path))

    def to_content(self) -> ContentBlock:
        return {"type": self.kind, "data": base64.b64encode(self.data).decode("ascii"), "mimeType": self.mime_type}

    def __repr__(self) -> str:
        return f"{type(self).__name__}({len(self.data)} bytes, {self.mime_type!r})"


class Image(_Media):
    """An image returned by a tool: ``Image(png_bytes)``, ``Image(data, "image/jpeg")``,
    ``Image(data=raw, format="jpeg")`` or ``Image(path="chart.png")`` (the MIME type guessed
    from the file name)."""

    kind = "image"
    default_mime_type = "image/png"


class Audio(_Media):
    """Audio returned by a tool: ``Audio(wav_bytes)``, ``Audio(data, "audio/mpeg")`` or
    ``Audio(path="clip.wav")``."""

    kind = "audio"
    default_mime_type = "audio/wav"


class File(_Media):
    """A file returned by a tool, sent as an embedded resource: ``File(path="report.pdf")`` or
    ``File(data, "application/pdf", name="report.pdf")``."""

    kind = "resource"

    def __init__(
        self,
        data: Optional[bytes] = None,
        mime_type: Optional[str] = None,
        *,
        path: Union[str, os.PathLike[str], None] = None,
        name: Optional[str] = None,
        format: Optional[str] = None,
    ) -> None:
        super().__init__(data, mime_type, path=path, format=format)
        self.name = name or self.name or "file"

    def to_content(self) -> ContentBlock:
        blob = base64.b64encode(self.data).decode("ascii")
        resource = {"uri": f"file:///{self.name}", "mimeType": self.mime_type, "blob": blob}
        return {"type": "resource", "resource": resource}


def text(value: str) -> ContentBlock:
    """Returns a text content block."""
    return {"type": "text", "text": value}


def user(content: Union[str, ContentBlock]) -> PromptMessage:
    """Returns a prompt message from the user."""
    return {"role": "user", "content": text(content) if isinstance(content, str) else content}


def assistant(content: Union[str, ContentBlock]) -> PromptMessage:
    """Returns a prompt message from the assistant."""
    return {"role": "assistant", "content": text(content) if isinstance(content, str) else content}


def optional(**fields: Optional[Any]) -> JsonObject:
    """Returns the fields that are not ``None``."""
    return {k: v for k, v in fields.items() if v is not None}
