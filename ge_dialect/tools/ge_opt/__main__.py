"""`python -m ge_dialect.tools.ge_opt`: ge-opt from a checkout (the lit tests run it so)."""

import sys

from ge_dialect.tools.ge_opt.driver import main

sys.exit(main())
