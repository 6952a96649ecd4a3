"""The attention ops of SGLang's `intel_amx` attention backend, registered as `torch.ops.sgl_kernel.*`:
`decode_attention_cpu` (one query per sequence; also the draft model's multi-step decode) and
`extend_attention_cpu` (prefill, and speculative TARGET_VERIFY: every request extends by its draft tokens, which see
the committed prefix and — through the optional tree mask — only their own ancestors).

Semantics: sgl-kernel's CPU kernels (`csrc/cpu/decode.cpp`, `extend.cpp`) as SGLang 0.5.23's
`srt/layers/attention/intel_amx_backend.py` calls them, and SGLang's Triton references of the same contract
(`srt/layers/attention/triton_ops/{decode,extend}_attention.py`): scores = q·k × sm_scale, then logit_cap × tanh(s /
logit_cap) when logit_cap > 0, masked, softmax (with a per-head sink logit in the denominator when `sinks` is given),
times v. A sliding window W (the backend passes the layer's window + 1; 0 = none) lets a query at absolute position
p see keys at positions > p − W. KV rows are read through req_to_token; fp8 buffers are scaled by key/value_scale.
Computed per request with torch's SDPA (float32 for a logit cap or sinks), so it is slower than the real kernels. Encoder-decoder
(cross-attention, encoder_lens) is not stood in: it raises.
"""

from __future__ import annotations

import torch

from sgl_kernel._inject import injectable

_LIB = torch.library.Library("sgl_kernel", "DEF")


def _unsupported(op: str, what: str) -> None:
    raise NotImplementedError(f"sgl_kernel.{op}: {what} is not in the torch-only stand-in "
                              "(scripts/real_sglang/sgl_kernel_standin); this path needs the real sgl-kernel CPU build")


def _rows(buf: torch.Tensor, idx: torch.Tensor, scale: float) -> torch.Tensor:
    x = buf[idx]
    if x.dtype in (torch.float8_e4m3fn, torch.float8_e5m2):
        return x.float() * float(scale)
    return x


def attend(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, allowed: torch.Tensor | None, sm_scale: float,
           logit_cap: float = 0.0, sinks: torch.Tensor | None = None) -> torch.Tensor:
    """q [M, H, D], k [N, Hkv, D], v [N, Hkv, Dv], allowed [M, N] bool or None → [M, H, Dv] (float32 where the
    formula needs it: a logit cap or sinks; else torch's SDPA in the inputs' dtype, which accumulates in float32 on
    CPU as sgl-kernel's kernels do)."""
    heads, kv_heads = q.shape[1], k.shape[1]
    if heads % kv_heads:
        raise RuntimeError(f"sgl_kernel stand-in: {heads} query heads are not a multiple of {kv_heads} KV heads")
    if not (logit_cap and logit_cap > 0) and sinks is None:
        dt = torch.promote_types(q.dtype, k.dtype)
        out = torch.nn.functional.scaled_dot_product_attention(
            q.to(dt).transpose(0, 1).unsqueeze(0), k.to(dt).transpose(0, 1).unsqueeze(0),
            v.to(dt).transpose(0, 1).unsqueeze(0), attn_mask=None if allowed is None else allowed.view(1, 1, *allowed.shape),
            scale=float(sm_scale), enable_gqa=heads != kv_heads)
        return out.squeeze(0).transpose(0, 1)
    q, k, v = q.float(), k.float(), v.float()
    groups = heads // kv_heads
    if groups > 1:
        k = k.repeat_interleave(groups, dim=1)
        v = v.repeat_interleave(groups, dim=1)
    s = torch.einsum("mhd,nhd->hmn", q, k) * float(sm_scale)
    if logit_cap and logit_cap > 0:
        s = float(logit_cap) * torch.tanh(s / float(logit_cap))
    if allowed is not None:
        s = s.masked_fill(~allowed.unsqueeze(0), float("-inf"))
    if sinks is not None:
        sink = sinks.float().view(heads, 1, 1).expand(heads, s.shape[1], 1)
        p = torch.softmax(torch.cat([s, sink], dim=2), dim=2)[:, :, :-1]
    else:
        p = torch.softmax(s, dim=2)
    return torch.einsum("hmn,nhd->mhd", p, v)


def _window(allowed: torch.Tensor, q_pos: torch.Tensor, k_pos: torch.Tensor, window: int) -> torch.Tensor:
    if window and window > 0:
        allowed = allowed & ((q_pos.view(-1, 1) - k_pos.view(1, -1)) < window)
    return allowed


@injectable
def decode_attention_cpu(query, k_cache, v_cache, key_scale, value_scale, output, key, value, loc, attn_logits,
                         req_to_token, req_pool_indices, seq_lens, sm_scale, logit_cap, is_cross_attn,
                         sliding_window_size, encoder_lens, sinks):
    """Sequence b's query (row b) attends to req_to_token[req_pool_indices[b], :seq_lens[b]]; when key/value are
    given they are first written into the cache at `loc` (the new token's row), as the real kernel does."""
    if is_cross_attn or encoder_lens is not None:
        _unsupported("decode_attention_cpu", "encoder-decoder attention")
    if key is not None and value is not None:
        k_cache[loc] = key.to(k_cache.dtype)
        v_cache[loc] = value.to(v_cache.dtype)
    q_all = query
    for b, (r, n) in enumerate(zip(req_pool_indices.tolist(), seq_lens.tolist(), strict=True)):
        idx = req_to_token[r, :n].to(torch.int64)
        k = _rows(k_cache, idx, key_scale)
        v = _rows(v_cache, idx, value_scale)
        allowed = None
        if sliding_window_size and sliding_window_size > 0:
            allowed = _window(torch.ones(1, n, dtype=torch.bool), torch.tensor([n - 1]), torch.arange(n),
                              int(sliding_window_size))
        out = attend(q_all[b:b + 1], k, v, allowed, sm_scale, logit_cap, sinks)
        output[b] = out[0].to(output.dtype)


def _tree_rows(tree_mask: torch.Tensor, ext: list[int], seq: list[int]) -> list[torch.Tensor]:
    """Request b's [ext_b, ext_b] block of a speculative tree mask: the QLEN layout ([bs, n, n] flat, as
    build_tree_kernel_efficient_cpu writes it on CPU) or the FULL layout (rows of seq_len columns, the draft block
    at their end)."""
    flat = tree_mask.reshape(-1).to(torch.bool)
    out, off = [], 0
    if flat.numel() == sum(e * e for e in ext):
        for e in ext:
            out.append(flat[off:off + e * e].view(e, e))
            off += e * e
    elif flat.numel() == sum(e * s for e, s in zip(ext, seq, strict=True)):
        for e, s in zip(ext, seq, strict=True):
            out.append(flat[off:off + e * s].view(e, s)[:, s - e:])
            off += e * s
    else:
        raise RuntimeError(f"sgl_kernel stand-in: extend_attention_cpu: a tree mask of {flat.numel()} entries fits "
                           f"neither the QLEN nor the FULL layout of extend lengths {ext}")
    return out


@injectable
def extend_attention_cpu(q_extend, k_extend, v_extend, o_extend, k_buffer, v_buffer, key_scale, value_scale,
                         req_to_token, req_pool_indices, seq_lens, extend_seq_lens, extend_start_loc, max_len_extend,
                         sm_scale, logit_cap, is_cross_attn, sliding_window_size, encoder_lens, sinks, tree_mask,
                         is_causal):
    """Request b's extend tokens (rows extend_start_loc[b] … + extend_seq_lens[b] of q/k/v_extend) attend to its
    prefix (req_to_token[req_pool_indices[b], :seq_lens[b] − extend_seq_lens[b]], all visible) and to the extend
    tokens: causally, or as the tree mask says (token i sees token j where mask[i, j]), or all of them when not
    causal."""
    if is_cross_attn or encoder_lens is not None:
        _unsupported("extend_attention_cpu", "encoder-decoder attention")
    if k_extend is None or v_extend is None:
        _unsupported("extend_attention_cpu", "KV-shared layers (k_extend/v_extend None)")
    ext = extend_seq_lens.tolist()
    seq = seq_lens.tolist()
    trees = _tree_rows(tree_mask, ext, seq) if tree_mask is not None else None
    q_all = q_extend
    for b, (r, n, e, start) in enumerate(zip(req_pool_indices.tolist(), seq, ext, extend_start_loc.tolist(),
                                             strict=True)):
        if e <= 0:
            continue
        prefix = n - e
        if prefix < 0:
            raise RuntimeError("sgl_kernel stand-in: extend_attention_cpu: prefix len < 0")
        idx = req_to_token[r, :prefix].to(torch.int64)
        kp, vp = _rows(k_buffer, idx, key_scale), _rows(v_buffer, idx, value_scale)
        k = torch.cat([kp, k_extend[start:start + e].to(kp.dtype)])
        v = torch.cat([vp, v_extend[start:start + e].to(vp.dtype)])
        own = torch.ones(e, e, dtype=torch.bool)
        if trees is not None:
            own = trees[b]
        elif is_causal:
            own = torch.tril(own)
        allowed = torch.cat([torch.ones(e, prefix, dtype=torch.bool), own], dim=1)
        allowed = _window(allowed, torch.arange(prefix, n), torch.arange(n), int(sliding_window_size or 0))
        out = attend(q_all[start:start + e], k, v, allowed, sm_scale, logit_cap, sinks)
        o_extend[start:start + e] = out.to(o_extend.dtype)


_LIB.define("decode_attention_cpu(Tensor query, Tensor(a!) k_cache, Tensor(b!) v_cache, float key_scale, "
            "float value_scale, Tensor(c!) output, Tensor? key, Tensor? value, Tensor? loc, Tensor(d!) attn_logits, "
            "Tensor req_to_token, Tensor req_pool_indices, Tensor seq_lens, float sm_scale, float logit_cap, "
            "bool is_cross_attn, int sliding_window_size, Tensor? encoder_lens, Tensor? sinks) -> ()")
_LIB.impl("decode_attention_cpu", decode_attention_cpu, "CPU")
_LIB.define("extend_attention_cpu(Tensor q_extend, Tensor? k_extend, Tensor? v_extend, Tensor(a!) o_extend, "
            "Tensor k_buffer, Tensor v_buffer, float key_scale, float value_scale, Tensor req_to_token, "
            "Tensor req_pool_indices, Tensor seq_lens, Tensor extend_seq_lens, Tensor extend_start_loc, "
            "int max_len_extend, float sm_scale, float logit_cap, bool is_cross_attn, int sliding_window_size, "
            "Tensor? encoder_lens, Tensor? sinks, Tensor? tree_mask, bool is_causal) -> ()")
_LIB.impl("extend_attention_cpu", extend_attention_cpu, "CPU")
