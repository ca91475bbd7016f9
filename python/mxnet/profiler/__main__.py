"""`python -m mxnet.profiler report profile.json [--html out.html] [--top N]`."""
import sys

from .report import main

sys.exit(main())
