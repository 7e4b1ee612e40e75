"""The per-turn tool-call limit holds inside one model message too: a model that puts 200 calls
in one message gets the first ones run and an error result for each of the rest, through the
real graph, the real sqlite checkpointer and a real bash tool that leaves a line per run."""

from __future__ import annotations

import textwrap

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult

from birdie_tui.agent.engine import Engine, EngineOptions
from birdie_tui.agent.history import history_problems
from birdie_tui.providers.config import ProviderConfig

from .conftest import collect

COUNTER_SKILL = """
    ---
    name: Counter
    description: Leaves a line per run.
    ---

    ## Tools

    ### count_run
    description: Append one line to the run log.
    entrypoint: bash:echo ran >> {log}
    schema:
      type: object
      properties:
        log: {type: string}
      required: [log]
    """


class BurstModel(BaseChatModel):
    """Sends each scripted batch of count_run calls as one message, then answers in text."""

    batches: list = []
    log: str = ""
    sent: int = 0

    @property
    def _llm_type(self) -> str:
        return "burst"

    def bind_tools(self, tools, **kwargs):
        return self.bind(tools=[t.name for t in tools], **kwargs)

    def _generate(self, messages, stop=None, run_manager=None, tools=None, **kwargs):
        if tools and self.batches:
            calls = [{"name": "count_run", "args": {"log": self.log}, "type": "tool_call",
                      "id": f"call{self.sent + n}"} for n in range(self.batches.pop(0))]
            self.sent += len(calls)
            msg = AIMessage(content="", tool_calls=calls)
        else:
            msg = AIMessage(content=f"done (tools bound: {bool(tools)})")
        return ChatResult(generations=[ChatGeneration(message=msg)])


async def burst_turn(tmp_path, cap: int, batches: list[int]):
    """One turn whose model sends `batches` of calls: (runs on disk, events, history)."""
    skills = tmp_path / "skills"
    (skills / "counter").mkdir(parents=True)
    (skills / "counter" / "SKILL.MD").write_text(textwrap.dedent(COUNTER_SKILL).lstrip())
    log = tmp_path / "runs.log"
    eng = Engine(EngineOptions(skills_dirs=[skills], provider=ProviderConfig(vendor="offline"),
                               max_tool_calls=cap, tool_timeout=20))
    await eng.start()
    try:
        await eng.open_session()
        eng.model = BurstModel(batches=list(batches), log=str(log))
        events = await collect(eng, "go")
        history = await eng.messages()
    finally:
        await eng.aclose()
    runs = log.read_text().count("ran\n") if log.exists() else 0
    return runs, events, history


async def test_one_message_of_200_calls_runs_only_the_limit(tmp_path):
    """200 calls in one message with a limit of 5: exactly 5 run, the other 195 get an error
    result naming the limit, the history has one answer per call and the turn ends in text."""
    runs, events, history = await burst_turn(tmp_path, 5, [200])
    assert runs == 5
    assert history_problems(history) == []
    answers = [m for m in history if isinstance(m, ToolMessage)]
    assert len(answers) == 200
    refused = [m for m in answers if "tool-call limit of this turn (5 calls)" in m.content]
    assert len(refused) == 195 and all(m.status == "error" for m in refused)
    assert [e.type for e in events if e.type == "error"] == []
    assert events[-1].type == "done" and events[-1].text == "done (tools bound: False)"


async def test_earlier_messages_of_the_turn_use_up_the_budget(tmp_path):
    """3 calls, then a message of 10 calls, with a limit of 5: only 2 of the 10 run."""
    runs, _events, history = await burst_turn(tmp_path, 5, [3, 10])
    assert runs == 5
    last = [m for m in history if isinstance(m, ToolMessage)][-10:]
    assert sum("tool-call limit" in m.content for m in last) == 8
    assert history_problems(history) == []


async def test_no_limit_runs_every_call(tmp_path):
    """A limit of 0 (/tool cap off) refuses nothing: all 12 calls of one message run."""
    runs, _events, _history = await burst_turn(tmp_path, 0, [12])
    assert runs == 12
