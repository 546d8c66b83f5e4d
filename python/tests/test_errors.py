from __future__ import annotations

import pytest

import mcpkit
from mcpkit import errors


@pytest.mark.parametrize(
    ("cls", "code"),
    [
        (errors.ParseError, -32700),
        (errors.InvalidRequest, -32600),
        (errors.MethodNotFound, -32601),
        (errors.InvalidParams, -32602),
        (errors.InternalError, -32603),
        (errors.ResourceNotFound, -32002),
    ],
)
def test_standard_codes_map_to_their_classes(cls: type[errors.McpError], code: int) -> None:
    error = errors.McpError.from_wire(code, "boom", {"x": 1})
    assert type(error) is cls
    assert (error.code, error.message, error.data) == (code, "boom", {"x": 1})
    assert str(error) == "boom"
    assert isinstance(error, errors.McpError)
    assert cls("m").code == code


def test_unknown_codes_stay_generic() -> None:
    error = errors.McpError.from_wire(-31999, "custom")
    assert type(error) is errors.McpError
    assert error.code == -31999
    assert error.data is None
    assert "custom" in repr(error)


def test_local_errors_are_mcp_errors() -> None:
    for cls in (errors.TransportClosed, errors.RequestTimeout, errors.RequestCancelled, errors.CapabilityMissing):
        error = cls()
        assert isinstance(error, errors.McpError)
        assert error.message
    assert errors.McpError(1, "x", data=[1]).data == [1]


def test_public_names_are_exported() -> None:
    for name in errors.__all__:
        assert getattr(mcpkit, name) is getattr(errors, name)
