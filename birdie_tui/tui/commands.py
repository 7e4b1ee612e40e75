"""Command palette (ctrl+p): skills, sessions, themes and the everyday actions."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from functools import partial
from typing import Any

from textual.command import DiscoveryHit, Hit, Hits, Provider


class BirdieCommands(Provider):
    """One provider over all of Birdie's commands, so they rank together with fuzzy search."""

    def _commands(self) -> list[tuple[str, Callable[[], Any], str]]:
        app: Any = self.app
        engine = getattr(app, "engine", None)
        out: list[tuple[str, Callable[[], Any], str]] = [
            ("Browse sessions", app.action_sessions, "ctrl+s"),
            ("New session", app.action_new_session, "ctrl+n"),
            ("Cancel the running turn", app.action_cancel_turn, "Esc"),
            ("Toggle skills sidebar", app.action_toggle_sidebar, "ctrl+b"),
            ("Toggle side panel", app.action_toggle_panel, "ctrl+t"),
            ("Clear the chat", partial(app.run_slash, "/clear"), "/clear"),
            ("Reload skills", partial(app.run_slash, "/skill reload"), "/skill reload"),
            ("Show help", partial(app.run_slash, "/help"), "/help"),
        ]
        for mode in ("full", "short", "off"):
            out.append((f"Tool output: {mode}", partial(app.run_slash, f"/tool output {mode}"),
                        f"/tool output {mode}"))
        for name in sorted(app.available_themes):
            out.append((f"Theme: {name}", partial(app.set_theme, name), "/theme"))
        if engine is None or engine.session is None:
            return out
        out.append(("Retry the last turn", partial(app.run_slash, "/retry"), "/retry"))
        out += _model_commands(app, engine)
        for skill in engine.skills():
            state = "on" if engine.is_enabled(skill) else "off"
            out.append((f"Toggle skill {skill.name} (now {state})",
                        partial(app.toggle_skill, skill.name), skill.description))
        for meta in engine.list_sessions():
            if meta.id != engine.session.id:
                title = meta.title or "(untitled)"
                out.append((f"Switch to session {meta.id} · {title}",
                            partial(_switch, app, meta.id), f"{meta.turns} turns"))
        return out

    async def discover(self) -> Hits:
        for text, command, help_text in self._commands()[:12]:
            yield DiscoveryHit(text, command, help=help_text)

    async def search(self, query: str) -> AsyncIterator[Hit]:
        matcher = self.matcher(query)
        for text, command, help_text in self._commands():
            score = matcher.match(text)
            if score > 0:
                yield Hit(score, matcher.highlight(text), command, help=help_text)


def _switch(app: Any, session_id: str) -> None:
    # Build the coroutine only when chosen: an unchosen hit must not leave one un-awaited.
    app.sessions.run(app.sessions.switch(session_id))


def _model_commands(app: Any, engine: Any) -> list[tuple[str, Callable[[], Any], str]]:
    from birdie_tui.tui.model_commands import model_choices

    out: list[tuple[str, Callable[[], Any], str]] = []
    for choice in model_choices(engine):
        for model in choice.models:
            current = choice.current and model == engine.provider.model
            out.append((f"Model: {choice.vendor}/{model}",
                        partial(app.run_slash, f"/model {choice.vendor}/{model}"),
                        "current model" if current else "/model — for this session"))
    return out
