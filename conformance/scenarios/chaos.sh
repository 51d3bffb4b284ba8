# shellcheck shell=bash
# Sourced by conformance/run.sh (its variables and helpers in scope).
default_workers[chaos]=4
own_counting[chaos]=1
# A randomized nemesis (issue 27 §2): four workers, counting sources c1 (1
# task), c2 (3 tasks: tasks.max goes up and down), c3 (2 tasks) and a
# FileStreamSink `sink` (2 tasks) reading the records topic, under a seeded
# random schedule (conformance/chaos.py: `--seed N`, CHAOS_DURATION seconds,
# 180 by default) of SIGKILL/SIGTERM and start again, SIGSTOP past the session
# timeout, a worker cut off (where the machine allows it: root, iptables,
# cgroup v2), config updates, tasks.max, pause/stop/resume, delete and
# create again, REST restarts. The schedule is ground-truth/schedule.json;
# what was done, when, and how it went is ground-truth/nemesis.jsonl. At the
# end every fault is healed and every connector brought back.
declare -A chaos_tasks=() chaos_rev=() chaos_state=()

# chaos_rest METHOD PATH [BODY]: one nemesis REST call, given up after 25 s
# (a frozen leader holds forwarded requests for Connect's own 90 s); its
# status code in chaos_outcome.
chaos_rest() {
    local method="$1" path="$2" body="${3:-}" code deadline=$((SECONDS + 25))
    local args=(-s -m 10 -o "$run/ground-truth/last-response.json" -w '%{http_code}' -X "$method" -H 'Content-Type: application/json')
    [ -n "$body" ] && args+=(--data "$body")
    while :; do
        code="$(curl "${args[@]}" "$(worker_url "$(live_worker)")$path" 2>/dev/null || true)"
        case "$code" in 2*) break ;; esac
        [ "$SECONDS" -lt "$deadline" ] || break
        sleep 1
    done
    echo "{\"t\":\"$(date -u +%FT%T.%3NZ)\",\"method\":\"$method\",\"path\":\"$path\",\"code\":$((10#${code:-0}))}" >> "$run/ground-truth/rest.jsonl"
    log "REST $method $path -> $code"
    chaos_outcome="$code"
}

chaos_config() { # NAME: its config for its current tasks and revision
    local c="$1"
    if [ "$c" = sink ] && [ -z "$test_connectors" ]; then
        sink_config "$data/sink-r${chaos_rev[$c]}.txt" "$records_topic" "${chaos_tasks[$c]}"
    else
        counting_config "${chaos_tasks[$c]}" "\"revision\":\"${chaos_rev[$c]}\""
    fi
}

# chaos_do OP TARGET VALUE: one event of the schedule, in this shell (it
# changes the connectors' state); its outcome in chaos_outcome ("ok", a REST
# status code, or "skipped: why").
chaos_do() {
    local op="$1" c="$2" v="$3" i="${2#w}"
    chaos_outcome=ok
    case "$op" in
        kill|term|freeze|cut)
            [ -f "$run/w$i.pid" ] && [ ! -f "$run/w$i.frozen" ] || { chaos_outcome="skipped: w$i not running"; return; } ;;
        start) [ -f "$run/w$i.pid" ] && { chaos_outcome="skipped: w$i running"; return; } ;;
    esac
    case "$op" in
        kill) kill_worker "$i" ;;
        term) stop_worker "$i" ;;
        start) start_worker "$i" ;;
        freeze) log "worker w$i: SIGSTOP"; kill -STOP "$(cat "$run/w$i.pid")"; touch "$run/w$i.frozen" ;;
        thaw) log "worker w$i: SIGCONT"; kill -CONT "$(cat "$run/w$i.pid")"; rm -f "$run/w$i.frozen" ;;
        cut) cut_off "$i" ;;
        heal) heal "$i" ;;
        config) chaos_rev[$c]=$((chaos_rev[$c] + 1)); chaos_rest PUT "/connectors/$c/config" "$(chaos_config "$c")" ;;
        tasks) chaos_tasks[$c]="$v"; chaos_rest PUT "/connectors/$c/config" "$(chaos_config "$c")" ;;
        pause|stop) chaos_state[$c]="$op"; chaos_rest PUT "/connectors/$c/$op" ;;
        resume) chaos_state[$c]=running; chaos_rest PUT "/connectors/$c/resume" ;;
        delete) chaos_state[$c]=deleted; chaos_rest DELETE "/connectors/$c" ;;
        create) chaos_state[$c]=running; chaos_rest PUT "/connectors/$c/config" "$(chaos_config "$c")" ;;
        restart)
            case "$v" in
                connector) chaos_rest POST "/connectors/$c/restart" ;;
                all) chaos_rest POST "/connectors/$c/restart?includeTasks=true&onlyFailed=false" ;;
                task:*) chaos_rest POST "/connectors/$c/tasks/${v#task:}/restart" ;;
            esac ;;
        *) chaos_outcome="skipped: unknown operation" ;;
    esac
}

sc_chaos() {
    local seed_="${seed:-1}" duration="${CHAOS_DURATION:-180}" partition="" c
    [ "$workers" -ge 3 ] || { log "chaos needs three workers or more"; return 1; }
    if [ "$(id -u)" = 0 ] && command -v iptables >/dev/null && grep -q cgroup2 /proc/mounts; then
        partition=1
        worker_cgroup="$cgroup2_root/herder-audit-$tag"
        mkdir -p "$worker_cgroup"
    else
        log "chaos: no partitions on this machine (needs root, iptables and cgroup v2)"
    fi
    python3 "$conformance_dir/chaos.py" --seed "$seed_" --workers "$workers" --duration "$duration" \
        --release "$release" ${partition:+--partition} --out "$run/ground-truth/schedule.json" > "$run/schedule.txt" \
        || { log "chaos.py failed"; return 1; }
    log "chaos: seed $seed_, $(wc -l < "$run/schedule.txt") events over ${duration} s"
    for c in c1 c2 c3 sink; do
        chaos_tasks[$c]="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["connectors"][sys.argv[2]])' "$run/ground-truth/schedule.json" "$c")"
        chaos_rev[$c]=0; chaos_state[$c]=running
    done
    start_cluster
    for c in c1 c2 c3 sink; do rest PUT "/connectors/$c/config" "$(chaos_config "$c")"; done
    for c in c1 c2 c3 sink; do wait_running "$c" "${chaos_tasks[$c]}" 60 || true; done
    settle 5
    local start t op target value now
    start="$(date +%s.%N)"
    while read -r t op target value; do
        now="$(date +%s.%N)"
        sleep "$(python3 -c 'import sys; print(max(0.0, float(sys.argv[1]) + float(sys.argv[2]) - float(sys.argv[3])))' "$start" "$t" "$now")"
        log "chaos: t=$t $op $target $value"
        now="$(date -u +%FT%T.%3NZ)"
        chaos_do "$op" "$target" "$value"
        echo "{\"planned_s\":$t,\"t\":\"$now\",\"op\":\"$op\",\"target\":\"$target\",\"value\":\"$value\",\"outcome\":\"$chaos_outcome\"}" >> "$run/ground-truth/nemesis.jsonl"
    done < "$run/schedule.txt"
    log "chaos: schedule done; healing"
    local i
    for ((i = 1; i <= workers; i++)); do
        if [ -f "$run/w$i.frozen" ]; then
            case " ${partition_rules[*]:-} " in *"/w$i "*) heal "$i" ;; *) kill -CONT "$(cat "$run/w$i.pid")"; rm -f "$run/w$i.frozen" ;; esac
        fi
        [ -f "$run/w$i.pid" ] || start_worker "$i"
    done
    for c in c1 c2 c3 sink; do
        case "${chaos_state[$c]}" in
            pause|stop) chaos_rest PUT "/connectors/$c/resume" ;;
            deleted) chaos_rest PUT "/connectors/$c/config" "$(chaos_config "$c")" ;;
        esac
    done
    settle 25
    for c in c1 c2 c3 sink; do wait_running "$c" "${chaos_tasks[$c]}" 60 || true; done
    settle 5
}
