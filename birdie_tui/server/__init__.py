"""The Birdie agent served by a LangGraph server (`langgraph dev`, a LangGraph deployment).

`langgraph.json` at the repository root names the graphs: `birdie` (the agent, `graph.py`)
and `birdie_info` (the catalog a remote front end shows, `info.py`). Skills, the provider and
settings come from the server's environment and files (`runtime.py`); checkpoints go to the
server's own checkpointer. Per-thread grants live in the thread's `birdie` metadata.
"""
