"""The engine's import leaves pydantic models unbuilt until first used, and everything after it
as pydantic makes it (birdie_tui/service/local/start.py). Each check runs in a fresh
interpreter: the saving is about what a new process builds."""

from __future__ import annotations

from tests.service.test_lazy_packages import run

MODELS = (
    "import pydantic\n"
    "from pydantic._internal._mock_val_ser import MockValSer\n"
    "def subclasses(cls):\n"
    "    for sub in cls.__subclasses__():\n"
    "        yield sub\n"
    "        yield from subclasses(sub)\n"
    "def unbuilt(module):\n"
    "    return sorted({m.__name__ for m in subclasses(pydantic.BaseModel)\n"
    "                   if m.__module__ == module and isinstance(m.__pydantic_validator__, MockValSer)})\n"
)


def test_the_engine_import_defers_model_building(isolated_home):
    """Models the import defines (the messages among them) wait for their first use, then
    validate and dump as usual; the default is put back, so a model made later is built at
    once. Without the deferral every message model is built by the import and this fails."""
    out = run(isolated_home, MODELS + (
        "import json\n"
        "from birdie_tui.service.local.start import import_engine\n"
        "from pydantic._internal._config import config_defaults\n"
        "import_engine()\n"
        "waiting = unbuilt('langchain_core.messages.ai')\n"
        "from langchain_core.messages import AIMessage\n"
        "message = AIMessage(content='hi', tool_calls=[{'name': 't', 'args': {'a': 1}, 'id': 'c1'}])\n"
        "class Later(pydantic.BaseModel):\n"
        "    n: int\n"
        "print(json.dumps({'waiting': waiting, 'after_use': unbuilt('langchain_core.messages.ai'),\n"
        "    'dump': message.model_dump()['tool_calls'][0]['args'], 'default': config_defaults.get('defer_build'),\n"
        "    'later': not isinstance(Later.__pydantic_validator__, MockValSer)}))\n"))
    assert "AIMessage" in out["waiting"] and "AIMessageChunk" in out["waiting"]
    assert "AIMessage" not in out["after_use"]
    assert out["dump"] == {"a": 1} and out["default"] is False and out["later"] is True


def test_a_bad_value_is_still_refused_after_the_deferred_build(isolated_home):
    """A deferred model still validates: a wrong type is refused with pydantic's error."""
    out = run(isolated_home, (
        "import json, pydantic\n"
        "from birdie_tui.service.local.start import import_engine\n"
        "import_engine()\n"
        "from langchain_core.messages import ToolMessage\n"
        "try:\n"
        "    ToolMessage(content='x', tool_call_id=None)\n"
        "    refused = False\n"
        "except pydantic.ValidationError as exc:\n"
        "    refused = 'tool_call_id' in str(exc)\n"
        "print(json.dumps({'refused': refused}))\n"))
    assert out == {"refused": True}
