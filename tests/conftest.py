import os

# The suite compiles thousands of small kernels once each: writing each to JAX's persistent
# cache costs more than it saves on a fresh machine (CI's). tests/test_compilation_cache.py
# runs its own subprocesses with the cache on.
os.environ.setdefault("JAXTENSOR_COMPILATION_CACHE", "0")

from hypothesis import HealthCheck, settings

# CI draws the same examples on every run (derandomize): a red CI is reproducible, and never a
# new draw's chance
settings.register_profile(
    "ci", max_examples=60, deadline=None, derandomize=True,
    suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "dev", max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "thorough", max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))
