"""Packages the local engine imports one piece of, registered with their `__init__` not run.

Before the engine is imported, each package below is put in `sys.modules` without running its
`__init__`: its submodules load from the real files as usual, and the first name asked of the
package itself runs the real `__init__` into the same module.

- `langgraph_sdk`: `langgraph/runtime.py` (1.2.x) imports `langgraph_sdk.auth.types.BaseUser`,
  and the package's `__init__` (0.4.x) imports the SDK's client for that: httpx, websockets,
  click and rich's progress bars, ~115 modules and ~5 MiB of RSS the local engine never uses
  (bench/RESULTS.md §30). The remote door's `from langgraph_sdk import get_client` loads it.
  Upstream this is a lazy `get_client` in the SDK's `__init__`.
- `langsmith.types`: langsmith's run trees (imported by langchain-core's tracers) import one
  submodule, `types.run_select_field`, and the package's generated `__init__` imports all ~160
  of langsmith's API models: ~0.12 s of the first answer and ~5 MiB (bench/RESULTS.md §39).
  Upstream this is an import of the submodule that does not need the package.
- `openai.types` and `openai.types.responses`: the OpenAI client (`openai._client` through
  `openai.lib._tools`) imports a few type modules, and these two packages' `__init__`s import
  ~370 more: ~0.24 s of the first answer from an OpenAI-compatible server (bench/RESULTS.md
  §39). They are registered without importing `openai`, whose own `from . import types` then
  binds the registered module.

A package already imported, or not installed, is left alone. tests/service/test_lazy_packages.py
fails when an upgrade makes the engine run an `__init__` anyway: the saving is gone and the entry
can go.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import importlib.util
import sys
import threading
from typing import Any

DEFERRED = ("langgraph_sdk", "langsmith.types", "openai.types", "openai.types.responses")
# Imported first, so that they name their deferred submodule: langsmith's own lazy attribute
# for `types` cannot find a registered module (it asks that module for `types`).
PARENTS_FIRST = ("langsmith",)
_loading = threading.Lock()


def defer_unused_packages() -> None:
    """Register each of `DEFERRED` unrun (see the module)."""
    for parent in PARENTS_FIRST:
        if importlib.util.find_spec(parent) is not None:
            importlib.import_module(parent)
    for name in DEFERRED:
        defer_package(name)


def _spec(name: str) -> importlib.machinery.ModuleSpec | None:
    """The spec of package `name` without importing its parents (`find_spec` would)."""
    top, *rest = name.split(".")
    spec = importlib.util.find_spec(top) if top not in sys.modules else sys.modules[top].__spec__
    for depth in range(1, len(rest) + 1):
        if spec is None or spec.submodule_search_locations is None:
            return None
        spec = importlib.machinery.PathFinder.find_spec(".".join([top, *rest[:depth]]),
                                                         spec.submodule_search_locations)
    return spec


def defer_package(name: str) -> None:
    """Register the package `name` with its `__init__` unrun, unless it is already imported or
    not installed; a parent already imported names it, as an import would."""
    if name in sys.modules:
        return
    spec = _spec(name)
    if spec is None or spec.loader is None or spec.submodule_search_locations is None:
        return
    module = importlib.util.module_from_spec(spec)
    loader = spec.loader

    def package_attribute(attribute: str) -> Any:  # PEP 562: only for names the module lacks
        with _loading:
            if module.__dict__.pop("__getattr__", None) is not None:
                loader.exec_module(module)  # the real __init__, once
        try:
            return module.__dict__[attribute]
        except KeyError:
            raise AttributeError(f"module {name!r} has no attribute {attribute!r}") from None

    module.__dict__["__getattr__"] = package_attribute
    sys.modules[name] = module
    parent, _, child = name.rpartition(".")
    if parent in sys.modules:
        setattr(sys.modules[parent], child, module)
