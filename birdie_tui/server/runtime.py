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

from birdie_tui.agent.options import EngineOptions, default_skill_dirs, mcp_start_timeout
from birdie_tui.agent.sources import custom_system_prompt
from birdie_tui.agent.toolbox import Toolbox
from birdie_tui.mcp.manager import MCPManager
from birdie_tui.providers.config import resolve_provider_config
from birdie_tui.providers.facts import ProviderFacts
from birdie_tui.providers.factory import create_chat_model, load_adapter
from birdie_tui.secrets import collect_secrets, remember_config
from birdie_tui.skills.loader import load_skills
from birdie_tui.skills.policy import SkillPolicy
from birdie_tui.skills.registry import SkillRegistry
from birdie_tui.store import BirdiePaths, MemoryStore
from birdie_tui.store.paths import default_user, ensure_dir, validate_user
from birdie_tui.store.settings import load_settings

CONFIG_FILE_VAR = "BIRDIE_CONFIG_FILE"  # the server's `--config FILE` (provider JSON)
TOOL_TIMEOUT = 120.0  # seconds, as the CLI's default
TOOLBOXES = 64  # toolboxes kept (one per distinct set of grants in use)


class BirdieRuntime(ProviderFacts):
    """Skills, model, MCP manager, settings and memory of the serving process."""

    def __init__(self, environ: Mapping[str, str] | None = None, workdir: Path | None = None):
        env = dict(os.environ if environ is None else environ)
        self.environ = env
        # Tools run in the server's current directory; approvals and project instructions
        # look there too.
        self.workdir = workdir or Path.cwd()
        self.paths = BirdiePaths.from_env(env)
        self.user = validate_user(default_user(env))
        self.skill_dirs = default_skill_dirs(self.paths, env)
        config_file = Path(env[CONFIG_FILE_VAR]).expanduser() if env.get(CONFIG_FILE_VAR) \
            else None
        self.provider = resolve_provider_config(env, config_file)
        # Every key the server knows of is masked in tool output and errors, as locally.
        collect_secrets(env, config_file)
        remember_config(self.provider)
        self.settings, self.warnings = load_settings(self.paths)
        self.memory = MemoryStore(self.paths, self.user)
        self.registry = SkillRegistry(load_skills(self.skill_dirs))
        # Made now, off the event loop: the MCP manager makes it on its first start otherwise.
        ensure_dir(self.paths.logs_dir)
        self.mcp = MCPManager(self.paths.logs_dir, call_timeout=TOOL_TIMEOUT, environ=env,
                              start_timeout=mcp_start_timeout(EngineOptions(environ=env)))
        self._model: Any = None
        self._toolboxes: OrderedDict[tuple[Any, ...], Toolbox] = OrderedDict()

    # ----------------------------------------------------------------- model
    async def chat_model(self) -> Any:
        """The chat model, built on first use (the vendor SDK import runs off the loop)."""
        if self._model is None:
            await asyncio.to_thread(load_adapter, self.provider.vendor)
            if self._model is None:
                self._model = create_chat_model(self.provider)
        return self._model

    # ----------------------------------------------------------------- per run
    def toolbox(self, enabled: list[str], disabled: list[str], *, loading: str,
                decay_turns: int) -> Toolbox:
        """The Toolbox for these grants and loading settings. Runs with the same ones share
        it (its caches are what make a call cheap); its policy is fixed at creation, so two
        threads with different grants never see each other's."""
        policy = SkillPolicy(enabled, disabled)
        key = (tuple(policy.enabled_names), tuple(policy.disabled_names), loading, decay_turns)
        box = self._toolboxes.get(key)
        if box is None:
            box = Toolbox(self.registry, lambda: policy, tool_timeout=TOOL_TIMEOUT,
                          max_call_timeout=self.settings.tool_max_timeout,
                          mcp_tools=self.mcp.tools_for)
            box.loading, box.decay_turns = loading, decay_turns
            self._toolboxes[key] = box
            while len(self._toolboxes) > TOOLBOXES:
                self._toolboxes.popitem(last=False)
        self._toolboxes.move_to_end(key)
        return box

    @property
    def approval_ceiling(self) -> str:
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
        """Stop the MCP servers and the model's client."""
        close_model = getattr(self._model, "aclose", None)
        try:
            if close_model is not None:
                await close_model()
        except Exception:  # noqa: BLE001 - closing goes on to the MCP servers
            pass
        await self.mcp.aclose()


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
