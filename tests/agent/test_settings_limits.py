"""settings.json's `tool_max_timeout` is the ceiling of a model's `timeout_s`."""

from __future__ import annotations

import json

from birdie_tui.agent.engine import Engine, EngineOptions
from birdie_tui.providers.config import ProviderConfig


async def test_tool_max_timeout_is_the_ceiling_the_model_is_told(skills_dir, isolated_home):
    """A tool without its own `timeout:` offers `timeout_s` up to the setting, not 600 s."""
    (isolated_home / "settings.json").write_text(json.dumps({"tool_max_timeout": 7}))
    engine = Engine(EngineOptions(skills_dirs=[skills_dir],
                                  provider=ProviderConfig(vendor="offline")))
    await engine.start()
    try:
        tools = {tool.name: tool for tool in await engine.toolbox.tools()}
        described = tools["echo_text"].args_schema["properties"]["timeout_s"]["description"]
        assert "max 7" in described
    finally:
        await engine.aclose()
