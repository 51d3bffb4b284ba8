#!/usr/bin/env bash
# CI smoke test against real Kafka: one release, two scenarios on real
# clusters (jars fetched from Maven Central through conformance/pom.xml),
# and assertions on the audit of what they captured:
#   single      a clean run (one connector: 2.3.0 bounces every
#               connector's tasks on any change, KAFKA-8676): no error-level
#               finding;
#   kafka-8676  unnecessary-stops attributed to KAFKA-8676 and nothing else,
#               among them the tasks of connector `b` (whose config did not
#               change) stopped for the config update of connector `a`;
# and on both, the checker (conformance/checker.py): the counting sources'
# records were dumped and judged, every overlap caught and every zombie
# finding confirmed (there are none on 2.3.0 here).
# Then conformance/topics-live.sh on kafka-8676's dumped internal topics.
# Needs java and mvn; builds the binary (profile dist) if it is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
release="${SMOKE_RELEASE:-2.3.0}"
out="${SMOKE_OUT:-target/conformance-smoke}"
start=$(date +%s)

for tool in java mvn curl python3; do
    command -v "$tool" >/dev/null || { echo "conformance/smoke.sh: $tool is required" >&2; exit 1; }
done
[ -x target/dist/herder-audit ] || cargo build --profile dist --locked -q

status=0
conformance/run.sh --release "$release" --scenario single --out "$out" || status=1
conformance/run.sh --release "$release" --scenario kafka-8676 --out "$out" || status=1

# assert_audit DIR WANT: WANT is "none" (no error finding) or
# "KIND RESOURCE_PREFIX UPSTREAM" (every error finding of KIND attributed
# to UPSTREAM, at least one of them on a resource starting RESOURCE_PREFIX).
assert_audit() {
    python3 - "$1/audit.json" "$2" <<'PY'
import json, sys
path, want = sys.argv[1], sys.argv[2]
try:
    report = json.load(open(path))
except (OSError, ValueError) as e:
    sys.exit(f"smoke: no audit report {path}: {e}")
errors = [f for f in report["findings"] if f["severity"] == "error"]
desc = [f'{f["kind"]} {f["resource"]["type"]}:{f["resource"]["id"]} line {f["trigger"]["line"]}' for f in errors]
if want == "none":
    if errors:
        sys.exit(f"smoke: {path}: expected no error finding, got {desc}")
    print(f"smoke: {path}: no error finding, as expected")
    sys.exit(0)
kind, prefix, upstream = want.split()
others = [d for f, d in zip(errors, desc) if f["kind"] != kind or f.get("upstream") != upstream]
hits = [f for f in errors if f"{f['resource']['type']}:{f['resource']['id']}".startswith(prefix)]
if not hits or others:
    sys.exit(f"smoke: {path}: expected {kind} on {prefix}* ({upstream}) only, got {desc}")
print(f"smoke: {path}: {len(hits)} {kind} on {prefix}* ({upstream}), as expected: {desc}")
PY
}

assert_audit "$out/$release/single" none || status=1
assert_audit "$out/$release/kafka-8676" "unnecessary-stop task:b- KAFKA-8676" || status=1

# assert_checker DIR: checker.json holds producer-named records of every
# task the run's connectors had, and its comparison with the audit holds.
assert_checker() {
    python3 - "$1/checker.json" <<'PY'
import json, sys
path = sys.argv[1]
try:
    doc = json.load(open(path))
except (OSError, ValueError) as e:
    sys.exit(f"smoke: no checker result {path}: {e}")
c = doc["comparison"] or {}
if doc["records"] == 0 or not doc["tasks"]:
    sys.exit(f"smoke: {path}: no producer-named records")
if c.get("overlaps_caught") != c.get("overlaps_total") or c.get("findings_confirmed") != c.get("findings_total"):
    sys.exit(f"smoke: {path}: overlaps caught {c.get('overlaps_caught')}/{c.get('overlaps_total')}, "
             f"zombie findings confirmed {c.get('findings_confirmed')}/{c.get('findings_total')}")
print(f"smoke: {path}: {doc['records']} records of {len(doc['tasks'])} tasks, {doc['totals']['gaps']} gaps; "
      f"overlaps caught {c['overlaps_caught']}/{c['overlaps_total']}")
PY
}
assert_checker "$out/$release/single" || status=1
assert_checker "$out/$release/kafka-8676" || status=1
# The internal topics read live from a real broker with the Rust client
# (docs/topics.md): kafka-8676's config and status records, produced again.
conformance/topics-live.sh "$out/$release/kafka-8676" || status=1
echo "conformance/smoke.sh: $(( $(date +%s) - start )) s, $([ "$status" = 0 ] && echo passed || echo FAILED)"
exit "$status"
