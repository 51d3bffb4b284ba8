#!/usr/bin/env bash
# The Spark job's test (spark/test_spark.py) on local[2], in the virtual
# environment spark/env.sh makes (pinned pyspark and pytest from PyPI), with
# the binary it builds (profile dist). Usage: spark/ci.sh [PYTEST ARGS...]
set -euo pipefail
cd "$(dirname "$0")/.."
. spark/env.sh
export PYTHONDONTWRITEBYTECODE=1
exec "$venv/bin/python" -m pytest -q -p no:cacheprovider spark/test_spark.py "$@"
