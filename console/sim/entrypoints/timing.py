"""The --enable-metrics timing keys of a /generate meta_info (and of chat's `return_meta_info`), from the twin's
model timeline.

SGLang 0.5.23 adds them only with --enable-metrics (tokenizer_manager: `SchedulerReqTimeStats` after
num_retractions on every output, `APIServerReqTimeStats` after e2e_latency on the final one;
observability/req_time_stats.py):

- every output: `storage_prefetch_wait`, `storage_staging_wait` (0.0: no hierarchical cache), `forward_entry_time`
  (the request joined its first forward), `prefill_finished_time` (its prefill forward ended), `queue_time`
  (waiting-queue time);
- the final output: `request_received_ts`, `first_token_latency` (first output - received), the
  `api_server_dispatch_finish_ts`, `response_sent_to_client_ts` (streams: set on the first chunk, so it is here
  too), `request_finished_ts`, `decode_throughput` ((completion_tokens - 1) / (finish - first token), absent for a
  single token).

Durations are the modelled node's (model seconds, whatever --sim-time-scale is). `request_received_ts` and
`response_sent_to_client_ts` are wall-clock epoch seconds; every other `_ts`/`_time` is `request_received_ts` plus
the model-time offset of that event from the request's arrival, so differences between timestamps agree with the
durations (at --sim-time-scale 1 the model timeline is the wall timeline). The twin tokenizes and dispatches at
receipt: `api_server_dispatch_finish_ts` = `request_received_ts`.
"""

from __future__ import annotations

from typing import Any

from ..model.engine import SimRequest

#: keys the scheduler's time stats add to every output, in SGLang's order
SCHEDULER_KEYS = ("storage_prefetch_wait", "storage_staging_wait", "forward_entry_time", "prefill_finished_time",
                  "queue_time")


def _at(req: SimRequest, model_s: float | None) -> float | None:
    """The epoch timestamp of a model-time event of `req` (None if it has not happened)."""
    if model_s is None:
        return None
    return req.received_wall + (model_s - req.arrival_s)


def scheduler_times(req: SimRequest) -> dict[str, Any]:
    """`SchedulerReqTimeStats.convert_to_output_meta_info` of `req` now."""
    out: dict[str, Any] = {"storage_prefetch_wait": 0.0, "storage_staging_wait": 0.0}
    if (t := _at(req, req.admitted_s)) is not None:
        out["forward_entry_time"] = t
    if (t := _at(req, req.first_token_s)) is not None:
        out["prefill_finished_time"] = t
    out["queue_time"] = (req.admitted_s - req.arrival_s) if req.admitted_s is not None else 0.0
    return out


def final_times(req: SimRequest, completion_tokens: int, sent_ts: float | None) -> dict[str, Any]:
    """`APIServerReqTimeStats.convert_to_output_meta_info` of a finished `req` (`sent_ts`: the stream's first
    send time, None for a non-streaming answer, which gets it appended when it is sent)."""
    out: dict[str, Any] = {"request_received_ts": req.received_wall}
    if req.first_token_s is not None and req.first_token_s > req.arrival_s:
        out["first_token_latency"] = req.first_token_s - req.arrival_s
    out["api_server_dispatch_finish_ts"] = req.received_wall
    if sent_ts is not None:
        out["response_sent_to_client_ts"] = sent_ts
    if req.finish_s is not None:
        out["request_finished_ts"] = _at(req, req.finish_s)
    if req.first_token_s is not None and req.finish_s is not None and completion_tokens > 1:
        decode_s = req.finish_s - req.first_token_s
        if decode_s > 0:
            out["decode_throughput"] = (completion_tokens - 1) / decode_s
    return out


def with_timing(meta: dict[str, Any], req: SimRequest, *, finished: bool) -> dict[str, Any]:
    """`meta` (wire.meta_info's dict) with the timing keys in SGLang's places: the scheduler's after
    `num_retractions`, the final ones after the spec keys; a `response_sent_to_client_ts` that `meta` carries is
    the send time of this very output and stays last."""
    out: dict[str, Any] = {}
    sent_now = meta.get("response_sent_to_client_ts")
    earlier = req.first_sent_wall  # a stream's first chunk went out before this output
    if sent_now is not None and earlier is None:
        req.first_sent_wall = sent_now
    for k, v in meta.items():
        if k == "response_sent_to_client_ts":
            continue
        out[k] = v
        if k == "num_retractions":
            out.update(scheduler_times(req))
    if finished:
        # a stream's first chunk set the send time before the final output was built (it is among the final keys);
        # a non-streaming answer, or a stream finished in its first output, gets it after them, at the send
        out.update(final_times(req, int(meta.get("completion_tokens") or 0), earlier))
    if sent_now is not None:
        out["response_sent_to_client_ts"] = sent_now
    return out
