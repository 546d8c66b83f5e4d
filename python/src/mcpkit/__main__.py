"""``python -m mcpkit``: the ``mcpkit`` command."""

import sys

from .cli import main

sys.exit(main())
