"""One server thread as a `RemoteBirdie` holds it: its metadata, its history as last read, the
counts of that history and the token ledger of a turn running on it.

A turn belongs to its thread, not to what the screen shows: it runs on the `RemoteThread` it
started on, and the door keeps that object while another thread is shown (`RemoteBirdie.
_running`), so the run goes on streaming, counting and remembering answers for its own thread.

The figures are the local engine's arithmetic (`agent.ledger`): the thread's history is counted
as a session file is (`agent.accounting.settle`, from an empty count), the running turn's calls
go into a `Ledger`, and the snapshot and `/cost` come from `Ledger.snapshot` and
`agent.ledger.cost_report`. This module only gathers the calls from the thread state.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from birdie_tui.agent.ledger import Ledger, Price, TokenLedger, cost_report
from birdie_tui.events import SkillsInjected
from birdie_tui.service.remote.client import to_messages
from birdie_tui.service.remote.sessions import birdie_meta
from birdie_tui.service.rows import CostReport

if TYPE_CHECKING:
    from birdie_tui.store.session_meta import SessionMeta


def counted_history(thread_id: str, messages: Sequence[Any], *, price: Price | None,
                    model: str, forked: Any = None, rewound: Any = None) -> SessionMeta:
    """The counts of a thread's history, as a session file would hold them after the local
    engine counted every step of it (each user message a turn, each AI message's usage a
    call priced at `price`). A fork (`forked`, its `forked_from` metadata) counts from after
    its copied part; what rewinds dropped (`rewound`, the state's channel) stays spent."""
    from birdie_tui.agent.accounting import settle
    from birdie_tui.agent.rewind import add_rewound, copied_counts
    from birdie_tui.store.session_meta import SessionMeta

    meta = copied_counts(SessionMeta(id=thread_id, user_id="", cost_usd=0.0,
                                     counted={"through": None, "turns": 0}), forked)
    settle(meta, messages, price=price, model=model)
    return add_rewound(meta, rewound, price)


class RemoteThread:
    """A thread of the server (or one not created there yet: `saved` False)."""

    def __init__(self, thread_id: str | None = None) -> None:
        self.id = thread_id or str(uuid.uuid4())
        self.saved = False  # the thread exists on the server (created at the first turn)
        self.meta: dict[str, Any] = {}  # its `birdie` metadata, as last read or written
        self.doc: dict[str, Any] = {}  # the thread as last read or written (dates, metadata)
        self.messages: list[Any] = []
        self.summary = ""  # the rolling compaction summary
        self.rewound: dict[str, Any] = {}  # what rewinds dropped (agent/rewind.py)
        self.counted: SessionMeta = counted_history(self.id, (), price=None, model="")
        self.ledger = Ledger()  # the running (or last) turn's calls
        self.last_injected: SkillsInjected | None = None
        self.run_id: str | None = None  # the server's run while one streams
        self.turning = False  # a turn of this client runs on it

    # ------------------------------------------------------------------ what the server said
    def take_doc(self, doc: dict[str, Any], *, price: Price | None, model: str,
                 values: bool = True) -> None:
        """The thread as the server just returned it (with its state's `values` when
        `values`; a metadata update carries none)."""
        self.id, self.saved, self.doc = str(doc.get("thread_id") or self.id), True, doc
        self.meta = birdie_meta(doc) or self.meta
        if values:
            self.take_values(doc.get("values"), price=price, model=model)

    def take_values(self, values: Any, *, price: Price | None, model: str) -> None:
        state = values if isinstance(values, dict) else {}
        self.messages = to_messages(state.get("messages"))
        self.summary = str(state.get("summary") or "")
        rewound = state.get("rewound")
        self.rewound = rewound if isinstance(rewound, dict) else {}
        self.counted = counted_history(self.id, self.messages, price=price, model=model,
                                       forked=self.meta.get("forked_from"),
                                       rewound=self.rewound)
        self.ledger.show_history(self.messages)

    @property
    def updated_at(self) -> str:
        return str(self.doc.get("updated_at") or "")

    # ------------------------------------------------------------------ figures
    def snapshot(self, *, context_window: int | None, price: Price | None) -> TokenLedger:
        """The token panel's figures: the history's counts plus the running turn's calls."""
        return self.ledger.snapshot(self.counted, context_window=context_window, price=price)

    def cost(self, totals: TokenLedger, model: str) -> CostReport:
        return cost_report(self.counted, self.ledger, totals, model)
