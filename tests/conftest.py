"""Shared pytest configuration: hypothesis profiles.

`ci` (selected when the environment variable CI is set) keeps the suite deterministic and bounded;
`dev` explores more examples. Select explicitly with HYPOTHESIS_PROFILE=name.
"""

import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci",
    max_examples=40,
    deadline=None,
    derandomize=True,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("dev", max_examples=100, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))
