"""Demo stdio MCP server for the bundled `mcp_demo` skill."""

from mcp.server.fastmcp import FastMCP

# WARNING: the INFO line FastMCP logs per request would fill the log file for nothing.
mcp = FastMCP("birdie-demo", log_level="WARNING")


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
