"""The acp provider's configuration (Birdie 0.15.1's names kept, args and env added), the prompt
it sends and how the agent's permission requests are answered: no process started."""

from __future__ import annotations

import json
import sys

import pytest
from acp.schema import PermissionOption, ToolCallUpdate
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage

from birdie_tui.providers.acp_client import AgentClient, CallSink
from birdie_tui.providers.acp_prompt import conversation_text
from birdie_tui.providers.acp_turn import TurnSeam
from birdie_tui.providers.config import ConfigError, resolve_provider_config
from birdie_tui.providers.factory import create_chat_model, describe


def test_llm_model_is_the_agents_command_as_in_0_15_1():
    """LLM_VENDOR=acp LLM_MODEL=<command> works as it did for Birdie 0.15.1's users, with no key needed."""
    config = resolve_provider_config({"LLM_VENDOR": "acp", "LLM_MODEL": "claude-agent-acp"})
    assert (config.vendor, config.command, config.api_key) == ("acp", ("claude-agent-acp",), None)
    assert describe(config) == "acp · claude-agent-acp"


def test_no_model_means_0_15_1s_default_agent():
    """Without a model the agent is 0.15.1's default, claude-agent-acp."""
    assert resolve_provider_config({"LLM_VENDOR": "acp"}).command == ("claude-agent-acp",)


def test_a_command_line_in_llm_model_is_split_like_a_shell():
    """A command line with arguments in LLM_MODEL is split as a shell would, quotes kept."""
    config = resolve_provider_config({"LLM_VENDOR": "acp", "LLM_MODEL": "crow-cli acp -d 'a b'"})
    assert config.command == ("crow-cli", "acp", "-d", "a b")


def test_provider_json_with_command_args_env_and_cwd():
    """The provider JSON's command, args, env and cwd reach the config; env stays out of repr."""
    data = {"vendor": "acp", "command": ["npx", "agent"], "args": ["--acp"],
            "env": {"AGENT_TOKEN": "t"}, "cwd": "/srv/work"}
    config = resolve_provider_config({"LLM_PROVIDER_CONFIG": json.dumps(data)})
    assert config.command == ("npx", "agent", "--acp")
    assert (config.env, config.cwd, config.model) == ({"AGENT_TOKEN": "t"}, "/srv/work", "npx")
    assert "AGENT_TOKEN" not in repr(config)  # env may hold keys


def test_command_wins_over_model_and_a_string_command_works():
    """`command` names the program when both are set; `model` stays the label."""
    data = {"vendor": "acp", "model": "label", "command": "gemini --experimental-acp"}
    config = resolve_provider_config({"LLM_PROVIDER_CONFIG": json.dumps(data)})
    assert (config.command, config.model) == (("gemini", "--experimental-acp"), "label")


@pytest.mark.parametrize("data, message", [
    ({"command": 3}, "command must be a string or a list of strings"),
    ({"args": "x"}, "args must be a list of strings"),
    ({"env": {"A": 1}}, "env must be an object of string values"),
    ({"cwd": ["/"]}, "cwd must be a string"),
])
def test_bad_acp_keys_are_one_line_errors(data, message):
    """A mistyped acp key is a one-line ConfigError naming the key."""
    with pytest.raises(ConfigError, match=message):
        resolve_provider_config({"LLM_PROVIDER_CONFIG": json.dumps({"vendor": "acp", **data})})


def test_a_missing_agent_is_a_config_error_naming_it():
    """An agent not on PATH fails when the model is built, naming the command."""
    config = resolve_provider_config({"LLM_VENDOR": "acp", "LLM_MODEL": "no-such-agent-here"})
    with pytest.raises(ConfigError, match="'no-such-agent-here' was not found"):
        create_chat_model(config)


def test_an_agent_found_on_path_builds_a_model_without_starting_it():
    """Building the model starts no process: the agent starts on the first call."""
    config = resolve_provider_config({"LLM_VENDOR": "acp", "LLM_MODEL": sys.executable})
    model = create_chat_model(config)
    assert model._llm_type == "birdie-acp" and model._link is None  # type: ignore[attr-defined]


def test_the_conversation_is_one_text_in_0_15_1s_shape():
    """The history goes to the agent as one text in 0.15.1's Human/Assistant shape."""
    text = conversation_text([
        SystemMessage("You are Birdie."), HumanMessage("list files"),
        AIMessage("", tool_calls=[{"id": "1", "name": "ls", "args": {"path": "."}}]),
        ToolMessage("a.txt", tool_call_id="1", name="ls"), AIMessage("There is a.txt."),
        HumanMessage("thanks")])
    assert text == ('You are Birdie.\n\nHuman: list files\n\nAssistant: [called ls({"path": "."})]'
                    "\n\n[ls result: a.txt]\n\nAssistant: There is a.txt.\n\nHuman: thanks")


OPTIONS = [PermissionOption(option_id="ok", name="Allow", kind="allow_once"),
           PermissionOption(option_id="never", name="Reject", kind="reject_always"),
           PermissionOption(option_id="no", name="Reject", kind="reject_once")]


@pytest.mark.parametrize("mode, chosen", [("auto", "ok"), ("ask", "no"), ("read-only", "no"),
                                          (None, "no")])
async def test_permission_requests_are_answered_by_the_approval_mode(tmp_path, mode, chosen):
    """The agent's own permission requests: auto allows once, ask and read-only (and no turn) reject."""
    client = AgentClient()
    seam = TurnSeam(verdict=lambda *_: ("allow", "", False), mode=mode) if mode else None
    client.sinks["s"] = CallSink(seam, tmp_path)
    reply = await client.request_permission("s", ToolCallUpdate(tool_call_id="t"), OPTIONS)
    assert reply.outcome.option_id == chosen  # type: ignore[union-attr]
