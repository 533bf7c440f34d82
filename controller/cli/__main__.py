"""``python -m controller.cli``: the ``yatzycam`` command."""

import sys

from controller.cli.main import main

sys.exit(main())
