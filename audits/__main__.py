"""``python -m audits NAME`` is ``python -m audits.run NAME``."""

import sys

from audits.run import main

sys.exit(main())
