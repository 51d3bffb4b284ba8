#!/usr/bin/env bash
# The Spark job's test (spark/test_spark.py) on local[2]: makes a virtual
# environment with pinned pyspark and pytest from PyPI (target/spark-venv),
# builds the release binary (a no-op when it is up to date), runs the test.
# Needs python3 (with venv) and Java 17; on Debian, as root, it installs
# python3-venv and openjdk-17-jre-headless when they are missing.
# Usage: spark/ci.sh [PYTEST ARGS...]
set -euo pipefail
cd "$(dirname "$0")/.."

PYSPARK_VERSION=3.5.8 # Hadoop 3.3.4 inside (see the README, "On Spark")
PYTEST_VERSION=9.2.0
venv="${SPARK_VENV:-target/spark-venv}"

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"
  elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then sudo "$@"
  else return 1
  fi
}
apt_install() {
  command -v apt-get >/dev/null || return 1
  as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq &&
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

if ! command -v java >/dev/null; then
  echo "spark/ci.sh: no java; installing openjdk-17-jre-headless" >&2
  apt_install openjdk-17-jre-headless || { echo "spark/ci.sh: Java 17 is needed" >&2; exit 2; }
fi

if [ ! -x "$venv/bin/python" ]; then
  rm -rf "$venv"
  # Debian's python3 makes virtual environments only with python3-venv.
  if ! python3 -m venv "$venv" 2>/dev/null; then
    rm -rf "$venv"
    echo "spark/ci.sh: python3 -m venv failed; installing python3-venv" >&2
    apt_install python3-venv || { echo "spark/ci.sh: python3-venv is needed" >&2; exit 2; }
    python3 -m venv "$venv"
  fi
fi
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
  "pyspark==$PYSPARK_VERSION" "pytest==$PYTEST_VERSION"

cargo build --release --locked --quiet

export PYTHONDONTWRITEBYTECODE=1
exec "$venv/bin/python" -m pytest -q -p no:cacheprovider spark/test_spark.py "$@"
