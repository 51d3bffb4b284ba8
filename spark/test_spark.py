"""The Spark job gives the one-machine report.

Runs spark/herder_audit_spark.py on local[2] and compares OUTDIR/report.json and
OUTDIR/report.txt with what `herder-audit --format json INPUT` and `herder-audit
INPUT` print, byte for byte, and the exit statuses: over the corpus directory
and over a simulated archive of four clusters (three group ids, two clusters
sharing `connect-cluster`; rotated, gzipped segments). Then a stream whose map
crashes: an input error of the report, the other streams audited as without it.

Run by spark/ci.sh (which makes the virtual environment and builds the binary);
HERDER_AUDIT_BIN names another binary.
"""

import json
import os
import subprocess
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
JOB = os.path.join(REPO, "spark", "herder_audit_spark.py")
BINARY = os.environ.get("HERDER_AUDIT_BIN") or os.path.join(
    REPO, "target", "dist", "herder-audit"
)


def binary(*args):
    """(exit status, stdout) of the binary, run from the repository."""
    r = subprocess.run([BINARY, *args], cwd=REPO, capture_output=True, check=False)
    return r.returncode, r.stdout.decode()


def job(inp, outdir, binary_path=BINARY, submit=False):
    """Runs the Spark job on local[2]; returns its exit status and stderr."""
    if submit:
        spark_submit = os.path.join(os.path.dirname(sys.executable), "spark-submit")
        cmd = [spark_submit, "--master", "local[2]", "--conf", "spark.ui.enabled=false", JOB]
    else:
        cmd = [sys.executable, JOB, "--master", "local[2]"]
    env = dict(os.environ, PYSPARK_PYTHON=sys.executable)
    r = subprocess.run(
        [*cmd, "--binary", binary_path, str(inp), str(outdir)],
        cwd=REPO,
        env=env,
        capture_output=True,
        check=False,
    )
    err = r.stderr.decode(errors="replace")
    assert r.returncode in (0, 1, 2), err
    return r.returncode, err


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def assert_same_report(inp, outdir, code, err):
    want_json_code, want_json = binary("--format", "json", str(inp))
    want_text_code, want_text = binary(str(inp))
    assert want_json_code == want_text_code
    assert code == want_json_code, err
    assert read(os.path.join(outdir, "report.json")) == want_json
    assert read(os.path.join(outdir, "report.txt")) == want_text


@pytest.fixture(scope="session", autouse=True)
def built():
    assert os.access(BINARY, os.X_OK), f"{BINARY}: build it first (cargo build --profile dist)"


def test_corpus(tmp_path):
    out = tmp_path / "out"
    code, err = job("corpus", out)
    assert_same_report("corpus", out, code, err)
    assert code == 1  # the corpus holds faulty traces
    report = json.loads(read(out / "report.json"))
    assert len(report["findings"]) > 20 and not report["errors"]


def test_simulated_archive(tmp_path):
    archive = tmp_path / "archive"
    code, _ = binary(
        "simulate",
        "--clusters", "4",
        "--events", "30",
        "--seed", "3",
        "--rotate-bytes", "64K",
        "--gzip-rotated",
        "--fault", "restart-moved-task",
        "--fault-cluster", "1",
        "--out", str(archive),
    )  # fmt: skip
    assert code == 0
    truth = json.loads(read(archive / "truth.json"))
    groups = [c["group"] for c in truth["clusters"]]
    assert len(set(groups)) == 3 and groups.count("connect-cluster") == 2, groups
    assert sum(1 for f in truth["files"] if f.get("gzip")) > 20
    out = tmp_path / "out"
    code, err = job(archive, out, submit=True)
    assert_same_report(archive, out, code, err)
    assert code == 1  # the fault's findings
    assert "read on the driver" not in err


CRASH_ON = "east-2"


def test_failed_map_is_an_input_error(tmp_path):
    """A file:// URI in, a map that crashes on one stream: the job goes on."""
    logs = tmp_path / "logs"
    logs.mkdir()
    src = os.path.join(REPO, "corpus", "multi-restart-moved-task")
    for name in sorted(os.listdir(src)):
        with open(os.path.join(src, name), "rb") as f, open(logs / name, "wb") as g:
            g.write(f.read())
    names = sorted(os.listdir(logs))
    crashing = [n for n in names if CRASH_ON in n]
    assert len(crashing) == 1, names
    wrapper = tmp_path / "herder-audit"
    wrapper.write_text(
        "#!/bin/sh\n"
        f'if [ "$1" = map ]; then case "$*" in *{CRASH_ON}*) kill -SEGV $$ ;; esac; fi\n'
        f'exec "{BINARY}" "$@"\n'
    )
    wrapper.chmod(0o755)
    out = tmp_path / "out"
    uri = f"file://{logs}"
    code, err = job(uri, f"file://{out}", binary_path=str(wrapper))
    assert code == 2, err
    report = json.loads(read(out / "report.json"))
    assert report["errors"] == [
        {
            "input": f"{uri}/{crashing[0]}",
            "message": "herder-audit map failed (killed by signal 11)",
        }
    ]
    # The rest is what the binary reports over the other files, named by URI.
    others = [str(logs / n) for n in names if n not in crashing]
    _, want = binary("--format", "json", *others)
    want = json.loads(want.replace(str(logs), uri))
    assert report["findings"] == want["findings"] and report["findings"]
    assert report["workers"] == want["workers"]
    assert [i["name"] for i in report["inputs"]] == [i["name"] for i in want["inputs"]]
    # As the binary, the text report leaves input errors to standard error.
    assert f"herder-audit: {uri}/{crashing[0]}: herder-audit map failed" in err
    assert "foreign-start" in read(out / "report.txt")
