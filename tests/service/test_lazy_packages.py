"""The local engine is imported without `langgraph_sdk`'s HTTP client nor langsmith's ~160 API
models, an OpenAI turn without ~370 of openai's type modules, and each package is whole again the
moment something asks for it (birdie_tui/service/local/lazy_packages.py). Each check runs in a fresh interpreter: the saving is
about what a new process loads."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from birdie_tui.service.local.lazy_packages import DEFERRED
from tests.conftest import clean_env
from tests.providers.wire.conftest import SECRET, VENDORS
from tests.providers.wire.loopback import LoopbackServer

# The SDK client's own imports: none of them is needed by the local engine.
CLIENT_ONLY = ("langgraph_sdk.client", "websockets", "click")


def run(home, code: str, **env: str) -> dict:
    """`code` in a new interpreter; the JSON object it prints last."""
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=clean_env(home) | env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.splitlines()[-1])


def test_the_engine_imports_without_the_sdk_client(isolated_home):
    """The door's engine import (with the offline model) leaves the SDK package's `__init__`
    unrun, so its client and that client's dependencies are not loaded. If a langgraph upgrade
    asks the package for a name, this fails: the saving is gone and its entry can go."""
    out = run(isolated_home, (
        "import json, sys\n"
        "from birdie_tui.service.local.start import import_engine\n"
        "import_engine()\n"
        "import birdie_tui.providers.offline, langgraph.runtime\n"
        "print(json.dumps({'loaded': [m for m in %r if m in sys.modules],\n"
        "                  'init_ran': 'get_client' in vars(sys.modules['langgraph_sdk']),\n"
        "                  'user': langgraph.runtime.BaseUser.__module__}))\n" % (CLIENT_ONLY,)))
    assert out == {"loaded": [], "init_ran": False, "user": "langgraph_sdk.auth.types"}


def test_asking_for_the_package_loads_it_whole(isolated_home):
    """After the engine's import, the remote door's `from langgraph_sdk import get_client`
    (`--server`) gets the real client, the version is the installed one, a submodule still
    imports, and a name the package lacks is still an AttributeError."""
    out = run(isolated_home, (
        "import json, importlib.metadata\n"
        "from birdie_tui.service.local.start import import_engine\n"
        "import_engine()\n"
        "from langgraph_sdk import get_client, get_sync_client\n"
        "from langgraph_sdk.schema import StreamMode\n"
        "import langgraph_sdk\n"
        "try:\n"
        "    langgraph_sdk.no_such_name\n"
        "    missing = 'found'\n"
        "except AttributeError as exc:\n"
        "    missing = str(exc)\n"
        "print(json.dumps({'client': get_client.__module__.startswith('langgraph_sdk.'), 'sync': callable(get_sync_client),\n"
        "    'version': langgraph_sdk.__version__ == importlib.metadata.version('langgraph-sdk'),\n"
        "    'missing': missing}))\n"))
    assert out == {"client": True, "sync": True, "version": True,
                   "missing": "module 'langgraph_sdk' has no attribute 'no_such_name'"}


def test_an_sdk_already_imported_is_left_alone(isolated_home):
    """A process that loaded the SDK first (the LangGraph server, the remote door) keeps the
    module it has."""
    out = run(isolated_home, (
        "import json, langgraph_sdk\n"
        "before = langgraph_sdk\n"
        "from birdie_tui.service.local.start import import_engine\n"
        "import_engine()\n"
        "import sys\n"
        "print(json.dumps({'same': sys.modules['langgraph_sdk'] is before}))\n"))
    assert out == {"same": True}


def test_the_engine_imports_and_answers_without_langsmiths_api_models(isolated_home):
    """Importing the engine, then a whole offline turn through the door, leaves the `__init__`
    of `langsmith.types` unrun: its ~160 generated models are not loaded, only the submodule the
    run trees import. If a langchain or langsmith upgrade asks the package for a name, this
    fails: the saving is gone and its entry can go."""
    out = run(isolated_home, (
        "import asyncio, json, sys\n"
        "from birdie_tui.service import local_birdie\n"
        "async def main():\n"
        "    birdie = local_birdie()\n"
        "    await birdie.start()\n"
        "    kinds = [type(e).__name__ async for e in birdie.send('hello there')]\n"
        "    await birdie.close()\n"
        "    return kinds\n"
        "kinds = asyncio.run(main())\n"
        "types = sys.modules['langsmith.types']\n"
        "print(json.dumps({'answered': 'TurnDone' in kinds,\n"
        "    'init_ran': 'Run' in vars(types),\n"
        "    'models': sorted(m for m in sys.modules if m.startswith('langsmith.types.'))}))\n"))
    assert out == {"answered": True, "init_ran": False,
                   "models": ["langsmith.types.run_select_field"]}


def test_asking_langsmith_for_its_types_loads_them_whole(isolated_home):
    """After the engine's import, `from langsmith.types import Run`, `langsmith.types.Run`
    (through langsmith's own lazy attribute) and a submodule import all get the real models."""
    out = run(isolated_home, (
        "import json\n"
        "from birdie_tui.service.local.start import import_engine\n"
        "import_engine()\n"
        "import langsmith\n"
        "from langsmith.types import Run\n"
        "from langsmith.types.dataset import Dataset\n"
        "print(json.dumps({'same': langsmith.types.Run is Run,\n"
        "    'module': Run.__module__, 'dataset': Dataset.__module__,\n"
        "    'fields': 'id' in Run.model_fields}))\n"))
    assert out == {"same": True, "module": "langsmith.types.run",
                   "dataset": "langsmith.types.dataset", "fields": True}


def test_an_openai_turn_loads_few_of_the_sdks_types(isolated_home):
    """`--print` against a loopback OpenAI-compatible server: the reply streams as before, and
    the `__init__`s of `openai.types` and `openai.types.responses` never run, so only the type
    modules the client needs are loaded (~100 of ~470). If an openai upgrade asks either
    package for a name, this fails: the saving is gone and its entry can go."""
    server = LoopbackServer()
    server.start()
    try:
        server.script(VENDORS["openai"].reply(["Hello ", "from the wire"]))
        out = run(isolated_home, (
            "import json, sys\n"
            "from birdie_tui.cli import main\n"
            "code = main(['--print', 'hi'])\n"
            "print(json.dumps({'code': code,\n"
            "    'ran': [n for n in ('openai.types', 'openai.types.responses')\n"
            "            if '__getattr__' not in vars(sys.modules[n])],\n"
            "    'types': sum(m.startswith('openai.types.') for m in sys.modules)}))\n"),
            OPENAI_API_KEY=SECRET, OPENAI_BASE_URL=f"{server.url}/v1", LLM_VENDOR="openai")
    finally:
        server.stop()
    assert (out["code"], out["ran"]) == (0, [])
    assert out["types"] < 200
    assert server.requests[0].path == "/v1/chat/completions"


def test_asking_openai_for_its_types_loads_them_whole(isolated_home):
    """After the engine's import, the SDK's public names all resolve to the real ones:
    `openai.types.ChatModel`, `from openai.types.responses import Response`, a submodule."""
    out = run(isolated_home, (
        "import json\n"
        "from birdie_tui.service.local.start import import_engine\n"
        "import_engine()\n"
        "import openai\n"
        "from openai.types.responses import Response\n"
        "from openai.types.chat.chat_completion import ChatCompletion\n"
        "print(json.dumps({'model': openai.types.ChatModel is not None,\n"
        "    'response': Response.__module__, 'same': openai.types.responses.Response is Response,\n"
        "    'completion': 'choices' in ChatCompletion.model_fields}))\n"))
    assert out == {"model": True, "response": "openai.types.responses.response", "same": True,
                   "completion": True}


WALK = """
import importlib, json, pkgutil, random, sys
from birdie_tui.service.local import lazy_packages
from birdie_tui.service.local.start import import_engine
seed, top, deferred = int(sys.argv[1]), sys.argv[2], sys.argv[3] == "deferred"
if not deferred:
    lazy_packages.DEFERRED = ()
import_engine()
package = importlib.import_module(top)
failed = []
if top == "openai":
    import birdie_tui.providers.openai_compat
    client = package.AsyncOpenAI(api_key="x", base_url="http://127.0.0.1:9/v1")
    package.AsyncAzureOpenAI(api_key="x", azure_endpoint="http://127.0.0.1:9",
                             api_version="2024-10-21")
    names = sorted(n for n in dir(type(client)) if not n.startswith("_"))
    random.Random(seed).shuffle(names)
    for name in names:
        try:
            getattr(client, name)
        except Exception:
            failed.append(name)
modules = sorted(m.name for m in pkgutil.walk_packages(package.__path__, top + ".",
                                                      onerror=lambda name: None))
random.Random(seed).shuffle(modules)
for name in modules:
    try:
        importlib.import_module(name)
    except BaseException:  # an optional extra that is not installed (numpy, aiohttp, ...)
        failed.append(name)
print(json.dumps({"failed": sorted(failed), "modules": len(modules)}))
"""


def walk(home, seed: int, top: str, mode: str) -> dict:
    proc = subprocess.run([sys.executable, "-c", WALK, str(seed), top, mode],
                          capture_output=True, text=True, env=clean_env(home), timeout=300)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.splitlines()[-1])


@pytest.mark.fuzz
@pytest.mark.parametrize("seed", range(2))
@pytest.mark.parametrize("top", sorted({name.split(".")[0] for name in DEFERRED}))
def test_the_deferred_packages_import_in_any_order(isolated_home, seed, top):
    """Running a deferred `__init__` late changes a package's import order, and a package with
    import cycles can then fail to import (anthropic's does: why it is not deferred). After the
    engine's import, every module of each deferred package's distribution (and, for openai,
    every client resource and the Azure client) imports in shuffled orders exactly as well as
    without the deferral (optional extras that are not installed fail both ways)."""
    plain = walk(isolated_home, seed, top, "plain")
    deferred = walk(isolated_home, seed, top, "deferred")
    assert deferred == plain
    assert plain["modules"] > 20
