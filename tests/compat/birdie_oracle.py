"""Run by the *Birdie* venv's python (not by pytest): print Birdie's own view of a skills folder.

Usage: python birdie_oracle.py SKILLS_DIR [MESSAGE ...]
  -> JSON {"module", "version", "skills", "errors", "triggered": {MESSAGE: [skill names]}}

Uses Birdie's own discovery (`birdie.core.loader.discover_skills_from_directory`), which prints
"Error loading skill from ..." for a file it cannot parse: that output is captured as errors.
"""

import contextlib
import importlib.metadata
import io
import json
import sys

from birdie.core import loader
from birdie.core.registry import SkillRegistry


def main(skills_dir: str, messages: list) -> None:
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        skills = loader.discover_skills_from_directory(skills_dir)
    parsed = [skill.model_dump(mode="json") for skill in skills]  # before the registry touches them
    registry = SkillRegistry()
    for skill in skills:
        registry.register_skill(skill)
    json.dump({
        "module": loader.__file__,
        "version": importlib.metadata.version("birdie-agent"),
        "skills": parsed,
        "errors": [line for line in printed.getvalue().splitlines() if line.strip()],
        # Which knowledge skills Birdie's own trigger matching injects for each message.
        "triggered": {m: [s.name for s in registry.find_skills_by_trigger(m)] for m in messages},
    }, sys.stdout)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
