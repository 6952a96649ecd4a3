"""The twin's output text: deterministic, domain-flavoured, and token-true.

Clients re-tokenize what a server streams (bench_serving with an OpenAI backend counts output tokens with a HF
tokenizer; the console counts with o200k), so the twin's text must tokenize close to the token counts it reports.
`TextStream` builds text in units (a sentence, a code line, an equation, a JSON object) from real English words and
identifiers that are single tokens both in o200k_base and in a Llama-family BPE (SmolLM2's 49k vocabulary: the word
lists below are the words of the vendored prose and code under prompt-material that are one token, with their
leading space, in both), and splits each unit into o200k tokens (`bpe_openai`, a dependency; without it, into the
o200k-like pre-tokenizer's pieces). One piece is one completion token, so o200k re-counts the text exactly up to
merges across unit boundaries; a Llama-family tokenizer counts the same common words one to one and differs by a
few percent on code indentation and punctuation runs (tests/sim/test_text.py measures both ratios).

Domains (console/sim/content/domain.py): chat is prose (sentences of 6-22 words with commas, paragraphs of 3-6
sentences); code is 2-3 sentences, a fenced Python block of 5-12 lines, 1-2 sentences after it, repeated; math is prose
with inline and display equations ($x = 3$, \\frac, sums); tool is a JSON object of a function call's arguments
followed by prose. Word choice is Zipf-like (low list indices are common words), seeded per request: the same
seed gives the same text, token for token.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from functools import lru_cache

#: English words (most frequent first) that are one token with a leading space in o200k_base and in SmolLM2's BPE
PROSE_WORDS: tuple[str, ...] = tuple("""
the in to and of by pull for is with or it that from as you on not this be are when python an import extra use
can support client first their type response if code made core any version release async work your rich print
which using install types all other text used without following more library will default schema request
copyright model app may class event connection name new list source also conditions latest example data must no
master standard has so main requests validation error under its def return annotated do provided such user at
object details software lane notice en only project output above trio function releases server but package see
now tag like blob asyncio optional typing does fields changes input rights raw file events copy reference email
proxy tree specific field have make including form href models same syntax instead value level some issues
method int functions items array covered target available during want one before run alt command metadata link
content binary str test we headers permission provide into terminal files out interface disclaimer console
should line these versions body set was title item textual terms get non need errors part include extensions
generation limit then examples features logic stream await methods mask both summary time how section parameter
index plugins means through full copies dependency exceptions align plugin where written exception our they
either actions after values add cloud self masked coverage would complete than free session timeout pool names
users works them branch tools encode runtime references open build state shell responses raise missing prior
started way string program tool third uv patent about handling each per retain tests directly objects compatible
workflows based original required sponsors center width check returns party right image read try been modify
extension classes case issue reserved products key convey path included network send message uses module allow
option supported enable permitted derived additional pytest arrays could single pass libraries us yield even
handle sent context later raised materials style received parameters signature existing behavior property
display table div named bytes over well next supports testing being closed forms nor platform provider custom
result apply assets up building avoid cases sync while needed met reproduce holder endorse promote cache
includes instance keys long variable generic dict product router here what page status protocol receive nested
usage document backend possible policy public float argument longer streaming running strings warning identity
framework access click security help options mode require invalid forge datetime alias math tables apps
installed allows sure making parser remain memory granted socks provides age most control log advanced label
except those ma byte start might change charge number format system explicitly fully logging settings limits
variables em web guides transport role guide script attribute prefix show progress validator attributes material
root call please parsing there low header scheme domain bug otherwise built scope directory config subclass
already equivalent incomplete length inside licenses another current create different small distribute defaults
added passed explicit port particular color process shared found helper known arguments annotation warranty
modified every own info hyper requires projects back know keep don still itself git permit minimal between
reason below were private behaviour order match logo learn stable strong generated messages tokens configured
audio final typed prefer propagate empty workflow validate published union bool place easy regular etc operation
old author contains along blog makes high end feature general follow publish shall head stay becomes close valid
collection designed licensed community codes resource whether null present lanes commands separate query
validators allowed similar render conveying ndarray columns useful working give origin parts last just whole
special until associated subject top service since trust streams updates host lower design flag failed
dictionary via local discord production endpoint br share workload configure earlier purpose properties two
setup done parent wheels multiple offset height team twitter operations parties reads anything something
implement ll clients find related take things simple go interfaces ready packages networking range sending store
write account correct race sockets having currently select connect wrap debug transports tasks against static
applicable common params generate token cannot inputs inspect tuple parse containing id foo my applies results
choose contact timezone serialize called namespace specified links authors random recipient filled bold whose
little comes post box push zero deal let trying spec wrapper fast sh person limitation merge sell whom extras
once released loop properly trace proxies unused removed too rather ext keyword various deprecated base services
benchmarks contribute due previous completion developer management prompt job accepts endpoints normal minor
external unknown snapshot bound inspection evaluate checks defined considered patterns unions serializer initial
definition patch decimal black serve tokenizer domains given conversion who deploy dm liability offer further
wheel pure graph hook much side fine tutorial doesn hard needs ve actually hereby obtaining persons furnished
portions task major window closes early large raising mapping total governed left edge removing upgrade around
components gives point dropped always history hello routes auto tox many builds follows fixed override completed
within editor across separately disable integer contain chain profile calls certain adds unless wait rows extend
remains produce exit physical count badges fixes complex checking lookup treated constraint callable ref updated
benchmark inline demo fuzzy obj adding speed ways margin frameworks price holders freedom law notices reasonable
division short chat sets never download home entire programs replace easier basic else very nothing higher
routing care rule had beautiful
""".split())
#: identifiers of the vendored Python code, same test (keywords removed)
CODE_WORDS: tuple[str, ...] = tuple("""
str array int bool optional text style widget axis value screen node width line list dtype key end cursor shape
data textual console start app input column height len color type name default region property row values file
size object tuple given index axes theme isinstance option arrays request number offset event append result mode
out float options left output selection task method one other encoding background new path string may lines
instance must columns last headers right content any styles cell table widgets get norm justify has order matrix
only mask should rich first function update response ndarray command show stack before clear title have names
tree length current then same timeout range after events where highlight code but padding render rows label
dimensional than total character masked you cookies classes copy message specified unique top progress location
coordinate was auth select returned element using context max two each typing error focused cls real focus dict
there over action child params header visible obj children dimensions args selector overflow sequence bytes
reactive highlighted elements within read auto plain indices parent cells see along display super into stream
kwargs document arr currently items position ignore print complex like query markup repr its backward between
files completed filename extensions refresh join mouse add write more bottom description base empty slice keys
language selected been argument animate wrap container call disabled stop also zero sum token res match single
format time strip
""".split())
#: sentence starters: one token with and without the leading space in both vocabularies
STARTERS: tuple[str, ...] = tuple("""
The It This If Here For In But With All Some These To By We You When Each One That Then Now Most Many There
Since After Before So Also However Note Both Once While Other Your Our First Next Finally Instead Because
Although
""".split())
MATH_WORDS: tuple[str, ...] = tuple("""
value sum number equation solve answer result term terms total step case side both each first second
square root integer prime factor product ratio rate average probability function set point line area
""".split())
VARS = ("x", "y", "n", "k", "a", "b", "m", "t")


@lru_cache(maxsize=1)
def _splitter() -> Callable[[str], list[tuple[int, str]]]:
    """Text -> [(o200k token id, its text)]; the fallback splits into pre-tokenizer pieces with pseudo ids."""
    try:
        import bpe_openai
        enc = bpe_openai.get_encoding("o200k_base")
        decode = enc.decode_single_token_bytes

        def split(text: str) -> list[tuple[int, str]]:
            return [(t, decode(t).decode("utf-8", "replace")) for t in enc.encode_ordinary(text)]
        return split
    except Exception:  # pragma: no cover - the package is a dependency
        from .tokens import _PIECE

        def split(text: str) -> list[tuple[int, str]]:
            return [(100_000 + (hash(m.group(0)) % 100_000), m.group(0)) for m in _PIECE.finditer(text)]
        return split


class TextStream:
    """Deterministic text of one request: `ids[i]` / `pieces[i]` are the i-th output token and its text.

    Generated lazily, a unit at a time, by a generator seeded with `seed`; `domain` picks the flavour."""

    def __init__(self, seed: int | str, domain: str = "chat") -> None:
        self._rng = random.Random(seed)
        self.domain = domain if domain in _UNITS else "chat"
        self.ids: list[int] = []
        self.pieces: list[str] = []
        self._split = _splitter()
        self._units = _UNITS[self.domain](self._rng)

    def ensure(self, n: int) -> None:
        """Generate tokens until at least `n` exist."""
        ids, pieces, split, units = self.ids, self.pieces, self._split, self._units
        while len(ids) < n:
            for tid, piece in split(next(units)):
                ids.append(tid)
                pieces.append(piece)

    def text(self, start: int, end: int) -> str:
        """Text of tokens [start, end)."""
        self.ensure(end)
        return "".join(self.pieces[start:end])


# ------------------------------------------------------------------------------------------------ unit generators

def _zipf(rng: random.Random, words: tuple[str, ...]) -> str:
    return words[int(len(words) * rng.random() ** 2.2)]


def _sentence(rng: random.Random, lead: str) -> str:
    """One sentence, `lead` before it (" " or "" at a paragraph start)."""
    out = [lead + rng.choice(STARTERS)]
    n = rng.randint(6, 22)
    comma = rng.randint(4, n - 2) if n > 9 and rng.random() < 0.6 else -1
    for i in range(n):
        out.append(" " + _zipf(rng, PROSE_WORDS))
        if i == comma:
            out.append(",")
    return "".join(out) + "."


def _chat(rng: random.Random):
    lead = ""
    while True:
        for _ in range(rng.randint(3, 6)):
            yield _sentence(rng, lead)
            lead = " "
        yield "\n\n"
        lead = ""


def _ident(rng: random.Random) -> str:
    a = _zipf(rng, CODE_WORDS)
    return a if rng.random() < 0.9 else a + "_" + _zipf(rng, CODE_WORDS)


_CODE_LINES = (
    "{i}{a} = {f}({b})\n",
    "{i}if {a} is None:\n{i}    return {b}\n",
    "{i}for {a} in {b}:\n{i}    {c}.append({a})\n",
    "{i}{a} = [{b} for {b} in {c} if {b}]\n",
    "{i}{a}[{b}] = {c} + 1\n",
    "{i}if not {a}:\n{i}    raise ValueError(\"{b} {c}\")\n",
    "{i}{a} = {b}.get({c}, 0)\n",
    "{i}return {a}\n",
)


def _code(rng: random.Random):
    while True:
        lead = ""
        for _ in range(rng.randint(2, 3)):
            yield _sentence(rng, lead)
            lead = " "
        yield "\n\n```python\n"
        yield "def " + _ident(rng) + "(" + _ident(rng) + ", " + _ident(rng) + "):\n"
        for _ in range(rng.randint(3, 10)):
            line = rng.choice(_CODE_LINES)
            yield line.format(i="    ", a=_ident(rng), b=_ident(rng), c=_ident(rng), f=_ident(rng))
        yield "    return " + _ident(rng) + "\n```\n\n"
        for _ in range(rng.randint(1, 2)):
            yield _sentence(rng, "" if _ == 0 else " ")
        yield "\n\n"


def _expr(rng: random.Random) -> str:
    v, w = rng.sample(VARS, 2)
    kind = rng.randrange(4)
    if kind == 0:
        return f"{v} = {rng.randint(2, 99)}"
    if kind == 1:
        return f"{v} + {w} = {rng.randint(2, 99)}"
    if kind == 2:
        return f"{rng.randint(2, 9)}{v} - {rng.randint(1, 9)} = {rng.randint(1, 99)}"
    return f"{v}^2 = {rng.randint(2, 99)}"


def _math(rng: random.Random):
    while True:
        for _ in range(rng.randint(2, 4)):
            words = [rng.choice(STARTERS)] + [" " + (rng.choice(MATH_WORDS) if rng.random() < 0.3
                                                     else _zipf(rng, PROSE_WORDS)) for _ in range(rng.randint(4, 12))]
            yield "".join(words) + " $" + _expr(rng) + "$."
            yield " "
        v = rng.choice(VARS)
        yield (f"\n\n$$\\frac{{{v} + {rng.randint(1, 9)}}}{{{rng.randint(2, 9)}}} = "
               f"\\sum_{{k=1}}^{{{rng.randint(2, 9)}}} k$$\n\n")


def _tool(rng: random.Random):
    while True:
        keys = [_zipf(rng, CODE_WORDS) for _ in range(rng.randint(1, 4))]
        body = ", ".join(f'"{k}": "{_zipf(rng, PROSE_WORDS)} {_zipf(rng, PROSE_WORDS)}"' for k in keys)
        yield '{"name": "' + _ident(rng) + '", "arguments": {' + body + "}}\n\n"
        yield _sentence(rng, "")
        yield "\n\n"


_UNITS = {"chat": _chat, "code": _code, "math": _math, "tool": _tool}
