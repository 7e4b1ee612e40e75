"""`langgraph_sdk` without its HTTP client until something asks for the package itself.

`langgraph/runtime.py` (1.2.x) imports `langgraph_sdk.auth.types.BaseUser` at module level, and
`langgraph_sdk/__init__.py` (0.4.x) imports the SDK's client for that: httpx, websockets, click
and rich's progress bars, ~115 modules and ~5 MiB of RSS the local engine never uses
(docs/performance.md; bench/RESULTS.md §30).
So before the engine is imported, the package is registered with its `__init__` not run: its
submodules (`auth.types`, `schema`) load from the real files as usual, and the first name asked
of the package itself (`from langgraph_sdk import get_client`: the remote door) runs the real
`__init__` into the same module. Upstream this is a lazy `get_client` in the SDK's `__init__`.
tests/service/test_lazy_sdk.py fails if an upgrade makes the engine run it anyway.
"""

from __future__ import annotations

import importlib.util
import sys
import threading
from typing import Any

PACKAGE = "langgraph_sdk"
_loading = threading.Lock()


def defer_sdk_client() -> None:
    """Register `langgraph_sdk` unrun, unless it is already imported (or not installed)."""
    if PACKAGE in sys.modules:
        return
    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or spec.loader is None or spec.submodule_search_locations is None:
        return
    module = importlib.util.module_from_spec(spec)
    loader = spec.loader

    def package_attribute(name: str) -> Any:  # PEP 562: only for names the module lacks
        with _loading:
            if module.__dict__.pop("__getattr__", None) is not None:
                loader.exec_module(module)  # the real __init__, once
        try:
            return module.__dict__[name]
        except KeyError:
            raise AttributeError(f"module {PACKAGE!r} has no attribute {name!r}") from None

    module.__dict__["__getattr__"] = package_attribute
    sys.modules[PACKAGE] = module
