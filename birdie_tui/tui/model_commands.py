"""`/model` (list or switch the model for the rest of the session) and `/retry` (run the last
user turn again), kept out of slash.py; the palette lists the same model choices."""

from __future__ import annotations

from typing import Any

MODEL_USAGE = "usage: /model | /model VENDOR[/MODEL] | /model MODEL"


def model_choices(engine: Any) -> list[Any]:
    from birdie_tui.providers.selection import choices

    return choices(engine.provider, engine.options.environ, engine.options.config_file)


def _facts(engine: Any) -> str:
    from birdie_tui.providers.catalog import price_per_million
    from birdie_tui.tui.widgets.format import fmt_tokens

    window = engine.context_window
    price = price_per_million(engine.provider.vendor, engine.provider.model)
    ctx = f"context {fmt_tokens(window, compact=True)}" if window else "context unknown"
    cost = (f"${price[0]:g} in / ${price[1]:g} out per M tokens" if price is not None
            else "price unknown")
    return f"{ctx} · {cost}"


def model_listing(engine: Any) -> str:
    lines = [f"Model: **{engine.model_label}** ({_facts(engine)})", ""]
    for choice in model_choices(engine):
        models = " · ".join(f"`{m}`" for m in choice.models) or "_(name a deployment)_"
        mark = " (current)" if choice.current else ""
        lines.append(f"- **{choice.vendor}**{mark}: {models}")
    lines += ["", "Switch with `/model VENDOR/MODEL`, `/model VENDOR` or `/model MODEL` — "
              "for the rest of this session; vendors need their API key in the environment."]
    return "\n".join(lines)


async def model_command(slash: Any, args: list[str], rest: str) -> None:
    from birdie_tui.providers.config import ConfigError
    from birdie_tui.providers.selection import parse_choice
    from birdie_tui.tui.usage import UsageError
    from birdie_tui.tui.widgets.chat.chat_log import ChatLog

    engine, app = slash.engine, slash.app
    if not rest:
        slash.say(model_listing(engine))
        return
    if len(args) != 1:
        raise UsageError(MODEL_USAGE)
    vendor, model = parse_choice(args[0], engine.provider)
    try:
        label = await engine.switch_model(vendor, model)
    except ConfigError as exc:  # no key for that vendor, unknown vendor: one line, no switch
        app.query_one(ChatLog).add_error(f"/model: {exc}")
        return
    app.refresh_status()
    slash.say(f"Now using **{label}** ({_facts(engine)}) for the rest of this session.")


async def retry_command(slash: Any) -> None:
    from birdie_tui.agent.engine import EngineError
    from birdie_tui.tui.usage import UsageError

    app = slash.app
    if app.turn_running:
        raise UsageError("Birdie is still answering — Esc cancels the running turn.")
    try:
        text = await slash.engine.take_last_turn()
    except EngineError as exc:
        raise UsageError(str(exc)) from None
    slash.say("Retrying your last message.")
    app.start_turn(text)
