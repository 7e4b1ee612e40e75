"""`python:` entrypoints: a function from the skill's folder (or any importable module), called
in a worker thread (or awaited, if it is a coroutine function), bounded by the call's timeout.
"""

from __future__ import annotations

import asyncio
import hashlib
import importlib
import importlib.util
import inspect
import json
import sys
from pathlib import Path
from typing import Any, Callable

from .output import TIMEOUT, ToolOutcome


# (file, module) -> (stamp, module): an edited tools.py is re-imported on its next call.
_MODULE_CACHE: dict[tuple[str, str], tuple[tuple[int, int], Any]] = {}


def _load_module(module: str, skill_dir: Path) -> Any:
    """`module` from the skill's own folder if the file is there, else a normal import."""
    rel = Path(*module.split("."))
    for candidate in (skill_dir / rel.with_suffix(".py"), skill_dir / rel / "__init__.py"):
        if candidate.is_file():
            key = (str(candidate.resolve()), module)
            stat = candidate.stat()
            mtime = (stat.st_mtime_ns, stat.st_size)  # two saves within one tick differ in size
            cached = _MODULE_CACHE.get(key)
            if cached and cached[0] == mtime:
                return cached[1]
            digest = hashlib.sha1(str(skill_dir.resolve()).encode()).hexdigest()[:12]
            unique = f"_birdie_skill_{digest}_{module.replace('.', '_')}"
            spec = importlib.util.spec_from_file_location(unique, candidate)
            if spec is None or spec.loader is None:
                raise ImportError(f"cannot load {candidate}")
            mod = importlib.util.module_from_spec(spec)
            sys.modules[unique] = mod
            try:
                spec.loader.exec_module(mod)
            except BaseException:
                sys.modules.pop(unique, None)
                raise
            _MODULE_CACHE[key] = (mtime, mod)
            return mod
    return importlib.import_module(module)


def _resolve(target: str, skill_dir: Path) -> Callable[..., Any]:
    if ":" in target:
        module, func = target.rsplit(":", 1)
    else:
        module, _, func = target.rpartition(".")
    if not module or not func:
        raise ValueError(f"invalid python entrypoint 'python:{target}' (expected module.function)")
    obj: object = _load_module(module, skill_dir)
    for part in func.split("."):
        obj = getattr(obj, part)
    if not callable(obj):
        raise TypeError(f"'{target}' is not callable")
    return obj


async def run_python(target: str, args: dict[str, Any], skill_dir: Path, timeout: float) -> ToolOutcome:
    try:
        return await asyncio.wait_for(_call_python(target, args, skill_dir), timeout)
    except asyncio.TimeoutError:
        return ToolOutcome(f"python:{target} timed out after {timeout:g}s", True, TIMEOUT)


async def _call_python(target: str, args: dict[str, Any], skill_dir: Path) -> ToolOutcome:
    try:
        func = await asyncio.to_thread(_resolve, target, skill_dir)
        if inspect.iscoroutinefunction(func):
            result = await func(**args)
        else:
            result = await asyncio.to_thread(func, **args)
            if inspect.isawaitable(result):
                result = await result
    except asyncio.CancelledError:
        raise
    except Exception as exc:
        return ToolOutcome(f"{type(exc).__name__}: {exc}", True)
    if isinstance(result, str):
        return ToolOutcome(result, False)
    return ToolOutcome(json.dumps(result, default=str, ensure_ascii=False), False)
