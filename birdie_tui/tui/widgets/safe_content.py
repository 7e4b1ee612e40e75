"""Text from outside the program as Textual `Content`, never parsed as markup.

`shown` is for what a user reads (a reply, a name, an error); `exact` for what a user approves:
every control character appears as a marked stand-in (`␛`, `\\r`), so a real carriage return
never looks like the two characters a command may contain, and nothing is interpreted.
`output` keeps a tool's colours. The rules themselves are `birdie_tui.screen_text`'s.
"""

from __future__ import annotations

from textual.content import Content

from birdie_tui.screen_text import clean, literal_spans, styled

STAND_IN_STYLE = "reverse"  # how a made-visible control character stands out


def shown(text: str, style: str = "") -> Content:
    return Content.styled(clean(text), style) if style else Content(clean(text))


def exact(text: str, style: str = "") -> Content:
    pieces = literal_spans(text)
    if len(pieces) == 1 and not pieces[0][1]:
        return Content.styled(text, style) if style else Content(text)
    return Content.assemble(*[(piece, f"{style} {STAND_IN_STYLE}".strip() if made else style)
                              for piece, made in pieces])


def output(text: str) -> Content:
    return Content.from_rich_text(styled(text))
