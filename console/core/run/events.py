"""What the runtime reports, one frozen dataclass per kind of happening.

Discrete happenings only: everything continuous (live rates, metrics, GPU, startup progress) is read from the
runtime's state at the reader's own rate. Observers (the CLI's printers, the TUI, tests) match on the type;
`kind` names it in logs. The high-rate ones (`Startup`, `RequestFinished`, `CellStatus`, `Preflight`) are
coalesced by the TUI into its 4 Hz repaint.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

if TYPE_CHECKING:
    from console.core.engine.server_info import ServerInfo
    from console.core.launch.logparse import StartupProgress
    from console.core.measure.records import RequestRecord
    from console.core.measure.stats import CellSummary


@dataclass(frozen=True)
class Event:
    """Base of every runtime event."""

    kind: ClassVar[str] = "event"
    HIGH_RATE: ClassVar[bool] = False


@dataclass(frozen=True)
class Launching(Event):
    argv: list[str]
    """The engine argv, secrets redacted."""
    log_path: str
    kind: ClassVar[str] = "launching"


@dataclass(frozen=True)
class Startup(Event):
    progress: StartupProgress
    kind: ClassVar[str] = "startup"
    HIGH_RATE: ClassVar[bool] = True


@dataclass(frozen=True)
class Preflight(Event):
    severity: str
    """'error' | 'warning'."""
    text: str
    kind: ClassVar[str] = "preflight"
    HIGH_RATE: ClassVar[bool] = True


@dataclass(frozen=True)
class Ready(Event):
    server: ServerInfo
    startup_s: float | None = None
    kind: ClassVar[str] = "ready"


@dataclass(frozen=True)
class Attached(Event):
    server: ServerInfo
    kind: ClassVar[str] = "attached"


@dataclass(frozen=True)
class Died(Event):
    text: str
    """One line: the exit and the first real error line."""
    log_path: str | None = None
    kind: ClassVar[str] = "died"


@dataclass(frozen=True)
class Failed(Event):
    """Start failed without an engine death (attach refused, preflight refused)."""

    text: str
    kind: ClassVar[str] = "error"


@dataclass(frozen=True)
class CellStarted(Event):
    label: str
    total: int
    cell_dir: str
    kind: ClassVar[str] = "cell_started"


@dataclass(frozen=True)
class CellStatus(Event):
    text: str
    kind: ClassVar[str] = "cell_status"
    HIGH_RATE: ClassVar[bool] = True


@dataclass(frozen=True)
class RequestFinished(Event):
    record: RequestRecord
    done: int
    total: int
    kind: ClassVar[str] = "request_finished"
    HIGH_RATE: ClassVar[bool] = True


@dataclass(frozen=True)
class CellFinished(Event):
    summary: CellSummary
    cell_dir: str
    label: str
    cancelled: bool = False
    kind: ClassVar[str] = "cell_finished"


@dataclass(frozen=True)
class PairStatus(Event):
    """A line of the pair runner's progress (which leg, what it does)."""

    text: str
    kind: ClassVar[str] = "pair_status"


@dataclass(frozen=True)
class AlarmChanged(Event):
    """An acceptance alarm was raised, cleared or acknowledged (core/measure/health.py; the session's alarms.jsonl
    has the same line)."""

    event: str  #: "raised" | "cleared" | "acknowledged"
    alarm: Any  #: a console.core.measure.health.Alarm
    kind: ClassVar[str] = "alarm"

    @property
    def text(self) -> str:
        return f"alarm {self.event}: {self.alarm.line()}"


@dataclass(frozen=True)
class Stopped(Event):
    kind: ClassVar[str] = "stopped"


def describe(ev: Any) -> str:
    """One line for logs."""
    return f"{ev.kind}: {ev}"
