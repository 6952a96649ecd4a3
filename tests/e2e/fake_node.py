"""A stand-in for a node of a multi-node launch, used through a profile's engine.template in tests:

    python fake_node.py NODE_RANK "ARGV_SHELL"

Rank 0 execs the engine twin with the per-node flags removed (the twin models one node); other ranks log like
an sglang worker rank and wait to be stopped."""

import os
import shlex
import sys
import time

rank, argv = int(sys.argv[1]), shlex.split(sys.argv[2])
if rank == 0:
    out, skip = [], 0
    for a in argv:
        if skip:
            skip -= 1
            continue
        if a in ("--nnodes", "--node-rank", "--dist-init-addr"):
            skip = 1
            continue
        out.append(a)
    os.execv(out[0], out)
print(f"[2026-11-30 00:00:00 TP{rank * 4}] Init parallel begin.", flush=True)
while True:
    time.sleep(1)
