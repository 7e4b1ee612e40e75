"""FastMCP over HTTP for tests: `http_server.py sse|streamable-http PORT [TOKEN]`.
With TOKEN, requests must carry `Authorization: Bearer TOKEN`."""

import sys

from mcp.server.fastmcp import FastMCP

transport, port = sys.argv[1], int(sys.argv[2])
token = sys.argv[3] if len(sys.argv) > 3 else None
mcp = FastMCP("http-lab", host="127.0.0.1", port=port, log_level="WARNING")


@mcp.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


if __name__ == "__main__":
    if token is None:
        mcp.run(transport=transport)
    else:
        import uvicorn
        from starlette.responses import JSONResponse

        app = mcp.sse_app() if transport == "sse" else mcp.streamable_http_app()

        async def guarded(scope, receive, send):
            if scope["type"] == "http":
                headers = dict(scope["headers"])
                if headers.get(b"authorization") != f"Bearer {token}".encode():
                    await JSONResponse({"error": "unauthorized"}, status_code=401)(
                        scope, receive, send)
                    return
            await app(scope, receive, send)

        uvicorn.run(guarded, host="127.0.0.1", port=port, log_level="warning")
