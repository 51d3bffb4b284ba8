# Sourced by benches/watch-month.sh and benches/watch-month-exact.sh: the
# binary to run ($bin: BIN, else the release build, built here), and the
# simulated month's logs in $out/logs (target/watch-month), made once: a
# 20-worker cluster with the simulator's ordinary churn, 24,000 events over
# about 30 days of log time.
bin="${BIN:-target/dist/herder-audit}"
[ -n "${BIN:-}" ] || cargo build --profile dist --locked --quiet
out=target/watch-month
mkdir -p "$out"
if [ ! -f "$out/logs/truth.json" ]; then
    rm -rf "$out/logs"
    "$bin" simulate --workers 20 --events 24000 --connectors 30 --noise 0.3 --seed 7 --out "$out/logs" 2>"$out/simulate.log"
fi
