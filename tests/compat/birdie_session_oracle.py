"""Run by the *Birdie 0.15* venv's python (not by pytest): Birdie's own session code, driven.

Usage (HOME must point at a scratch folder: Birdie keeps sessions in ~/.birdie/sessions):
  python birdie_session_oracle.py write USER SKILLS_DIR MESSAGE
      Birdie's SessionManager creates a session with grants (`enabled_skills`, `approved_skills`,
      ...), and Birdie's own CLI turn (`BirdieCLI.run_non_interactive`, DynamicAgent, graph,
      AsyncSqliteSaver on `SessionManager.db_path`) runs MESSAGE with a scripted provider that
      calls `todo_create_plan`, then answers; each model call reports usage and a cost.
      -> JSON {"id", "file": the session JSON as written, "stdout": what Birdie printed}
  python birdie_session_oracle.py read USER SESSION_ID SKILLS_DIR
      Birdie's SessionManager.load of the session, and the history Birdie's graph reads back.
      -> JSON {"session": the loaded Session as a dict, "messages": [[type, text], ...]}
"""

import asyncio
import contextlib
import dataclasses
import io
import json
import sys

from langchain_core.messages import AIMessage, HumanMessage
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

from birdie.agent.run import DynamicAgent
from birdie.cli import BirdieCLI
from birdie.core.llm_provider import LLMProvider
from birdie.core.session import SessionManager

GRANTS = {"enabled_skills": ["ToDo"], "disabled_skills": ["ssh"], "enabled_agents": [],
          "disabled_agents": ["summarizer"], "approved_skills": ["Shell", "Filesystem"],
          "approved_acp_tools": ["Always allow Bash"]}


class ScriptedProvider(LLMProvider):
    """Plans with `todo_create_plan` after a user message, then answers; reports usage and cost."""

    _model = "scripted-model"

    def supports_tools(self):
        return True

    async def achat(self, messages, tools=None, system_prompt=None, **kwargs):
        meta = {"cost": {"amount": 0.0125, "currency": "USD"}}
        if isinstance(messages[-1], HumanMessage):
            return AIMessage(content="", response_metadata=meta, tool_calls=[
                {"id": "call_birdie_0151", "name": "todo_create_plan",
                 "args": {"steps": ["pack", "travel"]}}],
                usage_metadata={"input_tokens": 1200, "output_tokens": 34, "total_tokens": 1234})
        return AIMessage(content="Planned by Birdie 0.15.", response_metadata=meta,
                         usage_metadata={"input_tokens": 1300, "output_tokens": 12, "total_tokens": 1312})

    def chat(self, *args, **kwargs):
        raise NotImplementedError

    def stream_chat(self, *args, **kwargs):
        raise NotImplementedError

    async def astream_chat(self, *args, **kwargs):
        raise NotImplementedError
        yield

    def list_models(self):
        return []


async def write(user: str, skills_dir: str, message: str) -> dict:
    manager = SessionManager()
    session = manager.create(user)
    for key, value in GRANTS.items():
        setattr(session, key, list(value))
    manager.save(session)
    printed = io.StringIO()
    async with AsyncSqliteSaver.from_conn_string(str(manager.db_path(user))) as saver:
        agent = DynamicAgent(ScriptedProvider(), skills_dir=skills_dir, checkpointer=saver)
        cli = BirdieCLI(agent, session_manager=manager, session=session, user_id=user,
                        user_memory=manager.load_user_memory(user))
        with contextlib.redirect_stdout(printed):
            await cli.run_non_interactive(message)
    path = manager.root / user / f"{session.id}.json"
    return {"id": session.id, "file": json.loads(path.read_text(encoding="utf-8")),
            "stdout": printed.getvalue()}


async def read(user: str, session_id: str, skills_dir: str) -> dict:
    manager = SessionManager()
    session = manager.load(user, session_id)
    async with AsyncSqliteSaver.from_conn_string(str(manager.db_path(user))) as saver:
        agent = DynamicAgent(ScriptedProvider(), skills_dir=skills_dir, checkpointer=saver)
        state = await agent.app.aget_state({"configurable": {"thread_id": session_id}})
    messages = [[m.type, m.content if isinstance(m.content, str) else json.dumps(m.content)]
                for m in state.values.get("messages", [])]
    return {"session": dataclasses.asdict(session), "messages": messages}


if __name__ == "__main__":
    command, args = sys.argv[1], sys.argv[2:]
    result = asyncio.run(write(*args) if command == "write" else read(*args))
    json.dump(result, sys.stdout)
