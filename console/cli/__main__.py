"""`python -m console.cli`: the same as `serving-console`."""

import sys

from console.cli.main import main

sys.exit(main())
