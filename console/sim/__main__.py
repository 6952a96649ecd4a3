"""`python -m console.sim`: the engine twin (see console/sim/cli.py)."""

import sys

from .cli import main

sys.exit(main())
