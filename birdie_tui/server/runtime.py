"""The process-wide pieces of a served Birdie agent, built once on first use.

A LangGraph server imports the graph module and runs many threads' runs in one process: the
skill registry, the chat model, the MCP servers, the settings and the memory file are the
server's (its `BIRDIE_HOME`, `BIRDIE_SKILLS_DIR`, provider variables or `BIRDIE_CONFIG_FILE`),
shared by every run. What differs per thread (grants, approval rules and mode) is never kept
here: `toolbox()` hands out one Toolbox per set of grants, whose policy never changes.
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections import OrderedDict
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from birdie_tui.agent.builder import AgentParts
from birdie_tui.agent.options import EngineOptions
from birdie_tui.agent.sources import custom_system_prompt
from birdie_tui.agent.toolbox import Toolbox
from birdie_tui.mcp.manager import MCPManager
from birdie_tui.modes import ApprovalMode, LoadingMode
from birdie_tui.providers.config import ProviderConfig
from birdie_tui.skills.policy import SkillPolicy
from birdie_tui.skills.registry import SkillRegistry
from birdie_tui.store import BirdiePaths, MemoryStore
from birdie_tui.store.paths import ensure_dir
from birdie_tui.store.settings import Settings

CONFIG_FILE_VAR = "BIRDIE_CONFIG_FILE"  # the server's `--config FILE` (provider JSON)
TOOL_TIMEOUT = 120.0  # seconds, as the CLI's default
TOOLBOXES = 64  # toolboxes kept (one per distinct set of grants in use)


class BirdieRuntime:
    """The serving process's agent (built by `agent.builder`, as the local engine's is), its
    memory, and the toolboxes its threads' grants call for."""

    def __init__(self, environ: Mapping[str, str] | None = None, workdir: Path | None = None):
        env = dict(os.environ if environ is None else environ)
        self.environ = env
        # Tools run in the server's current directory; approvals and project instructions
        # look there too.
        self.workdir = workdir or Path.cwd()
        config_file = Path(env[CONFIG_FILE_VAR]).expanduser() if env.get(CONFIG_FILE_VAR) \
            else None
        # Skills are read now: a server has no `start` to defer them to.
        self.agent = AgentParts(EngineOptions(environ=env, config_file=config_file,
                                              tool_timeout=TOOL_TIMEOUT), load_skills_now=True)
        self.memory = MemoryStore(self.paths, self.user)
        # Made now, off the event loop: the MCP manager makes it on its first start otherwise.
        ensure_dir(self.paths.logs_dir)
        self._toolboxes: OrderedDict[tuple[Any, ...], Toolbox] = OrderedDict()
        self._child_base: Any = None  # the local topology, compiled once (see child_graph)
        self._own_saver: Any = None  # for children of a graph run without a checkpointer

    # ----------------------------------------------------------------- the built parts
    @property
    def paths(self) -> BirdiePaths:
        return self.agent.paths

    @property
    def user(self) -> str:
        return self.agent.user

    @property
    def provider(self) -> ProviderConfig:
        return self.agent.provider

    @property
    def settings(self) -> Settings:
        return self.agent.settings

    @property
    def warnings(self) -> list[str]:
        return self.agent.warnings

    @property
    def registry(self) -> SkillRegistry:
        return self.agent.registry

    @property
    def mcp(self) -> MCPManager:
        return self.agent.mcp

    @property
    def model_label(self) -> str:
        return self.agent.model_label

    @property
    def context_window(self) -> int | None:
        return self.agent.context_window

    @property
    def price(self) -> tuple[float, float, float] | None:
        return self.agent.price

    async def chat_model(self) -> Any:
        """The chat model, built on first use (the vendor SDK import runs off the loop)."""
        return await self.agent.load_model()

    # ----------------------------------------------------------------- per run
    def toolbox(self, enabled: list[str], disabled: list[str], *, loading: LoadingMode,
                decay_turns: int) -> Toolbox:
        """The Toolbox for these grants and loading settings. Runs with the same ones share
        it (its caches are what make a call cheap); its policy is fixed at creation, so two
        threads with different grants never see each other's."""
        policy = SkillPolicy(enabled, disabled)
        key = (tuple(policy.enabled_names), tuple(policy.disabled_names), loading, decay_turns)
        box = self._toolboxes.get(key)
        if box is None:
            box = self.agent.toolbox(lambda: policy)
            box.loading, box.decay_turns = loading, decay_turns
            self._toolboxes[key] = box
            while len(self._toolboxes) > TOOLBOXES:
                self._toolboxes.popitem(last=False)
        self._toolboxes.move_to_end(key)
        return box

    def child_graph(self, checkpointer: Any) -> Any:
        """The graph sub-agents run on: the local topology (each child run brings its own
        context), with `checkpointer`, the server's (a copy per call: copying a compiled
        graph costs next to nothing, and a server may hand out more than one saver)."""
        if self._child_base is None:
            self._child_base = self.agent.graph()
        if checkpointer is None:  # a graph driven without one (a test): a saver of our own
            if self._own_saver is None:
                from langgraph.checkpoint.memory import InMemorySaver

                self._own_saver = InMemorySaver()
            checkpointer = self._own_saver
        return self._child_base.copy(update={"checkpointer": checkpointer})

    @property
    def approval_ceiling(self) -> ApprovalMode:
        """The most permissive approval mode a thread may run in: the operator's
        `approval_mode` when the server's settings.json sets one (a client's auto-approve
        cannot raise it), else any ("auto")."""
        settings = self.settings
        return settings.approval_mode if "approval_mode" in settings.model_fields_set else "auto"

    def memory_notes(self) -> list[str]:
        return [entry.content for entry in self.memory.entries()]

    def custom_prompt(self) -> str:
        return custom_system_prompt(self.paths.home)

    async def aclose(self) -> None:
        """Stop the MCP servers and the model's client (the builder's one teardown)."""
        await self.agent.aclose()


_runtime: BirdieRuntime | None = None
_building = threading.Lock()  # the first runs may arrive together, each in its own thread


def shared_runtime() -> BirdieRuntime:
    """The process's runtime, built once, by the first run that needs it."""
    global _runtime
    with _building:
        if _runtime is None:
            _runtime = BirdieRuntime()
        return _runtime


def install_runtime(rt: BirdieRuntime | None) -> BirdieRuntime | None:
    """Make `rt` the process's runtime (None: build one on next use); returns the one before
    (a test drives the graph in-process with a runtime of its own)."""
    global _runtime
    before, _runtime = _runtime, rt
    return before


async def ashared_runtime() -> BirdieRuntime:
    """`shared_runtime()` from the event loop: the first build (skill folders scanned, files
    read) runs in a thread, as a server's event loop must never block."""
    return _runtime if _runtime is not None else await asyncio.to_thread(shared_runtime)


async def close_runtime() -> None:
    """Stop what the runs started (the server's shutdown: see `app.py`)."""
    global _runtime
    rt, _runtime = _runtime, None
    if rt is not None:
        await rt.aclose()


__all__ = ["BirdieRuntime", "ashared_runtime", "close_runtime", "install_runtime",
           "shared_runtime"]
