"""Run on the device machine: the dashboard's GPU panel with the real NVML poller, beside nvidia-smi's own figures
from the same moment, while a foreign process holds a known allocation (issues #18 and #19).

    python3 tests/gpu/capture_panel.py OUT_DIR

Writes OUT_DIR/panel.json (the poller's snapshot, NVML's raw v1 and v2 answers, nvidia-smi's figures, the GPU
panel's text as a user reads it) and SVG screenshots of the dashboard at 160×48 and 80×24 and of the GPU panel
maximised. The JSON is committed as a fixture and replayed by tests/unit/test_nvml_replay.py.
"""

from __future__ import annotations

import asyncio
import dataclasses
import datetime
import json
import socket
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import pynvml  # noqa: E402

from console.core.telemetry.nvml import NvmlPoller  # noqa: E402
from tests.gpu.capture_nvml import holder_code, nvidia_smi, raw_answers  # noqa: E402

HOLD_GIB = 7
HOLDER = holder_code(HOLD_GIB, 40)


def panel_text(app, selector: str) -> str:
    region = app.screen.query_one(selector).region
    lines = [s.text for s in app.screen._compositor.render_strips()]
    return "\n".join(ln[region.x:region.right] for ln in lines[region.y:region.bottom])


async def shoot(snap, out: Path) -> dict:
    from console.ui.app import make_app
    from tests.ui.fake_runtime import FakeRuntime

    texts = {}
    for size in ((160, 48), (80, 24)):
        def factory(observer):
            rt = FakeRuntime(observer)
            rt.state.gpu = snap
            return rt
        app = make_app(factory, start_runtime=False, auto_anchor=False)
        async with app.run_test(size=size) as pilot:
            app.runtime.state.gpu = snap
            await pilot.pause(0.5)
            app.refresh_state()
            await pilot.pause(0.3)
            tag = f"{size[0]}x{size[1]}"
            app.save_screenshot(f"dashboard-{tag}.svg", str(out))
            texts[tag] = panel_text(app, "#gpu")
            if size == (160, 48):
                await pilot.press("5")
                await pilot.pause(0.3)
                app.save_screenshot(f"gpu-maximised-{tag}.svg", str(out))
                texts[f"{tag}-maximised"] = panel_text(app, "#gpu")
    return texts


def main(out_dir: str) -> int:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    pynvml.nvmlInit()
    holder = subprocess.Popen([sys.executable, "-c", HOLDER], stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline().strip() == "holding"
    time.sleep(3)
    t0 = time.time()
    snap = NvmlPoller().sample()
    smi = nvidia_smi()
    raw = raw_answers()
    t1 = time.time()
    texts = asyncio.run(shoot(snap, out))
    holder.kill()
    doc = {
        "captured_utc": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "host": socket.gethostname(),
        "what": f"a torch process holding {HOLD_GIB} GiB and running matmuls; poller, nvidia-smi and raw NVML read "
                f"within {t1 - t0:.2f} s of each other",
        "holder_pid": holder.pid,
        "hold_gib": HOLD_GIB,
        "raw": raw,
        "nvidia_smi": smi,
        "poller_snapshot": dataclasses.asdict(snap),
        "panel_text": texts,
    }
    (out / "panel.json").write_text(json.dumps(doc, indent=1, default=str))
    g = snap.gpus[0]
    s = smi["gpus"][0]
    print(json.dumps({"panel_used_mib": g.mem_used_gib * 1024, "smi_used_mib": float(s[2]),
                      "panel_total_mib": g.mem_total_gib * 1024, "smi_total_mib": float(s[3]),
                      "reserved_mib": (g.mem_reserved_gib or 0) * 1024, "smi_reserved_mib": s[4],
                      "util": [g.util_pct, s[5]], "power": [g.power_w, s[6]], "temp": [g.temp_c, s[7]],
                      "procs": [(p.pid, p.name, p.used_gib) for p in g.processes], "smi_apps": smi["apps"],
                      "mem_source": g.mem_source}, default=str))
    print(texts["160x48"])
    print(texts["80x24"])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
