"""``python -m sk_rankmetrics``: the command line (see ``sk_rankmetrics._cli``)."""

import sys

from ._cli import main

if __name__ == "__main__":
    sys.exit(main())
