# Sourced by spark/ci.sh and benches/spark.sh: makes the virtual environment
# with pinned pyspark and pytest from PyPI ($SPARK_VENV, default
# target/spark-venv) and builds the binary, profile dist (a no-op when it is up to
# date). Needs python3 (with venv) and Java 17; on Debian, as root (or with
# sudo), it installs python3-venv and openjdk-17-jre-headless when missing.
# Sets $venv (the environment) and $bin (the binary).

PYSPARK_VERSION=3.5.8 # Hadoop 3.3.4 inside (see docs/spark.md, "On Spark")
PYTEST_VERSION=9.2.0
venv="${SPARK_VENV:-target/spark-venv}"
bin=target/dist/herder-audit

spark_as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"
  elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then sudo "$@"
  else return 1
  fi
}
spark_apt_install() {
  command -v apt-get >/dev/null || return 1
  spark_as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq &&
    spark_as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

if ! command -v java >/dev/null; then
  echo "spark: no java; installing openjdk-17-jre-headless" >&2
  spark_apt_install openjdk-17-jre-headless || { echo "spark: Java 17 is needed" >&2; exit 2; }
fi

if [ ! -x "$venv/bin/python" ]; then
  rm -rf "$venv"
  # Debian's python3 makes virtual environments only with python3-venv.
  if ! python3 -m venv "$venv" 2>/dev/null; then
    rm -rf "$venv"
    echo "spark: python3 -m venv failed; installing python3-venv" >&2
    spark_apt_install python3-venv || { echo "spark: python3-venv is needed" >&2; exit 2; }
    python3 -m venv "$venv"
  fi
fi
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
  "pyspark==$PYSPARK_VERSION" "pytest==$PYTEST_VERSION"

cargo build --profile dist --locked --quiet
