"""The user's settings (``$BIRDIE_HOME/settings.json`` or ``$BIRDIE_SETTINGS_FILE``).

Loading never fails: a corrupt file is moved aside, invalid values fall back to their defaults,
and keys this version does not know are ignored on load but kept on save.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from birdie_tui.modes import ApprovalMode, LoadingMode

from .jsonio import read_json, write_json_atomic
from .paths import BirdiePaths, ensure_dir

__all__ = ["Settings", "load_settings", "save_settings"]


class Settings(BaseModel):
    """User preferences shown and edited by the app."""

    model_config = ConfigDict(extra="ignore", validate_assignment=True)

    theme: str = "birdie-dark"
    tool_output: Literal["full", "short", "off"] = "full"
    # A sub-agent's work in the chat (Birdie's `/agent output`), and how many sub-agents one
    # step of a turn runs at once (more calls wait for a slot).
    agent_output: Literal["full", "short", "off"] = "short"
    agent_parallel: int = Field(default=3, ge=1, le=32)
    keymap: dict[str, str] = Field(default_factory=dict)
    # How knowledge bodies reach the prompt: trigger phrases, the model's get_skill, or both;
    # a loaded body stays for `skill_decay_turns` user turns, at most `skill_max_loaded` at once.
    skill_loading: LoadingMode = "both"
    skill_decay_turns: int = Field(default=5, ge=0, le=1000)
    skill_max_loaded: int = Field(default=3, ge=0, le=100)
    # Compact the conversation when the context reaches this share of the window (0 = never).
    auto_compact: int = Field(default=80, ge=0, le=100)
    # Approval rules, as `tool` or `tool(glob over the command)`: {"allow": [...], "ask": [...],
    # "deny": [...]} (agent.approvals); and the mode a new app starts in.
    permissions: dict[str, list[str]] = Field(default_factory=dict)
    approval_mode: ApprovalMode = "ask"
    # A bell and an OSC 9 notification when a turn ends or an approval waits, unfocused.
    notify: bool = True
    # The longest `timeout_s` a model may ask of a bash/http tool without its own `timeout:`.
    tool_max_timeout: float = Field(default=600.0, ge=1, le=86400)
    # A shared PostgreSQL database for sessions and memory (see store.database); None: the
    # embedded store under BIRDIE_HOME.
    database_url: str | None = None


def load_settings(paths: BirdiePaths) -> tuple[Settings, list[str]]:
    """The saved settings and any warnings; defaults when the file is missing or unusable."""
    warnings: list[str] = []
    path = paths.settings_file
    data = read_json(path, on_corrupt=warnings.append, label="settings file",
                     logs_dir=paths.logs_dir)
    if data is None:
        return Settings(), warnings
    known = {k: v for k, v in data.items() if k in Settings.model_fields}
    try:
        return Settings.model_validate(known), warnings
    except ValidationError as exc:
        bad = sorted({str(err["loc"][0]) for err in exc.errors() if err["loc"]})
        for name in bad:
            warnings.append(
                f"settings file {path.name}: ignoring invalid value for {name!r} "
                f"({known.get(name)!r}); using the default"
            )
            known.pop(name, None)
    try:
        return Settings.model_validate(known), warnings
    except ValidationError:
        return Settings(), warnings


def save_settings(paths: BirdiePaths, settings: Settings) -> None:
    """Write what was set (loaded from the file or assigned since) atomically, keeping unknown
    keys already in the file; a default the user never chose is not written."""
    path = paths.settings_file
    ensure_dir(path.parent)
    existing: Any = read_json(path, on_corrupt=lambda _msg: None, label="settings file",
                                logs_dir=paths.logs_dir)
    data = dict(existing) if isinstance(existing, dict) else {}
    # Only set fields: a default written out would pin today's value over a better one later.
    data.update(settings.model_dump(mode="json", exclude_unset=True))
    write_json_atomic(path, data)
