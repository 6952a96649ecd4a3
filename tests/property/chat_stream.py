"""SGLang 0.5.23 chat-completion SSE streams synthesized in the byte format of the wire fixtures
(`tests/fixtures/sglang-0.5.23/chat_stream_eagle3.sse`: compact JSON, the same key order), for tests that need
streams of a chosen length and chunking. Shared by tests/property and tests/bench."""

from __future__ import annotations

import json

RID = "5f0c2b9e4a7d4c1f9b3e8d6a2c7f1e04"
MODEL = "moonshotai/Kimi-K2.6"
_HEAD = f'{{"id":"{RID}","object":"chat.completion.chunk","created":1779270143,"model":"{MODEL}","choices":'


def _usage(prompt: int, done: int) -> str:
    return (f'{{"prompt_tokens":{prompt},"total_tokens":{prompt + done},"completion_tokens":{done},'
            '"prompt_tokens_details":null,"reasoning_tokens":0,"completion_tokens_details":null}')


def chat_stream(pieces: list[tuple[str, int]], *, prompt_tokens: int = 27, finish: str = "length",
                histogram: list[int] | None = None) -> bytes:
    """SSE bytes of one streamed chat completion with `continuous_usage_stats` and spec details:
    the role chunk, one chunk per (text, tokens) in `pieces`, the finish chunk, the sglext chunk, the usage chunk
    and [DONE]."""
    out = [_HEAD + '[{"index":0,"delta":{"reasoning_content":null,"role":"assistant","content":""},'
           '"logprobs":null,"finish_reason":null,"matched_stop":null}]}']
    done = 0
    for text, n in pieces:
        done += n
        out.append(_HEAD + '[{"index":0,"delta":{"reasoning_content":null,"content":' + json.dumps(text)
                   + '},"logprobs":null,"finish_reason":null,"matched_stop":null}],"usage":'
                   + _usage(prompt_tokens, done) + "}")
    out.append(_HEAD + '[{"index":0,"delta":{"reasoning_content":null},"logprobs":null,"finish_reason":'
               + json.dumps(finish) + ',"matched_stop":null}]}')
    h = histogram if histogram is not None else [1, 2, 3, 2, 1, 1, 2]
    verify = max(1, sum(h))
    correct = sum(k * c for k, c in enumerate(h))
    out.append(_HEAD + '[],"usage":null,"sglext":{"spec_tokens_details":{"spec_accept_rate":'
               + repr(correct / (verify * max(1, len(h) - 1))) + ',"spec_accept_length":' + repr(done / verify)
               + ',"spec_cap_length":0.0,"spec_block_accept_length":0.0,"spec_num_correct_drafts":' + str(correct)
               + ',"spec_num_proposed_drafts":' + str(verify * max(1, len(h) - 1)) + ',"spec_verify_ct":'
               + str(verify) + ',"spec_correct_drafts_histogram":' + json.dumps(h)
               + ',"spec_cap_lens_histogram":[]}}}')
    out.append(_HEAD + '[],"usage":' + _usage(prompt_tokens, done) + "}")
    out.append("[DONE]")
    return "".join(f"data: {x}\n\n" for x in out).encode()
