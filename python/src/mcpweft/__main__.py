"""``python -m mcpweft``: the ``mcpweft`` command."""

import sys

from .cli import main

sys.exit(main())
