"""An ACP prompt (content blocks) as the one message Birdie's turn takes.

Text is taken as written; a resource link is named where it stands (the model can read it
with a file tool); an embedded resource — the editor's selection or an open buffer — is
quoted with its URI, so what the user saw in the editor is what the model gets.
"""

from __future__ import annotations

from typing import Any

from acp.schema import (
    EmbeddedResourceContentBlock,
    ResourceContentBlock,
    TextContentBlock,
    TextResourceContents,
)

from birdie_tui.service import BirdieError

EMBED_LIMIT = 2 * 1024 * 1024  # characters of one embedded resource


def prompt_text(blocks: list[Any]) -> str:
    parts: list[str] = []
    for block in blocks:
        if isinstance(block, TextContentBlock):
            parts.append(block.text)
        elif isinstance(block, ResourceContentBlock):
            label = block.title or block.name
            parts.append(f"[{label}]({block.uri})" if label and label != block.uri else block.uri)
        elif isinstance(block, EmbeddedResourceContentBlock):
            resource = block.resource
            if not isinstance(resource, TextResourceContents):
                raise BirdieError(f"{resource.uri}: only text resources can be sent to Birdie")
            text = resource.text
            if len(text) > EMBED_LIMIT:
                raise BirdieError(f"{resource.uri}: too large to send ({len(text):,} characters)")
            fence = "````" if "```" in text else "```"
            parts.append(f"\n{resource.uri}:\n{fence}\n{text}\n{fence}\n")
        else:
            kind = getattr(block, "type", type(block).__name__)
            raise BirdieError(f"Birdie does not take {kind} content (text and text resources only)")
    return "".join(parts).strip()
