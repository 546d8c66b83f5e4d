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
    ("kind", "cls", "builtin"),
    [
        ("transport_closed", errors.TransportClosed, None),
        ("timeout", errors.RequestTimeout, None),
        ("cancelled", errors.RequestCancelled, None),
        ("protocol", errors.ProtocolError, None),
        ("capability_missing", errors.CapabilityMissing, None),
        ("config", errors.ConfigError, ValueError),
        ("invalid_input", errors.InvalidInputError, ValueError),
        ("io", errors.IoError, OSError),
        ("handler", errors.HandlerError, RuntimeError),
        ("overloaded", errors.OverloadedError, RuntimeError),
        ("internal", errors.InternalFailure, RuntimeError),
    ],
)
def test_native_error_kinds_map_to_classes(kind: str, cls: type[Exception], builtin: type[Exception] | None) -> None:
    error = errors._from_native(kind, None, "what happened", {"d": 1}, ["outer", "inner"])
    assert type(error) is cls
    assert isinstance(error, errors.McpError)
    if builtin is not None:
        assert isinstance(error, builtin)
    assert str(error) == "what happened"
    assert (error.kind, error.data, error.causes) == (kind, {"d": 1}, ["outer", "inner"])
    assert error.local


def test_error_classes_match_the_native_kind_table() -> None:
    """Every kind of the bridge has its class here, with the kind's code: a kind added to the
    bridge fails this test until it has one."""
    names = [row["name"] for row in _native.ERROR_KINDS]
    assert sorted(names) == sorted(errors.BY_KIND), "the kinds of the bridge and of mcpweft.errors differ"
    for row in _native.ERROR_KINDS:
        cls = errors.BY_KIND[row["name"]]
        assert cls.KIND == row["name"]
        assert row["meaning"], row
        if row["name"] != "rpc":
            assert issubclass(cls, errors._CodedError)
            assert cls.CODE == row["code"], row
            assert cls.__name__ in errors.__all__
            assert cls().kind == row["name"]


def test_an_unknown_native_kind_is_still_an_mcp_error() -> None:
    error = errors._from_native("brand_new", None, "new", None)
    assert type(error) is errors.McpError
    assert (error.kind, error.code, error.causes) == ("brand_new", None, [])


def test_rpc_errors_from_native_keep_their_causes() -> None:
    error = errors._from_native("rpc", -32602, "bad", None, ["because"])
    assert type(error) is errors.InvalidParams
    assert (error.kind, error.code, error.causes) == ("rpc", -32602, ["because"])
    assert not error.local


async def test_native_failures_raise_mcp_errors_with_their_builtin_bases() -> None:
    from mcpweft import Client, Server

    with pytest.raises(errors.IoError) as spawned:
        await Client.stdio("/no/such/program").connect()
    assert isinstance(spawned.value, OSError)
    assert spawned.value.kind == "io"
    assert spawned.value.causes, "the OS error is kept as a cause"
    with pytest.raises(errors.InvalidInputError) as level:
        Server("x").log("loud", "x")  # type: ignore[arg-type]
    assert isinstance(level.value, ValueError)
    assert level.value.code is None
