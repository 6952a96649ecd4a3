"""Two behaviours SGLang 0.5.23's own OpenAI-server tests check (issue #14 §4), in-process:

- test_openai_server_ignore_eos: a short instruction ("Count from 1 to 20.", max_tokens 200, temperature 0) ends
  with EOS (finish "stop") well before 200 tokens without ignore_eos (real: ~147), and runs to 200 ("length") with
  it, the stopped text a prefix of the other (console/sim/content/lengths.py, short instructions).
- test_cache_report: the same chat prompt sent twice reports cached_tokens == prompt_tokens - 1 on the repeat
  (SGLang matches at most input_len - 1 tokens, keeping one to extend), also when the prompt is longer than
  --chunked-prefill-size; a prompt sharing only the chat template with a cached one hits the same template
  tokens every time; one that extends a cached message's text hits at least that text.
"""

from __future__ import annotations

from console.sim.config.deployment import load_deployment
from console.sim.content.lengths import natural_length
from console.sim.entrypoints.requests import RequestParsing
from console.sim.model.calibrate import build_engine

from .twin_process import PAGE_1

DEP = load_deployment()


class _Parser(RequestParsing):
    def __init__(self, engine):
        self.cfg, self.dep = engine.cfg, engine.dep

    def _limits(self, prompt_tokens: int, max_new: int | None) -> int:
        return max_new



def _engine(*argv: str):
    return build_engine(list(argv))


def _run(engine, req):
    engine.submit(req, engine.clock)
    while engine.has_work():
        engine.commit(engine.plan())
    return req


def _chat(parser, text, **extra):
    body = {"model": parser.cfg.args["served_model_name"], "messages": [{"role": "user", "content": text}],
            "temperature": 0, "max_tokens": 100, **extra}
    return parser.chat_request(body)


COUNT = [{"role": "system", "content": "You are a helpful assistant."},
         {"role": "user", "content": "Count from 1 to 20."}]


def test_short_instruction_stops_before_200_and_ignore_eos_runs_to_it():
    engine = _engine()
    p = _Parser(engine)
    name = engine.cfg.args["served_model_name"]
    body = {"model": name, "messages": COUNT, "temperature": 0, "max_tokens": 200}
    a = _run(engine, p.chat_request({**body, "ignore_eos": False}))
    b = _run(engine, p.chat_request({**body, "ignore_eos": True}))
    assert a.finish_reason["type"] == "stop" and a.n_out < 170
    assert b.finish_reason == {"type": "length", "length": 200} and b.n_out == 200
    assert b.text().startswith(a.text()) and len(b.text()) > len(a.text())


def test_short_instruction_length_bound_holds_for_every_seed():
    # the test's assertion must not hang on one lucky draw: any key (seed, request index) stays well under 200
    for dom in DEP.lengths:
        draws = [natural_length(DEP.lengths, dom, f"req:{s}:{i}", instruction_tokens=8)
                 for s in range(20) for i in range(100)]
        assert max(draws) <= 32 + 16 * 8 < 200, dom
        assert min(draws) >= 2
    # long instructions and requests without one keep the domain's distribution
    for key in ("req:0:1", "req:3:9"):
        assert natural_length(DEP.lengths, "chat", key, 500) == natural_length(DEP.lengths, "chat", key)


def test_repeated_chat_prompt_hits_all_but_one_token_even_when_chunked():
    engine = _engine("--enable-cache-report", "--chunked-prefill-size", "40", *PAGE_1)
    p = _Parser(engine)
    long = ("€ This is a very long and unique text that should not be already cached, the twist is that it should"
            " be longer than the chunked-prefill-size, so it should be split among several prefill requests.")
    for text in ("1", "Say hi.", long):
        first = _run(engine, _chat(p, text))
        again = _run(engine, _chat(p, text))
        assert first.cached_tokens < first.prompt_tokens - 1
        assert again.cached_tokens == again.prompt_tokens - 1, text
    assert again.prompt_tokens > 40


def test_template_and_text_prefixes_hit_like_a_radix_cache():
    engine = _engine("--enable-cache-report", *PAGE_1)
    p = _Parser(engine)
    t = _run(engine, _chat(p, "1")).prompt_tokens - 1  # the template tokens (test_cache_report's estimate)
    _run(engine, _chat(p, "Introduce the capital of France."))
    c1 = _run(engine, _chat(p, "How many sparrow do you need to lift a coconut?")).cached_tokens
    cats = _run(engine, _chat(p, "* sing something about cats"))
    assert 0 < c1 == cats.cached_tokens <= t  # only the chat template in common
    more = _run(engine, _chat(p, "* sing something about cats, please"))
    assert more.cached_tokens >= cats.prompt_tokens - t
    assert more.cached_tokens < more.prompt_tokens - 1
