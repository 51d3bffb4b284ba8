#!/usr/bin/env bash
# Same output: runs two herder-audit binaries over the same inputs and
# compares every output byte for byte, with its exit status and standard
# error. A refactoring that changes no behaviour must print IDENTICAL.
#
# Inputs:
#   * every trace of corpus/ (each .log alone, and each multi-* directory),
#     and corpus/ whole;
#   * every capture of corpus/real-kafka/ (one directory per scenario);
#   * simulated archives, built once with REF_BINARY's `simulate` (so both
#     binaries read the same bytes): several Kafka releases, layouts,
#     protocols and faults, an archive of several clusters with rotated and
#     gzipped segments, and a bench-like cluster of 8 workers;
#   * a few traces on standard input (the live reader).
# Runs, per input: the audit in every format (text, json, jsonl, html) and
# `replay` (text, json), each with -j 1 and -j 2; `map | reduce` (text,
# json, and `map --timeline | reduce --format html`); on corpus/ also
# `check` (text, json, junit without its timings) and `plan`.
#
# Usage: benches/same-output.sh REF_BINARY [NEW_BINARY]
#        (NEW_BINARY defaults to target/release/herder-audit, built here;
#        SAME_DIR: where the simulated archives and the outputs go, default
#        target/same-output)
set -euo pipefail
cd "$(dirname "$0")/.."
ref="${1:?usage: benches/same-output.sh REF_BINARY [NEW_BINARY]}"
new="${2:-}"
if [ -z "$new" ]; then
  cargo build --release --locked --quiet
  new=target/release/herder-audit
fi
for b in "$ref" "$new"; do
  [ -x "$b" ] || { echo "same-output.sh: $b is not an executable" >&2; exit 2; }
done
dir="${SAME_DIR:-target/same-output}"
mkdir -p "$dir/bin/ref" "$dir/bin/new" "$dir/sim"
# Both run under one name: messages that name the program agree.
ln -sf "$(realpath "$ref")" "$dir/bin/ref/herder-audit"
ln -sf "$(realpath "$new")" "$dir/bin/new/herder-audit"
rm -rf "$dir/out"
mkdir -p "$dir/out/ref" "$dir/out/new"

# sim NAME ARGS...: a simulated cluster or archive, built once by REF.
sim() {
  local name="$1"
  shift
  if [ ! -f "$dir/sim/$name.done" ]; then
    rm -rf "${dir:?}/sim/$name"
    "$dir/bin/ref/herder-audit" simulate "$@" --out "$dir/sim/$name" > /dev/null
    touch "$dir/sim/$name.done"
  fi
}
sim v362 --workers 4 --connectors 6 --events 60 --seed 1
sim v231-8676 --kafka-version 2.3.1 --workers 3 --fault kafka-8676 --seed 3
sim v201-debezium --kafka-version 2.0.1 --layout debezium --workers 3 --seed 4
sim v362-strimzi-leave --layout strimzi --fault poll-timeout-leave --workers 4 --seed 5
sim v282-mdc-moved --kafka-version 2.8.2 --layout apache-mdc --fault restart-moved-task --seed 6
sim v241-stale --kafka-version 2.4.1 --protocol eager --fault stale-config-start --seed 7
sim v302-double --kafka-version 3.0.2 --protocol sessioned --fault double-start --fail-rate 0.1 --seed 8
sim archive --clusters 3 --workers 3 --connectors 5 --events 50 --rotate-bytes 64K --gzip-rotated --seed 2
sim bench8 --workers 8 --connectors 20 --events 60 --noise 0.9 --seed 11

# The inputs: one name per line (a file or a directory).
inputs=()
for f in corpus/*.log; do inputs+=("$f"); done
for d in corpus/multi-*/; do inputs+=("${d%/}"); done
while IFS= read -r d; do inputs+=("$d"); done < <(find corpus/real-kafka -name expect -printf '%h\n' | sort)
for d in "$dir"/sim/*/; do inputs+=("${d%/}"); done
inputs+=(corpus)

n=0
# run ID CMD...: runs CMD with each binary first on PATH; keeps stdout,
# stderr and the exit status under ID.
run() {
  local id="$1"
  shift
  local side
  for side in ref new; do
    local out="$dir/out/$side/$id"
    set +e
    PATH="$PWD/$dir/bin/$side:$PATH" NO_COLOR=1 bash -c "$*" > "$out.stdout" 2> "$out.stderr"
    echo $? > "$out.status"
    set -e
  done
  n=$((n + 1))
}
# The run's own name, for files.
slug() { printf '%s' "$1" | tr '/ ' '__'; }

for input in "${inputs[@]}"; do
  s=$(slug "$input")
  for j in 1 2; do
    for f in text json jsonl html; do
      run "$s.audit.$f.j$j" "herder-audit -j $j --color never --format $f '$input'"
    done
    for f in text json; do
      run "$s.replay.$f.j$j" "herder-audit replay -j $j --color never --format $f '$input'"
    done
  done
  run "$s.mapreduce.text" "herder-audit map -j 2 '$input' | herder-audit reduce --color never"
  run "$s.mapreduce.json" "herder-audit map -j 1 '$input' | herder-audit reduce --format json"
  run "$s.mapreduce.html" "herder-audit map --timeline '$input' | herder-audit reduce --format html"
done
for f in corpus/*.log; do
  s=$(slug "$f")
  run "$s.stdin.text" "herder-audit --color never - < '$f'"
  run "$s.stdin.json" "cat '$f' | herder-audit --format json"
done
run "check.text" "herder-audit check -j 2 --color never corpus"
run "check.json" "herder-audit check -j 1 --format json corpus"
run "check.junit" "herder-audit check --format junit corpus | sed -E 's/ time=\"[0-9.]+\"//g'"
run "plan" "herder-audit plan corpus '$dir/sim'"

differ=()
for f in "$dir"/out/ref/*; do
  b=$(basename "$f")
  if ! cmp -s "$f" "$dir/out/new/$b"; then
    differ+=("$b")
  fi
done
if [ "${#differ[@]}" -eq 0 ]; then
  echo "IDENTICAL ($n outputs, each stdout, stderr and exit status)"
else
  echo "DIFFERENT: ${#differ[@]} of $((n * 3)) files (outputs in $dir/out/{ref,new}):"
  printf '  %s\n' "${differ[@]}"
  exit 1
fi
