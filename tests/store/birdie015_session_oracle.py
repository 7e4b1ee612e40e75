"""Run by the *Birdie 0.1.5* venv's python (not by pytest): Birdie's own session code.

HOME must point at a scratch folder (Birdie keeps sessions in ~/.birdie/sessions).
  python birdie015_session_oracle.py write USER SKILLS_DIR MESSAGE
      SessionManager.create, a turn through Birdie's DynamicAgent on AsyncSqliteSaver (a
      scripted provider answers), touch + save, a memory note.  -> {"id", "file"}
  python birdie015_session_oracle.py read USER SESSION_ID SKILLS_DIR
      SessionManager.load and the history Birdie's graph reads back.
      -> {"session", "messages": [[type, text], ...], "memory": [...]}
"""

import asyncio
import dataclasses
import json
import sys

from langchain_core.messages import AIMessage
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

from birdie.agent.run import DynamicAgent
from birdie.core.llm_provider import LLMProvider
from birdie.core.session import SessionManager


class ScriptedProvider(LLMProvider):
    def supports_tools(self):
        return False

    async def achat(self, messages, tools=None, system_prompt=None, **kwargs):
        return AIMessage(content=f"Birdie 0.1.5 heard: {messages[-1].content}")

    def chat(self, *args, **kwargs):
        raise NotImplementedError

    def stream_chat(self, *args, **kwargs):
        raise NotImplementedError

    async def astream_chat(self, *args, **kwargs):
        raise NotImplementedError
        yield

    def list_models(self):
        return []

    @property
    def model_name(self):
        return "scripted"


async def write(user, skills_dir, message):
    manager = SessionManager()
    session = manager.create(user)
    session.enabled_skills = ["todo"]
    async with AsyncSqliteSaver.from_conn_string(str(manager.db_path(user))) as saver:
        agent = DynamicAgent(ScriptedProvider(), skills_dir=skills_dir, checkpointer=saver)
        await agent.invoke(message, thread_id=session.id)
    session.touch()
    manager.save(session)
    memory = manager.load_user_memory(user)
    memory.add("prefers short answers")
    manager.save_user_memory(memory)
    path = manager.root / user / f"{session.id}.json"
    return {"id": session.id, "file": json.loads(path.read_text(encoding="utf-8"))}


async def read(user, session_id, skills_dir):
    manager = SessionManager()
    session = manager.load(user, session_id)
    async with AsyncSqliteSaver.from_conn_string(str(manager.db_path(user))) as saver:
        agent = DynamicAgent(ScriptedProvider(), skills_dir=skills_dir, checkpointer=saver)
        state = await agent.app.aget_state({"configurable": {"thread_id": session_id}})
    messages = [[m.type, m.content] for m in state.values.get("messages", [])]
    return {"session": dataclasses.asdict(session), "messages": messages,
            "memory": manager.load_user_memory(user).as_strings()}


if __name__ == "__main__":
    command, args = sys.argv[1], sys.argv[2:]
    json.dump(asyncio.run(write(*args) if command == "write" else read(*args)), sys.stdout)
