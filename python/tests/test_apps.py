"""MCP Apps in Python: a server serves a ``ui://`` view and binds tools to it; a client or host
that declares Apps sees and reads the view and knows which tools only the view may call; a client
without Apps gets neither, and text."""

from __future__ import annotations

import pytest

from mcpweft import Client, ConfigError, Host, Server

VIEW = "ui://adder/view"
HTML = "<!doctype html><p id=sum></p>"


def _server() -> Server:
    server = Server("adder")
    server.app_view(VIEW, HTML, name="Adder", csp={"connectDomains": ["https://api.example.com"]}, prefers_border=True)

    @server.tool(app=VIEW)
    def add(a: float, b: float) -> str:
        return str(a + b)

    @server.tool(app=VIEW, visibility=["app"])
    def refresh() -> str:
        return "refreshed"

    return server


async def test_a_client_with_apps_reads_the_view_and_one_without_gets_text() -> None:
    server = _server()
    async with Client.memory(server, apps=True) as client:
        assert "io.modelcontextprotocol/ui" in client.server_info["capabilities"]["extensions"]
        tools = {t["name"]: t for t in await client.list_tools()}
        assert tools["refresh"]["_meta"]["ui"] == {"resourceUri": VIEW, "visibility": ["app"]}
        assert tools["add"]["_meta"]["ui/resourceUri"] == VIEW
        view = await client.read_app_view(VIEW)
        assert view["html"] == HTML
        assert view["meta"] == {"csp": {"connectDomains": ["https://api.example.com"]}, "prefersBorder": True}
    async with Client.memory(server) as plain:
        assert [t["name"] for t in await plain.list_tools()] == ["add"]
        assert await plain.list_resources() == []
        assert (await plain.call_tool("add", {"a": 2, "b": 3}))["content"][0]["text"] == "5.0"


async def test_a_host_with_apps_knows_which_tools_have_views() -> None:
    http = await _server().serve_http(port=0)
    async with http, Host({"mcpServers": {"calc": {"url": http.url}}}, apps=True) as host:
        tools = {t["name"]: t for t in host.tools()}
        assert tools["calc__add"]["visibleToModel"] is True
        assert tools["calc__refresh"]["visibleToModel"] is False
        view = await host.read_app_view("calc__add")
        assert (view["uri"], view["html"]) == (VIEW, HTML)
        with pytest.raises(ConfigError):
            await host.read_app_view("calc__nothing")


def test_a_view_is_a_ui_uri() -> None:
    with pytest.raises(ConfigError, match="ui://"):
        Server("bad").app_view("https://example.com", HTML)
