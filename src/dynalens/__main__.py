"""``python -m dynalens`` runs the same command line as the ``dynalens`` script."""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
