"""The real app's frames from the settled screen's paint: Textual's cells, less work."""

from __future__ import annotations

import pytest
from textual._compositor import ChopsUpdate, Compositor
from textual.geometry import Region

from birdie_tui.tui.paint import JoinedChopsUpdate
from tests.tui.test_paint import _moves, _played, _shown, _stock_chops

from .conftest import send, wait_ready, wait_turn

pytestmark = pytest.mark.app


async def test_a_real_frame_shows_textual_s_cells_with_fewer_renders_and_moves(make_app):
    """After a turn at 120×40: for the whole screen and for the chat's rows, the chops the
    paint writes are Textual's, and the joined update draws Textual's screen in a terminal with
    fewer cursor moves."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot, app)
        await send(pilot, app, "hello birdie, tell me something long enough to wrap twice")
        await wait_turn(pilot, app)
        compositor = app.screen._compositor
        chat = app.query_one("#chat").region
        for regions in ([compositor.size.region], [chat], [chat, Region(0, 39, 120, 1)]):
            crop = Region.from_union(regions)
            lines = {y for y, _, _ in Compositor._regions_to_spans(regions)}
            ours = compositor._render_chops(crop, lines.__contains__)
            stock = _stock_chops(compositor, crop, lines)
            assert _shown(ours, compositor, regions) == _shown(stock, compositor, regions)
        compositor._dirty_regions.update({compositor.size.region})
        update = compositor.render_partial_update()
        assert isinstance(update, JoinedChopsUpdate)
        stock_bytes = ChopsUpdate(update.chops, update.spans, update.chop_ends) \
            .render_segments(app.console)
        our_bytes = update.render_segments(app.console)
    assert _played(our_bytes, 120, 40) == _played(stock_bytes, 120, 40)
    assert _moves(our_bytes) < _moves(stock_bytes) / 2
