"""A batched /generate on the twin (`text` a list, or `input_ids` a list of lists), as SGLang 0.5.23 answers it
(GenerateReqInput.normalize_batch_and_arguments, tokenizer_manager `_handle_batch_request`,
`_stream_batch_responses`): a list of outputs, prompt-major with n samples each; streamed, every output tagged
with its index in that list (a list of one prompt too); per-prompt sampling_params, rids and logprob asks; the
normalizer's refusals. tests/differential compares the same requests with a real server by shape."""

from __future__ import annotations

import httpx
import pytest

from .twin_process import FAST, MODEL, PAGE_1, sse_json, start_twin, stop_twin

pytestmark = pytest.mark.e2e

ARGS = MODEL + FAST + PAGE_1 + ["--mem-fraction-static", "0.96", "--sim-seed", "4"]


@pytest.fixture(scope="module")
def twin(tmp_module):
    t = start_twin(ARGS, tmp_module)
    yield t
    stop_twin(t)


def post(twin, body: dict) -> httpx.Response:
    return httpx.post(twin.url + "/generate", json=body, timeout=60)


def test_a_list_of_prompts_gives_a_list_in_order(twin):
    prompts = ["one two three four five", "a b", "The capital of France is Paris and"]
    outs = post(twin, {"text": prompts, "rid": ["x", "y", "z"], "sampling_params": [
        {"max_new_tokens": 2, "ignore_eos": True}, {"max_new_tokens": 5, "ignore_eos": True},
        {"max_new_tokens": 3, "ignore_eos": True}]}).json()
    assert [o["meta_info"]["id"] for o in outs] == ["x", "y", "z"]
    assert [o["meta_info"]["completion_tokens"] for o in outs] == [2, 5, 3]
    assert [len(o["output_ids"]) for o in outs] == [2, 5, 3]
    single = [post(twin, {"text": p, "sampling_params": {"max_new_tokens": 1}}).json()["meta_info"]["prompt_tokens"]
              for p in prompts]
    assert [o["meta_info"]["prompt_tokens"] for o in outs] == single


def test_token_id_prompts_and_a_string_rid(twin):
    outs = post(twin, {"input_ids": [[1, 2, 3], [4, 5]], "rid": "job",
                       "sampling_params": {"max_new_tokens": 2}}).json()
    assert [(o["meta_info"]["id"], o["meta_info"]["prompt_tokens"]) for o in outs] == [("job_0", 3), ("job_1", 2)]


def test_n_samples_are_prompt_major(twin):
    outs = post(twin, {"input_ids": [[7] * 130, [8] * 70], "sampling_params": {"max_new_tokens": 2, "n": 3}}).json()
    assert [o["meta_info"]["prompt_tokens"] for o in outs] == [130, 130, 130, 70, 70, 70]
    # each prompt is prefilled once first, so its samples find it cached (token-id prompts match in 64-id blocks)
    assert [o["meta_info"]["cached_tokens"] for o in outs] == [128, 128, 128, 64, 64, 64]


def test_per_prompt_logprob_asks(twin):
    outs = post(twin, {"text": ["Hello there", "Hi"], "return_logprob": [True, False],
                       "sampling_params": {"max_new_tokens": 2}}).json()
    assert "output_token_logprobs" in outs[0]["meta_info"]
    assert "output_token_logprobs" not in outs[1]["meta_info"]
    assert len(outs[0]["meta_info"]["output_token_logprobs"]) == 2


def test_the_stream_tags_every_output_with_its_index(twin):
    r = post(twin, {"text": ["Hello", "Hi there", "Hey"], "stream": True,
                    "sampling_params": {"max_new_tokens": 4, "ignore_eos": True}})
    events = sse_json(r.text)
    assert {e["index"] for e in events} == {0, 1, 2}
    last = {}
    for e in events:
        last[e["index"]] = e
    assert all(last[i]["meta_info"]["completion_tokens"] == 4 and last[i]["meta_info"]["finish_reason"] for i in last)
    one = sse_json(post(twin, {"text": ["Hello"], "stream": True, "sampling_params": {"max_new_tokens": 2}}).text)
    assert one and all(e["index"] == 0 for e in one)  # a list of one is a batch: indexed, as real
    plain = sse_json(post(twin, {"text": "Hello", "stream": True, "sampling_params": {"max_new_tokens": 2}}).text)
    assert plain and all("index" not in e for e in plain)


def test_an_empty_list_gives_an_empty_list(twin):
    r = post(twin, {"text": [], "sampling_params": {"max_new_tokens": 2}})
    assert (r.status_code, r.json()) == (200, [])


@pytest.mark.parametrize("body, message", [
    ({"text": ["a", "b"], "sampling_params": [{"n": 2}, {}]},
     "The parallel_sample_num should be the same for all samples in sample params."),
    ({"text": ["a", "b"], "return_logprob": [True, False], "sampling_params": {"n": 2}},
     "Cannot use list return_logprob with parallel_sample_num > 1"),
    ({"text": ["a", "b"], "rid": ["only-one"]},
     "The specified rids length mismatch with the batch_size for batch processing."),
    ({"text": ["a", "b", "c"], "rid": ["x", "y", "x"]},
     "Duplicate request IDs detected within the request: ['x']"),
    ({"text": ["a", "b"], "return_hidden_states": [False]},
     "The length of return_hidden_states should be equal to the batch size."),
    # SGLang indexes past the list (500 Internal Server Error); the twin names the field
    ({"text": ["a", "b"], "sampling_params": [{"max_new_tokens": 2}]},
     "sampling_params has 1 entries for a batch of 2 prompts: give one object, or one per prompt."),
])
def test_the_normalizers_refusals(twin, body, message):
    r = post(twin, body)
    assert (r.status_code, r.json()["error"]["message"]) == (400, message)


@pytest.mark.parametrize("body, message", [
    # each of a batch's sampling_params is decoded by the contract, as a single one is
    ({"text": ["a", "b"], "sampling_params": [{"n": "2"}, {"n": "2"}]}, 'invalid type: string "2", expected i64'),
    ({"text": ["a", "b"], "sampling_params": [{"max_new_tokens": 1}, {"bogus": 1}]}, "unknown field `bogus`"),
    # a boolean passes pydantic's int64 rows (array("q")), not the contract; a leading one makes the list rows
    ({"input_ids": [1, True]}, "invalid type: boolean `true`, expected i64"),
    ({"input_ids": [True, 1]}, "invalid type: boolean `true`, expected a sequence"),
])
def test_the_contract_decodes_every_item_of_a_batch(twin, body, message):
    r = post(twin, body)
    assert r.status_code == 400 and r.json()["error"].startswith(message), r.text


@pytest.mark.parametrize("body, first", [
    # every prompt and rid of a batch is typed by GenerateReqInput's pydantic dataclass first (its ErrorResponse)
    ({"input_ids": [[1, 2], 3]}, "1 validation error:\n  {'type': 'value_error', 'loc': ('body', 'input_ids'), "
                                 "'msg': 'Value error, row 1: must be list; got int'"),
    ({"input_ids": [[1, 2.5]]}, "1 validation error:\n  {'type': 'value_error', 'loc': ('body', 'input_ids'), "
                               "'msg': \"Value error, row 0: contains non-int64 element: 'float' object cannot be "
                               "interpreted as an integer\""),
    ({"text": ["a", 5]}, "2 validation errors:\n  {'type': 'string_type', 'loc': ('body', 'text', 'str')"),
    ({"text": ["a", "b"], "rid": [1, 2]}, "3 validation errors:\n  {'type': 'string_type', 'loc': ('body', 'rid', "
                                          "'str')"),
])
def test_pydantic_types_every_prompt_and_rid(twin, body, first):
    r = post(twin, body)
    assert r.status_code == 400 and r.json()["message"].startswith(first), r.text


def test_one_prompt_with_n_follows_the_batch_rules(twin):
    r = post(twin, {"text": "a b c", "return_logprob": [True], "sampling_params": {"n": 2}})
    assert (r.status_code, r.json()["error"]["message"]) == (
        400, "Cannot use list return_logprob with parallel_sample_num > 1")


def test_every_sample_gets_its_own_rid(twin):
    outs = post(twin, {"text": ["a", "b"], "rid": ["x", "y"], "sampling_params": {"max_new_tokens": 1, "n": 2}}).json()
    ids = [o["meta_info"]["id"] for o in outs]
    assert len(set(ids)) == 4 and not {"x", "y"} & set(ids)


def test_a_streamed_abort_aborts_every_sample(twin):
    r = post(twin, {"text": "a b", "stream": True, "return_logprob": True, "logprob_start_len": 9,
                    "sampling_params": {"n": 2}})
    finals = {e["index"]: e["meta_info"]["finish_reason"]["type"] for e in sse_json(r.text)}
    assert finals == {0: "abort", 1: "abort"}


def test_n_samples_with_capped_logprobs_cache_the_whole_prompt(twin):
    ids = list(range(500, 630))  # 130 ids: keys at 64 and 128
    post(twin, {"input_ids": ids, "return_logprob": True, "logprob_start_len": 0,
                "sampling_params": {"max_new_tokens": 1, "n": 2}})
    again = post(twin, {"input_ids": ids, "sampling_params": {"max_new_tokens": 1}}).json()["meta_info"]
    assert again["cached_tokens"] == 128


def test_a_list_of_values_on_one_prompt_is_refused_by_name(twin):
    r = post(twin, {"text": "a b", "return_logprob": True, "top_logprobs_num": [1, 2]})
    assert r.status_code == 400 and r.json()["error"]["message"].startswith("top_logprobs_num has 2 values")


def test_an_empty_streamed_batch_only_ends(twin):
    r = post(twin, {"text": [], "stream": True})
    assert (r.status_code, r.text) == (200, "data: [DONE]\n\n")
