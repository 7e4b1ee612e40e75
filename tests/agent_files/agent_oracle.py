"""Run by Birdie 0.15.1's own interpreter (test_agent_md_compat.py): reads JSON cases on stdin,
prints what 0.15.1's own code makes of each: its parse, tool schema, rendered prompt and output
check. Standard library and Birdie only."""

import json
import sys

from birdie.core.agent_loader import parse_agent_markdown
from birdie.core.agent_runner import _input_schema, parse_agent_output, render_agent_prompt


def one(case):
    try:
        agent = parse_agent_markdown(case["text"])
    except Exception as exc:  # what 0.15.1's discovery prints and skips
        return {"error": f"{type(exc).__name__}: {exc}"}
    return {
        "agent": agent.model_dump(),
        "schema": _input_schema(agent.input_params),
        "prompts": [render_agent_prompt(agent, p) for p in case["params"]],
        "outputs": [list(parse_agent_output(agent, r)) for r in case["replies"]],
    }


print(json.dumps([one(c) for c in json.load(sys.stdin)]))
