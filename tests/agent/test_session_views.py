"""Session views: another open session of the same engine is another `Engine` on the same
host. What belongs to a session is its own; what the process shares is shared; closing a view
leaves the host open."""

from __future__ import annotations

from birdie_tui.agent.approvals import ApprovalAnswer, ApprovalRequest

from .conftest import collect


async def test_a_view_has_its_own_session_state_and_shares_the_host(engine):
    """A view's session, grants, tools offered, token account, approval answers and history
    are its own: a grant, a turn and an "always" answer in the view leave the first session
    as it was. The registry, stores, graph and approval mode are the host's, shared."""
    await collect(engine, "hello from the first session")
    before = engine.token_ledger()
    view = engine.session_view()
    assert view is not engine and view.host is engine.host and view.session is None
    assert (view.registry, view.sessions, view.memory, view.host.graph) == (
        engine.registry, engine.sessions, engine.memory, engine.host.graph)
    for own in ("state", "history", "book", "tokens", "approvals", "compactor", "turns",
                "toolbox"):
        assert getattr(view, own) is not getattr(engine, own), own

    await view.open_session()
    view.set_skill_enabled("Quiet", True)
    quiet = view.registry.get("Quiet")
    assert view.is_enabled(quiet) and not engine.is_enabled(quiet)
    assert "hush" in [t.name for t in await view.toolbox.tools()]
    assert "hush" not in [t.name for t in await engine.toolbox.tools()]
    request = ApprovalRequest(id="c1", name="echo_text", args={}, skill="Echoer")
    view.approvals.remember(request, ApprovalAnswer("allow", remember="skill"))
    assert view.approvals.saved()[0] == ["Echoer"] and engine.approvals.saved()[0] == []

    assert (await collect(view, "hello from the view"))[-1].type == "done"
    assert view.session.id != engine.session.id
    assert engine.token_ledger() == before and view.token_ledger().session_in > 0
    assert [m.content for m in await engine.messages() if m.type == "human"] == [
        "hello from the first session"]
    assert [m.content for m in await view.messages() if m.type == "human"] == [
        "hello from the view"]
    view.set_approval_mode("auto")
    assert engine.approval_mode == "auto"


async def test_closing_a_view_leaves_the_host_open(engine):
    """Closing a view forgets it (the host stops telling it of checkpoints) and closes
    nothing shared: the first session runs turns on, and only its engine closes the host."""
    view = engine.session_view()
    await view.open_session()
    await collect(view, "a turn in the view")
    assert view.history in engine.host.attached()
    await view.aclose()
    assert view.history not in engine.host.attached()
    assert engine.history in engine.host.attached()
    events = await collect(engine, "the first session goes on")
    assert events[-1].type == "done"
    assert engine.session.turns == 1


async def test_checkpoints_go_to_the_view_whose_session_owns_the_thread(engine):
    """The first session is new and unsaved when a view saves its own new session under the
    same provisional id: the view's checkpoints are the view's to count, not the unsaved
    session's. Once dropped, the view is told of none."""
    view = engine.session_view()
    await view.open_session()
    assert view.session.id == engine.session.id and not engine.session_saved
    await collect(view, "counted")
    owners = [h for h in engine.host.attached() if h.owns(view.session.id)]
    assert owners == [view.history]
    engine.drop_view(view)
    assert view.history not in engine.host.attached()
    assert not any(listener.owns(view.session.id) for listener in engine.host.attached())
