"""Shared pytest configuration: one Hypothesis profile everywhere (DESIGN.md).

CI sets CI=true, which would make Hypothesis switch to its CI profile; loading ours
explicitly keeps local and CI runs identical.
"""

import os
import sys

from hypothesis import settings

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

settings.register_profile("ge-opt", deadline=None, derandomize=True, database=None)
settings.load_profile("ge-opt")
