"""The one place an agent is put together and taken apart.

`AgentParts` assembles, from one `EngineOptions`, what every front end of the agent needs: the
provider and its chat model, settings.json, the skill registry, the MCP manager, toolboxes over
that registry, and the graph (`agent.graph.build_graph`). `aclose()` stops what it started.
The local engine (`agent.engine`) and the LangGraph server (`server.runtime`) both build on it;
an editor-protocol agent, a sub-agent or a scheduled run would too. `agent_context` is the one
function that turns the parts plus a session's choices into the `AgentContext` a run's nodes get.

What is not here belongs to a front end: where sessions and checkpoints live (the engine opens
its stores; a server brings its own checkpointer), and per-session state (grants, approvals).
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, Protocol

from birdie_tui.agent.approvals import ApprovalPolicy
from birdie_tui.agent.graph import AgentContext, build_graph
from birdie_tui.agent.options import EngineOptions, default_skill_dirs, mcp_start_timeout
from birdie_tui.agent.sources import custom_system_prompt
from birdie_tui.agent.toolbox import Toolbox
from birdie_tui.agent_files.loader import default_agent_dirs, load_agents
from birdie_tui.agent_files.models import AgentDef, AgentLoad
from birdie_tui.agent_files.registry import AgentRegistry
from birdie_tui.mcp.given import GIVEN_RETRY_HINT, GivenServers
from birdie_tui.mcp.manager import SKILL_RETRY_HINT, MCPManager
from birdie_tui.modes import LoadingMode
from birdie_tui.providers.config import ProviderConfig, resolve_provider_config
from birdie_tui.providers.facts import ProviderFacts
from birdie_tui.providers.factory import create_chat_model, load_adapter
from birdie_tui.secrets import collect_secrets, remember_config
from birdie_tui.skills.loader import load_skills
from birdie_tui.skills.models import LoadResult
from birdie_tui.skills.policy import SkillPolicy
from birdie_tui.skills.registry import SkillRegistry
from birdie_tui.store import BirdiePaths
from birdie_tui.store.paths import default_user, validate_user
from birdie_tui.store.settings import Settings, load_settings
from birdie_tui.workspace import Workspace

# What a served graph's nodes call to get their run's context (from the run's config).
ContextFor = Callable[[Any], Awaitable[AgentContext]]


class AgentParts(ProviderFacts):
    """Provider, model, settings, skills, MCP servers and toolboxes of one agent.

    The registry starts empty unless `load_skills_now` (the engine loads it in `start`, a
    server at once); the chat model is made by `load_model` (its vendor SDK imported off the
    event loop)."""

    def __init__(self, options: EngineOptions, *, load_skills_now: bool = False):
        env = options.environ
        self.options = options
        self.paths: BirdiePaths = options.paths or BirdiePaths.from_env(env)
        self.user: str = validate_user(options.user or default_user(env))
        self.skill_dirs: list[Path] = options.skills_dirs or default_skill_dirs(self.paths, env)
        self.provider: ProviderConfig = options.provider or resolve_provider_config(
            env, options.config_file)
        # Every key and base_url password this app can know of, masked wherever text leaves it.
        collect_secrets(env, options.config_file)
        remember_config(self.provider)
        settings, self.warnings = load_settings(self.paths)  # the front end reports warnings
        self.settings: Settings = settings
        self.registry = SkillRegistry(load_skills(self.skill_dirs) if load_skills_now
                                      else LoadResult())
        # MCP servers start lazily, on the first model call that needs their tools.
        self.mcp = self.new_mcp_manager()
        # Servers a client gave one session (ACP `mcpServers`): each session its own manager.
        self.given = GivenServers(lambda: self.new_mcp_manager(retry_hint=GIVEN_RETRY_HINT))
        self.model: Any = None
        # Sub-agents: their files (AGENT.MD, Markdown agents) and the models they asked for.
        self.agent_dirs: list[tuple[Path, str]] = default_agent_dirs(
            self.paths, env, Path.cwd(), options.agents_dirs or ())
        self.agents = AgentRegistry(load_agents(self.agent_dirs) if load_skills_now
                                    else AgentLoad(agents=[], problems=[], notes=[]))
        self._agent_models: dict[tuple[Any, ...], Any] = {}

    def new_mcp_manager(self, *, retry_hint: str = SKILL_RETRY_HINT) -> MCPManager:
        """An MCP manager with this agent's logs, timeouts and environment."""
        return MCPManager(self.paths.logs_dir, start_timeout=mcp_start_timeout(self.options),
                          call_timeout=self.options.tool_timeout, environ=self.options.environ,
                          retry_hint=retry_hint)

    # ----------------------------------------------------------------- the model
    async def load_model(self) -> Any:
        """The chat model, made on first call (later calls return it)."""
        if self.model is None:
            await asyncio.to_thread(load_adapter, self.provider.vendor)
            if self.model is None:  # another caller may have made it meanwhile
                self.model = create_chat_model(self.provider)
        return self.model

    async def switch_model(self, config: ProviderConfig) -> None:
        """Use `config`'s vendor and model from now on (the SDK import off the event loop)."""
        await asyncio.to_thread(load_adapter, config.vendor)
        self.model, self.provider = create_chat_model(config), config

    async def model_for(self, agent: AgentDef) -> Any:
        """The chat model `agent` runs on: the session's, or a copy with the agent's model,
        temperature and max_tokens. Its vendor stays the session's (its key, its server):
        an agent that names another vendor fails, as in Birdie."""
        base = await self.load_model()
        model = agent.model if agent.model not in (None, "", "inherit") else None
        if agent.vendor and agent.vendor != self.provider.vendor:
            raise ValueError(f"the agent asks for vendor {agent.vendor!r}, and a sub-agent runs "
                             f"on the session's vendor ({self.provider.vendor})")
        if model is None and agent.temperature is None and agent.max_tokens is None:
            return base
        config = dataclasses.replace(
            self.provider, model=model or self.provider.model,
            temperature=self.provider.temperature if agent.temperature is None
            else float(agent.temperature),
            max_tokens=agent.max_tokens if agent.max_tokens is not None
            else self.provider.max_tokens)
        key = (config.vendor, config.model, config.temperature, config.max_tokens, id(base))
        if key not in self._agent_models:
            self._agent_models[key] = create_chat_model(config)
        return self._agent_models[key]

    def reload_agents(self) -> AgentRegistry:
        """Read the agent files again (a new registry: a running call keeps its agent)."""
        self.agents = AgentRegistry(load_agents(self.agent_dirs))
        return self.agents

    # ----------------------------------------------------------------- tools and graph
    def toolbox(self, policy: Callable[[], SkillPolicy],
                session_id: Callable[[], str | None] = lambda: None) -> Toolbox:
        """A toolbox over this agent's registry and MCP servers, offering what `policy()`
        (read on every call) enables, and the servers given to session `session_id()`."""
        return Toolbox(self.registry, policy, tool_timeout=self.options.tool_timeout,
                       max_call_timeout=self.settings.tool_max_timeout,
                       mcp_tools=self.mcp.tools_for,
                       given=lambda: self.given.of(session_id()))

    @staticmethod
    def graph(checkpointer: Any = None, *, context_for: ContextFor | None = None,
              name: str | None = None) -> Any:
        """The agent graph (one topology: `agent.graph.build_graph`)."""
        return build_graph(checkpointer, context_for=context_for, name=name)

    # ----------------------------------------------------------------- teardown
    async def aclose(self) -> None:
        """Close the model's client (vendor SDKs) and stop the MCP servers."""
        close_model = getattr(self.model, "aclose", None)
        try:
            if close_model is not None:
                await close_model()
        except Exception:  # noqa: BLE001 - closing must go on to the MCP servers
            pass
        await asyncio.gather(self.mcp.aclose(), self.given.aclose())


class ModelFacts(Protocol):
    """What `agent_context` reads of an agent: `AgentParts`, or a front end that shows its
    parts through its own attributes (the engine)."""

    @property
    def model(self) -> Any: ...
    @property
    def paths(self) -> BirdiePaths: ...
    @property
    def context_window(self) -> int | None: ...


def agent_context(parts: ModelFacts, *, toolbox: Toolbox, approvals: ApprovalPolicy,
                  memory: list[str], max_tool_calls: int, loading: LoadingMode,
                  decay_turns: int, max_loaded: int, wire_events: bool = False,
                  workdir: Path | None = None, workspace: Workspace | None = None) -> AgentContext:
    """What the graph's nodes get for one run (runtime context, never checkpointed): the
    parts' model, window and prompt file, with the session's tools, rules and settings, and
    the front end's workspace the turn's tools use, if it gave one."""
    return AgentContext(
        model=parts.model,
        toolbox=toolbox,
        memory=memory,
        approvals=approvals,
        max_tool_calls=max_tool_calls,
        loading=loading,
        decay_turns=decay_turns,
        max_loaded=max_loaded,
        context_window=parts.context_window,
        custom_prompt=custom_system_prompt(parts.paths.home),
        wire_events=wire_events,
        workdir=str(workdir) if workdir is not None else None,
        workspace=workspace,
    )


__all__ = ["AgentParts", "ContextFor", "ModelFacts", "agent_context"]
