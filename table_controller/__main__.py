"""``python -m table_controller`` is the ``table-controller`` command."""

import sys

from table_controller.cli import main

sys.exit(main())
