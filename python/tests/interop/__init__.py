"""Interoperability tests with the official MCP Python SDK (the `mcp` package)."""
