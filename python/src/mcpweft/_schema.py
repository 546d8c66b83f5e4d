"""JSON Schemas from type hints and docstrings, and the conversions that go with them.

Supported hints: ``str``, ``int``, ``float``, ``bool``, ``None``, ``Any``, ``list[X]``,
``tuple``, ``set``, ``dict[str, X]``, ``Optional``/``Union``, ``Literal``, ``Enum``,
``TypedDict``, dataclasses, ``datetime``, ``date``, ``time``, ``UUID``, ``Decimal``, ``Path``,
pydantic models (when pydantic is installed; it is never required), and ``Annotated[X, ...]``
with a description string, pydantic's ``Field(...)`` or ``annotated_types`` constraints
(``ge``, ``gt``, ``le``, ``lt``, ``multiple_of``, ``min_length``, ``max_length``,
``pattern``), which go into the schema and so are enforced when arguments are validated.
"""

from __future__ import annotations

import dataclasses
import enum
import inspect
import re
import sys
import typing
from collections.abc import Mapping, Sequence
from typing import Any, Callable, Optional, Union

JsonObject = dict[str, Any]

_NONE_TYPE = type(None)
_UNION_TYPES: tuple[Any, ...] = (Union,)
if sys.version_info >= (3, 10):
    import types

    _UNION_TYPES = (Union, types.UnionType)


class _NotImported:
    """Stands for a class whose module is not imported: no hint is it and no value is one of it."""


def _class(module: str, name: str) -> Any:
    """Returns the class ``name`` of the standard module ``module``, or ``_NotImported``.

    A hint or a value of a ``datetime``, ``uuid``, ``decimal`` or ``pathlib`` class exists only
    once its module is imported, so these rules look the classes up rather than importing the
    four modules into every server (they cost about 1.5 MiB of resident memory).
    """
    found = sys.modules.get(module)
    return _NotImported if found is None else getattr(found, name)


#: The JSON Schema string formats of standard classes, by module and class name.
_STRING_FORMATS = (
    ("datetime", "datetime", "date-time"),
    ("datetime", "date", "date"),
    ("datetime", "time", "time"),
    ("uuid", "UUID", "uuid"),
)


def is_typeddict(hint: Any) -> bool:
    """Whether a hint is a ``TypedDict`` class (``typing`` or ``typing_extensions``)."""
    return isinstance(hint, type) and issubclass(hint, dict) and hasattr(hint, "__required_keys__")


def _pydantic_model(hint: Any) -> bool:
    base = getattr(sys.modules.get("pydantic"), "BaseModel", None)
    return base is not None and isinstance(hint, type) and issubclass(hint, base)


def _strip_annotated(hint: Any) -> tuple[Any, Optional[str]]:
    """Returns the hint inside ``Annotated`` and its description."""
    inner, extra = _annotation(hint)
    return inner, extra.get("description")


#: The constraints of pydantic and ``annotated_types`` metadata, and their JSON Schema keywords
#: for numbers and strings; lengths become ``minItems``/``maxItems`` on arrays.
_CONSTRAINTS = {
    "ge": "minimum",
    "gt": "exclusiveMinimum",
    "le": "maximum",
    "lt": "exclusiveMaximum",
    "multiple_of": "multipleOf",
    "min_length": "minLength",
    "max_length": "maxLength",
    "pattern": "pattern",
}


def _metadata_keywords(item: Any) -> JsonObject:
    """The schema keywords one piece of ``Annotated`` metadata (or a pydantic ``FieldInfo``) adds."""
    if isinstance(item, str):
        return {"description": item}
    keywords: JsonObject = {}
    for attribute, keyword in _CONSTRAINTS.items():
        value = getattr(item, attribute, None)
        if value is not None and not callable(value):
            keywords[keyword] = value if isinstance(value, (int, float, str)) else str(value)
    for attribute in ("title", "description", "examples"):
        value = getattr(item, attribute, None)
        if value is not None and type(item).__name__ == "FieldInfo":
            keywords[attribute] = value
    for nested in getattr(item, "metadata", None) or []:
        keywords.update(_metadata_keywords(nested))
    return keywords


def _annotation(hint: Any) -> tuple[Any, JsonObject]:
    """Splits ``Annotated[X, ...]`` into ``X`` and the schema keywords its metadata adds."""
    if typing.get_origin(hint) is not typing.Annotated:
        return hint, {}
    inner, *extras = typing.get_args(hint)
    keywords: JsonObject = {}
    for item in extras:
        keywords.update(_metadata_keywords(item))
    return inner, keywords


def _apply(schema: JsonObject, keywords: JsonObject) -> JsonObject:
    """Adds constraint keywords to a schema, as lengths of arrays and objects where they are."""
    if not keywords:
        return schema
    schema = dict(schema)
    for keyword, value in keywords.items():
        if keyword in ("minLength", "maxLength") and schema.get("type") in ("array", "object"):
            kind = "Items" if schema["type"] == "array" else "Properties"
            keyword = keyword[:3] + kind
        schema[keyword] = value
    return schema


def field_info(default: Any) -> Optional[Any]:
    """The pydantic ``FieldInfo`` a parameter's default is (``x: int = Field(1, ge=0)``), if so."""
    return default if type(default).__name__ == "FieldInfo" and hasattr(default, "is_required") else None


def field_default(info: Any) -> Any:
    """The default of a pydantic ``FieldInfo``, or ``inspect.Parameter.empty`` when it has none.

    Each call makes a new value, as pydantic does for each model: ``default_factory`` is called,
    and a mutable ``default`` is copied."""
    if info.is_required():
        return inspect.Parameter.empty
    return info.get_default(call_default_factory=True)


class SchemaBuilder:
    """Builds schemas for one tool, collecting pydantic ``$defs`` at the top level."""

    def __init__(self) -> None:
        self.defs: JsonObject = {}
        self._active: set[int] = set()

    def finish(self, schema: JsonObject) -> JsonObject:
        if self.defs:
            schema["$defs"] = self.defs
        return schema

    def schema(self, hint: Any) -> JsonObject:
        hint, keywords = _annotation(hint)
        return _apply(self._schema(hint), keywords)

    def _schema(self, hint: Any) -> JsonObject:
        if hint is Any or hint is inspect.Parameter.empty or hint is object:
            return {}
        if hint is None or hint is _NONE_TYPE:
            return {"type": "null"}
        if hint is bool:
            return {"type": "boolean"}
        if hint is int:
            return {"type": "integer"}
        if hint is float:
            return {"type": "number"}
        if hint is str:
            return {"type": "string"}
        if hint is bytes:
            return {"type": "string", "contentEncoding": "base64"}
        for module, name, string_format in _STRING_FORMATS:
            if hint is _class(module, name):
                return {"type": "string", "format": string_format}
        if hint is _class("decimal", "Decimal"):
            return {"anyOf": [{"type": "number"}, {"type": "string"}]}
        if isinstance(hint, type) and issubclass(hint, _class("pathlib", "PurePath")):
            return {"type": "string", "format": "path"}
        origin, args = typing.get_origin(hint), typing.get_args(hint)
        if origin in _UNION_TYPES:
            return {"anyOf": [self.schema(a) for a in args]}
        if origin is typing.Literal:
            return _enum_schema(list(args))
        if isinstance(hint, type) and issubclass(hint, enum.Enum):
            schema = _enum_schema([m.value for m in hint])
            return {"title": hint.__name__, **schema}
        if origin in (list, set, frozenset) or hint in (list, set, frozenset) or origin is Sequence:
            array: JsonObject = {"type": "array"}
            if args:
                array["items"] = self.schema(args[0])
            if origin in (set, frozenset):
                array["uniqueItems"] = True
            return array
        if origin is tuple or hint is tuple:
            if not args or (len(args) == 2 and args[1] is Ellipsis):
                return {"type": "array", "items": self.schema(args[0])} if args else {"type": "array"}
            items = [self.schema(a) for a in args]
            return {"type": "array", "prefixItems": items, "minItems": len(items), "maxItems": len(items)}
        if origin in (dict, Mapping) or hint in (dict, Mapping):
            schema = {"type": "object"}
            if len(args) == 2:
                schema["additionalProperties"] = self.schema(args[1])
            return schema
        if id(hint) in self._active:
            return {}
        self._active.add(id(hint))
        try:
            if _pydantic_model(hint):
                return self._pydantic(hint)
            if is_typeddict(hint):
                return self._typed_dict(hint)
            if dataclasses.is_dataclass(hint) and isinstance(hint, type):
                return self._dataclass(hint)
        finally:
            self._active.discard(id(hint))
        return {}

    def _pydantic(self, model: Any) -> JsonObject:
        schema: JsonObject = dict(model.model_json_schema())
        self.defs.update(schema.pop("$defs", {}))
        return schema

    def _typed_dict(self, td: Any) -> JsonObject:
        hints = typing.get_type_hints(td, include_extras=True)
        doc, docs = _class_docs(td)
        properties = {name: self._described(self.schema(h), docs.get(name)) for name, h in hints.items()}
        required = [n for n in hints if n in getattr(td, "__required_keys__", hints.keys())]
        return _object(td.__name__, properties, required, doc)

    def _dataclass(self, cls: type) -> JsonObject:
        hints = typing.get_type_hints(cls, include_extras=True)
        doc, docs = _class_docs(cls)
        properties: JsonObject = {}
        required: list[str] = []
        for f in dataclasses.fields(cls):
            schema = self._described(self.schema(hints.get(f.name, Any)), docs.get(f.name))
            if f.default is not dataclasses.MISSING:
                schema["default"] = to_jsonable(f.default)
            elif f.default_factory is dataclasses.MISSING:
                required.append(f.name)
            properties[f.name] = schema
        return _object(cls.__name__, properties, required, doc)

    @staticmethod
    def _described(schema: JsonObject, description: Optional[str]) -> JsonObject:
        if description and "description" not in schema:
            schema = {**schema, "description": description}
        return schema


def _object(title: str, properties: JsonObject, required: list[str], doc: Optional[str]) -> JsonObject:
    schema: JsonObject = {"type": "object", "title": title, "properties": properties}
    if required:
        schema["required"] = required
    if doc:
        schema["description"] = doc
    return schema


def _enum_schema(values: list[Any]) -> JsonObject:
    schema: JsonObject = {"enum": [to_jsonable(v) for v in values]}
    kinds = {type(v) for v in values}
    names = {str: "string", int: "integer", float: "number", bool: "boolean"}
    if len(kinds) == 1 and next(iter(kinds)) in names:
        schema["type"] = names[next(iter(kinds))]
    return schema


def _class_docs(cls: type) -> tuple[Optional[str], dict[str, str]]:
    """Reads a class's description and the field descriptions of its ``Attributes:`` section."""
    doc = cls.__doc__
    if not doc or doc.startswith(cls.__name__ + "("):  # The docstring dataclasses generate.
        return None, {}
    return parse_docstring(doc, sections=("Attributes", "Args", "Fields"))


_SECTION = re.compile(r"^(\w[\w ]*):\s*$")
_ARG = re.compile(r"^\s*\*{0,2}(\w+)\s*(?:\([^)]*\))?\s*:\s*(.*)$")


def parse_docstring(
    doc: Optional[str], sections: Sequence[str] = ("Args", "Arguments", "Parameters")
) -> tuple[Optional[str], dict[str, str]]:
    """Returns the first paragraph and the per-parameter descriptions of a Google-style docstring."""
    if not doc:
        return None, {}
    lines = inspect.cleandoc(doc).splitlines()
    paragraph: list[str] = []
    for line in lines:
        if not line.strip() or _SECTION.match(line.strip()):
            break
        paragraph.append(line.strip())
    params: dict[str, str] = {}
    current: Optional[str] = None
    in_section = False
    indent = 0
    for line in lines:
        stripped = line.strip()
        header = _SECTION.match(stripped)
        if header and not line.startswith((" ", "\t")):
            in_section = header.group(1) in sections
            current = None
            continue
        if not in_section or not stripped:
            continue
        line_indent = len(line) - len(line.lstrip())
        match = _ARG.match(line)
        if match and (current is None or line_indent <= indent):
            current, indent = match.group(1), line_indent
            params[current] = match.group(2).strip()
        elif current is not None:
            params[current] = (params[current] + " " + stripped).strip()
    return (" ".join(paragraph) or None), params


def is_structured(hint: Any) -> bool:
    """Whether a return hint describes an object: TypedDict, dataclass, pydantic model, ``dict``
    or ``dict[str, X]``."""
    hint, _ = _strip_annotated(hint)
    if getattr(hint, "__name__", None) == "CallToolResult" and getattr(hint, "__module__", None) == "mcpweft.types":
        return False  # A complete result is passed through as it is.
    if _pydantic_model(hint) or is_typeddict(hint):
        return True
    if dataclasses.is_dataclass(hint) and isinstance(hint, type):
        return True
    if hint in (dict, Mapping):
        return True
    return typing.get_origin(hint) in (dict, Mapping) and len(typing.get_args(hint)) == 2


def _describes_value(hint: Any) -> bool:
    """Whether a return hint describes a value the result carries as structured content, rather
    than content: not missing, ``None``, ``Any`` or ``object``, not a list or union of ``Any``,
    and nothing in it (an arm of a union, an item of a list) that is media, bytes, a content
    block or a whole result."""
    hint, _ = _strip_annotated(hint)
    if hint in (inspect.Parameter.empty, None, _NONE_TYPE, Any, object):
        return False
    if Any in typing.get_args(hint):
        return False  # ``list[Any]`` or ``X | Any`` may hold content blocks.
    return not _mentions_content(hint)


def _mentions_content(hint: Any) -> bool:
    hint, _ = _strip_annotated(hint)
    if hint in (bytes, bytearray):
        return True
    if getattr(hint, "__module__", None) == "mcpweft.types":
        return True  # Image, Audio, content blocks and results are content, not values.
    return any(_mentions_content(arg) for arg in typing.get_args(hint) if arg is not Ellipsis)


def json_default(value: Any) -> Any:
    """Returns a JSON-shaped stand-in, one level deep, for a value JSON has no shape for:
    enums, pydantic models, dataclasses, bytes, dates and times, UUIDs, decimals and paths.

    The native conversion calls it for such values and converts what it returns, contents
    included, within its bounds (depth, size, containers that hold themselves).
    """
    if isinstance(value, enum.Enum):
        return value.value
    if hasattr(value, "model_dump") and _pydantic_model(type(value)):
        return value.model_dump(mode="json")
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
    if isinstance(value, (bytes, bytearray)):
        import base64

        return base64.b64encode(value).decode("ascii")
    if isinstance(value, (_class("datetime", "date"), _class("datetime", "time"))):
        return value.isoformat()
    if isinstance(value, (_class("uuid", "UUID"), _class("decimal", "Decimal"), _class("pathlib", "PurePath"))):
        return str(value)
    raise TypeError(f"{type(value).__name__} is not JSON-serializable")


def to_jsonable(value: Any) -> Any:
    """Converts a small value (a schema's default or enum member) into JSON-shaped values."""
    if isinstance(value, enum.Enum):
        return to_jsonable(value.value)
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    if isinstance(value, Mapping):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [to_jsonable(v) for v in value]
    return to_jsonable(json_default(value))


#: How a JSON string becomes a value of these standard classes (by module and class name), given
#: the class.
_PARSERS: dict[tuple[str, str], Callable[[Any, str], Any]] = {
    ("datetime", "datetime"): lambda cls, text: cls.fromisoformat(text[:-1] + "+00:00" if text.endswith("Z") else text),
    ("datetime", "date"): lambda cls, text: cls.fromisoformat(text),
    ("datetime", "time"): lambda cls, text: cls.fromisoformat(text),
    ("uuid", "UUID"): lambda cls, text: cls(text),
    ("decimal", "Decimal"): lambda cls, text: cls(text),
}


def _parser(hint: Any) -> Optional[Callable[[Any, str], Any]]:
    """Returns how a JSON string becomes a value of ``hint`` when it is one of ``_PARSERS``."""
    if not isinstance(hint, type):
        return None
    key = (hint.__module__, hint.__qualname__)
    parse = _PARSERS.get(key)
    return parse if parse is not None and hint is _class(*key) else None


def coerce(value: Any, hint: Any) -> Any:
    """Turns a validated JSON value into the Python type a parameter is annotated with."""
    hint, _ = _strip_annotated(hint)
    if value is None or hint is Any or hint is inspect.Parameter.empty:
        return value
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in _UNION_TYPES:
        for arm in args:
            if arm is _NONE_TYPE:
                continue
            try:
                return coerce(value, arm)
            except (TypeError, ValueError):
                continue
        return value
    if hint is float and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    parse = _parser(hint)
    if parse is not None and isinstance(value, str):
        return parse(hint, value)
    if hint is _class("decimal", "Decimal") and isinstance(value, (int, float)) and not isinstance(value, bool):
        return hint(str(value))
    if isinstance(hint, type) and issubclass(hint, _class("pathlib", "PurePath")) and isinstance(value, str):
        return hint(value)
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return hint(value)
    if _pydantic_model(hint):
        return hint.model_validate(value)
    if dataclasses.is_dataclass(hint) and isinstance(hint, type):
        if not isinstance(value, Mapping):
            raise TypeError(f"expected an object for {hint.__name__}")
        hints = typing.get_type_hints(hint)
        return hint(**{k: coerce(v, hints.get(k, Any)) for k, v in value.items()})
    if is_typeddict(hint) and isinstance(value, Mapping):
        hints = typing.get_type_hints(hint)
        return {k: coerce(v, hints.get(k, Any)) for k, v in value.items()}
    if (origin in (list, set, frozenset, tuple) or origin is Sequence) and isinstance(value, list):
        if origin is tuple and args and not (len(args) == 2 and args[1] is Ellipsis):
            return tuple(coerce(v, a) for v, a in zip(value, args))
        items = [coerce(v, args[0]) for v in value] if args else value
        return items if origin in (list, Sequence) else origin(items)
    if origin in (dict, Mapping) and len(args) == 2 and isinstance(value, Mapping):
        return {k: coerce(v, args[1]) for k, v in value.items()}
    return value


def _hints(fn: Callable[..., Any], context_type: type) -> dict[str, Any]:
    """Resolves a function's hints; names that cannot be resolved (for instance a ``Context``
    imported inside a function under postponed annotations) are matched by name or become ``Any``."""
    try:
        return typing.get_type_hints(fn, include_extras=True)
    except NameError:
        pass
    hints: dict[str, Any] = {}
    for name, hint in getattr(fn, "__annotations__", {}).items():
        if isinstance(hint, str):
            try:
                hint = eval(hint, getattr(fn, "__globals__", {}))  # noqa: S307 - the function's own annotation.
            except Exception:
                hint = context_type if hint.split(".")[-1] == context_type.__name__ else Any
        hints[name] = hint
    return hints


#: The hints whose validated JSON values are already what the parameter takes, so that binding
#: passes them on without calling ``coerce``.
_PLAIN_HINTS: tuple[Any, ...] = (str, int, bool, dict, list, Any, inspect.Parameter.empty)


def _is_plain(hint: Any) -> bool:
    """Whether ``coerce`` returns every validated JSON value of ``hint`` unchanged."""
    bare, _ = _strip_annotated(hint)
    if any(bare is plain for plain in _PLAIN_HINTS):
        return True
    if typing.get_origin(bare) in _UNION_TYPES:
        return all(arm is _NONE_TYPE or _is_plain(arm) for arm in typing.get_args(bare))
    return False


class Parameter:
    """One parameter of a handler: its name, hint, default, whether it takes the context,
    whether its JSON value is passed on as it is (``plain``), and the pydantic ``FieldInfo``
    whose default it gets when the argument is left out (``field``): Python's own default for
    the parameter is then the ``FieldInfo`` itself, which the function must never receive."""

    def __init__(self, name: str, hint: Any, default: Any, is_context: bool, field: Any = None) -> None:
        self.name = name
        self.hint = hint
        self.default = default
        self.is_context = is_context
        self.plain = not is_context and _is_plain(hint)
        self.field = None if default is inspect.Parameter.empty else field


class Signature:
    """What a decorated function takes and returns, with its description."""

    def __init__(self, fn: Callable[..., Any], context_type: type) -> None:
        self.fn = fn
        self.context_type = context_type
        self.is_async = inspect.iscoroutinefunction(fn)
        hints = _hints(fn, context_type)
        doc = inspect.getdoc(fn)
        self.description, self.param_docs = parse_docstring(doc)
        self.params: list[Parameter] = []
        for name, p in inspect.signature(fn).parameters.items():
            if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
                continue
            hint = hints.get(name, Any)
            default = p.default
            info = field_info(default)
            if info is not None:
                # ``x: int = Field(1, ge=0)``: the field's constraints describe the parameter.
                hint, default = typing.Annotated[hint, info], field_default(info)
            bare, _ = _strip_annotated(hint)
            is_context = bare is context_type or context_type in typing.get_args(bare)
            self.params.append(Parameter(name, hint, default, is_context, info))
        self.returns = hints.get("return", inspect.Parameter.empty)
        self.takes_context = any(p.is_context for p in self.params)

    def input_schema(self) -> JsonObject:
        builder = SchemaBuilder()
        properties: JsonObject = {}
        required: list[str] = []
        for p in self.params:
            if p.is_context:
                continue
            schema = builder.schema(p.hint)
            if p.name in self.param_docs and "description" not in schema:
                schema["description"] = self.param_docs[p.name]
            if p.default is inspect.Parameter.empty:
                required.append(p.name)
            else:
                try:
                    schema["default"] = to_jsonable(p.default)
                except TypeError:
                    pass
            properties[p.name] = schema
        schema = {"type": "object", "properties": properties}
        if required:
            schema["required"] = required
        return builder.finish(schema)

    def output_schema(self) -> Optional[JsonObject]:
        """The output schema the return annotation gives: an object's own schema, any other
        value's wrapped as ``{"result": ...}``; none without an annotation, for ``None`` and
        ``Any``, and for content (media, bytes, content blocks, a ``CallToolResult``)."""
        if is_structured(self.returns):
            builder = SchemaBuilder()
            return builder.finish(builder.schema(self.returns))
        if not _describes_value(self.returns):
            return None
        builder = SchemaBuilder()
        inner = builder.schema(self.returns)
        return builder.finish({"type": "object", "properties": {"result": inner}, "required": ["result"]})

    def bind(self, arguments: Mapping[str, Any], *context_args: Any) -> dict[str, Any]:
        """Builds the keyword arguments of a call from JSON arguments; the context, built from
        ``context_args`` by the signature's ``context_type``, only when a parameter takes it."""
        kwargs: dict[str, Any] = {}
        context = self.context_type(*context_args) if self.takes_context else None
        for p in self.params:
            if p.is_context:
                kwargs[p.name] = context
            elif p.name in arguments:
                value = arguments[p.name]
                kwargs[p.name] = value if p.plain else coerce(value, p.hint)
            elif p.field is not None:
                kwargs[p.name] = field_default(p.field)
        return kwargs
