"""Exit codes of every command, the TUI included, and the one mapping from a failure to its code and line.

    0   success
    1   the command ran but measured nothing usable (no successful request)
    2   bad input: usage, profile, prompt set, URL, flag rejected by the engine catalogue
    3   the engine failed to start or died
    4   the server could not be reached, or what answered is not an SGLang server (attach)
    5   preflight refused the launch (port bound, foreign GPU processes, missing paths); --force overrides
    6   the server refused us: HTTP 401, no API key given or the key given was refused
    130 interrupted (Ctrl-C)

Headless commands and the TUI print the same line(s) for the same failure (`describe`) and exit with the same
code (`exit_code`): one line per problem, never a traceback.
"""

from __future__ import annotations

EXIT_OK, EXIT_EMPTY, EXIT_USAGE, EXIT_ENGINE, EXIT_CONNECT, EXIT_PREFLIGHT, EXIT_AUTH, EXIT_INTERRUPT = (
    0, 1, 2, 3, 4, 5, 6, 130)

SUMMARY = ("0 ok · 1 nothing measured · 2 bad input · 3 engine failed/died · 4 server unreachable or not SGLang · "
           "5 preflight refused the launch (--force overrides) · 6 authentication (HTTP 401) · 130 interrupted")


def exit_code(exc: BaseException) -> int | None:
    """The documented code for a failure the console explains itself; None for a bug (a real traceback)."""
    from console.core.engine.admin import AdminError, AuthError
    from console.core.launch.preflight import PreflightRefused
    from console.core.launch.process import EngineDied, EngineLost, EngineTimeout
    if isinstance(exc, KeyboardInterrupt):
        return EXIT_INTERRUPT
    if isinstance(exc, PreflightRefused):
        return EXIT_PREFLIGHT
    if isinstance(exc, (EngineDied, EngineLost, EngineTimeout)):
        return EXIT_ENGINE
    if isinstance(exc, AuthError):
        return EXIT_AUTH
    if isinstance(exc, AdminError):
        return EXIT_CONNECT
    if isinstance(exc, ValueError):  # ProfileError, PromptSetError, CheckError, FlipError, protocol fields, …
        return EXIT_USAGE
    return None


def describe(exc: BaseException) -> list[str]:
    """The failure as printable lines: one per problem (a profile with three mistakes gives three)."""
    problems = getattr(exc, "problems", None)
    if isinstance(problems, list) and problems:
        return [" ".join(str(p).split()) for p in problems]
    text = " ".join(str(exc).split())
    return [text or type(exc).__name__]
