#!/usr/bin/env bash
# Copy a capture of conformance/run.sh into the corpus as a directory trace:
#   conformance/to-corpus.sh target/conformance/3.9.1/kill-worker
# makes corpus/real-kafka/3.9.1/kill-worker/ with every worker's log files
# exactly as written, gzipped (w1/connect.log.gz, rotated segments too),
# the dumps of the internal topics (topics/, conformance/topics.sh), gzipped,
# the records topic's dump (records.txt.gz: every record names its producer)
# and the checker's result over it (checker.json, conformance/checker.py), a
# chaos run's schedule (schedule.json), PROVENANCE.txt (the run's provenance and a summary of the cluster's own
# ground truth: the REST calls, the last status snapshot, the source topic's
# record and duplicate counts; the full snapshots stay in the run directory,
# out of the trace, which audits every file it holds) and an `expect` blessed from the audit,
# which must then be reviewed by hand and annotated (why each finding is, or
# why nothing is, expected).
set -euo pipefail
cd "$(dirname "$0")/.."
# With --pending the capture goes to conformance/pending/<release>/<name>/
# instead: a capture on which the auditor is wrong (an overlap not caught, a
# finding not confirmed), kept out of the corpus (whose test requires the
# audit to equal the reviewed expect) until the auditor is fixed; its note
# goes in conformance/pending/README.md.
run="${1:?usage: conformance/to-corpus.sh RUN_DIR [--pending]}"
root="corpus/real-kafka"
[ "${2:-}" = --pending ] && root="conformance/pending"
[ -f "$run/PROVENANCE" ] || { echo "conformance/to-corpus.sh: $run has no PROVENANCE" >&2; exit 1; }
release="$(sed -n 's/^release: //p' "$run/PROVENANCE")"
scenario="$(sed -n 's/^scenario: //p' "$run/PROVENANCE")"
layout="$(sed -n 's/^layout: //p' "$run/PROVENANCE")"
seed="$(sed -n 's/^seed: //p' "$run/PROVENANCE")"
dest="$root/$release/$scenario${seed:+-s$seed}${layout:+-$layout}"
rm -rf "$dest"
mkdir -p "$dest"
(cd "$run/logs" && find . -type f) | while read -r f; do
    mkdir -p "$dest/$(dirname "$f")"
    gzip -9 -n -c "$run/logs/$f" > "$dest/$f.gz"
done
if [ -d "$run/topics" ]; then
    mkdir -p "$dest/topics"
    for f in "$run"/topics/*; do
        case "$f" in *.err) continue ;; esac
        gzip -9 -n -c "$f" > "$dest/topics/$(basename "$f").gz"
    done
fi
grep -v '^date:\|^wall:' "$run/PROVENANCE" > "$dest/PROVENANCE.txt"
sed -n 's/^\(date\|wall\): /captured \1: /p' "$run/PROVENANCE" >> "$dest/PROVENANCE.txt"
python3 - "$run/ground-truth" >> "$dest/PROVENANCE.txt" <<'PY'
import json, os, sys
gt = sys.argv[1]
def lines(name):
    p = os.path.join(gt, name)
    return [json.loads(l) for l in open(p)] if os.path.exists(p) else []
print("ground truth (the cluster's own account):")
for r in lines("rest.jsonl"):
    print(f"  {r['t']} REST {r['method']} {r['path']} -> {r['code']}")
snaps = lines("status.jsonl")
if snaps:
    last = snaps[-1]
    print(f"  {len(snaps)} status snapshots; the last, {last['t']}:")
    for name, c in sorted(last["connectors"].items()):
        st = c["status"]
        tasks = ", ".join(f"{t['id']} {t['state']} on {t['worker_id']}" for t in st["tasks"])
        print(f"    {name}: connector {st['connector']['state']} on {st['connector']['worker_id']}; tasks: {tasks or 'none'}")
for t in lines("topics.jsonl"):
    print(f"  topic {t['topic']}: {t['records']} records, {t['duplicated']} duplicated")
nemesis = lines("nemesis.jsonl")
if nemesis:
    print(f"  the nemesis (schedule.json; {len(nemesis)} events as done):")
    for e in nemesis:
        v = "" if e["value"] == "-" else " " + e["value"]
        print(f"    {e['t']} (planned +{e['planned_s']} s) {e['op']} {e['target']}{v} -> {e['outcome']}")
PY
[ -s "$run/ground-truth/records.txt" ] && gzip -9 -n -c "$run/ground-truth/records.txt" > "$dest/records.txt.gz"
[ -f "$run/ground-truth/schedule.json" ] && cp "$run/ground-truth/schedule.json" "$dest/schedule.json"
: > "$dest/expect"
target/dist/herder-audit check --bless "$dest" >/dev/null || true
# the checker over the corpus copy, compared with the audit of that copy
python3 conformance/checker.py --capture "$dest" --audit-bin target/dist/herder-audit || true
echo "$dest: $(grep -vc '^#\|^$' "$dest/expect" || true) expected finding(s); review them"
