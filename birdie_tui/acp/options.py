"""A session's config options, for clients that show them: the model (a select of the
vendors and models this machine can use) and one on/off switch per skill for this session.
`session/set_config_option` changes them as `/model` and `/skill` do.
"""

from __future__ import annotations

from acp.schema import (
    SessionConfigOptionBoolean,
    SessionConfigOptionSelect,
    SessionConfigSelectOption,
)

from birdie_tui.service import Birdie, BirdieError

ConfigOption = SessionConfigOptionSelect | SessionConfigOptionBoolean
MODEL = "model"
SKILL = "skill:"  # a skill's switch: "skill:<name>"


def config_options(door: Birdie) -> list[ConfigOption]:
    """The shown session's options."""
    choices = door.model_choices()
    values: list[SessionConfigSelectOption] = []
    current = ""
    for choice in choices:
        for model in choice.models:
            value = f"{choice.vendor}/{model}"
            values.append(SessionConfigSelectOption(value=value, name=f"{choice.vendor} · {model}"))
            if choice.current and model == choice.current_model:
                current = value
    if not current:  # the model in use is not in the catalog's list: offer it too
        status = door.status()
        current = f"{status.vendor}/{status.model.split(' · ')[-1]}"
        values.insert(0, SessionConfigSelectOption(value=current, name=status.model))
    options: list[ConfigOption] = [SessionConfigOptionSelect(
        id=MODEL, name="Model", type="select", category="model", current_value=current,
        options=values, description="The model of every session of this agent")]
    options += [SessionConfigOptionBoolean(
        id=f"{SKILL}{row.name}", name=f"Skill {row.name}", type="boolean",
        current_value=row.enabled, description=row.description[:200] or None)
        for row in door.skill_rows()]
    return options


async def set_option(door: Birdie, config_id: str, value: str | bool) -> None:
    """Apply one option to the shown session; BirdieError for an unknown id or a bad value."""
    if config_id == MODEL:
        if not isinstance(value, str):
            raise BirdieError("the model is a VENDOR/MODEL value")
        await door.switch_model(value)
    elif config_id.startswith(SKILL):
        if not isinstance(value, bool):
            raise BirdieError("a skill's switch is true or false")
        door.set_skill(config_id[len(SKILL):], value)
    else:
        raise BirdieError(f"unknown config option {config_id!r}")
