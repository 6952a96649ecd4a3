"""Math prompts: a seeded generator of long multi-step problems with worked context.

Each prompt is a conversation in which the user sets up a problem (definitions, lemmas with proof sketches,
given data), the assistant has already carried out computations (tables of values, elimination steps, iterations,
schedules), and the last user turn asks for a detailed solution of the next part. Sixteen families (recurrences,
primitive roots, Markov chains, matrix powers, quadrature, Stirling numbers, regression, amortisation,
arithmetic functions, Pell equations, shortest paths, Euler's method, polynomial factorisation, polygons,
binomial tails, kinematics); every number is computed exactly (integers, `fractions.Fraction`) or rounded from
exact values, from `random.Random(seed)`, with no material read.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from console.authoring.gen_fit import LONG_FIT, SHORT_FIT, Messages, fit, pick

# the name the committed sets' provenance records (this module's path when they were built)
GENERATOR = "console.core.workload.gen_math"
SEED_BASE = 5100
SHORT_SEED_BASE = 5300

SYSTEMS = [
    "You are a patient mathematics tutor. Work step by step, justify every claim, and check your answers.",
    "You are a careful mathematician. Give complete, rigorous solutions; state which earlier results you use.",
    "You are an expert problem solver helping a student prepare for an exam. Explain each step clearly and "
    "verify numerical results against the data provided.",
    "You are a teaching assistant for a university course. Write detailed solutions in LaTeX-style notation, "
    "showing intermediate results.",
]


@dataclass
class Block:
    role: str
    head: str
    rows: list[str] = field(default_factory=list)
    tail: str = ""


@dataclass
class Problem:
    family: str
    blocks: list[Block]
    final: str
    system: str


def render(pb: Problem, n: int) -> Messages:
    """System, then blocks in order while `n` table rows last (the last block with rows may be cut), then the
    final question as the last user turn."""
    msgs: Messages = [{"role": "system", "content": pb.system}]

    def add(role: str, text: str) -> None:
        if msgs[-1]["role"] == role:
            msgs[-1] = {"role": role, "content": msgs[-1]["content"] + "\n\n" + text}
        else:
            msgs.append({"role": role, "content": text})

    left = n
    for bl in pb.blocks:
        if bl.rows and left <= 0:
            break
        k = min(left, len(bl.rows))
        left -= k
        add(bl.role, "\n".join(p for p in (bl.head, "\n".join(bl.rows[:k]), bl.tail) if p))
        if bl.rows and k < len(bl.rows):
            break
    add("user", pb.final)
    return msgs


def _rows(pb: Problem) -> int:
    return sum(len(b.rows) for b in pb.blocks)


def frac(x: Fraction) -> str:
    if x.denominator == 1:
        return str(x.numerator)
    sign = "-" if x < 0 else ""
    return f"{sign}\\frac{{{abs(x.numerator)}}}{{{x.denominator}}}"


def fmt(x: float, d: int = 6) -> str:
    return f"{x:.{d}f}"


def table(cols: list[str]) -> str:
    return "| " + " | ".join(cols) + " |\n|" + "|".join("---" for _ in cols) + "|"


def row(*cells: Any) -> str:
    return "| " + " | ".join(str(c) for c in cells) + " |"


# ----------------------------------------------------------------------------------------------- families

def f_recurrence(rng: random.Random, short: bool) -> Problem:
    p, q = rng.randrange(1, 6), rng.randrange(1, 5)
    a0, a1 = rng.randrange(0, 4), rng.randrange(1, 6)
    m = pick(rng, [97, 101, 103, 107, 109, 113, 127, 131, 137, 139, 149, 151])
    disc = p * p + 4 * q
    N = 10 ** rng.randrange(9, 16) + rng.randrange(1, 999)
    seq = [a0, a1]
    while len(seq) < 2 + 1200:
        seq.append(p * seq[-1] + q * seq[-2])
    ctx = (f"Let $(a_n)_{{n \\ge 0}}$ be the sequence with $a_0 = {a0}$, $a_1 = {a1}$ and\n"
           f"$$a_{{n+2}} = {p} a_{{n+1}} + {q} a_n \\quad (n \\ge 0).$$\n"
           f"Throughout, $m = {m}$ is prime and we write $r_n = a_n \\bmod {m}$.")
    lemmas = (
        f"**Definitions.** The characteristic polynomial is $\\chi(x) = x^2 - {p}x - {q}$ with discriminant "
        f"$\\Delta = {p}^2 + 4 \\cdot {q} = {disc}$, so its roots are $\\lambda_{{1,2}} = \\frac{{{p} \\pm "
        f"\\sqrt{{{disc}}}}}{{2}}$.\n\n"
        f"**Lemma 1 (closed form).** There are constants $A, B$ with $a_n = A\\lambda_1^n + B\\lambda_2^n$ for all "
        f"$n \\ge 0$; they are fixed by $A + B = {a0}$ and $A\\lambda_1 + B\\lambda_2 = {a1}$.\n"
        f"*Proof sketch.* Both sides satisfy the same second-order recurrence and agree for $n = 0, 1$; induction on "
        f"$n$ finishes the argument.\n\n"
        f"**Lemma 2 (periodicity).** The pair $(r_n, r_{{n+1}})$ takes at most ${m}^2$ values, so the sequence "
        f"$(r_n)$ is eventually periodic. Because $\\gcd({q}, {m}) = 1$ the recurrence can be run backwards modulo "
        f"${m}$ (multiply by the inverse of ${q}$), hence $(r_n)$ is purely periodic. Its least period is denoted "
        f"$\\pi({m})$.\n\n"
        f"**Lemma 3.** If $\\left(\\frac{{{disc}}}{{{m}}}\\right) = 1$ then $\\pi({m})$ divides ${m} - 1$; if it "
        f"equals $-1$ then $\\pi({m})$ divides $({m}+1)(\\text{{order of }} -{q} \\bmod {m})$. (Work in "
        f"$\\mathbb{{F}}_{{{m}}}$ or $\\mathbb{{F}}_{{{m}^2}}$ and use Lemma 1.)")
    blocks = [Block("user", ctx if short else ctx + "\n\n" + lemmas + "\n\nPlease tabulate the first values.")]
    blocks.append(Block("assistant", "Here are the exact values and their residues.\n\n" +
                        table(["$n$", "$a_n$", f"$a_n \\bmod {m}$"]),
                        [row(j, seq[j], seq[j] % m) for j in range(0, 70)],
                        "Every entry was obtained from the two entries above it; the residues were reduced at each "
                        "step, which agrees with reducing the exact values."))
    if not short:
        blocks.append(Block("user", "Thanks. Continue with the residues only, together with the state pairs, "
                                    "until we can see the period."))
        pairs = [row(j, seq[j] % m, f"$({seq[j] % m}, {seq[j + 1] % m})$") for j in range(70, 1200)]
        blocks.append(Block("assistant", table(["$n$", "$r_n$", "$(r_n, r_{n+1})$"]), pairs,
                            f"The state $(r_0, r_1) = ({a0 % m}, {a1 % m})$ is the one to watch for."))
    final = (f"Now solve the following in full detail. (a) Determine the least period $\\pi({m})$ of $(r_n)$ and "
             f"prove that it is the least one. (b) Compute $a_{{{N}}} \\bmod {m}$. (c) Decide which case of Lemma 3 "
             f"applies by computing the Legendre symbol $\\left(\\frac{{{disc}}}{{{m}}}\\right)$, and check that "
             f"your period is consistent with it. Show every step.")
    if short:
        final = (f"Using the table, find the least period of $a_n \\bmod {m}$ if it is visible, and otherwise explain "
                 f"how you would compute $a_{{{N}}} \\bmod {m}$ efficiently. Justify each step.")
    return Problem("linear-recurrence", blocks, final, pick(rng, SYSTEMS))


def _prim_root(p: int) -> int:
    fac = [f for f in range(2, p) if (p - 1) % f == 0 and all(f % d for d in range(2, int(f ** 0.5) + 1))]
    for g in range(2, p):
        if all(pow(g, (p - 1) // f, p) != 1 for f in fac):
            return g
    raise ValueError(p)


def f_primroot(rng: random.Random, short: bool) -> Problem:
    p = pick(rng, [409, 419, 421, 431, 433, 439, 443, 449, 457, 461, 463, 467, 479, 487, 491, 499, 503, 509])
    g = _prim_root(p)
    e = pick(rng, [d for d in range(3, 13) if (p - 1) % d == 0] or [3])
    c = pow(rng.randrange(2, p - 1), e, p)
    ctx = (f"Let $p = {p}$ (a prime) and consider the multiplicative group $(\\mathbb{{Z}}/{p}\\mathbb{{Z}})^\\times$ "
           f"of order $p - 1 = {p - 1}$.")
    lem = (f"**Definition.** The order $\\operatorname{{ord}}_p(a)$ is the least $k \\ge 1$ with $a^k \\equiv 1 "
           f"\\pmod{{p}}$; $g$ is a primitive root if $\\operatorname{{ord}}_p(g) = p - 1$.\n\n"
           f"**Lemma 1.** $\\operatorname{{ord}}_p(a)$ divides $p - 1$ (Lagrange). Hence $g$ is a primitive root iff "
           f"$g^{{(p-1)/\\ell}} \\not\\equiv 1$ for every prime $\\ell \\mid p - 1$.\n\n"
           f"**Lemma 2.** If $g$ is a primitive root then $\\operatorname{{ord}}_p(g^k) = \\frac{{p-1}}{{\\gcd(k, "
           f"p-1)}}$; in particular there are exactly $\\varphi(p-1)$ primitive roots.\n\n"
           f"**Lemma 3 (index calculus).** Writing $a \\equiv g^{{\\operatorname{{ind}}(a)}}$, the congruence "
           f"$x^e \\equiv c$ becomes $e \\cdot \\operatorname{{ind}}(x) \\equiv \\operatorname{{ind}}(c) "
           f"\\pmod{{p-1}}$, which has $\\gcd(e, p-1)$ solutions when $\\gcd(e, p-1) \\mid \\operatorname{{ind}}(c)$ "
           f"and none otherwise.\n\n"
           f"We checked that $g = {g}$ is a primitive root: " +
           ", ".join(f"${g}^{{{(p - 1) // f}}} \\equiv {pow(g, (p - 1) // f, p)}$"
                     for f in range(2, p) if (p - 1) % f == 0 and all(f % d for d in range(2, int(f ** 0.5) + 1))) +
           " (none is $1$).")
    blocks = [Block("user", ctx if short else ctx + "\n\n" + lem + "\n\nTabulate the powers of $g$ and the indices.")]
    blocks.append(Block("assistant", f"Powers of $g = {g}$ modulo ${p}$, with the order of each power "
                                     f"(Lemma 2):\n\n" + table(["$k$", f"${g}^k \\bmod {p}$",
                                                                 "$\\gcd(k, p-1)$", "order"]),
                        [row(k, pow(g, k, p), math.gcd(k, p - 1), (p - 1) // math.gcd(k, p - 1))
                         for k in range(1, p)]))
    if not short:
        ind = {pow(g, k, p): k for k in range(1, p)}
        blocks.append(Block("user", "Now invert it: the index of every residue."))
        blocks.append(Block("assistant", "Index table (discrete logarithms base " + str(g) + "):\n\n" +
                            table(["$a$", "$\\operatorname{ind}(a)$", "$a^2 \\bmod p$", "quadratic residue?"]),
                            [row(a, ind[a], a * a % p, "yes" if ind[a] % 2 == 0 else "no") for a in range(1, p)]))
    final = (f"Solve $x^{{{e}}} \\equiv {c} \\pmod{{{p}}}$ completely using the tables: find "
             f"$\\operatorname{{ind}}({c})$, reduce to a linear congruence modulo ${p - 1}$, list every solution "
             f"$x$, and verify one of them by direct computation. Then determine how many elements have order exactly "
             f"${(p - 1) // e}$ and list the primitive roots that are less than $30$. Give a detailed solution.")
    if short:
        final = (f"Using the table, find the order of ${c}$ modulo ${p}$ and solve $x^{{{e}}} \\equiv {c} "
                 f"\\pmod{{{p}}}$; explain each step.")
    return Problem("primitive-roots", blocks, final, pick(rng, SYSTEMS))


def f_markov(rng: random.Random, short: bool) -> Problem:
    S = rng.randrange(4, 6)
    den = pick(rng, [6, 8, 10, 12])
    P = []
    for i in range(S):
        w = [rng.randrange(0, 4) + (2 if j in (i, (i + 1) % S) else 0) for j in range(S)]
        units = [1 if j in (i, (i + 1) % S) else 0 for j in range(S)]
        for _ in range(den - 2):  # the diagonal and the next state keep at least one unit: A -> B -> ... -> A
            units[rng.choices(range(S), weights=w)[0]] += 1
        P.append([Fraction(u, den) for u in units])
    names = [chr(65 + i) for i in range(S)]
    mat = " \\\\ ".join(" & ".join(frac(x) for x in r) for r in P)
    ctx = (f"A Markov chain on the states ${', '.join(names)}$ has transition matrix (rows = current state, "
           f"columns = next state)\n$$P = \\begin{{pmatrix}} {mat} \\end{{pmatrix}}.$$\n"
           f"The chain starts in state $A$, i.e. $\\pi_0 = (1, 0, \\dots, 0)$, and $\\pi_k = \\pi_0 P^k$.")
    lem = ("**Facts we may use.** (i) Each row of $P$ sums to $1$. (ii) If the chain is irreducible and aperiodic, "
           "$\\pi_k \\to \\pi$ where $\\pi$ is the unique probability vector with $\\pi P = \\pi$. (iii) For an "
           "irreducible chain the expected return time to state $i$ is $1/\\pi_i$. (iv) Expected hitting times "
           "$h_i = \\mathbb{E}_i[T_j]$ solve $h_j = 0$ and $h_i = 1 + \\sum_k P_{ik} h_k$ for $i \\ne j$ "
           "(first-step analysis).\n\nWe verified irreducibility by following the cycle $CYCLE$, each step having "
           "positive probability, and "
           "aperiodicity from the positive diagonal entries.").replace("CYCLE", " \\to ".join(names + [names[0]]))
    blocks = [Block("user", ctx if short else ctx + "\n\n" + lem + "\n\nPlease compute the distributions.")]
    dist = [Fraction(1)] + [Fraction(0)] * (S - 1)
    rows = []
    for k in range(0, 90):
        rows.append(row(k, *(fmt(float(x), 6) for x in dist), fmt(float(max(dist) - min(dist)), 6)))
        dist = [sum((dist[i] * P[i][j] for i in range(S)), Fraction(0)) for j in range(S)]
    blocks.append(Block("assistant", "Iterating $\\pi_{k+1} = \\pi_k P$ exactly and rounding to six decimals:\n\n" +
                        table(["$k$", *[f"$\\pi_k({n})$" for n in names], "spread"]), rows[:40],
                        "The entries of every row sum to $1$ up to rounding, which is a useful check."))
    if not short:
        blocks.append(Block("user", "Let us also look at one simulated trajectory of the chain, with the running "
                                    "fraction of time spent in each state."))
        state, visits, srows = 0, [0] * S, []
        cum = [[sum(P[i][:j + 1]) for j in range(S)] for i in range(S)]
        for t in range(1, 500):
            u = Fraction(rng.randrange(den * 1000), den * 1000)
            state = next(j for j in range(S) if u < cum[state][j])
            visits[state] += 1
            srows.append(row(t, f"${names[state]}$", *(fmt(v / t, 4) for v in visits)))
        blocks.append(Block("assistant", table(["$t$", "$X_t$", *[f"freq$({n})$" for n in names]]), srows,
                            "Uniform draws were mapped to the next state through the cumulative row sums of $P$."))
    final = (f"Now give a detailed solution: (a) find the stationary distribution $\\pi$ exactly (as fractions) by "
             f"solving $\\pi P = \\pi$, and compare it with the table; (b) compute the expected return time to "
             f"state $A$; (c) compute the expected number of steps to reach state ${names[-1]}$ starting from "
             f"$A$ by first-step analysis; (d) estimate from the table how fast $\\pi_k$ converges and relate it to "
             f"the second-largest eigenvalue modulus of $P$.")
    if short:
        final = ("Find the stationary distribution exactly and the expected return time to $A$, showing the linear "
                 "system you solve.")
    return Problem("markov-chain", blocks, final, pick(rng, SYSTEMS))


def _matmul(A: list[list[int]], B: list[list[int]]) -> list[list[int]]:
    return [[sum(A[i][k] * B[k][j] for k in range(len(B))) for j in range(len(B[0]))] for i in range(len(A))]


def f_matrix(rng: random.Random, short: bool) -> Problem:
    while True:
        A = [[rng.randrange(-3, 5) for _ in range(3)] for _ in range(3)]
        tr = A[0][0] + A[1][1] + A[2][2]
        det = (A[0][0] * (A[1][1] * A[2][2] - A[1][2] * A[2][1]) - A[0][1] * (A[1][0] * A[2][2] - A[1][2] * A[2][0])
               + A[0][2] * (A[1][0] * A[2][1] - A[1][1] * A[2][0]))
        if det != 0:
            break
    m2 = (A[0][0] * A[1][1] - A[0][1] * A[1][0] + A[0][0] * A[2][2] - A[0][2] * A[2][0]
          + A[1][1] * A[2][2] - A[1][2] * A[2][1])
    mat = " \\\\ ".join(" & ".join(str(x) for x in r) for r in A)
    ctx = f"Let $$A = \\begin{{pmatrix}} {mat} \\end{{pmatrix}}.$$"
    lem = (f"**Computed so far.** $\\operatorname{{tr}} A = {tr}$, the sum of the principal $2 \\times 2$ minors is "
           f"${m2}$, and $\\det A = {det}$. Hence the characteristic polynomial is\n"
           f"$$\\chi_A(\\lambda) = \\lambda^3 - ({tr})\\lambda^2 + ({m2})\\lambda - ({det}).$$\n"
           f"**Cayley–Hamilton.** $A^3 = {tr}A^2 - ({m2})A + ({det})I$, so every entry sequence of $A^n$, and "
           f"$t_n = \\operatorname{{tr}}(A^n)$, satisfies $x_{{n+3}} = {tr}x_{{n+2}} - ({m2})x_{{n+1}} + ({det})x_n$.\n"
           f"**Newton's identities** give $t_1 = {tr}$, $t_2 = t_1^2 - 2({m2})$, $t_3 = t_1 "
           f"t_2 - ({m2})t_1 + 3({det})$.")
    blocks = [Block("user", ctx if short else ctx + "\n\n" + lem + "\n\nTabulate the powers of $A$.")]
    rows, P = [], [[int(i == j) for j in range(3)] for i in range(3)]
    for k in range(1, 91):
        P = _matmul(P, A)
        rows.append(row(k, *[P[i][j] for i in range(3) for j in range(3)], P[0][0] + P[1][1] + P[2][2]))
    blocks.append(Block("assistant", "Entries of $A^k$ in row-major order, with the trace:\n\n" +
                        table(["$k$", *[f"$(A^k)_{{{i + 1}{j + 1}}}$" for i in range(3) for j in range(3)],
                               "$t_k$"]), rows, "Each row was checked against the Cayley–Hamilton recurrence."))
    final = ("Give a detailed solution: (a) verify the recurrence for $t_k$ on three consecutive rows of the table; "
             "(b) find the eigenvalues of $A$ (exactly if possible, otherwise locate each real root in an interval of "
             "length $0.01$ using sign changes of $\\chi_A$); (c) decide whether $A$ is diagonalisable over "
             "$\\mathbb{R}$ and over $\\mathbb{C}$; (d) determine the growth rate of $\\|A^n\\|$ and compare it with "
             "the ratios $t_{k+1}/t_k$ in the table; (e) compute $(A^{100})_{11} \\bmod 1000$ efficiently.")
    if short:
        final = "Find the characteristic polynomial of $A$ and use it to express $A^3$ in terms of $A^2$, $A$ and $I$."
    return Problem("matrix-powers", blocks, final, pick(rng, SYSTEMS))


def f_quadrature(rng: random.Random, short: bool) -> Problem:
    kind = rng.randrange(3)
    b = pick(rng, [1.0, 1.5, 2.0, 2.5])
    f: Callable[[float], float]
    if kind == 0:
        f, tex = (lambda x: math.exp(-x * x)), "e^{-x^2}"
    elif kind == 1:
        f, tex = (lambda x: 1.0 / (1.0 + x ** 3)), "\\frac{1}{1 + x^3}"
    else:
        f, tex = (lambda x: math.sin(x) / x if x else 1.0), "\\frac{\\sin x}{x}"
    n = 2 * rng.randrange(140, 180)
    h = b / n
    ctx = (f"We want $I = \\int_0^{{{b}}} {tex}\\,dx$ numerically. Use the grid $x_i = i h$ with $h = {b}/{n}$, "
           f"$i = 0, \\dots, {n}$.")
    lem = ("**Composite rules.** Trapezoid: $T_h = h\\left(\\tfrac12 f_0 + f_1 + \\dots + f_{n-1} + \\tfrac12 "
           "f_n\\right)$, error $-\\frac{(b-a)h^2}{12} f''(\\xi)$. Simpson ($n$ even): $S_h = \\frac{h}{3}(f_0 + 4f_1 "
           "+ 2f_2 + \\dots + 4f_{n-1} + f_n)$, error $-\\frac{(b-a)h^4}{180} f^{(4)}(\\xi)$.\n\n**Richardson.** If "
           "$T_h = I + c h^2 + O(h^4)$ then $\\frac{4T_{h/2} - T_h}{3} = I + O(h^4)$ (this reproduces Simpson).")
    blocks = [Block("user", ctx if short else ctx + "\n\n" + lem + "\n\nPlease tabulate the integrand with running "
                                                                     "sums.")]
    rows, acc_t, acc_s = [], 0.0, 0.0
    for i in range(n + 1):
        x = i * h
        fx = f(x)
        wt = 0.5 if i in (0, n) else 1.0
        ws = 1 if i in (0, n) else (4 if i % 2 else 2)
        acc_t += wt * fx
        acc_s += ws * fx
        rows.append(row(i, fmt(x, 5), fmt(fx, 10), wt, ws, fmt(acc_t * h, 10), fmt(acc_s * h / 3, 10)))
    blocks.append(Block("assistant", table(["$i$", "$x_i$", "$f(x_i)$", "trap. weight", "Simpson weight",
                                            "running $T$", "running $S$"]), rows,
                        f"Over the full grid ($i = 0, \\dots, {n}$) this gives $T_h = {acc_t * h:.10f}$ and "
                        f"$S_h = {acc_s * h / 3:.10f}$."))
    final = ("Now write a detailed solution: (a) explain how $T_{2h}$ follows from $T_h$ and the midpoint values, and "
             "estimate it from the table; (b) apply Richardson extrapolation and compare with $S_h$; (c) bound $|f''|$ "
             "and $|f^{(4)}|$ on the interval and turn the error formulas into rigorous error bounds; (d) state how "
             "many correct decimals you trust and why.")
    if short:
        final = "Compute the trapezoid and Simpson estimates from these values and bound their errors."
    return Problem("quadrature", blocks, final, pick(rng, SYSTEMS))


def f_stirling(rng: random.Random, short: bool) -> Problem:
    K = rng.randrange(5, 9)
    nmax = 80
    S = [[0] * (nmax + 1) for _ in range(nmax + 1)]
    S[0][0] = 1
    for n in range(1, nmax + 1):
        for k in range(1, n + 1):
            S[n][k] = k * S[n - 1][k] + S[n - 1][k - 1]
    n0 = rng.randrange(18, 28)
    ctx = ("Let $S(n, k)$ be the Stirling numbers of the second kind (partitions of an $n$-set into $k$ non-empty "
           "blocks) and $B_n = \\sum_k S(n, k)$ the Bell numbers.")
    lem = ("**Lemma 1.** $S(n, k) = k\\,S(n-1, k) + S(n-1, k-1)$ with $S(0,0) = 1$: the element $n$ is either a "
           "singleton block or joins one of the $k$ blocks of a partition of $[n-1]$.\n\n**Lemma 2.** The number of "
           "surjections $[n] \\to [k]$ is $k!\\,S(n,k) = \\sum_{j=0}^{k} (-1)^j \\binom{k}{j} (k-j)^n$ "
           "(inclusion–exclusion over the missed values).\n\n**Lemma 3.** $x^n = \\sum_{k} S(n,k)\\,(x)_k$ where "
           "$(x)_k = x(x-1)\\cdots(x-k+1)$.")
    blocks = [Block("user", ctx if short else ctx + "\n\n" + lem + "\n\nTabulate the table row by row.")]
    rows = [row(n, *[S[n][k] for k in range(1, K + 1)], sum(S[n])) for n in range(1, nmax + 1)]
    blocks.append(Block("assistant", "Using Lemma 1 row by row:\n\n" +
                        table(["$n$", *[f"$S(n,{k})$" for k in range(1, K + 1)], "$B_n$"]), rows))
    if not short:
        blocks.append(Block("user", f"Check Lemma 2 numerically for $k = {K}$."))
        rows2 = []
        for n in range(K, nmax + 1):
            terms = [(-1) ** j * math.comb(K, j) * (K - j) ** n for j in range(K + 1)]
            rows2.append(row(n, *terms, sum(terms), math.factorial(K) * S[n][K]))
        blocks.append(Block("assistant", table(["$n$", *[f"$j={j}$" for j in range(K + 1)], "sum",
                                                f"${K}!\\,S(n,{K})$"]), rows2,
                            "The last two columns agree on every row."))
    final = (f"Give a detailed solution: (a) prove Lemma 2 by inclusion–exclusion; (b) how many ways are there to "
             f"assign ${n0}$ distinct jobs to ${K}$ identical machines so that every machine gets at least one job, "
             f"and how many if the machines are distinct; (c) how many of the distinct-machine assignments give "
             f"machine $1$ exactly two jobs; (d) prove Lemma 3 and verify it for $n = 4$, $x = 5$.")
    if short:
        final = (f"Using the recurrence, compute the number of surjections from a ${min(n0, 12)}$-set onto a "
                 f"${min(K, 5)}$-set, and explain the inclusion–exclusion check.")
    return Problem("stirling-numbers", blocks, final, pick(rng, SYSTEMS))


def f_regression(rng: random.Random, short: bool) -> Problem:
    n = rng.randrange(12, 16) if short else rng.randrange(200, 260)
    a, b = rng.uniform(-5, 20), rng.uniform(0.3, 3.0)
    xs = sorted(round(rng.uniform(0, 50), 1) for _ in range(n))
    ys = [round(a + b * x + rng.gauss(0, 4), 2) for x in xs]
    topic = pick(rng, [("advertising spend (thousand EUR)", "weekly sales (thousand EUR)"),
                       ("hours of study", "exam score"), ("temperature (°C)", "electricity demand (MWh)"),
                       ("fertiliser (kg per plot)", "yield (kg per plot)")])
    tot = (sum(xs), sum(ys), sum(x * x for x in xs), sum(x * y for x, y in zip(xs, ys, strict=True)),
           sum(y * y for y in ys))
    ctx = (f"A sample of $n = {n}$ observations relates $x$ = {topic[0]} to $y$ = {topic[1]}. We fit the simple "
           f"linear model $y_i = \\beta_0 + \\beta_1 x_i + \\varepsilon_i$ with independent "
           f"$\\varepsilon_i \\sim N(0, \\sigma^2)$. Over the whole sample, $\\sum x_i = {tot[0]:.1f}$, "
           f"$\\sum y_i = {tot[1]:.2f}$, $\\sum x_i^2 = {tot[2]:.2f}$, $\\sum x_i y_i = {tot[3]:.3f}$ and "
           f"$\\sum y_i^2 = {tot[4]:.4f}$.")
    lem = ("**Formulas.** $S_{xx} = \\sum x_i^2 - n\\bar x^2$, $S_{xy} = \\sum x_i y_i - n \\bar x \\bar y$, "
           "$\\hat\\beta_1 = S_{xy}/S_{xx}$, $\\hat\\beta_0 = \\bar y - \\hat\\beta_1 \\bar x$, "
           "$s^2 = \\frac{1}{n-2}\\sum (y_i - \\hat y_i)^2$, $\\operatorname{SE}(\\hat\\beta_1) = s/\\sqrt{S_{xx}}$, "
           "and $R^2 = S_{xy}^2/(S_{xx} S_{yy})$. A $95\\%$ confidence interval for $\\beta_1$ is "
           f"$\\hat\\beta_1 \\pm t_{{0.975, n-2}}\\operatorname{{SE}}(\\hat\\beta_1)$ with $t_{{0.975, {n - 2}}} "
           f"\\approx {1.96 + 2.4 / (n - 2):.3f}$.")
    blocks = [Block("user", ctx if short else ctx + "\n\n" + lem)]
    rows, sx, sy, sxx, sxy, syy = [], 0.0, 0.0, 0.0, 0.0, 0.0
    for i, (x, y) in enumerate(zip(xs, ys, strict=True), 1):
        sx, sy, sxx, sxy, syy = sx + x, sy + y, sxx + x * x, sxy + x * y, syy + y * y
        rows.append(row(i, x, y, fmt(x * x, 2), fmt(x * y, 3), fmt(sx, 1), fmt(sy, 2), fmt(sxx, 2), fmt(sxy, 3)))
    blocks.append(Block("assistant", "The observations in the order they were collected, with running sums (they "
                                     "end at the totals above):\n\n" +
                        table(["$i$", "$x_i$", "$y_i$", "$x_i^2$", "$x_i y_i$", "$\\sum x$", "$\\sum y$",
                               "$\\sum x^2$", "$\\sum xy$"]), rows))
    final = ("Give a detailed solution: (a) compute $\\bar x$, $\\bar y$, $S_{xx}$, $S_{xy}$, $S_{yy}$ from the "
             "totals; (b) find $\\hat\\beta_0$, $\\hat\\beta_1$ and $R^2$; (c) compute $s$ and a $95\\%$ confidence "
             "interval for the slope, and test $H_0: \\beta_1 = 0$; (d) predict $y$ at $x = 25$ with a $95\\%$ "
             "prediction interval; (e) say which observations you would check as possible outliers and why.")
    if short:
        final = "Compute the least-squares line from the totals, interpret the slope, and check one residual."
    return Problem("linear-regression", blocks, final, pick(rng, SYSTEMS))


def f_amortization(rng: random.Random, short: bool) -> Problem:
    P = rng.randrange(120, 600) * 1000
    r = rng.randrange(250, 700) / 100
    years = pick(rng, [25, 30])
    n = years * 12
    i = r / 100 / 12
    pay = P * i / (1 - (1 + i) ** -n)
    extra = rng.randrange(2, 10) * 100
    ctx = (f"A mortgage of {P:,} EUR is repaid monthly over {years} years at a nominal annual rate of {r}% "
           f"(monthly rate $i = {r}\\%/12$).")
    lem = (f"**Payment formula.** With $n = {n}$ payments, the level payment is $M = P\\frac{{i}}{{1 - (1+i)^{{-n}}}}"
           f" = {pay:.2f}$ EUR.\n**Schedule.** Each month the interest is $i \\cdot B_{{k-1}}$, the principal part is "
           f"$M - iB_{{k-1}}$ and $B_k = B_{{k-1}}(1+i) - M$. **Closed form:** $B_k = P(1+i)^k "
           "- M\\frac{(1+i)^k - 1}{i}$.")
    blocks = [Block("user", ctx if short else ctx + "\n\n" + lem + "\n\nPlease produce the schedule.")]
    rows, B, tot_i = [], float(P), 0.0
    for k in range(1, n + 1):
        it = B * i
        pr = pay - it
        B -= pr
        tot_i += it
        rows.append(row(k, f"{pay:.2f}", f"{it:.2f}", f"{pr:.2f}", f"{max(B, 0):.2f}", f"{tot_i:.2f}"))
    blocks.append(Block("assistant", "Amortisation schedule (EUR):\n\n" +
                        table(["month", "payment", "interest", "principal", "balance", "cumulative interest"]), rows))
    if not short:
        r2 = r + 1
        i2 = r2 / 100 / 12
        pay2 = P * i2 / (1 - (1 + i2) ** -n)
        rows2, B, tot2 = [], float(P), 0.0
        for k in range(1, n + 1):
            it = B * i2
            B -= pay2 - it
            tot2 += it
            if k % 3 == 0:
                rows2.append(row(k, f"{pay2:.2f}", f"{it:.2f}", f"{pay2 - it:.2f}", f"{max(B, 0):.2f}", f"{tot2:.2f}"))
        blocks.append(Block("user", f"For comparison, what would the schedule look like at {r2:.2f}%? Quarterly "
                                    f"rows are enough."))
        blocks.append(Block("assistant", f"At {r2:.2f}% the payment is {pay2:.2f} EUR. Every third month:\n\n" +
                            table(["month", "payment", "interest", "principal", "balance", "cumulative interest"]),
                            rows2))
    final = (f"Give a detailed solution: (a) derive the payment formula and the closed form for $B_k$; (b) check "
             f"month $12$ of the schedule against the closed form; (c) compute the total interest over the full term; "
             f"(d) if the borrower adds {extra} EUR to every payment from month $13$ on, after how many months is "
             f"the loan repaid and how much interest is saved; (e) compute the effective annual rate.")
    if short:
        final = "Derive the payment formula and compute how much of the first year's payments goes to interest."
    return Problem("amortisation", blocks, final, pick(rng, SYSTEMS))


def _factor(n: int) -> dict[int, int]:
    out: dict[int, int]
    out, d = {}, 2
    while d * d <= n:
        while n % d == 0:
            out[d] = out.get(d, 0) + 1
            n //= d
        d += 1
    if n > 1:
        out[n] = out.get(n, 0) + 1
    return out


def f_arith(rng: random.Random, short: bool) -> Problem:
    n0 = rng.randrange(1, 30) * 100 + 1
    target = pick(rng, [48, 72, 96, 120, 144, 160, 192, 216, 240, 288])
    ctx = ("For a positive integer $n = \\prod p^{a}$ let $\\tau(n)$ be the number of divisors, $\\sigma(n)$ their "
           "sum, $\\varphi(n)$ Euler's totient and $\\mu(n)$ the Möbius function.")
    lem = ("**Lemma 1.** $\\tau$, $\\sigma$, $\\varphi$, $\\mu$ are multiplicative, with $\\tau(p^a) = a+1$, "
           "$\\sigma(p^a) = \\frac{p^{a+1}-1}{p-1}$, $\\varphi(p^a) = p^{a-1}(p-1)$, $\\mu(p) = -1$, $\\mu(p^a) = 0$ "
           "for $a \\ge 2$.\n\n**Lemma 2.** $\\sum_{d \\mid n} \\varphi(d) = n$ and $\\sum_{d \\mid n} \\mu(d) = [n = "
           "1]$.\n\n**Lemma 3.** If $\\varphi(n) = m$ then every prime $p \\mid n$ has $p - 1 \\mid m$, and $n \\le "
           "m \\prod_{p - 1 \\mid m} \\frac{p}{p-1}$.")
    blocks = [Block("user", ctx if short else ctx + "\n\n" + lem + "\n\nTabulate them for a range of $n$.")]
    rows = []
    for n in range(n0, n0 + 420):
        fa = _factor(n)
        tau = math.prod(a + 1 for a in fa.values())
        sig = math.prod((p ** (a + 1) - 1) // (p - 1) for p, a in fa.items())
        phi = math.prod(p ** (a - 1) * (p - 1) for p, a in fa.items())
        mu = 0 if any(a > 1 for a in fa.values()) else (-1) ** len(fa)
        fs = " \\cdot ".join(f"{p}^{{{a}}}" if a > 1 else str(p) for p, a in fa.items())
        rows.append(row(n, f"${fs}$", tau, sig, phi, mu))
    blocks.append(Block("assistant", table(["$n$", "factorisation", "$\\tau$", "$\\sigma$", "$\\varphi$", "$\\mu$"]),
                        rows, "Perfect powers and primes are easy to spot from the $\\tau$ column."))
    final = (f"Give a detailed solution: (a) prove Lemma 3; (b) find all $n$ with $\\varphi(n) = {target}$, "
             f"justifying that your list is complete; (c) find every $n$ in the table with $\\sigma(n) > 2.5n$ and "
             f"explain what they have in common; (d) verify Lemma 2 for the first composite $n$ in the table with "
             f"$\\tau(n) \\ge 8$.")
    if short:
        final = f"Find all $n$ with $\\varphi(n) = {target // 4}$ and prove that your list is complete."
    return Problem("arithmetic-functions", blocks, final, pick(rng, SYSTEMS))


def _cf_rows(d: int, n: int) -> list[str]:
    a0 = math.isqrt(d)
    rows, m, dd, a = [], 0, 1, a0
    p2, p1, q2, q1 = 1, a0, 0, 1
    rows.append(row(0, m, dd, a, p1, q1, p1 * p1 - d * q1 * q1))
    for k in range(1, n):
        m = dd * a - m
        dd = (d - m * m) // dd
        a = (a0 + m) // dd
        p2, p1 = p1, a * p1 + p2
        q2, q1 = q1, a * q1 + q2
        rows.append(row(k, m, dd, a, p1, q1, p1 * p1 - d * q1 * q1))
    return rows


def _pell_fundamental(d: int) -> tuple[int, int]:
    a0 = math.isqrt(d)
    m, dd, a = 0, 1, a0
    p2, p1, q2, q1 = 1, a0, 0, 1
    while p1 * p1 - d * q1 * q1 != 1:
        m = dd * a - m
        dd = (d - m * m) // dd
        a = (a0 + m) // dd
        p2, p1 = p1, a * p1 + p2
        q2, q1 = q1, a * q1 + q2
    return p1, q1


def f_pell(rng: random.Random, short: bool) -> Problem:
    pool = [d for d in range(40, 400) if math.isqrt(d) ** 2 != d and 6 <= _cf_period(d) <= 18]
    d = pick(rng, pool)
    a0 = math.isqrt(d)
    ctx = (f"We study the Pell equation $x^2 - {d}y^2 = 1$ through the continued fraction of $\\sqrt{{{d}}}$, "
           f"whose integer part is $a_0 = {a0}$.")
    lem = ("**Algorithm.** $m_0 = 0$, $d_0 = 1$, $a_0 = \\lfloor\\sqrt{D}\\rfloor$; then $m_{k+1} = d_k a_k - m_k$, "
           "$d_{k+1} = (D - m_{k+1}^2)/d_k$, $a_{k+1} = \\lfloor (a_0 + m_{k+1})/d_{k+1} \\rfloor$. The expansion is "
           "periodic and the period ends when $a_k = 2a_0$.\n\n**Convergents.** $p_{-1} = 1$, $q_{-1} = 0$, "
           "$p_0 = a_0$, $q_0 = 1$, $p_k = a_k p_{k-1} + p_{k-2}$, $q_k = a_k q_{k-1} + q_{k-2}$, and "
           "$p_k^2 - D q_k^2 = (-1)^{k+1} d_{k+1}$.\n\n**Theorem.** If $\\ell$ is the period length, the fundamental "
           "solution is $(p_{\\ell-1}, q_{\\ell-1})$ when $\\ell$ is even and $(p_{2\\ell-1}, q_{2\\ell-1})$ when "
           "$\\ell$ is odd.")
    blocks = [Block("user", ctx if short else ctx + "\n\n" + lem + "\n\nRun the algorithm and tabulate.")]
    cols = ["$k$", "$m_k$", "$d_k$", "$a_k$", "$p_k$", "$q_k$"]
    blocks.append(Block("assistant", table(cols + [f"$p_k^2 - {d}q_k^2$"]), _cf_rows(d, 2 * _cf_period(d) + 3),
                        "The last column only takes the values $\\pm d_{k+1}$, as the lemma predicts."))
    if not short:
        others = [e for e in rng.sample(pool, 22) if e != d][:20]
        blocks.append(Block("user", "For comparison, here are the other values of $D$ we worked through last week. "
                                    "Please list their tables again with the solutions we found."))
        for e in others:
            x, y = _pell_fundamental(e)
            blocks.append(Block("assistant", f"**$D = {e}$** (period {_cf_period(e)}):\n\n" +
                                table(cols + [f"$p_k^2 - {e}q_k^2$"]), _cf_rows(e, 2 * _cf_period(e) + 1),
                                f"Fundamental solution: $(x, y) = ({x}, {y})$, and indeed "
                                f"${x}^2 - {e} \\cdot {y}^2 = 1$."))
    final = (f"Give a detailed solution: (a) read off the period of the continued fraction of $\\sqrt{{{d}}}$; (b) "
             f"find the fundamental solution of $x^2 - {d}y^2 = 1$ and say whether $x^2 - {d}y^2 = -1$ is solvable; "
             f"(c) prove that $(x + y\\sqrt{{{d}}})^k$ gives all solutions and compute the next two; (d) explain "
             f"the identity $p_k^2 - D q_k^2 = (-1)^{{k+1}} d_{{k+1}}$ and check it on two rows.")
    if short:
        final = f"Find the smallest solution of $x^2 - {d}y^2 = 1$ in positive integers and verify it."
    return Problem("pell-equation", blocks, final, pick(rng, SYSTEMS))


def _cf_period(d: int) -> int:
    a0 = math.isqrt(d)
    m, dd, a, k = 0, 1, a0, 0
    while a != 2 * a0:
        m = dd * a - m
        dd = (d - m * m) // dd
        a = (a0 + m) // dd
        k += 1
    return k


def f_graph(rng: random.Random, short: bool) -> Problem:
    V = rng.randrange(6, 8) if short else rng.randrange(80, 90)
    edges: dict[tuple[int, int], int] = {}
    for i in range(1, V):
        edges[(rng.randrange(i), i)] = rng.randrange(2, 30)
    while len(edges) < (2 * V if short else 3 * V):
        u, v = sorted(rng.sample(range(V), 2))
        edges.setdefault((u, v), rng.randrange(2, 30))
    adj: dict[int, list[tuple[int, int]]] = {i: [] for i in range(V)}
    for (u, v), w in edges.items():
        adj[u].append((v, w))
        adj[v].append((u, w))
    ctx = (f"An undirected weighted graph $G$ has vertices $v_0, \\dots, v_{{{V - 1}}}$ and the edge list below "
           f"($|E| = {len(edges)}$). Weights are travel times in minutes.")
    lem = ("**Dijkstra's algorithm.** Keep tentative distances $d(v)$; repeatedly settle the unsettled vertex with the "
           "smallest $d$ and relax its edges: $d(w) \\leftarrow \\min(d(w), d(v) + c(v,w))$. **Invariant:** when a "
           "vertex is settled its label equals the true distance (all weights are positive).\n\n**Kruskal.** Sort "
           "edges by weight and add each edge that joins two different components; the result "
           "is a minimum spanning tree.")
    erows = [row(f"$v_{{{u}}}$", f"$v_{{{v}}}$", w) for (u, v), w in sorted(edges.items())]
    edges_tab = table(["$u$", "$v$", "$c(u,v)$"]) + "\n" + "\n".join(erows)
    blocks = [Block("user", (ctx if short else ctx + "\n\n" + lem) + "\n\n" + edges_tab)]
    def dijkstra(src: int) -> tuple[dict[int, int], list[str]]:
        prev: dict[int, int]
        settled: set[int]
        dist, prev, settled, rows = {src: 0}, {}, set(), []
        while len(settled) < V:
            v = min((x for x in dist if x not in settled), key=lambda x: (dist[x], x))
            settled.add(v)
            upd = []
            for w, c in sorted(adj[v]):
                if w not in settled and dist[v] + c < dist.get(w, 10 ** 9):
                    dist[w] = dist[v] + c
                    prev[w] = v
                    upd.append(f"$d(v_{{{w}}}) = {dist[w]}$")
            rows.append(row(len(settled), f"$v_{{{v}}}$", dist[v], f"$v_{{{prev[v]}}}$" if v in prev else "-",
                            ", ".join(upd) or "none"))
        return dist, rows

    dist, rows = dijkstra(0)
    blocks.append(Block("assistant", "Dijkstra from $v_0$, one settled vertex per step:\n\n" +
                        table(["step", "settled", "$d$", "via", "relaxations"]), rows))
    tgt = max(dist, key=lambda x: (dist[x], x))
    final = (f"Give a detailed solution: (a) reconstruct the shortest path from $v_0$ to $v_{{{tgt}}}$ and its length; "
             f"(b) prove the Dijkstra invariant in general and point out where positivity of the weights is used; "
             f"(c) find the second-shortest simple path from $v_0$ to $v_{{{tgt}}}$; (d) run Kruskal on the edge list "
             f"and give the total weight of a minimum spanning tree, explaining why the shortest-path tree is not "
             f"necessarily minimal.")
    if not short:
        blocks.append(Block("user", f"Run it once more, from $v_{{{tgt}}}$, so we can compare the two trees."))
        blocks.append(Block("assistant", f"Dijkstra from $v_{{{tgt}}}$:\n\n" +
                            table(["step", "settled", "$d$", "via", "relaxations"]), dijkstra(tgt)[1]))
    if short:
        final = f"Find the shortest path from $v_0$ to $v_{{{tgt}}}$ with Dijkstra's algorithm, showing each step."
    return Problem("shortest-paths", blocks, final, pick(rng, SYSTEMS))


def f_euler(rng: random.Random, short: bool) -> Problem:
    kind = rng.randrange(3)
    if kind == 0:
        f, ex, tex, extex, x0, y0 = (lambda x, y: y - x * x + 1), (lambda x: (x + 1) ** 2 - 0.5 * math.exp(x)), \
            "y - x^2 + 1", "(x+1)^2 - \\tfrac12 e^x", 0.0, 0.5
    elif kind == 1:
        f, ex, tex, extex, x0, y0 = ((lambda x, y: -2 * x * y), (lambda x: math.exp(-x * x)), "-2xy", "e^{-x^2}",
                                     0.0, 1.0)
    else:
        f, ex, tex, extex, x0, y0 = (lambda x, y: x + y), (lambda x: 2 * math.exp(x) - x - 1), "x + y", \
            "2e^x - x - 1", 0.0, 1.0
    X = pick(rng, [1.0, 1.5, 2.0])
    ctx = (f"Consider the initial value problem $y' = {tex}$, $y({x0:g}) = {y0:g}$ on $[{x0:g}, {X:g}]$, whose exact "
           f"solution is $y(x) = {extex}$.")
    lem = ("**Euler's method.** $y_{k+1} = y_k + h f(x_k, y_k)$. The local error is $O(h^2)$ and the global error "
           "$O(h)$: if $|f_y| \\le L$ and $|y''| \\le M$ then $|e_k| \\le \\frac{hM}{2L}(e^{L(x_k - x_0)} - 1)$.\n\n"
           "**Heun / RK4** have global orders $2$ and $4$. Halving $h$ should roughly halve the Euler error.")
    blocks = [Block("user", ctx if short else ctx + "\n\n" + lem + "\n\nRun Euler with several step sizes.")]
    for h in (0.05, 0.025, 0.01, 0.005):
        n = int(round((X - x0) / h))
        rows, x, y = [], x0, y0
        for k in range(n + 1):
            rows.append(row(k, fmt(x, 3), fmt(y, 8), fmt(ex(x), 8), f"{ex(x) - y:.3e}"))
            y += h * f(x, y)
            x = x0 + (k + 1) * h
        blocks.append(Block("assistant", f"Euler with $h = {h}$:\n\n" +
                            table(["$k$", "$x_k$", "$y_k$", "$y(x_k)$", "error"]), rows))
        blocks.append(Block("user", "Good, now a smaller step."))
    blocks.pop()
    final = ("Give a detailed solution: (a) use the three final errors to estimate the order of convergence; (b) "
             "derive the local truncation error of Euler's method; (c) perform two steps of RK4 with $h = 0.1$ by hand "
             "and compare with the exact solution; (d) apply Richardson extrapolation to the Euler values at the "
             "right endpoint and explain why it helps.")
    if short:
        final = "Estimate the order of convergence from these values and do one RK4 step with $h = 0.1$ by hand."
    return Problem("euler-method", blocks, final, pick(rng, SYSTEMS))


def f_poly(rng: random.Random, short: bool) -> Problem:
    roots = sorted(rng.sample([r for r in range(-9, 10) if r], rng.randrange(3, 5)))
    qb, qc = rng.randrange(-4, 5), rng.randrange(2, 9)
    while qb * qb - 4 * qc >= 0:
        qc += 1
    coeffs = [1, qb, qc]
    for r in roots:
        coeffs = [c - r * p for c, p in zip(coeffs + [0], [0] + coeffs, strict=True)]
    deg = len(coeffs) - 1
    terms = []
    for k, c in enumerate(coeffs):
        e = deg - k
        if c == 0:
            continue
        mono = "" if e == 0 else ("x" if e == 1 else f"x^{{{e}}}")
        cs = str(abs(c)) if (abs(c) != 1 or e == 0) else ""
        terms.append(("-" if c < 0 else "+") + f" {cs}{mono}")
    ptex = " ".join(terms).lstrip("+ ")
    ctx = f"Let $$p(x) = {ptex}.$$"
    lem = (f"**Rational root test.** Any rational root $r/s$ in lowest terms has $r \\mid {coeffs[-1]}$ and "
           f"$s \\mid 1$, so the candidates are the divisors of ${abs(coeffs[-1])}$ and their negatives.\n\n**Vieta.** "
           f"The roots $z_1, \\dots, z_{{{deg}}}$ satisfy $\\sum z_i = {-coeffs[1]}$ and $\\prod z_i = "
           f"{(-1) ** deg * coeffs[-1]}$.\n\n**Synthetic division** by $x - r$ gives the quotient coefficients "
           f"$b_0 = a_0$, $b_k = a_k + r b_{{k-1}}$ and the remainder $p(r)$.")
    blocks = [Block("user", ctx if short else ctx + "\n\n" + lem + "\n\nTabulate $p$ on the integers.")]
    rows = []
    dcoef = [c * (deg - k) for k, c in enumerate(coeffs[:-1])]
    d2coef = [c * (deg - 1 - k) for k, c in enumerate(dcoef[:-1])]
    for x in range(-300, 301):
        v = sum(c * x ** (deg - k) for k, c in enumerate(coeffs))
        dv = sum(c * x ** (deg - 1 - k) for k, c in enumerate(dcoef))
        d2v = sum(c * x ** (deg - 2 - k) for k, c in enumerate(d2coef))
        rows.append(row(x, v, dv, d2v, "root" if v == 0 else ("+" if v > 0 else "-")))
    blocks.append(Block("assistant", table(["$x$", "$p(x)$", "$p'(x)$", "$p''(x)$", "sign"]), rows))
    if not short:
        sd, cur = [], coeffs[:]
        for r in roots:
            b = [cur[0]]
            for c in cur[1:]:
                b.append(c + r * b[-1])
            sd.append(row(f"$x - ({r})$", " ".join(str(c) for c in cur), " ".join(str(c) for c in b[:-1]), b[-1]))
            cur = b[:-1]
        blocks.append(Block("user", "Do the synthetic divisions for the integer roots you found."))
        blocks.append(Block("assistant", table(["divisor", "dividend coefficients", "quotient", "remainder"]), sd))
    final = ("Give a detailed solution: (a) factor $p$ completely over $\\mathbb{Q}$, $\\mathbb{R}$ and "
             "$\\mathbb{C}$; (b) compute $\\sum z_i^2$ and $\\sum z_i^3$ with Newton's identities and check them "
             "against the roots; (c) determine the intervals where $p(x) > 0$; (d) find the number of real critical "
             "points of $p$ and justify it.")
    if short:
        final = "Factor $p$ completely using the table and the rational root test, and check with Vieta's formulas."
    return Problem("polynomial-roots", blocks, final, pick(rng, SYSTEMS))


def f_polygon(rng: random.Random, short: bool) -> Problem:
    N = rng.randrange(8, 11) if short else rng.randrange(150, 180)
    pts = []
    rad = rng.uniform(450, 750)
    for k in range(N):
        ang = 2 * math.pi * k / N
        rad = min(900.0, max(300.0, rad + rng.uniform(-18, 18)))
        pts.append((round(10 * rad * math.cos(ang)), round(10 * rad * math.sin(ang))))  # decimetres
    ctx = (f"A parcel of land is the simple polygon with the {N} vertices below, listed counter-clockwise "
           f"(coordinates in metres).\n\n" + table(["$i$", "$x_i$", "$y_i$"]) + "\n" +
           "\n".join(row(k, f"{x / 10:.1f}", f"{y / 10:.1f}") for k, (x, y) in enumerate(pts)))
    lem = ("**Shoelace formula.** $A = \\frac12 \\sum_{i} (x_i y_{i+1} - x_{i+1} y_i)$ (indices mod $N$).\n\n"
           "**Centroid.** $C_x = \\frac{1}{6A}\\sum (x_i + x_{i+1})(x_i y_{i+1} - x_{i+1} y_i)$ and similarly for "
           "$C_y$.\n\n**Perimeter.** $\\sum \\sqrt{(x_{i+1}-x_i)^2 + (y_{i+1}-y_i)^2}$.")
    blocks = [Block("user", ctx if short else ctx + "\n\n" + lem)]
    rows, acc = [], 0
    for k in range(N):
        (x1, y1), (x2, y2) = pts[k], pts[(k + 1) % N]
        cr = x1 * y2 - x2 * y1
        acc += cr
        rows.append(row(k, f"{x1 / 10:.1f}", f"{y1 / 10:.1f}", f"{cr / 100:.2f}", f"{acc / 100:.2f}",
                        fmt(math.hypot(x2 - x1, y2 - y1) / 10, 4)))
    blocks.append(Block("assistant", "Cross terms with the running sum and the edge lengths:\n\n" +
                        table(["$i$", "$x_i$", "$y_i$", "$x_i y_{i+1} - x_{i+1} y_i$", "running sum", "edge length"]),
                        rows))
    if not short:
        tri = []
        for k in range(1, N - 1):
            (x0, y0), (x1, y1), (x2, y2) = pts[0], pts[k], pts[k + 1]
            d = (x1 - x0) * (y2 - y0) - (x2 - x0) * (y1 - y0)
            tri.append(row(k, f"$(0, {k}, {k + 1})$", f"{d / 200:.3f}", f"{math.hypot(x2 - x0, y2 - y0) / 10:.3f}"))
        blocks.append(Block("user", "Let's also triangulate it as a fan from vertex 0 as a cross-check."))
        blocks.append(Block("assistant", table(["$k$", "triangle", "signed area (m$^2$)", "diagonal $|P_0P_{k+1}|$"]),
                            tri, "Negative signed areas mark triangles that fall outside the parcel."))
    qx, qy = rng.randrange(-400, 400), rng.randrange(-400, 400)
    final = (f"Give a detailed solution: (a) compute the area with the shoelace formula, using the running sum; (b) "
             f"compute the centroid; (c) compute the perimeter; (d) decide whether the point $({qx}, {qy})$ lies "
             f"inside the parcel using a ray-casting argument, and explain how to make the test robust when the ray "
             f"passes through a vertex.")
    if short:
        final = "Compute the area with the shoelace formula and the perimeter of the polygon."
    return Problem("polygon-area", blocks, final, pick(rng, SYSTEMS))


def f_binomial(rng: random.Random, short: bool) -> Problem:
    n = rng.randrange(260, 330)
    p = Fraction(rng.randrange(5, 45), 100)
    ctx = (f"A quality inspector tests $n = {n}$ independent items, each defective with probability $p = "
           f"{float(p)}$. Let $X$ be the number of defective items, so $X \\sim "
           f"\\operatorname{{Bin}}({n}, {float(p)})$.")
    lem = ("**Facts.** $P(X = k) = \\binom{n}{k} p^k (1-p)^{n-k}$, $E[X] = np$, $\\operatorname{Var}(X) = np(1-p)$. "
           "The ratio $\\frac{P(X=k+1)}{P(X=k)} = \\frac{n-k}{k+1}\\cdot\\frac{p}{1-p}$ gives the mode. **Normal "
           "approximation** with continuity correction: $P(X \\le k) \\approx \\Phi\\left(\\frac{k + 0.5 - np}"
           "{\\sqrt{np(1-p)}}\\right)$. **Chebyshev:** $P(|X - np| \\ge t) \\le \\frac{np(1-p)}{t^2}$.")
    blocks = [Block("user", ctx if short else ctx + "\n\n" + lem + "\n\nTabulate the distribution.")]
    rows, cdf = [], Fraction(0)
    for k in range(0, n + 1):
        pk = math.comb(n, k) * p ** k * (1 - p) ** (n - k)
        cdf += pk
        rows.append(row(k, math.comb(n, k), f"{float(pk):.6e}", f"{float(cdf):.8f}", f"{float(1 - cdf + pk):.8f}"))
    blocks.append(Block("assistant", table(["$k$", "$\\binom{n}{k}$", "$P(X=k)$", "$P(X \\le k)$", "$P(X \\ge k)$"]),
                        rows))
    t = max(3, int(float(n * p * (1 - p)) ** 0.5 * 2))
    final = (f"Give a detailed solution: (a) find the mode of $X$ from the ratio of consecutive probabilities and "
             f"check it in the table; (b) compute $P(|X - np| \\ge {t})$ exactly from the table, by Chebyshev, and by "
             f"the normal approximation, and compare; (c) the batch is rejected if more than "
             f"${int(float(n * p) + t)}$ items are defective: what is the rejection probability, and how large must "
             f"$n$ be for a $1\\%$ rejection rate at the same threshold ratio?")
    if short:
        final = "Compute the mean, variance and mode of $X$, and the probability of at most two defectives."
    return Problem("binomial-tails", blocks, final, pick(rng, SYSTEMS))


def f_kinematics(rng: random.Random, short: bool) -> Problem:
    segs = []
    for _ in range(rng.randrange(9, 13)):
        segs.append((pick(rng, [-1.2, -0.8, -0.5, 0.0, 0.0, 0.4, 0.6, 0.9, 1.1]), rng.randrange(20, 90)))
    v0 = rng.randrange(0, 15)
    if short:
        segs = segs[:3]
    ctx = (f"A train starts at position $x = 0$ with speed {v0} m/s and follows a piecewise-constant acceleration "
           f"profile (acceleration in m/s$^2$ for the given number of seconds); if the speed would become negative the "
           f"train stops and waits. Segments: " + "; ".join(f"{a} m/s$^2$ for {d} seconds" for a, d in segs) + ".")
    lem = ("**Kinematics.** On a segment with constant $a$: $v(t) = v_0 + at$ and $x(t) = x_0 + v_0 t + \\tfrac12 a "
           "t^2$; 1 m/s = 3.6 km/h. The average speed over $[0, T]$ is the distance divided by $T$.")
    blocks = [Block("user", ctx if short else ctx + "\n\n" + lem + "\n\nTabulate the motion second by second.")]
    rows, t, v, x = [], 0, float(v0), 0.0
    for a, d in segs:
        for _ in range(d):
            rows.append(row(t, a, fmt(v, 3), fmt(v * 3.6, 2), fmt(x, 2)))
            nv = v + a
            if nv < 0:
                x += v * v / (2 * -a) if a else 0
                nv = 0.0
            else:
                x += v + 0.5 * a
            v = nv
            t += 1
    blocks.append(Block("assistant", table(["$t$ (s)", "$a$", "$v$ (m/s)", "$v$ (km/h)", "$x$ (m)"]), rows))
    final = ("Give a detailed solution: (a) compute the total distance and the average speed in km/h; (b) find the "
             "maximum speed and when it is reached; (c) find the first time the train has covered half of the total "
             "distance (interpolate within the second); (d) if the final segment were replaced by braking at "
             "1.0 m/s$^2$, how far would the train travel before stopping?")
    if short:
        final = "Compute the distance travelled and the average speed in km/h over the whole profile."
    return Problem("kinematics", blocks, final, pick(rng, SYSTEMS))


FAMILIES: list[Callable[[random.Random, bool], Problem]] = [
    f_recurrence, f_primroot, f_markov, f_matrix, f_quadrature, f_stirling, f_regression, f_amortization,
    f_arith, f_pell, f_graph, f_euler, f_poly, f_polygon, f_binomial, f_kinematics]


def _build(count: int, seed_base: int, prefix: str, window: tuple[int, int], short: bool) -> list[dict[str, Any]]:
    out = []
    for k in range(count):
        seed = seed_base + k
        fam = FAMILIES[k % len(FAMILIES)]
        pb = fam(random.Random(seed), short)
        pid = f"{prefix}-{k + 1:02d}"
        msgs, _, _ = fit(pid, lambda n, pb=pb: render(pb, n), _rows(pb), window)
        prov: dict[str, Any] = {"generator": GENERATOR, "family": pb.family, "seed": seed}
        if short:
            prov["form"] = "short"
        out.append({"id": pid, "domain": "math", "messages": msgs, "provenance": prov})
    return out


def build_long(count: int = 16) -> list[dict[str, Any]]:
    return _build(count, SEED_BASE, "math", LONG_FIT, False)


def build_short(count: int = 16) -> list[dict[str, Any]]:
    return _build(count, SHORT_SEED_BASE, "math-short", SHORT_FIT, True)
