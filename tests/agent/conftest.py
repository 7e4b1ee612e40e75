from __future__ import annotations

import textwrap
import uuid
from pathlib import Path

import pytest
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration, ChatResult

from birdie_tui.agent.engine import Engine, EngineOptions
from birdie_tui.providers.config import ProviderConfig

SKILLS = {
    "echoer/SKILL.MD": """
        ---
        name: Echoer
        description: Echo text back.
        tags: [text]
        ---

        ## Tools

        ### echo_text
        description: Print the given text.
        entrypoint: bash:printf '%s' {text}
        schema:
          type: object
          properties:
            text:
              type: string
          required: [text]

        ### fail_hard
        description: Always fails.
        entrypoint: bash:echo broken >&2; exit 3
        schema:
          type: object
          properties: {}

        ### slow
        description: Sleeps for a long time (leaves a marker once it runs).
        entrypoint: bash:touch "$BIRDIE_HOME/slow.started"; sleep 30
        schema:
          type: object
          properties: {}
        """,
    "guarded/SKILL.MD": """
        ---
        name: Guarded
        description: A tool that asks first.
        ---

        ## Tools

        ### touch_file
        description: Create a file.
        entrypoint: bash:touch {path}
        schema:
          type: object
          properties:
            path: {type: string}
          required: [path]

        ## Permissions
        require_approval: true
        """,
    "ssh/SKILL.MD": """
        ---
        name: ssh
        description: SSH know-how.
        triggers: [ssh, remote server]
        ---
        # SSH
        Use keys, not passwords.
        """,
    "planner/SKILL.MD": """
        ---
        name: planner
        description: Plan step by step.
        always_inject: true
        ---
        Think in small steps.

        ## Tools

        ### noop
        description: Do nothing.
        entrypoint: bash:true
        schema: {type: object, properties: {}}
        """,
    "quiet/SKILL.MD": """
        ---
        name: Quiet
        description: Off unless asked for.
        enabled_by_default: false
        ---

        ## Tools

        ### hush
        description: Say nothing.
        entrypoint: bash:true
        schema: {type: object, properties: {}}
        """,
    "helper/SKILL.md": """
        ---
        name: helper
        description: An Agent Skill with a reference file.
        ---
        Always answer with care.
        """,
    "helper/references/notes.md": "reference notes\n",
}


def write_skills(root: Path) -> Path:
    for rel, text in SKILLS.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip())
    return root


@pytest.fixture
def skills_dir(tmp_path) -> Path:
    return write_skills(tmp_path / "skills")


@pytest.fixture
async def engine(skills_dir):
    eng = Engine(EngineOptions(skills_dirs=[skills_dir], provider=ProviderConfig(vendor="offline"),
                               tool_timeout=10))
    await eng.start()
    await eng.open_session()
    yield eng
    await eng.aclose()


async def collect(engine, text, **kw):
    return [event async for event in engine.run_turn(text, **kw)]


async def retry(engine, **kw):
    """What `/retry` does: take the last turn back, run its text again."""
    return await collect(engine, await engine.take_last_turn(), **kw)


def history_tokens(messages) -> tuple[int, int]:
    """(input, output) tokens of every model call in a history, from its usage_metadata."""
    usage = [m.usage_metadata or {} for m in messages if m.type == "ai"]
    return (sum(int(u.get("input_tokens", 0) or 0) for u in usage),
            sum(int(u.get("output_tokens", 0) or 0) for u in usage))


async def cancel_during_tool(engine, *, settle: float = 0.0) -> None:
    """Start a turn that calls the slow tool and cancel it once the call has started (after
    `settle` seconds more), waiting until the cancelled turn has finished."""
    import asyncio

    started = asyncio.Event()

    async def consume():
        async for event in engine.run_turn("call slow"):
            if event.type == "tool_call":
                started.set()

    task = asyncio.create_task(consume())
    await asyncio.wait_for(started.wait(), 10)
    if settle:
        await asyncio.sleep(settle)
    task.cancel()
    try:
        await task
    except asyncio.CancelledError:
        pass


class LoopingModel(BaseChatModel):
    """Calls echo_text whenever tools are bound, until it has made `stop_after` calls."""

    stop_after: int = 1_000
    made: int = 0

    @property
    def _llm_type(self) -> str:
        return "looping"

    def bind_tools(self, tools, **kwargs):
        return self.bind(tools=[t.name for t in tools], **kwargs)

    def _generate(self, messages, stop=None, run_manager=None, tools=None, **kwargs):
        if tools and self.made < self.stop_after:
            self.made += 1
            msg = AIMessage(content="", tool_calls=[{"name": "echo_text", "id": uuid.uuid4().hex,
                                                     "args": {"text": f"call {self.made}"}}])
        else:
            msg = AIMessage(content=f"answered after {self.made} calls")
        return ChatResult(generations=[ChatGeneration(message=msg)])


# Agent files the sub-agent tests run (engine and TUI alike), written into a folder by
# `write_agents`: each a Birdie AGENT.MD whose prompt drives the offline model.
AGENTS = {
    "repeater": """
        ---
        name: Repeater
        description: Repeats a text.
        ---

        ## Input

        ### text
        type: string
        description: What to repeat
        required: true

        ## Prompt

        Please repeat: {{ text }}
        """,
    "toucher": """
        ---
        name: Toucher
        description: Creates a file (a tool that asks first).
        allowed_skills: [Guarded]
        ---

        ## Input

        ### path
        type: string

        ## Prompt

        call touch_file {"path": "{{ path }}"}
        """,
    "echoing": """
        ---
        name: Echoing
        description: Echoes through a tool it may not use.
        allowed_skills: [planner]
        ---

        ## Prompt

        call echo_text {"text": "not mine"}
        """,
    "sleeper": """
        ---
        name: Sleeper
        description: Runs the slow tool.
        allowed_skills: [Echoer]
        ---

        ## Prompt

        call slow
        """,
    "shaped": """
        ---
        name: Shaped
        description: Answers with declared outputs.
        ---

        ## Input

        ### text
        type: string

        ## Output

        ### summary
        type: string
        description: The summary

        ## Prompt

        {"summary": "{{ text }}"}
        """,
    "looper": """
        ---
        name: Looper
        description: Calls a tool with a tiny step budget.
        allowed_skills: [Echoer]
        recursion_limit: 1
        ---

        ## Prompt

        call echo_text {"text": "once"}
        """,
}


def write_agents(root: Path, extra: dict[str, str] | None = None) -> Path:
    for folder, text in {**AGENTS, **(extra or {})}.items():
        path = root / folder / "AGENT.MD"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip())
    return root
