#!/usr/bin/env bash
# Run the official Array API test suite (data-apis/array-api-tests) against jaxtensor.
#
# usage: conformance/run.sh [pytest args...]
#   e.g. conformance/run.sh --max-examples=10 array_api_tests/test_creation_functions.py
#
# Environment:
#   ARRAY_API_TESTS_DIR      checkout of data-apis/array-api-tests with its spec submodule
#                            (data-apis/array-api) under array-api/, absolute or relative
#                            to the current directory; default conformance/array-api-tests
#                            (git-ignored, never committed)
#   ARRAY_API_TESTS_VERSION  standard version to test (2025.12 default; 2024.12, 2023.12);
#                            jaxtensor is told through JAXTENSOR_ARRAY_API_VERSION
#   JAX_ENABLE_X64           left as the caller sets it (jaxtensor turns 64-bit mode on
#                            unless it is 0); with it off, the dtypes the namespace info
#                            does not list are passed to ARRAY_API_TESTS_SKIP_DTYPES
# Without test-file arguments the whole suite (array_api_tests/) runs.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
suite="${ARRAY_API_TESTS_DIR:-$here/array-api-tests}"
# (absolute before the cd into the suite below: a relative path names a folder from where
# the caller stands, e.g. ../shared/array-api-tests from the repository root)
if [[ -d "$suite" ]]; then suite="$(cd "$suite" && pwd)"; fi
if [[ ! -d "$suite/array_api_tests" ]]; then
  echo "no array-api-tests checkout at $suite; clone data-apis/array-api-tests there" >&2
  echo "(with its spec: git clone https://github.com/data-apis/array-api $suite/array-api)" >&2
  exit 2
fi
if [[ ! -d "$suite/array-api/spec" ]]; then
  echo "the suite's spec submodule is missing: clone data-apis/array-api into $suite/array-api" >&2
  exit 2
fi
export ARRAY_API_TESTS_MODULE=jaxtensor
if [[ -n "${ARRAY_API_TESTS_VERSION:-}" ]]; then
  export JAXTENSOR_ARRAY_API_VERSION="$ARRAY_API_TESTS_VERSION"
fi
# Dtypes this process cannot hold (64-bit ones when JAX_ENABLE_X64=0) are left out the
# suite's documented way; the list comes from __array_namespace_info__().dtypes().
missing="$(python -c '
import jaxtensor as jt
have = jt.__array_namespace_info__().dtypes()
names = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
         "float32", "float64", "complex64", "complex128"]
print(",".join(n for n in names if n not in have))
')"
if [[ -n "$missing" ]]; then
  export ARRAY_API_TESTS_SKIP_DTYPES="${ARRAY_API_TESTS_SKIP_DTYPES:+$ARRAY_API_TESTS_SKIP_DTYPES,}$missing"
  echo "jaxtensor runs without 64-bit mode here: the suite skips dtypes $missing" >&2
fi
skips="$here/skips.txt"
if [[ -n "$missing" ]]; then
  # skips that only 32-bit mode needs (see the comments in skips-x32.txt)
  skips="$(mktemp)"
  cat "$here/skips.txt" "$here/skips-x32.txt" > "$skips"
fi
have_target=0
for a in "$@"; do
  case "$a" in
    array_api_tests*) have_target=1 ;;
  esac
done
targets=()
if [[ $have_target == 0 ]]; then targets=(array_api_tests/); fi
cd "$suite"
# --rootdir/-c: pytest must use the suite's own pytest.ini, not our pyproject.toml (the
# xfails/skips ids are relative to the suite's root)
exec python -m pytest "${targets[@]}" \
  --rootdir="$suite" -c "$suite/pytest.ini" \
  --disable-deadline \
  --xfails-file="$here/xfails.txt" \
  --skips-file="$skips" \
  -p no:cacheprovider \
  "$@"
