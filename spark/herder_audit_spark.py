#!/usr/bin/env python3
"""herder-audit on Apache Spark: audit an archive of many Connect clusters' logs.

    spark-submit spark/herder_audit_spark.py [--binary PATH] INPUT OUTDIR
    python3 spark/herder_audit_spark.py --master local[2] [--binary PATH] INPUT OUTDIR

INPUT is a file, a directory or a URI prefix that Spark's Hadoop file-system
layer reads (a local path, file://, s3a://, abfs://, gs://, hdfs://); OUTDIR
(resolved the same way) receives report.json (what `herder-audit --format json`
prints) and report.txt (the text report). The exit status is the binary's: 0
clean, 1 findings, 2 errors.

The job runs the herder-audit binary, shipped to the executors with
SparkContext.addFile, through its stable command line:

1. plan (driver): the files under INPUT are listed through the Hadoop FS API;
   `herder-audit plan --names -` groups their names into streams (a log with
   its rotated segments). Each file is named as `herder-audit INPUT` would
   name it: INPUT as given, joined with the file's path below it.
2. map (executors): the files are read with SparkContext.binaryFiles, shuffled
   so that every stream's segments meet in one task (one task per stream, the
   largest first), written to a local temporary directory and mapped by
   `herder-audit map --segment NAME=COPY ...`. A stream whose map fails
   (non-zero exit without a complete output, a crash) becomes an input error
   of the report; the job goes on.
3. shuffle by group (driver): streams are joined into connected components by
   the group ids their `stream` records name (union-find over the small
   records); every component goes to one task.
4. reduce (executors, then driver): `herder-audit reduce --partial` per
   component; the driver combines the partials with `herder-audit reduce`
   into the report, which is the one-machine run's, byte for byte.
"""

import argparse
import gzip
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import time

PROG = "herder-audit-spark"
EXIT_ERROR = 2
# Most tasks one stage runs; with more streams or groups, several go into
# one task (largest first, each into the least loaded task).
MAX_TASKS = 4096


class JobError(Exception):
    """A failure of the job itself (not of one stream): exit status 2."""


STARTED = time.monotonic()


def log(msg):
    print(f"{PROG}: [{time.monotonic() - STARTED:.1f} s] {msg}", file=sys.stderr, flush=True)


def parse_args(argv):
    p = argparse.ArgumentParser(
        prog="herder_audit_spark.py",
        description="Audit Kafka Connect worker logs with herder-audit on Apache Spark.",
    )
    p.add_argument(
        "--master",
        help="Spark master URL, e.g. local[2] (default: spark-submit's, else local[*])",
    )
    p.add_argument(
        "--binary",
        help="the herder-audit binary to ship to the executors (default: "
        "target/dist/herder-audit of this repository, else herder-audit on PATH)",
    )
    p.add_argument(
        "--conf",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a Spark configuration property (repeatable), as spark-submit's --conf",
    )
    p.add_argument("input", help="a log file, a directory or a URI prefix (s3a://bucket/logs/)")
    p.add_argument("outdir", help="where report.json and report.txt are written (a path or URI)")
    return p.parse_args(argv)


def default_binary():
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    built = os.path.join(repo, "target", "dist", "herder-audit")
    if os.access(built, os.X_OK):
        return built
    found = shutil.which("herder-audit")
    if found:
        return found
    raise JobError(
        f"no herder-audit binary: {built} is not built (cargo build --profile dist) "
        "and herder-audit is not on PATH; name one with --binary"
    )


# ---------------------------------------------------------------- helpers used on the executors
#
# Map outputs and partials travel between the stages gzipped (JSON lines shrink
# about 15 times at level 1); `herder-audit reduce` reads gzip by its magic bytes.


def pack(raw):
    return gzip.compress(raw, compresslevel=1)


def output_complete(raw, header):
    """Whether a map or partial output (bytes) starts with its header and ends
    with its end record."""
    lines = [line for line in raw.splitlines() if line.strip()]
    if not lines:
        return False
    try:
        first, last = json.loads(lines[0]), json.loads(lines[-1])
    except ValueError:
        return False
    return first.get("type") == header and last.get("type") == "end"


def error_output(schema, tool, errors):
    """A map output (bytes) that holds only input errors [(input, message)]: what
    a stream whose map failed becomes (the final reduce reports them)."""
    records = [{"type": "map", "schema_version": schema, "tool": tool}]
    records += [{"type": "error", "input": i, "message": m} for i, m in errors]
    records.append({"type": "end", "items": 0, "findings": 0})
    return "".join(json.dumps(r) + "\n" for r in records).encode()


def describe_failure(what, code, stderr):
    if code < 0:
        how = f"killed by signal {-code}"
    else:
        how = f"exit status {code} without a complete output"
    last = [line for line in stderr.decode("utf-8", "replace").splitlines() if line.strip()]
    return f"{what} failed ({how})" + (f": {last[-1]}" if last else "")


def groups_of(raw):
    """The group ids a map output's stream records name."""
    groups = set()
    for line in raw.splitlines():
        if line.startswith(b'{"type":"stream"'):
            groups.update(json.loads(line).get("groups") or [])
    return sorted(groups)


def shipped_binary(name):
    from pyspark import SparkFiles

    path = SparkFiles.get(name)
    mode = os.stat(path).st_mode
    if not mode & stat.S_IXUSR:
        os.chmod(path, mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path


def run_binary(cmd, out):
    """Runs the binary writing to `out`: (exit status, stderr, what it wrote)."""
    try:
        r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False)
    except OSError as e:
        return 127, str(e).encode(), b""
    raw = b""
    if os.path.exists(out):
        with open(out, "rb") as f:
            raw = f.read()
    return r.returncode, r.stderr, raw


def map_partition(binary_name, streams, expected, schema, tool):
    """Maps the streams of one task: records (stream, (segment index, bytes)) in,
    (stream, groups, packed map output, its size) out, one per stream the task
    was given."""

    def run(records):
        from pyspark import TaskContext

        wanted = expected.value[TaskContext.get().partitionId()]
        with tempfile.TemporaryDirectory(prefix="herder-audit-map-") as tmp:
            got = {}
            for sid, (idx, data) in records:
                path = os.path.join(tmp, f"{sid}-{idx}")
                with open(path, "wb") as f:
                    f.write(data)
                got.setdefault(sid, {})[idx] = path
            binary = shipped_binary(binary_name)
            for sid in wanted:
                name, segments = streams.value[sid]
                raw = map_stream(binary, name, segments, got.get(sid, {}), tmp, sid, schema, tool)
                yield sid, groups_of(raw), pack(raw), len(raw)

    return run


def map_stream(binary, name, segments, copies, tmp, sid, schema, tool):
    missing = [seg for i, seg in enumerate(segments) if i not in copies]
    if missing:
        why = f"segment {missing[0]} was not read by Spark; stream not audited"
        return error_output(schema, tool, [(name, why)])
    out = os.path.join(tmp, f"{sid}.map")
    cmd = [binary, "map", "-j", "1", "-o", out]
    for i, seg in enumerate(segments):
        cmd += ["--segment", f"{seg}={copies[i]}"]
    code, err, raw = run_binary(cmd, out)
    # Exit 2 with a complete output: errors of the input, recorded in it.
    if code in (0, 2) and output_complete(raw, "map"):
        return raw
    return error_output(schema, tool, [(name, describe_failure("herder-audit map", code, err))])


def reduce_partition(binary_name, names, expected, schema, tool):
    """Reduces the components of one task: records (component, (stream, packed
    map output)) in, one packed partial (or, where the reduce failed, error
    records) per component out."""

    def run(records):
        from pyspark import TaskContext

        wanted = expected.value[TaskContext.get().partitionId()]
        with tempfile.TemporaryDirectory(prefix="herder-audit-reduce-") as tmp:
            files = {}
            for comp, (sid, packed) in records:
                path = os.path.join(tmp, f"{comp}-{sid}.map.gz")
                with open(path, "wb") as f:
                    f.write(packed)
                files.setdefault(comp, []).append((sid, path))
            binary = shipped_binary(binary_name)
            for comp in wanted:
                members = sorted(files.get(comp, []))
                out = os.path.join(tmp, f"{comp}.partial")
                cmd = [binary, "reduce", "--partial", "-o", out] + [p for _, p in members]
                code, err, raw = run_binary(cmd, out)
                if not (code in (0, 2) and output_complete(raw, "partial")):
                    why = describe_failure("herder-audit reduce --partial", code, err)
                    raw = error_output(
                        schema, tool, [(names.value[sid], why) for sid, _ in members]
                    )
                yield pack(raw)

    return run


# ---------------------------------------------------------------- driver


def spark_context(args):
    from pyspark import SparkConf, SparkContext

    conf = SparkConf().setAppName("herder-audit")
    if args.master:
        conf.setMaster(args.master)
    for kv in args.conf:
        key, sep, value = kv.partition("=")
        if not sep or not key:
            raise JobError(f"--conf {kv!r}: expected KEY=VALUE")
        conf.set(key, value)
    if not conf.contains("spark.master"):
        conf.setMaster("local[*]")
    conf.setIfMissing("spark.ui.showConsoleProgress", "false")
    if conf.get("spark.master").startswith("local"):
        # Everything on this machine: listen on the loopback interface only,
        # no web UI unless asked for; executors run this interpreter (it has
        # pyspark).
        conf.setIfMissing("spark.driver.bindAddress", "127.0.0.1")
        conf.setIfMissing("spark.driver.host", "127.0.0.1")
        conf.setIfMissing("spark.ui.enabled", "false")
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    sc = SparkContext(conf=conf)
    sc.setLogLevel("WARN")
    return sc


def hadoop_path(sc, uri):
    jvm = sc._jvm
    path = jvm.org.apache.hadoop.fs.Path(uri)
    return path, path.getFileSystem(sc._jsc.hadoopConfiguration())


def list_input(sc, given):
    """([(uri, name, length)] of every file under INPUT, [(input, message)] of
    what could not be listed). A file's name is INPUT as given joined with its
    path below it, as `herder-audit INPUT` names it."""
    try:
        path, fs = hadoop_path(sc, given)
        root = fs.getFileStatus(path)
        if root.isFile():
            return [(root.getPath().toString(), given, root.getLen())], []
        base = root.getPath().toString().rstrip("/")
        prefix = given.rstrip("/") + "/" if given.rstrip("/") else "/"
        files = []
        it = fs.listFiles(root.getPath(), True)
        while it.hasNext():
            st = it.next()
            uri = st.getPath().toString()
            if not uri.startswith(base + "/"):
                raise JobError(f"{uri}: listed under {base} but not below it")
            files.append((uri, prefix + uri[len(base) + 1 :], st.getLen()))
        return files, []
    except JobError:
        raise
    except Exception as e:  # py4j wraps java.io.FileNotFoundException and the like
        # As the binary: an input error of the report.
        return [], [(given, java_message(e))]


def java_message(e):
    j = getattr(e, "java_exception", None)
    if j is not None:
        msg = j.getMessage()
        name = j.getClass().getSimpleName()
        if name == "FileNotFoundException":
            return "no such file or directory"
        if name in ("AccessControlException", "AccessDeniedException"):
            return "permission denied"
        return f"{name}: {msg}" if msg else name
    return str(e)


def plan(binary, names):
    """herder-audit plan over names only: (schema version, tool, [(stream, [segments])])."""
    r = subprocess.run(
        [binary, "plan", "--names", "-"],
        input="".join(n + "\n" for n in names).encode(),
        capture_output=True,
        check=False,
    )
    if r.returncode != 0:
        raise JobError(f"herder-audit plan failed: {r.stderr.decode(errors='replace').strip()}")
    doc = json.loads(r.stdout)
    streams = [(s["stream"], s["segments"]) for s in doc["streams"]]
    return doc["schema_version"], doc["tool"], streams


def spread(sizes, cap):
    """Places items (with sizes) into at most `cap` tasks: largest first, each into
    the least loaded task; task 0 gets the largest. Returns (tasks, task of item)."""
    order = sorted(range(len(sizes)), key=lambda i: (-sizes[i], i))
    tasks = max(1, min(cap, len(sizes)))
    load = [0] * tasks
    task_of = [0] * len(sizes)
    for rank, i in enumerate(order):
        t = rank if rank < tasks else min(range(tasks), key=lambda k: (load[k], k))
        load[t] += sizes[i]
        task_of[i] = t
    members = [[] for _ in range(tasks)]
    for i in order:
        members[task_of[i]].append(i)
    return members, task_of


def needs_driver_read(name, uri):
    """Files Hadoop's input formats would skip or misread: hidden names ('_', '.'),
    glob characters and commas (binaryFiles takes a comma-separated glob list)."""
    if any(c in uri for c in ",{}[]*?\\"):
        return True
    return os.path.basename(name).startswith(("_", "."))


def read_on_driver(sc, uri):
    path, fs = hadoop_path(sc, uri)
    stream = fs.open(path)
    try:
        return bytes(sc._jvm.org.apache.commons.io.IOUtils.toByteArray(stream))
    finally:
        stream.close()


def components(groups):
    """Connected components of streams linked by the groups they name:
    component index per stream (streams without a group are alone)."""
    parent = list(range(len(groups)))

    def find(i):
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    first = {}
    for sid, gs in enumerate(groups):
        for g in gs:
            other = first.setdefault(g, sid)
            parent[find(sid)] = find(other)
    index, comp = {}, []
    for sid in range(len(groups)):
        comp.append(index.setdefault(find(sid), len(index)))
    return comp


def write_outputs(sc, outdir, files):
    """Writes {name: local file} to OUTDIR (local, or any Hadoop file system)."""
    path, fs = hadoop_path(sc, outdir)
    if fs.getUri().getScheme() == "file":
        local = path.toUri().getPath()
        os.makedirs(local, exist_ok=True)
        for name, src in files.items():
            shutil.copyfile(src, os.path.join(local, name))
        return
    fs.mkdirs(path)
    jvm = sc._jvm
    for name, src in files.items():
        fs.copyFromLocalFile(
            False,
            True,
            jvm.org.apache.hadoop.fs.Path("file://" + src),
            jvm.org.apache.hadoop.fs.Path(path, name),
        )


def run_job(sc, args, binary):
    from pyspark import StorageLevel

    files, unlisted = list_input(sc, args.input)
    if not files and not unlisted:
        log(f"{args.input}: no files")
    uri_of = {name: uri for uri, name, _ in files}
    size_of = {name: size for _, name, size in files}
    schema, tool, streams = plan(binary, [name for _, name, _ in files])
    for _, segs in streams:
        for seg in segs:
            if seg not in uri_of:
                raise JobError(f"herder-audit plan named {seg!r}, which was not listed")
    sizes = [sum(size_of[s] for s in segs) for _, segs in streams]
    map_tasks, task_of_stream = spread(sizes, MAX_TASKS)
    seg_of = {}
    for sid, (_, segs) in enumerate(streams):
        for idx, seg in enumerate(segs):
            seg_of[uri_of[seg]] = (sid, idx)

    odd = [(uri, name) for uri, name, _ in files if needs_driver_read(name, uri)]
    odd_uris = {uri for uri, _ in odd}
    normal = [uri for uri, _, _ in files if uri not in odd_uris]
    log(
        f"{len(files)} file(s) ({sum(sizes) / 2**20:.1f} MiB), {len(streams)} stream(s), "
        f"{len(map_tasks)} map task(s)"
        + (f"; {len(odd)} file(s) read on the driver" if odd else "")
    )

    binary_name = os.path.basename(binary)
    sc.addFile(binary)
    b_streams = sc.broadcast(streams)
    b_seg_of = sc.broadcast(seg_of)
    b_map_tasks = sc.broadcast(map_tasks)
    parts = []
    if normal:
        parts.append(sc.binaryFiles(",".join(normal)))
    if odd:
        parts.append(
            sc.parallelize(
                [(uri, read_on_driver(sc, uri)) for uri, _ in odd], max(1, min(len(odd), 64))
            )
        )
    segments = sc.union(parts) if len(parts) > 1 else parts[0] if parts else sc.parallelize([], 1)

    def keyed(kv):
        sid, idx = b_seg_of.value[kv[0]]
        return sid, (idx, kv[1])

    maps = (
        segments.map(keyed)
        .partitionBy(len(map_tasks), lambda sid: task_of_stream[sid])
        .mapPartitions(map_partition(binary_name, b_streams, b_map_tasks, schema, tool))
        .persist(StorageLevel.MEMORY_AND_DISK)
    )
    meta = maps.map(lambda t: (t[0], t[1], len(t[2]), t[3])).collect()
    groups = [[] for _ in streams]
    out_size = [0] * len(streams)
    for sid, gs, n, _ in meta:
        groups[sid], out_size[sid] = gs, n
    comp = components(groups)
    n_comp = max(comp) + 1 if comp else 0
    comp_size = [0] * n_comp
    for sid, c in enumerate(comp):
        comp_size[c] += out_size[sid]
    reduce_tasks, task_of_comp = spread(comp_size, MAX_TASKS)
    log(
        f"mapped: {sum(m[3] for m in meta) / 2**20:.1f} MiB of map output "
        f"({sum(out_size) / 2**20:.1f} MiB gzipped); {n_comp} component(s) "
        f"of streams linked by group, {len(reduce_tasks)} reduce task(s)"
    )
    b_comp = sc.broadcast(comp)
    b_names = sc.broadcast([name for name, _ in streams])
    b_reduce_tasks = sc.broadcast(reduce_tasks)
    partials = (
        maps.map(lambda t: (b_comp.value[t[0]], (t[0], t[2])))
        .partitionBy(len(reduce_tasks), lambda c: task_of_comp[c])
        .mapPartitions(reduce_partition(binary_name, b_names, b_reduce_tasks, schema, tool))
    )

    with tempfile.TemporaryDirectory(prefix="herder-audit-final-") as tmp:
        paths = []
        # collect (not toLocalIterator, which runs the tasks one at a time).
        for n, packed in enumerate(partials.collect()):
            p = os.path.join(tmp, f"part-{n}.partial.gz")
            with open(p, "wb") as f:
                f.write(packed)
            paths.append(p)
        maps.unpersist()
        log(f"reduced: {len(paths)} partial(s)")
        if unlisted or not paths:
            # What could not be listed; or, with no input at all, an empty
            # map output (the binary audits an empty directory to a report).
            p = os.path.join(tmp, "unlisted.map")
            with open(p, "wb") as f:
                f.write(error_output(schema, tool, unlisted))
            paths.append(p)
        outputs = {}
        status = 0
        for fmt, name in (("json", "report.json"), ("text", "report.txt")):
            out = os.path.join(tmp, name)
            r = subprocess.run(
                [binary, "reduce", "--format", fmt, "--color", "never", "-o", out] + paths,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                check=False,
            )
            if r.returncode not in (0, 1, 2) or not os.path.exists(out):
                raise JobError(describe_failure("herder-audit reduce", r.returncode, r.stderr))
            if fmt == "json":
                # The binary's messages (input errors), once.
                sys.stderr.write(r.stderr.decode("utf-8", "replace"))
            status = max(status, r.returncode)
            outputs[name] = out
        write_outputs(sc, args.outdir, outputs)
    log(f"wrote {args.outdir.rstrip('/')}/report.json and report.txt")
    return status


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    sc = None
    try:
        binary = os.path.abspath(args.binary) if args.binary else default_binary()
        if not os.access(binary, os.X_OK):
            raise JobError(f"{binary}: not an executable file")
        sc = spark_context(args)
        log(f"Spark {sc.version} on {sc.master} ({sc.defaultParallelism} task slot(s))")
        return run_job(sc, args, binary)
    except JobError as e:
        log(str(e))
        return EXIT_ERROR
    except Exception as e:  # a Spark or py4j failure: say it, exit like the binary on errors
        log(f"the job failed: {type(e).__name__}: {e}")
        return EXIT_ERROR
    finally:
        if sc is not None:
            sc.stop()


if __name__ == "__main__":
    sys.exit(main())
