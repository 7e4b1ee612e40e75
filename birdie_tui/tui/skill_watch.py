"""Keeping the app in step with the skills on disk and their MCP servers: the live-reload
worker, reload toasts, and one toast per MCP server failure. Widgets are refreshed through the
app; the engine does the reloading."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from birdie_tui.text import one_line

if TYPE_CHECKING:
    from birdie_tui.tui.app import BirdieApp


class SkillWatch:
    def __init__(self, app: BirdieApp) -> None:
        self.app = app
        self.mcp_failures_seen: set[str] = set()

    def start(self) -> None:
        """Follow the skills directories for the app's life (unless BIRDIE_WATCH=0)."""
        if self.app.environ.get("BIRDIE_WATCH", "1").strip().lower() in ("0", "off", "no"):
            return
        self.app.run_worker(self._watch(), group="skill-watcher", exit_on_error=False)

    async def _watch(self) -> None:
        from birdie_tui.skills.watcher import watch_skill_dirs
        from birdie_tui.store.logfile import log_to_file

        engine = self.app.engine
        log_to_file(engine.paths.logs_dir)
        try:
            async for touched in watch_skill_dirs(engine.skill_dirs):
                await self.apply(touched)
        except Exception as exc:  # noqa: BLE001 - reload is a convenience, never fatal
            self.app.notify(f"Live reload stopped: {one_line(exc)}. /skill reload still works.",
                            title="Skills", severity="warning", timeout=10)

    async def apply(self, touched: Any = (), *, forced: bool = False) -> None:
        """Rescan the skills, refresh the sidebar and say what changed in a toast."""
        app, engine = self.app, self.app.engine
        if engine is None:
            return
        try:
            report = await engine.reload_skills_async(touched)
        except Exception as exc:  # noqa: BLE001
            app.notify(f"Skill reload failed: {one_line(exc)}", title="Skills",
                       severity="error")
            return
        app.refresh_skills()
        if report.empty and not forced:
            return
        trouble = bool(report.broken or report.new_errors)
        text = report.summary() if not report.empty else \
            f"Rescanned: {len(engine.skills())} skills, no changes."
        app.notify(text, title="Skills", timeout=8 if trouble else 4,
                   severity="warning" if trouble else "information")

    def notify_mcp_failures(self) -> None:
        """Say once per failure that an MCP server could not start (the sidebar keeps it)."""
        engine = self.app.engine
        for status in engine.mcp_status() if engine is not None else ():
            key = f"{status.skill}\0{status.error}"
            if status.state == "failed" and key not in self.mcp_failures_seen:
                self.mcp_failures_seen.add(key)
                self.app.notify(f"{status.skill}: {status.error}", title="MCP server failed",
                                severity="error", timeout=8)
