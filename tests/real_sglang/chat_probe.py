"""Chat turns through the console's chat path, run by the real-sglang environment's interpreter (where the console
is installed beside sglang 0.5.23 and its pin openai==2.8.0). Not a test module: test_chat_real.py runs it and
checks the JSON it prints.

    python chat_probe.py URL
"""

from __future__ import annotations

import asyncio
import importlib.metadata as md
import json
import sys


async def main(url: str) -> dict:
    import openai

    from console.core.run.chat import ChatSession

    s = await ChatSession.for_url(url, None, max_tokens=40, temperature=0.0, system_prompt="Answer briefly.")
    deltas: list[str] = []
    t1 = await s.stream_turn("Name three colours.", deltas.append)
    t2 = await s.stream_turn("And one more?")
    out = {
        "model": s.model, "spec_label": s.spec_label, "engine_version": s.engine_version, "simulated": s.simulated,
        "turns": [{"error": t.error, "assistant": t.assistant, "line": t.stats_line(), "wide": t.stats_line(wide=True),
                   "stats": t.stats.to_json() if t.stats else None} for t in (t1, t2)],
        "streamed_equals_answer": "".join(deltas) == t1.assistant,
        "n_messages": len(s.messages()),
        "openai": openai.__version__,
        "sglang_dist": md.version("sglang"),
        "console_dist": md.version("serving-console"),
        "console_file": sys.modules["console"].__file__,
        "sglang_imported": "sglang" in sys.modules,
        "python": sys.executable,
    }
    await s.aclose()
    return out


if __name__ == "__main__":
    print(json.dumps(asyncio.run(main(sys.argv[1]))))
