# shellcheck shell=bash
# Dumps of Connect's own internal topics (config, status, offsets) at the end
# of a run: the second witness beside the worker logs (docs/topics.md).
# Sourced by conformance/run.sh (and conformance/mm2/run.sh); needs the
# broker still up.
#
#   dump_internal_topics BOOTSTRAP OUT_DIR TOOL_LIBS LOG4J_PROPS TOPIC...
#
# For each TOPIC it writes, under OUT_DIR:
#   TOPIC.console.txt  the broker's own console consumer (Kafka 3.9.1's tools)
#                      with print.timestamp, print.partition, print.offset and
#                      print.key, tab-separated:
#                        CreateTime:<ms>\tPartition:<p>\tOffset:<o>\t<key>\t<value>
#                      a tombstone's value is the literal `null`
#   TOPIC.kcat.txt     kcat (Debian package kcat) with the documented format
#                        topic=%t partition=%p offset=%o timestamp=%T key=%K:%k value=%S:%s
#                      (%K/%S: the key/value length in bytes, -1 for null)
#   TOPIC.jsonl        kcat's JSON envelope (-J), one record a line
# The kcat shapes are written only when kcat is installed (the script says so
# when it is not). Every consumer reads from the beginning, joins no group
# (console consumer: a throw-away group it never commits; kcat: none) and
# writes nothing to the topics.

# The kcat format the audit reads (docs/topics.md): keep the two in step.
kcat_dump_format='topic=%t partition=%p offset=%o timestamp=%T key=%K:%k value=%S:%s\n'

dump_internal_topics() {
    local bootstrap="$1" out="$2" tool_libs="$3" log4j="$4"
    shift 4
    mkdir -p "$out"
    local topic pids=()
    for topic in "$@"; do
        # the console consumer ends 6 s after the last record it read
        java -Xmx192m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 "-Dlog4j.configuration=file:$log4j" \
            -cp "$tool_libs/*" org.apache.kafka.tools.consumer.ConsoleConsumer \
            --bootstrap-server "$bootstrap" --topic "$topic" --from-beginning --timeout-ms 6000 \
            --property print.timestamp=true --property print.partition=true \
            --property print.offset=true --property print.key=true \
            > "$out/$topic.console.txt" 2> "$out/$topic.console.err" &
        pids+=($!)
    done
    local p
    for p in "${pids[@]}"; do wait "$p" || true; done
    if command -v kcat >/dev/null; then
        for topic in "$@"; do
            kcat -C -b "$bootstrap" -t "$topic" -o beginning -e -q -f "$kcat_dump_format" \
                > "$out/$topic.kcat.txt" 2> "$out/$topic.kcat.err" || true
            kcat -C -b "$bootstrap" -t "$topic" -o beginning -e -q -J \
                > "$out/$topic.jsonl" 2>> "$out/$topic.kcat.err" || true
        done
    else
        echo "topics: kcat is not installed (Debian package kcat): only the console consumer's dumps" >&2
    fi
    # an empty stderr file says nothing: keep only those that do
    for p in "$out"/*.err; do [ -s "$p" ] || rm -f "$p"; done
    for topic in "$@"; do
        echo "topics: $topic: $(wc -l < "$out/$topic.console.txt") record(s) (console consumer)$( [ -f "$out/$topic.kcat.txt" ] && echo ", $(wc -l < "$out/$topic.kcat.txt") (kcat)")" >&2
    done
}
