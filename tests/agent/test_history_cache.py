"""The history read once per checkpoint: opening a session reads it once, and any new
checkpoint — this engine's turn, another process's turn, a repair — is read again."""

from __future__ import annotations

from birdie_tui.agent.engine import Engine, EngineOptions
from birdie_tui.providers.config import ProviderConfig

from .conftest import collect


def count_reads(engine) -> list[int]:
    reads = [0]
    real = engine.host.graph.aget_state

    async def counted(*args, **kwargs):
        reads[0] += 1
        return await real(*args, **kwargs)

    engine.host.graph.aget_state = counted
    return reads


async def test_same_checkpoint_is_read_once(engine):
    """Three reads of an unchanged history deserialise it once; a turn makes it read again."""
    await collect(engine, "hello")
    reads = count_reads(engine)
    first = await engine.messages()
    assert await engine.messages() == first and await engine.contexts()
    assert reads[0] == 1
    await collect(engine, "again")
    assert len(await engine.messages()) == 4 and reads[0] >= 2


async def test_another_process_writing_the_session_is_seen(skills_dir, isolated_home):
    """A turn written by a second engine on the same database is never hidden by the cache."""
    options = dict(skills_dirs=[skills_dir], provider=ProviderConfig(vendor="offline"))
    one, two = Engine(EngineOptions(**options)), Engine(EngineOptions(**options))
    await one.start()
    await two.start()
    try:
        await one.open_session()
        await collect(one, "first")
        assert len(await one.messages()) == 2
        await two.open_session(one.session.id)
        await collect(two, "second")
        assert [m.content for m in await one.messages()][2] == "second"
    finally:
        await one.aclose()
        await two.aclose()
