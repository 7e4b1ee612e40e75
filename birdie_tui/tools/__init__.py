"""Tools: what runs a skill's tools once `skills/` has read them from SKILL.MD.

- `entrypoints.py`: a tool call run (`bash:`, `http:`, `python:`), its arguments checked first
  against the tool's schema (`skills/arguments.py`), never raising for a tool failure;
- `bash_args.py`, `bash_lexer.py`, `bash_syntax.py`: a `bash:` template read once, its values
  passed out of band (environment variables), never as shell text;
- `python_entry.py`: `python:` entrypoints, in a worker thread, bounded by the call's timeout;
- `call_limits.py`: the per-call `timeout_s` and the tool block's `retries:`;
- `output.py`: a tool's output read in bounded memory and cut to what the model is shown;
- `reaper.py` + `reaper_child.py`: tool processes never outlive the app, SIGKILL included;
- `adapter.py`: a skill tool as a LangChain `StructuredTool` (the only LangChain import here).
- `workspace_calls.py`: a `bash:` call written, read or run through the front end's workspace
  (`birdie_tui/workspace.py`) when the turn has one, reading a call's path, new text and edit
  as the approval diff does (`birdie_tui/file_args.py`).

`skills/` (the file format) never imports this package; it imports `skills/` for the tool
models. MCP tools are `mcp/`'s; they share only `output.py`'s cap.
"""
