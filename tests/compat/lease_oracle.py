"""Run by the *Birdie* venv's python (not by pytest): upstream's skill leases for given histories.

Usage: python lease_oracle.py < cases.json
  cases.json: a JSON list of cases, each
    {"messages": [message dict, ...], "allowed": [name, ...], "aliases": {ident: name} | null,
     "decay": int, "max": int, "cuts": [int, ...]}
  a message dict: {"type": "human"|"ai"|"tool"|"system", "content": str,
                   "tool_calls": [{"name", "args", "id"}] (ai), "tool_call_id", "name", "status" (tool)}
  -> JSON {"version", "module", "results": [[sorted names for messages[:cut] for each cut], ...]}

Each answer is Birdie's own `birdie.agent.graph._loaded_skills_from_history(messages[:cut],
allowed, decay_turns, max_loaded, aliases)`; nothing of birdie-tui is imported here.
"""

import importlib.metadata
import json
import sys

from birdie.agent import graph
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage


def rebuild(spec: dict):
    kind = spec["type"]
    if kind == "human":
        return HumanMessage(content=spec["content"])
    if kind == "system":
        return SystemMessage(content=spec["content"])
    if kind == "ai":
        return AIMessage(content=spec["content"], tool_calls=spec.get("tool_calls") or [])
    if kind == "tool":
        return ToolMessage(content=spec["content"], tool_call_id=spec["tool_call_id"],
                           name=spec.get("name"), status=spec.get("status", "success"))
    raise ValueError(f"unknown message type {kind!r}")


def answer(case: dict) -> list:
    messages = [rebuild(m) for m in case["messages"]]
    return [sorted(graph._loaded_skills_from_history(
        messages[:cut], set(case["allowed"]), decay_turns=case["decay"],
        max_loaded=case["max"], aliases=case["aliases"],
    )) for cut in case["cuts"]]


def main() -> None:
    cases = json.load(sys.stdin)
    json.dump({
        "version": importlib.metadata.version("birdie-agent"),
        "module": graph.__file__,
        "results": [answer(case) for case in cases],
    }, sys.stdout)


if __name__ == "__main__":
    main()
