"""Sub-agent files: Birdie's AGENT.MD and Markdown agent files (the format, no engine).

Pure: the standard library, PyYAML (through the skills' limited loader) and the store's paths;
never LangChain, LangGraph or the engine (tests/test_import_graph.py). The runner is
`agent/subagents.py`; docs/agents.md describes the files.

- `models.py`: `AgentParam`, `AgentDef`, `AgentProblem`, `AgentFileError`, `AgentLoad`;
- `agent_md.py`: Birdie's AGENT.MD, read as Birdie 0.15.1 reads it;
- `markdown_agent.py`: the common Markdown agent file (Claude Code, OpenCode, goose, ...);
- `fields.py`: the frontmatter's YAML and typed fields, shared by both;
- `loader.py`: the folders in priority order and the files in them;
- `registry.py`: a load's agents by name, a session's grants;
- `render.py`: an agent's tool schema, rendered prompt and output check.
"""
