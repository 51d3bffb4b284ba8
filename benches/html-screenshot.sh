#!/usr/bin/env bash
# Regenerates docs/html-report.png, the README's picture of the HTML report:
# a simulated 4-worker cluster in which a reconfigured task is restarted
# after a rebalance moved it (a foreign-start, then a cross-worker zombie),
# opened in headless Chromium with the first finding shown; and
# docs/html-report-blast.png: the real 2.3.0 capture of one connector's
# config updated while two others run (KAFKA-8676), opened with the first
# config update's blast radius shown.
# Needs Debian's chromium (or HERDER_AUDIT_CHROMIUM). Usage: benches/html-screenshot.sh
set -euo pipefail
cd "$(dirname "$0")/.."
browser="${HERDER_AUDIT_CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}"
[ -n "$browser" ] || { echo "html-screenshot.sh: chromium is needed" >&2; exit 2; }
cargo build --profile dist --locked --quiet
dir=$PWD/target/html-screenshot
rm -rf "$dir"
mkdir -p "$dir"
target/dist/herder-audit simulate --workers 4 --connectors 5 --events 40 --seed 3 \
  --fault restart-moved-task --out "$dir/cluster" > /dev/null 2>&1
(cd "$dir" && "$OLDPWD/target/dist/herder-audit" cluster --format html --output report.html) || [ $? -eq 1 ]
"$browser" --headless --no-sandbox --disable-gpu --disable-background-networking \
  --disable-component-update --disable-sync --no-first-run --hide-scrollbars \
  --user-data-dir="$dir/profile" --window-size=1400,1240 --virtual-time-budget=5000 \
  --screenshot="$PWD/docs/html-report.png" "file://$dir/report.html#finding-1" 2> /dev/null
rm -rf "$dir/profile"
(cd corpus/real-kafka/2.3.0 && "$OLDPWD/target/dist/herder-audit" isolation --format html --output "$dir/isolation.html") || [ $? -eq 1 ]
"$browser" --headless --no-sandbox --disable-gpu --disable-background-networking \
  --disable-component-update --disable-sync --no-first-run --hide-scrollbars \
  --user-data-dir="$dir/profile" --window-size=1400,1180 --virtual-time-budget=5000 \
  --screenshot="$PWD/docs/html-report-blast.png" "file://$dir/isolation.html#change-4" 2> /dev/null
rm -rf "$dir/profile"
echo "docs/html-report.png and docs/html-report-blast.png written"
