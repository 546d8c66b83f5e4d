# A FastMCP server as FastMCP's documentation writes one, unchanged but for its mcpweft import,
# which takes mcpweft's Server under FastMCP's name. The interop tests serve it over stdio to the
# official MCP Python SDK's client.
from dataclasses import dataclass
from typing import Annotated

from pydantic import Field

# was: from fastmcp import Context, FastMCP, Image
from mcpweft import Context, Image
from mcpweft import Server as FastMCP

mcp = FastMCP("Demo 🚀", instructions="A demo server: arithmetic, greetings and a progress report.")


@mcp.tool
def add(a: int, b: int) -> int:
    """Add two numbers"""
    return a + b


@mcp.tool
def scale(
    values: list[float],
    factor: Annotated[float, Field(description="The factor to multiply by", ge=0, le=100)] = 2.0,
) -> list[float]:
    """Multiply every value by a factor"""
    return [v * factor for v in values]


@dataclass
class Weather:
    city: str
    temperature: float
    conditions: str


@mcp.tool
def weather(city: str) -> Weather:
    """Get the weather of a city"""
    return Weather(city=city, temperature=21.5, conditions="sunny")


@mcp.tool
async def process(items: list[str], ctx: Context) -> str:
    """Process items, reporting progress"""
    await ctx.info(f"Processing {len(items)} items", logger_name="demo")
    for i, _item in enumerate(items):
        await ctx.report_progress(progress=i + 1, total=len(items))
    return f"Processed {len(items)} items"


@mcp.tool
def logo() -> Image:
    """The server's logo"""
    return Image(data=b"\x89PNG\r\n\x1a\n", format="png")


@mcp.resource("config://version")
def get_version() -> str:
    return "2.0.1"


@mcp.resource("greeting://{name}")
def get_greeting(name: str) -> str:
    """Get a personalized greeting"""
    return f"Hello, {name}!"


@mcp.prompt
def summarize(text: str) -> str:
    """Ask for a summary"""
    return f"Please summarize the following text:\n\n{text}"


if __name__ == "__main__":
    mcp.run()
