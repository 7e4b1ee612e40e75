"""Command palette (ctrl+p): the command table's entries, skills, sessions, models, themes and
the everyday key actions, ranked together by fuzzy search."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from functools import partial
from typing import Any

from textual.command import DiscoveryHit, Hit, Hits, Provider

from birdie_tui.text import counted
from birdie_tui.tui.cmds import palette_entries

Entry = tuple[str, Callable[[], Any], str]  # title, what it does, help


class BirdieCommands(Provider):
    """One provider over all of Birdie's commands."""

    def _commands(self) -> list[Entry]:
        screen: Any = self.screen
        if not hasattr(screen, "run_line"):  # opened over another screen
            return []
        birdie = screen.birdie
        out: list[Entry] = [
            ("Browse sessions", screen.action_sessions, "ctrl+s"),
            ("Runs of agents on their own (schedules, watches)", screen.action_runs, "F9"),
            ("New session", screen.action_new_session, "ctrl+n"),
            ("Cancel the running turn", screen.action_cancel_turn, "Esc"),
            ("Toggle skills sidebar", screen.action_toggle_sidebar, "ctrl+b"),
            ("Toggle side panel", screen.action_toggle_panel, "ctrl+t"),
        ]
        out += [(title, partial(screen.run_line, line), line)
                for title, line in palette_entries(started=birdie is not None)]
        out += [(f"Theme: {name}", partial(screen.set_theme, name), "/theme")
                for name in sorted(self.app.available_themes)]
        if birdie is None:
            return out
        for choice in birdie.model_choices():
            for model in choice.models:
                current = choice.current and model == choice.current_model
                out.append((f"Model: {choice.vendor}/{model}",
                            partial(screen.run_line, f"/model {choice.vendor}/{model}"),
                            "current model" if current else "/model — for this session"))
        for row in birdie.skill_rows():
            out.append((f"Toggle skill {row.name} (now {'on' if row.enabled else 'off'})",
                        partial(screen.toggle_skill, row.name), row.description))
        for row in birdie.agent_rows():
            verb = "Disable" if row.enabled else "Enable"
            out.append((f"{verb} agent {row.name}",
                        partial(screen.toggle_agent, row.name, not row.enabled),
                        row.description))
        for row in birdie.session_rows():
            if not row.current:
                out.append((f"Switch to session {row.id} · {row.title}",
                            partial(screen.switch_to, row.id), counted(row.turns, "turn")))
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
