"""Where the console looks for what it reads and where it writes (docs/install.md#where-things-are).

Profiles and campaign plans, by name, in this order (the first hit wins; a later one with the same name is
shadowed, and the console says so):

    1. a path given on the command line (`x.toml`, `./x`, `/abs/x.toml`) — taken as it is, nothing searched
    2. $SERVING_CONSOLE_PROFILES, when set
    3. ./profiles/                                    (the directory the console runs in)
    4. $XDG_CONFIG_HOME/serving-console/profiles/     (default ~/.config/serving-console/profiles/)
    5. the shipped profiles, inside the installed package (console/shipped/profiles/)

Plans are `campaigns/<name>.toml` under the same directories. Prompt sets (each directory with its own SHA256SUMS)
follow the same order with `prompts` for `profiles` ($SERVING_CONSOLE_PROMPTS, ./prompts/, the user's config dir,
the shipped sets). Sessions are written to --sessions, else $SERVING_CONSOLE_SESSIONS, else ./sessions/ — never
inside the installed package.

A leaf: no other part of the console is imported here.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

SHIPPED = Path(__file__).resolve().parents[1] / "shipped"
SHIPPED_PROFILES = SHIPPED / "profiles"
SHIPPED_PROMPTS = SHIPPED / "prompts"


@dataclass(frozen=True)
class Place:
    """One directory of a search path, with the words that say what it is."""
    path: Path
    what: str

    @property
    def shipped(self) -> bool:
        return self.what == "shipped"

    def text(self) -> str:
        return f"{self.path} ({self.what})"


def config_home() -> Path:
    """$XDG_CONFIG_HOME/serving-console, default ~/.config/serving-console."""
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "serving-console"


def _places(kind: str, env: str, shipped: Path) -> list[Place]:
    out: list[Place] = []
    v = os.environ.get(env)
    if v:
        out.append(Place(Path(v), f"${env}"))
    out += [Place(Path.cwd() / kind, f"./{kind}"), Place(config_home() / kind, "user config"),
            Place(shipped, "shipped")]
    seen: set[Path] = set()
    unique = []
    for p in out:  # one directory named twice (e.g. run from the config dir) is searched once
        key = p.path.resolve() if p.path.exists() else p.path.absolute()
        if key not in seen:
            seen.add(key)
            unique.append(p)
    return unique


def profile_places() -> list[Place]:
    return _places("profiles", "SERVING_CONSOLE_PROFILES", SHIPPED_PROFILES)


def plan_places() -> list[Place]:
    return [Place(p.path / "campaigns", p.what) for p in profile_places()]


def prompt_places() -> list[Place]:
    return _places("prompts", "SERVING_CONSOLE_PROMPTS", SHIPPED_PROMPTS)


def sessions_dir() -> Path:
    """$SERVING_CONSOLE_SESSIONS, else ./sessions (the --sessions flag, where a command has it, comes first)."""
    v = os.environ.get("SERVING_CONSOLE_SESSIONS")
    return Path(v) if v else Path.cwd() / "sessions"


def looks_like_path(ref: str) -> bool:
    """A reference the user meant as a file: it has a suffix or a directory part, or it exists as given."""
    p = Path(ref)
    return p.suffix != "" or len(p.parts) > 1 or ref.startswith(".") or p.exists()


@dataclass
class Found:
    """Where a name resolved: the file, and the same name further down the search path (shadowed by it)."""
    path: Path
    place: Place | None                      # None: a path given as it is
    shadowed: list[Path] = field(default_factory=list)
    searched: list[Place] = field(default_factory=list)

    def shadow_note(self, kind: str = "profile") -> str | None:
        if not self.shadowed or self.place is None:
            return None
        return (f"{kind} {self.path.stem!r} from {self.path} ({self.place.what}) shadows "
                + ", ".join(str(p) for p in self.shadowed))


def find(name: str, places: list[Place], suffix: str) -> Found | None:
    """The first `<place>/<name><suffix>` along `places`, with every later one it shadows; None when none exists."""
    hits = [(pl, pl.path / f"{name}{suffix}") for pl in places if (pl.path / f"{name}{suffix}").is_file()]
    if not hits:
        return None
    (pl, path), rest = hits[0], hits[1:]
    return Found(path=path, place=pl, shadowed=[p for _, p in rest], searched=list(places))


def names(places: list[Place], suffix: str) -> list[str]:
    """Every name found along `places` (each once, in sorted order)."""
    out: set[str] = set()
    for pl in places:
        if pl.path.is_dir():
            out |= {f.name[: -len(suffix)] for f in pl.path.glob(f"*{suffix}") if f.is_file()}
    return sorted(out)


def searched_text(places: list[Place]) -> str:
    return ", ".join(p.text() for p in places)


def not_found(kind: str, ref: str, places: list[Place], suffix: str, path_hint: bool = True) -> str:
    """The one line for a name found nowhere: every place searched and every name known."""
    hint = f" (a path to a {suffix} file works too)" if path_hint else ""
    return (f"{kind} {ref!r} not found; searched {searched_text(places)}; known: "
            f"{', '.join(names(places, suffix)) or '(none)'}{hint}")


def first_of_each(places: list[Place], suffix: str) -> list[Path]:
    """The first file of each name along `places` (a shadowed one left out), sorted by name."""
    seen: dict[str, Path] = {}
    for pl in places:
        if pl.path.is_dir():
            for f in sorted(pl.path.glob(f"*{suffix}")):
                seen.setdefault(f.name[: -len(suffix)], f)
    return [seen[k] for k in sorted(seen)]
