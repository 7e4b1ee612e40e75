"""The one YAML loader for skill files: PyYAML's safe loader with limits a hostile file can't beat.

A skill file is parsed by every Birdie instance that scans its folder, so a 20-line file must
not be able to cost gigabytes. Three limits, checked while the YAML is composed (before
anything is built), so a refused document costs about what its text costs:

- aliases (`*name`, merge keys `<<: *name` too) may repeat at most `MAX_ALIAS_NODES` nodes in
  one document, counted as the nodes the alias stands for once fully expanded: a few harmless
  aliases load, a "billion laughs" stops at the alias that crosses the budget;
- collections nest at most `MAX_DEPTH` levels;
- an alias to the node that contains it (a recursive document) is refused.

The size of the whole file is bounded by the parser (`MAX_FILE_BYTES`), which bounds every
YAML block in it. Refusals raise `YAMLLimitError`, a `yaml.YAMLError` carrying the mark of
the offending alias or node, so errors keep their file line.
"""

from __future__ import annotations

from typing import Any

import yaml
from yaml.composer import ComposerError
from yaml.events import AliasEvent, MappingStartEvent, SequenceStartEvent
from yaml.nodes import MappingNode, Node, SequenceNode

MAX_FILE_BYTES = 1024 * 1024  # a skill file; Birdie's own are under 4 KB
MAX_ALIAS_NODES = 10_000  # nodes that aliases may repeat, per YAML document
MAX_DEPTH = 50  # nested mappings/lists; a real tool schema nests well under 10


# PyYAML ships no type hints (its classes are Any to mypy): subclassing them is the point here.
class YAMLLimitError(ComposerError):  # type: ignore[misc]
    """A YAML document refused by a limit (aliases, depth), not for its syntax."""


class _LimitedLoader(yaml.SafeLoader):  # type: ignore[misc]  # untyped PyYAML, as above
    """`SafeLoader` whose composer measures each node's expanded size and the nesting depth."""

    def __init__(self, stream: str):
        super().__init__(stream)
        self._sizes: dict[int, int] = {}  # id(finished node) -> its node count, aliases expanded
        self._repeated = 0  # nodes repeated by aliases so far in this document
        self._depth = 0

    def compose_document(self) -> Node | None:
        self._sizes, self._repeated, self._depth = {}, 0, 0
        try:
            return super().compose_document()
        finally:
            self._sizes = {}

    def compose_node(self, parent: Node | None, index: Any) -> Node | None:
        event = self.peek_event()
        if isinstance(event, AliasEvent):
            self._count_alias(event)
            return super().compose_node(parent, index)
        collection = isinstance(event, (SequenceStartEvent, MappingStartEvent))
        if collection:
            self._depth += 1
            if self._depth > MAX_DEPTH:
                raise YAMLLimitError(None, None, f"nested deeper than {MAX_DEPTH} levels", event.start_mark)
        try:
            node = super().compose_node(parent, index)
        finally:
            if collection:
                self._depth -= 1
        self._sizes[id(node)] = self._size(node)
        return node

    def _count_alias(self, event: AliasEvent) -> None:
        target = self.anchors.get(event.anchor)
        if target is None:
            return  # PyYAML reports the undefined alias itself
        size = self._sizes.get(id(target))
        if size is None:  # the anchored node is still being composed: it contains its own alias
            raise YAMLLimitError(None, None, f"recursive YAML alias *{event.anchor} (it is inside its own anchor)",
                                 event.start_mark)
        self._repeated += size
        if self._repeated > MAX_ALIAS_NODES:
            raise YAMLLimitError(
                None, None, f"aliases expand to more than {MAX_ALIAS_NODES:,} nodes at *{event.anchor} "
                "(refused as an alias bomb, like 'billion laughs')", event.start_mark)

    def _size(self, node: Node) -> int:
        sizes = self._sizes
        if isinstance(node, SequenceNode):
            return 1 + sum(sizes[id(item)] for item in node.value)
        if isinstance(node, MappingNode):
            return 1 + sum(sizes[id(k)] + sizes[id(v)] for k, v in node.value)
        return 1


def load(text: str) -> Any:
    """Load one YAML document like `yaml.safe_load`, within the limits above."""
    loader = _LimitedLoader(text)
    try:
        return loader.get_single_data()
    finally:
        loader.dispose()
