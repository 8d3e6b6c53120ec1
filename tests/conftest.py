import os

# The suite compiles thousands of small kernels once each: writing each to JAX's persistent
# cache costs more than it saves on a fresh machine (CI's). tests/internals/test_compilation_cache.py
# runs its own subprocesses with the cache on.
os.environ.setdefault("JAXTENSOR_COMPILATION_CACHE", "0")

from hypothesis import HealthCheck, settings

# CI draws the same examples on every run (derandomize): a red CI is reproducible, and never a
# new draw's chance; 25 of them keeps the whole CI run within its time on 2 cores (the "dev"
# profile, the default outside CI, draws 100, "thorough" 1000)
settings.register_profile(
    "ci", max_examples=25, deadline=None, derandomize=True,
    suppress_health_check=[HealthCheck.too_slow]
)
# (CI's run of selected files on the newest JAX: the same draws, fewer of them)
settings.register_profile(
    "ci-quick", max_examples=10, deadline=None, derandomize=True,
    suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "dev", max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "thorough", max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))


# -- under CI every optional test dependency is installed: a skip for a missing one fails ----
_MISSING_SKIPS: list[str] = []


def _note_missing(report) -> None:  # noqa: ANN001 (a pytest report)
    from optional_deps import MISSING

    if report.skipped and isinstance(report.longrepr, tuple) and MISSING in report.longrepr[2]:
        _MISSING_SKIPS.append(f"{report.nodeid}: {report.longrepr[2]}")


def pytest_collectreport(report) -> None:  # noqa: ANN001
    _note_missing(report)


def pytest_runtest_logreport(report) -> None:  # noqa: ANN001
    _note_missing(report)


def pytest_sessionfinish(session, exitstatus) -> None:  # noqa: ANN001
    if _MISSING_SKIPS and os.environ.get("CI") == "true" and not hasattr(session.config,
                                                                        "workerinput"):
        print("\nCI=true: skipped for a missing optional test dependency (install every "
              "extra: .ci/run):\n  " + "\n  ".join(sorted(set(_MISSING_SKIPS))))
        session.exitstatus = 1
