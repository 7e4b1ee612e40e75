"""What a flush costs while a long code block streams: the reply's Markdown alone, headless.

A `ReplyMarkdown` in a bare app at 120×40 (`App.run_test`) gets a paragraph and a ```python
fence with --lines lines of code, then --flushes appends of one more line each; every append is
awaited and followed by a frame (`Pilot.pause`). Reported: the UI thread's CPU (`thread_time`)
per flush, the append and the frame together, and the median. The code block's cost grows with
its length (each flush re-highlights it; before `tui/widgets/chat/code_lines.py` every line
was also wrapped and rendered again, several times a frame). Python's full collections are
held off while the flushes run, as the app holds them while a reply streams (`tui/collector.py`).

    PYTHONPATH=<tree> python bench/code_block.py [--lines 30,300,1000] [--flushes 10]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import statistics
import time

from textual.app import App, ComposeResult

from birdie_tui.tui.widgets.chat.reply_markdown import ReplyMarkdown


class Host(App[None]):
    def compose(self) -> ComposeResult:
        yield ReplyMarkdown()


async def flush_costs(lines: int, flushes: int) -> list[float]:
    """CPU (ms) of each of `flushes` one-line appends to an open fence of `lines` lines."""
    app = Host()
    costs: list[float] = []
    async with app.run_test(size=(120, 40)) as pilot:
        markdown = app.query_one(ReplyMarkdown)
        await markdown.append("Text.\n\n```python\n")
        await pilot.pause()
        await markdown.append("".join(f"def f_{i}(x):\n    return x * {i}  # line {i}\n"
                                      for i in range(lines // 2)))
        await pilot.pause()
        await pilot.pause()
        gc.disable()
        try:
            for n in range(flushes):
                started = time.thread_time()
                await markdown.append(f"value_{n} = compute({n}, 'text')\n")
                await pilot.pause()
                costs.append(1000 * (time.thread_time() - started))
        finally:
            gc.enable()
    return costs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", default="30,300,1000")
    parser.add_argument("--flushes", type=int, default=10)
    args = parser.parse_args()
    for lines in (int(n) for n in args.lines.split(",")):
        costs = asyncio.run(flush_costs(lines, args.flushes))
        print(f"{lines:5d} lines: median {statistics.median(costs):6.1f} ms a flush "
              f"({' '.join(f'{c:.1f}' for c in costs)})")


if __name__ == "__main__":
    main()
