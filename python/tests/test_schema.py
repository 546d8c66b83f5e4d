from __future__ import annotations

import dataclasses
import enum
from typing import Annotated, Any, Literal, Optional, TypedDict, Union

import pydantic
import pytest

from mcpweft import Context, Image, Server
from mcpweft._schema import Signature, coerce, parse_docstring


class Color(enum.Enum):
    RED = "red"
    BLUE = "blue"


class Point(TypedDict):
    x: int
    y: int


class Partial(TypedDict, total=False):
    label: str


@dataclasses.dataclass
class Box:
    """A box.

    Attributes:
        width: How wide.
    """

    width: float
    color: Color = Color.RED
    tags: list[str] = dataclasses.field(default_factory=list)


class Person(pydantic.BaseModel):
    name: str
    age: int = 0
    home: Optional[Box] = None


def schema_of(fn: Any) -> dict[str, Any]:
    return Signature(fn, Context).input_schema()


def prop(fn: Any, name: str) -> dict[str, Any]:
    return dict(schema_of(fn)["properties"][name])


def test_primitives() -> None:
    def f(s: str, i: int, x: float, b: bool, n: None) -> None: ...

    schema = schema_of(f)
    assert schema["type"] == "object"
    assert [schema["properties"][k]["type"] for k in "sixbn"] == ["string", "integer", "number", "boolean", "null"]
    assert schema["required"] == ["s", "i", "x", "b", "n"]


def test_containers() -> None:
    def f(a: list[int], b: dict[str, float], c: tuple[int, str], d: set[str], e: Any) -> None: ...

    assert prop(f, "a") == {"type": "array", "items": {"type": "integer"}}
    assert prop(f, "b") == {"type": "object", "additionalProperties": {"type": "number"}}
    assert prop(f, "c")["prefixItems"] == [{"type": "integer"}, {"type": "string"}]
    assert prop(f, "d") == {"type": "array", "items": {"type": "string"}, "uniqueItems": True}
    assert prop(f, "e") == {}


def test_unions_literals_enums() -> None:
    def f(a: Optional[int], b: Union[int, str], c: Literal["x", "y"], d: Color) -> None: ...

    assert prop(f, "a") == {"anyOf": [{"type": "integer"}, {"type": "null"}]}
    assert prop(f, "b") == {"anyOf": [{"type": "integer"}, {"type": "string"}]}
    assert prop(f, "c") == {"enum": ["x", "y"], "type": "string"}
    assert prop(f, "d") == {"title": "Color", "enum": ["red", "blue"], "type": "string"}


def test_typed_dict_and_dataclass() -> None:
    def f(p: Point, q: Partial, box: Box) -> None: ...

    point = prop(f, "p")
    assert point["properties"] == {"x": {"type": "integer"}, "y": {"type": "integer"}}
    assert point["required"] == ["x", "y"]
    assert "required" not in prop(f, "q")
    box = prop(f, "box")
    assert box["required"] == ["width"]
    assert box["properties"]["width"] == {"type": "number", "description": "How wide."}
    assert box["properties"]["color"]["default"] == "red"
    assert box["description"] == "A box."


def test_pydantic_models_lift_defs() -> None:
    def f(person: Person) -> None: ...

    schema = schema_of(f)
    assert schema["properties"]["person"]["properties"]["name"]["type"] == "string"
    assert "Box" in schema["$defs"]


def test_defaults_docstrings_and_context() -> None:
    def f(ctx: Context, query: str, limit: int = 10, tag: Annotated[str, "A tag."] = "a") -> None:
        """Searches things.

        More detail that is not part of the description.

        Args:
            query: What to look for,
                over two lines.
            limit: At most this many.
        """

    sig = Signature(f, Context)
    assert sig.description == "Searches things."
    schema = sig.input_schema()
    assert list(schema["properties"]) == ["query", "limit", "tag"]
    assert schema["required"] == ["query"]
    assert schema["properties"]["query"]["description"] == "What to look for, over two lines."
    assert schema["properties"]["limit"] == {"type": "integer", "description": "At most this many.", "default": 10}
    assert schema["properties"]["tag"] == {"type": "string", "description": "A tag.", "default": "a"}


def test_parse_docstring_without_args() -> None:
    assert parse_docstring("One line.\nStill first.\n\nSecond.") == ("One line. Still first.", {})
    assert parse_docstring(None) == (None, {})


@pytest.mark.parametrize(
    ("hint", "expected"),
    [
        (Point, {"type": "object"}),
        (Box, {"type": "object"}),
        (Person, {"type": "object"}),
        (dict[str, int], {"type": "object", "additionalProperties": {"type": "integer"}}),
        (int, {"type": "object", "required": ["result"]}),
        (str, {"type": "object", "required": ["result"]}),
    ],
)
def test_output_schemas(hint: Any, expected: dict[str, Any]) -> None:
    def f() -> None: ...

    f.__annotations__["return"] = hint
    schema = Signature(f, Context).output_schema()
    assert schema is not None
    assert expected.items() <= schema.items()


def test_no_output_schema_for_content_or_unknown_returns() -> None:
    def f() -> list[Any]: ...

    def g(): ...  # type: ignore[no-untyped-def]

    def h() -> Image: ...

    def i() -> None: ...

    for fn in (f, g, h, i):
        assert Signature(fn, Context).output_schema() is None, fn


def test_lists_and_unions_get_wrapped_output_schemas() -> None:
    def f() -> list[str]: ...

    schema = Signature(f, Context).output_schema()
    assert schema == {
        "type": "object",
        "properties": {"result": {"type": "array", "items": {"type": "string"}}},
        "required": ["result"],
    }


def test_coerce_builds_python_values() -> None:
    assert coerce({"width": 2, "color": "blue"}, Box) == Box(2.0, Color.BLUE)
    assert coerce({"name": "a"}, Person) == Person(name="a")
    assert coerce("red", Color) is Color.RED
    assert coerce([{"width": 1}], list[Box]) == [Box(1)]
    assert coerce(None, Optional[Box]) is None
    assert coerce(3, float) == 3.0 and isinstance(coerce(3, float), float)


def test_registered_tool_description_and_annotations() -> None:
    server = Server("s")

    @server.tool(name="renamed", title="Nice", annotations={"readOnlyHint": True})
    def tool(a: int) -> int:
        """Does things."""
        return a

    assert server.capabilities["tools"] == {"listChanged": True}
