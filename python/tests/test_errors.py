from __future__ import annotations

import re

import pytest

import mcpweft
from mcpweft import _native, errors


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
        assert getattr(mcpweft, name) is getattr(errors, name)


def test_codes_match_the_native_table() -> None:
    """Every code of the bridge's table has its class and its constant here."""
    assert errors.BY_NAME.keys() == _native.ERROR_CODES.keys()
    for name, code in _native.ERROR_CODES.items():
        assert errors.BY_NAME[name].CODE == code
        assert getattr(mcpweft, name) is errors.BY_NAME[name]
        constant = re.sub(r"(?<!^)(?=[A-Z])", "_", name).upper()
        assert getattr(errors, constant) == code, constant
    assert errors.McpError.from_wire(-32042, "go", {"elicitations": []}).__class__ is errors.UrlElicitationRequired


@pytest.mark.parametrize(
    ("kind", "cls"),
    [
        ("transport_closed", errors.TransportClosed),
        ("timeout", errors.RequestTimeout),
        ("cancelled", errors.RequestCancelled),
        ("protocol", errors.ProtocolError),
        ("capability_missing", errors.CapabilityMissing),
        ("config", ValueError),
        ("invalid_input", ValueError),
        ("io", OSError),
        ("overloaded", RuntimeError),
        ("internal", RuntimeError),
    ],
)
def test_native_error_kinds_map_to_classes(kind: str, cls: type[Exception]) -> None:
    error = errors._from_native(kind, None, "what happened", None)
    assert type(error) is cls
    assert str(error) == "what happened"
