"""Write the partial drafter of the lane's speculative arms: the same checkpoint with every decoder weight matrix
quantized to B bits (symmetric round-to-nearest per group of G input channels, stored back as bf16), the embeddings,
norms and tied LM head kept. A STANDALONE draft built this way proposes what a degraded copy of the target says:
accepted often, not always — as a real drafter is (measured in docs/real-sglang.md: at 4 bits, group 32, about half
of the drafted tokens are accepted at depth 3; truncating the model to its first or outer layers instead, as tried
first, gave τ 1.0-1.6 up to 24 of 30 layers).

Run with the real-sglang environment's interpreter (safetensors + torch):

    python make_drafter.py MODEL_DIR OUT_DIR --bits 4 --group 32

Nothing is trained or downloaded; the output is a deterministic function of MODEL_DIR's weights, B and G (its
manifest, `drafter.json`, records them with the SHA-256 of the weights it wrote).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
from pathlib import Path

COPY = ("config.json", "tokenizer.json", "tokenizer_config.json", "chat_template.jinja", "generation_config.json")


def quantize(w, bits: int, group: int):
    """Symmetric round-to-nearest: per group of `group` input channels, scale = max|w| / (2^(bits-1) - 1)."""
    import torch
    out_ch, in_ch = w.shape
    if in_ch % group:
        raise SystemExit(f"--group {group}: does not divide a weight's {in_ch} input channels")
    g = w.float().view(out_ch, in_ch // group, group)
    q = 2 ** (bits - 1) - 1
    scale = g.abs().amax(dim=2, keepdim=True) / q
    scale = torch.where(scale == 0, torch.ones_like(scale), scale)
    return (torch.clamp(torch.round(g / scale), -q, q) * scale).view(out_ch, in_ch).to(w.dtype).contiguous()


def make(model: Path, out: Path, bits: int, group: int) -> dict:
    from safetensors.torch import load_file, save_file

    if not 2 <= bits <= 8:
        raise SystemExit(f"--bits {bits}: give 2..8")
    sd = load_file(str(model / "model.safetensors"))
    new, n_q = {}, 0
    for name, t in sd.items():
        if ".layers." in name and name.endswith(".weight") and t.dim() == 2:
            new[name] = quantize(t, bits, group)
            n_q += 1
        else:
            new[name] = t.contiguous()
    tmp = out.with_name(out.name + ".partial")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    save_file(new, str(tmp / "model.safetensors"), metadata={"format": "pt"})
    for f in COPY:
        if (model / f).exists():
            shutil.copy(model / f, tmp / f)
    info = {"from": str(model), "bits": bits, "group": group, "quantized_matrices": n_q, "tensors": len(new),
            "sha256": hashlib.sha256((tmp / "model.safetensors").read_bytes()).hexdigest()}
    (tmp / "drafter.json").write_text(json.dumps(info, indent=2) + "\n")
    shutil.rmtree(out, ignore_errors=True)
    tmp.rename(out)
    return info


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("model", type=Path)
    ap.add_argument("out", type=Path)
    ap.add_argument("--bits", type=int, default=4)
    ap.add_argument("--group", type=int, default=32)
    a = ap.parse_args()
    print(json.dumps(make(a.model, a.out, a.bits, a.group)))


if __name__ == "__main__":
    main()
