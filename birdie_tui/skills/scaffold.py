"""A new skill from a template (`/skill new <name>`): a Birdie knowledge skill that parses as
written, with a commented example of a `## Tools` section to grow it into a tool skill."""

from __future__ import annotations

import json
import re
from pathlib import Path

__all__ = ["scaffold_skill", "skill_template"]

_TEMPLATE = """\
---
name: {name}
description: TODO one line saying what this skill knows (the model reads it in the catalog)
version: 0.1.0
tags: []
# Phrases that inject the body below into the system prompt when your message contains one
# (case-insensitive).
triggers: [{trigger}]
# always_inject: true        # inject the body into every prompt instead
# enabled_by_default: false  # start switched off in new sessions
---

# {title}

TODO: what the model should know when one of the triggers appears in your message: facts,
conventions, steps to follow. Saved changes apply from the next model call.

<!--
To give this skill tools, add a section like this one (without the ``` fence lines):

```
## Tools

### {tool}_hello
description: Say hello to someone.
entrypoint: bash:echo hello {{who}}
schema:
  type: object
  properties:
    who: {{type: string}}
  required: [who]
```
-->
"""


_PLAIN = re.compile(r"^[A-Za-z][A-Za-z0-9_.-]*$")
_YAML_WORDS = {"true", "false", "yes", "no", "on", "off", "null", "y", "n"}


def _yaml_str(text: str) -> str:
    """`text` as a YAML string: plain where YAML reads it as one, quoted otherwise (`1.0`)."""
    return text if _PLAIN.match(text) and text.lower() not in _YAML_WORDS else json.dumps(text)


def skill_template(name: str) -> str:
    """The SKILL.MD of a new knowledge skill called `name`."""
    tool = "".join(c if c.isalnum() else "_" for c in name.lower()).strip("_") or "my"
    return _TEMPLATE.format(name=_yaml_str(name), trigger=_yaml_str(name), title=name,
                            tool=tool if tool[0].isalpha() else f"t_{tool}")


def scaffold_skill(skills_dir: Path, name: str) -> Path:
    """Write `<skills_dir>/<name>/SKILL.MD` (folders created as needed) and return its path.
    Never overwrites: FileExistsError when the folder already holds a skill file."""
    folder = Path(skills_dir) / name
    target = folder / "SKILL.MD"
    for existing in (target, folder / "SKILL.md"):
        if existing.exists():
            raise FileExistsError(f"{existing} already exists")
    folder.mkdir(parents=True, exist_ok=True)
    with open(target, "x", encoding="utf-8") as out:  # "x": a file made meanwhile is kept
        out.write(skill_template(name))
    return target
