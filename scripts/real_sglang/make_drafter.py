"""Write a partial drafter of the lane's model: the same checkpoint truncated to its first N decoder layers (the
embeddings, those layers, the final norm and the tied LM head), so that a STANDALONE draft proposes what a shallow
copy of the target would say — accepted often but not always, as a real drafter is.

Run with the real-sglang environment's interpreter (safetensors + torch):

    python make_drafter.py MODEL_DIR OUT_DIR --layers N

Nothing is trained or downloaded; the output is a deterministic function of MODEL_DIR's files and N (its manifest,
`drafter.json`, records both, with the SHA-256 of the weights it wrote).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import shutil
from pathlib import Path

COPY = ("tokenizer.json", "tokenizer_config.json", "chat_template.jinja", "generation_config.json")


def make(model: Path, out: Path, layers: int) -> dict:
    from safetensors.torch import load_file, save_file

    cfg = json.loads((model / "config.json").read_text())
    total = int(cfg["num_hidden_layers"])
    if not 1 <= layers < total:
        raise SystemExit(f"--layers {layers}: the model has {total} layers; give 1..{total - 1}")
    sd = load_file(str(model / "model.safetensors"))
    keep = {}
    for name, t in sd.items():
        m = re.match(r"model\.layers\.(\d+)\.", name)
        if m is None or int(m.group(1)) < layers:
            keep[name] = t.contiguous()
    tmp = out.with_name(out.name + ".partial")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    save_file(keep, str(tmp / "model.safetensors"), metadata={"format": "pt"})
    cfg["num_hidden_layers"] = layers
    cfg["_model_name_or_path"] = f"{cfg.get('_model_name_or_path', model.name)} (first {layers} of {total} layers)"
    (tmp / "config.json").write_text(json.dumps(cfg, indent=2) + "\n")
    for f in COPY:
        if (model / f).exists():
            shutil.copy(model / f, tmp / f)
    info = {"from": str(model), "layers": layers, "of": total, "tensors": len(keep),
            "sha256": hashlib.sha256((tmp / "model.safetensors").read_bytes()).hexdigest()}
    (tmp / "drafter.json").write_text(json.dumps(info, indent=2) + "\n")
    shutil.rmtree(out, ignore_errors=True)
    tmp.rename(out)
    return info


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("model", type=Path)
    ap.add_argument("out", type=Path)
    ap.add_argument("--layers", type=int, required=True)
    a = ap.parse_args()
    print(json.dumps(make(a.model, a.out, a.layers)))


if __name__ == "__main__":
    main()
