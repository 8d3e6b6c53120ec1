"""Run client libraries' own array-API tests on jaxtensor and on reference backends.

usage: python tests/clients/run_clients.py [--subset ci|core|full] [--client NAME ...] [-v]

The clients are scikit-learn, SciPy, array-api-extra, einops, xarray and marray. Each
client's tests (shipped in its wheel, run with ``--pyargs``) run through pytest once per
backend, with the plugin ``jaxtensor_backend`` choosing it: on each reference (NumPy, and
array_api_strict for the suites written for it: ``REFERENCES``) and on jaxtensor. The runner
prints the counts per client and backend, then every test that passed on a reference and
failed on jaxtensor (skips are the clients' own markers; tests whose parameters name a
reference itself exist only in that run), split into the known failures of
``known_failures.txt`` (each with its reason) and the unexpected ones. It exits 1 when there
is an unexpected one (or a run broke), 0 otherwise.

``--subset ci`` is the small part that ``tests/clients/test_clients.py`` runs in CI;
``--subset core`` (the default) is the part whose counts docs/clients.md records;
``--subset full`` adds the modules of ``more`` (about 15 minutes on 2 cores for scikit-learn,
SciPy and array-api-extra).
"""

from __future__ import annotations

import argparse
import fnmatch
import os
import re
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
CANDIDATE = "jaxtensor"
# the backends a client's tests are compared with: NumPy, and array_api_strict where the
# suite is written for it (xarray's test_array_api, marray) or is an einops backend made of
# standard functions (jaxtensor_backend.ArrayApiBackend: the strict run checks it is)
REFERENCES: dict[str, tuple[str, ...]] = {
    "einops": ("numpy", "array_api_strict"),
    "xarray": ("numpy", "array_api_strict"),
    "marray": ("numpy", "array_api_strict"),
}


def backends(client: str) -> tuple[str, ...]:
    """The backends a client runs on: its references, then jaxtensor."""
    return (*REFERENCES.get(client, ("numpy",)), CANDIDATE)


# pytest targets (--pyargs) per client and subset; only tests parametrized by the array
# namespace are kept (see jaxtensor_backend.py)
SUITES: dict[str, dict[str, list[str]]] = {
    "array-api-extra": {
        "ci": [
            "array_api_extra.tests.main.test_at",
            "array_api_extra.tests.main.test_creation",
        ],
        "core": ["array_api_extra.tests.main"],
    },
    "scipy": {
        "ci": [
            "scipy.cluster.tests.test_vq",
        ],
        "core": [
            "scipy.special.tests.test_logsumexp",
            "scipy.cluster.tests.test_vq",
            "scipy.fft.tests.test_basic",
            "scipy.differentiate.tests.test_differentiate",
        ],
        "more": [
            "scipy._lib.tests.test_array_api",
            "scipy.cluster.tests.test_hierarchy",
            "scipy.optimize.tests.test_chandrupatla",
            "scipy.special.tests.test_support_alternative_backends",
            "scipy.integrate.tests.test_quadrature",
            "scipy.optimize.tests.test_bracket",
            "scipy.stats.tests.test_stats",
        ],
    },
    "scikit-learn": {
        "ci": [
            "sklearn.utils.tests.test_array_api",
        ],
        "core": [
            "sklearn.utils.tests.test_array_api",
            "sklearn.utils.tests.test_multiclass",
            "sklearn.utils.tests.test_stats",
        ],
        "more": [
            "sklearn.utils.tests.test_extmath",
            "sklearn.utils.tests.test_indexing",
            "sklearn.preprocessing.tests.test_label",
            "sklearn.tests.test_naive_bayes",
            "sklearn.utils.tests.test_validation",
            "sklearn.preprocessing.tests.test_data",
            "sklearn.metrics.tests.test_common",
            "sklearn.metrics.tests.test_pairwise",
            "sklearn.decomposition.tests.test_pca",
            "sklearn.linear_model.tests.test_ridge",
            "sklearn.tests.test_discriminant_analysis",
        ],
    },
    "einops": {
        "ci": ["einops.tests.test_ops"],
        "core": [
            "einops.tests.test_ops",
            "einops.tests.test_other",
            "einops.tests.test_packing",
            "einops.tests.test_examples",
        ],
    },
    "xarray": {
        "ci": ["xarray.tests.test_array_api"],
        "core": ["xarray.tests.test_array_api", "xarray.tests.test_duck_array_wrapping"],
    },
    "marray": {
        "ci": ["marray.tests.test_marray"],
        "core": ["marray.tests.test_marray"],
    },
}
SUBSETS = ("ci", "core", "full")


def targets(client: str, subset: str) -> list[str]:
    """The pytest targets of a subset: ``full`` is ``core`` and ``more``."""
    suite = SUITES[client]
    if subset == "full":
        return suite["core"] + suite.get("more", [])
    return suite[subset]


# the ci subset may narrow a module with -k
CI_KEYWORDS: dict[str, str] = {
    "scikit-learn": "get_namespace or average or count_nonzero or nan_to_num",
    "einops": "reduction_imperatives or concatenations",
    "marray": "test_arithmetic_binary and int16 and not (add or sub or mul or div or mod or pow)",
}

INI = "[pytest]\nfilterwarnings =\n    ignore::pytest.PytestUnknownMarkWarning\n"


@dataclass
class Run:
    """The outcome of one client's tests on one backend."""

    outcomes: dict[str, str] = field(default_factory=dict)  # normalized id -> outcome
    messages: dict[str, str] = field(default_factory=dict)  # normalized id -> why not passed
    seconds: float = 0.0
    returncode: int = 0
    tail: str = ""

    def count(self, outcome: str) -> int:
        return sum(1 for o in self.outcomes.values() if o == outcome)


def _normalize(case: ET.Element, backend: str) -> str:
    """``module::Class::test[params]``, the backend's name in the parameters written ``XP``.

    (The junit classname holds the module only when the run spans several folders: the
    module is read from the file path, the class from the classname's last part.)
    """
    module = Path(case.get("file", "")).stem
    cls = case.get("classname", "").rsplit(".", 1)[-1]
    name = case.get("name", "")
    if "[" in name:
        base, params = name.split("[", 1)
        params = re.sub(rf"(?<![\w.]){re.escape(backend)}(?![\w.])", "XP", params)
        name = f"{base}[{params}"
    parts = [module, *([cls] if cls and cls != module else []), name]
    return "::".join(parts)


def _outcome(case: ET.Element) -> str:
    if case.find("failure") is not None or case.find("error") is not None:
        return "failed"
    if case.find("skipped") is not None:
        return "skipped"
    return "passed"


def run_client(client: str, subset: str, backend: str, timeout: float) -> Run:
    """Run one client's tests on one backend in a fresh pytest process."""
    with tempfile.TemporaryDirectory() as tmp:
        ini = Path(tmp, "pytest.ini")
        ini.write_text(INI)
        xml = Path(tmp, "junit.xml")
        cmd = [
            sys.executable, "-m", "pytest", "-c", str(ini), "-p", "jaxtensor_backend",
            "-p", "no:cacheprovider", "-q", "--tb=line", "-o", "junit_family=xunit1",
            f"--junitxml={xml}", "--pyargs", *targets(client, subset),
        ]
        keyword = CI_KEYWORDS.get(client, "") if subset == "ci" else ""
        if keyword:
            cmd += ["-k", keyword]
        env = dict(os.environ)
        env["JT_CLIENT_BACKEND"] = backend
        env["JT_CLIENT"] = client
        env["SCIPY_ARRAY_API"] = "1"
        # SciPy tests array_api_strict as 2024.12 too (its conftest adds None to the list that
        # devices() returned before 2025.12)
        if client == "scipy":
            env["JAXTENSOR_ARRAY_API_VERSION"] = "2024.12"
        env["PYTHONPATH"] = os.pathsep.join(
            [str(ROOT / "src"), str(HERE), *filter(None, [env.get("PYTHONPATH")])]
        )
        t0 = time.perf_counter()
        try:
            proc = subprocess.run(
                cmd, cwd=tmp, env=env, capture_output=True, text=True, timeout=timeout
            )
            returncode, tail = proc.returncode, (proc.stdout + proc.stderr)[-3000:]
        except subprocess.TimeoutExpired:
            returncode, tail = -1, f"timed out after {timeout} s"
        run = Run(seconds=time.perf_counter() - t0, returncode=returncode, tail=tail)
        if xml.exists():
            for case in ET.parse(xml).iter("testcase"):
                key = _normalize(case, backend)
                run.outcomes[key] = _outcome(case)
                why = next((e for e in case if e.tag in ("failure", "error", "skipped")), None)
                message = why.get("message") if why is not None else None
                if message:
                    run.messages[key] = message.splitlines()[0][:200]
    return run


def load_known_failures(path: Path = HERE / "known_failures.txt") -> list[tuple[str, str, str]]:
    """(client, id pattern, reason) for each line of the known-failures file."""
    known = []
    for line in path.read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        entry, _, reason = line.partition("#")
        client, pattern = entry.split(None, 1)
        known.append((client, pattern.strip(), reason.strip()))
    return known


@dataclass
class Comparison:
    """Tests that passed on a reference and failed on jaxtensor, for one client."""

    known: dict[str, str] = field(default_factory=dict)  # id -> reason
    unexpected: dict[str, str] = field(default_factory=dict)  # id -> jaxtensor outcome


def compare(
    client: str, references: list[Run], candidate: Run, known: list[tuple[str, str, str]]
) -> Comparison:
    """Every test that passed on one of the references and failed on the candidate."""
    result = Comparison()
    # (only * and ? are wildcards: a [ is the start of the test's parameters)
    patterns = [(p.replace("[", "[[]"), r) for c, p, r in known if c == client]
    passed = {k for run in references for k, outcome in run.outcomes.items() if outcome == "passed"}
    for key in sorted(passed):
        # a skip is the client's choice for backends other than its own (its own markers),
        # and a test the jaxtensor run lacks names a reference in its parameters: neither is
        # compared
        got = candidate.outcomes.get(key, "missing")
        if got != "failed":
            continue
        reason = next((r for p, r in patterns if fnmatch.fnmatchcase(key, p)), None)
        if reason is None:
            result.unexpected[key] = got
        else:
            result.known[key] = reason
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--subset", choices=SUBSETS, default="core")
    parser.add_argument("--client", action="append", choices=sorted(SUITES))
    parser.add_argument("--timeout", type=float, default=3600.0, help="per pytest run")
    parser.add_argument("-v", "--verbose", action="store_true", help="list known failures")
    args = parser.parse_args(argv)
    known = load_known_failures()
    bad = False
    rows = []
    for client in args.client or list(SUITES):
        runs = {b: run_client(client, args.subset, b, args.timeout) for b in backends(client)}
        for backend, run in runs.items():
            rows.append((client, backend, run))
            # pytest exits 1 when a test fails; anything else (or nothing read) is a broken run
            if run.returncode not in (0, 1) or not run.outcomes:
                bad = True
                print(f"!! {client} on {backend}: pytest exit {run.returncode}\n{run.tail}")
        references = [runs[b] for b in backends(client) if b != CANDIDATE]
        comparison = compare(client, references, runs[CANDIDATE], known)
        print(f"\n== {client}: {len(comparison.known)} known failures, "
              f"{len(comparison.unexpected)} unexpected")
        if args.verbose:
            for key, reason in comparison.known.items():
                print(f"   known   {key}  # {reason}")
        for key, got in comparison.unexpected.items():
            why = runs[CANDIDATE].messages.get(key, "")
            print(f"   UNEXPECTED ({got})  {key}\n      {why}")
        bad = bad or bool(comparison.unexpected)
    print(f"\n{'client':16} {'backend':16} {'passed':>7} {'failed':>7} {'skipped':>8} {'s':>7}")
    for client, backend, run in rows:
        print(f"{client:16} {backend:16} {run.count('passed'):7} {run.count('failed'):7} "
              f"{run.count('skipped'):8} {run.seconds:7.1f}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
