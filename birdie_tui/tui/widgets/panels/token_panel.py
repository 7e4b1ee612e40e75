"""Where the tokens (and money) went: context fill, per-call usage, session totals, the
sub-agents' share, trend."""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Sparkline, Static

from birdie_tui.service.rows import TokenLedger
from birdie_tui.tui.widgets.format import fmt_cost, fmt_pct, fmt_tokens


def _in_out(tokens_in: int, tokens_out: int) -> str:
    return f"↑{fmt_tokens(tokens_in)} ↓{fmt_tokens(tokens_out)}"


class TokenPanel(Vertical):
    """Token usage for the current session; the cost reads "unknown" rather than a false $0."""

    DEFAULT_CSS = """
    TokenPanel {
        height: 1fr;
        background: $surface;
        padding: 0 1;
        & > Static { height: auto; color: $foreground; }
        & > .tokens--calls { color: $text-muted; }
        & > .tokens--sparkline {
            height: 3;
            margin-top: 1;
            & > .sparkline--max-color { color: $accent; }
            & > .sparkline--min-color { color: $primary; }
        }
        & > .tokens--caption { color: $text-muted; }
        & > .tokens--cost { margin-top: 1; }
    }
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._view = TokenLedger()
        self._context_line = Static(classes="tokens--context")
        self._calls = Static(classes="tokens--calls")
        self._session = Static(classes="tokens--session")
        self._agents = Static(classes="tokens--agents")
        self.sparkline = Sparkline([], classes="tokens--sparkline")
        self._caption = Static(classes="tokens--caption")
        self._cost = Static(classes="tokens--cost")

    def compose(self) -> ComposeResult:
        yield self._context_line
        yield self._calls
        yield self._session
        yield self._agents
        yield self.sparkline
        yield self._caption
        yield self._cost

    def on_mount(self) -> None:
        self._render_view()

    @property
    def view(self) -> TokenLedger:
        return self._view

    def show(self, view: TokenLedger) -> None:
        if view == self._view and self.is_mounted:
            return  # shown already: seven labels updated with the same text, and a layout pass
        self._view = view
        if self.is_mounted:
            self._render_view()

    def _render_view(self) -> None:
        v = self._view
        if v.context_window:
            window = f"({fmt_pct(v.context_tokens, v.context_window)} of {fmt_tokens(v.context_window)})"
        else:
            window = "(window unknown)"
        self._context_line.update(
            Content.assemble(
                Content.styled("Context  ", "bold"),
                f"{fmt_tokens(v.context_tokens)} tok  ",
                Content.styled(window, "$foreground-muted"),
            )
        )

        if v.calls:
            lines = [
                Content.assemble(Content.styled(f"call {i}  ", "$foreground-muted"),
                                 _in_out(c.input, c.output), _cached(c.cached),
                                 Content.styled(f"  {c.agent}", "$accent") if c.agent else "")
                for i, c in enumerate(v.calls, start=1)
            ]
            calls = Content.styled("Last turn\n", "bold").append(Content("\n").join(lines))
        else:
            calls = Content.styled("Last turn  no model calls yet", "$foreground-muted")
        self._calls.update(calls)

        self._session.update(
            Content.assemble(Content.styled("Session  ", "bold"), _in_out(v.session_in, v.session_out),
                             _cached(v.session_cached))
        )

        self._agents.display = bool(v.agents)
        self._agents.update(_agent_lines(v))

        self.sparkline.data = [float(t) for t in v.per_turn]
        self.sparkline.display = bool(v.per_turn)
        if v.per_turn:
            turns = "1 turn" if len(v.per_turn) == 1 else f"{len(v.per_turn)} turns"
            caption = (
                f"tokens per turn · {turns} · "
                f"last {fmt_tokens(v.per_turn[-1])} · max {fmt_tokens(max(v.per_turn))}"
            )
        else:
            caption = "tokens per turn · no turns yet"
        self._caption.update(caption)

        cost_style = "$foreground-muted" if v.cost_usd is None else "$success"
        self._cost.update(
            Content.assemble(
                Content.styled("Estimated cost  ", "bold"),
                Content.styled(fmt_cost(v.cost_usd), cost_style),
            )
        )


def _agent_lines(v: TokenLedger) -> Content:
    """Per sub-agent: calls (model calls of its runs), tokens, cost ("unknown" if unpriced)."""
    lines = [Content.assemble(Content.styled(a.name, "$accent"), "  ",
                              Content.styled(f"{a.calls} call{'s' if a.calls != 1 else ''}  ",
                                             "$foreground-muted"),
                              _in_out(a.input, a.output), "  ", fmt_cost(a.cost))
             for a in v.agents]
    return Content.styled("Sub-agents\n", "bold").append(Content("\n").join(lines))


def _cached(tokens: int) -> Content:
    """Input read from the vendor's prompt cache (billed at the cached rate)."""
    return Content.styled(f"  {fmt_tokens(tokens)} cached", "$foreground-muted") if tokens \
        else Content("")
