"""`h` in the sessions browser writes the highlighted session's (pair's, cell's) HTML report beside its folder and
says where in a toast; a failure is one line in an error toast (never a traceback)."""

from __future__ import annotations

from datetime import timezone
from pathlib import Path

from console.ui.screens.sessions import SessionsScreen
from tests.ui.test_sessions_screen import NOW, Host, ckey, loaded, move_to, sessions  # noqa: F401 (fixture)
from tests.ui.waits import wait_until


def toasts(app) -> list[tuple[str, str, str]]:
    return [(n.title, n.message, n.severity) for n in app._notifications]


async def test_h_writes_the_pair_sessions_html_and_a_cells(sessions):  # noqa: F811
    app = Host(lambda: SessionsScreen(Path("sessions"), now=lambda: NOW, tz=timezone.utc))
    done: list[SessionsScreen.HtmlWritten] = []
    async with app.run_test(size=(160, 48), message_hook=lambda m: done.append(m)
                            if isinstance(m, SessionsScreen.HtmlWritten) else None) as pilot:
        await wait_until(pilot, lambda: loaded(app), what="the listing")
        await move_to(pilot, f"p:{sessions['new'].name}/pair.json")
        await pilot.press("h")
        await wait_until(pilot, lambda: len(done) == 1, what="the HTML report of the pair's session")
        out = sessions["new"].resolve().parent / f"{sessions['new'].name}.html"
        assert done[0].path == out and done[0].error is None and out.exists()
        text = out.read_text()
        assert "<script" not in text and "k26-eagle3-d7 faster by" in text
        assert any(t == "HTML report written" and str(out) in m and "pair" in m and s == "information"
                   for t, m, s in toasts(app))
        await move_to(pilot, ckey(sessions["a1"]))
        await pilot.press("h")
        await wait_until(pilot, lambda: len(done) == 2, what="the HTML report of a cell")
        cell_out = sessions["a1"].resolve().parent / f"{sessions['a1'].name}.html"
        assert done[1].path == cell_out and "Cell A1-tool" in cell_out.read_text()
        assert sorted(p.name for p in sessions["a1"].iterdir()) == ["manifest.json", "rows.jsonl", "summary.json"]


async def test_h_says_why_not_in_one_line(sessions, monkeypatch):  # noqa: F811
    import console.core.report.write as W
    blocker = Path("sessions") / "a-file"
    blocker.write_text("")
    monkeypatch.setattr(W, "default_out", lambda d: blocker / "x.html")  # a folder that cannot be made
    app = Host(lambda: SessionsScreen(Path("sessions"), now=lambda: NOW, tz=timezone.utc))
    done: list[SessionsScreen.HtmlWritten] = []
    async with app.run_test(size=(160, 48), message_hook=lambda m: done.append(m)
                            if isinstance(m, SessionsScreen.HtmlWritten) else None) as pilot:
        await wait_until(pilot, lambda: loaded(app), what="the listing")
        await move_to(pilot, f"s:{sessions['new'].name}")
        await pilot.press("h")
        await wait_until(pilot, lambda: len(done) == 1, what="the refusal")
        assert done[0].path is None and "\n" not in done[0].error
        assert done[0].error.startswith(f"{sessions['new'].name}: ") and "a-file" in done[0].error
        assert any(t == "no HTML report" and s == "error" and m == done[0].error for t, m, s in toasts(app))
