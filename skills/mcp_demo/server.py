"""Demo stdio MCP server for the bundled `mcp_demo` skill."""

from mcp.server.fastmcp import FastMCP

mcp = FastMCP("birdie-demo")


@mcp.tool()
def echo(message: str) -> str:
    """Return the message unchanged."""
    return message


@mcp.tool()
def reverse_string(text: str) -> str:
    """Return the text reversed."""
    return text[::-1]


if __name__ == "__main__":
    mcp.run(transport="stdio")
