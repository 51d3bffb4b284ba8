#!/usr/bin/env bash
# Runs every fuzz target for SECONDS (default 600) each, seeded with the
# corpus traces. Usage: fuzz/run.sh [SECONDS] [TARGET...]
# Needs cargo-fuzz (installed if missing) and a stable toolchain (nightly
# features are enabled with RUSTC_BOOTSTRAP=1).
set -euo pipefail
cd "$(dirname "$0")"
secs="${1:-600}"
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(envelope messages audit sources)
command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz
export RUSTC_BOOTSTRAP=1
# Seeds: whole traces for the pipeline, single lines for the line parsers.
for t in "${targets[@]}"; do
  mkdir -p "corpus/$t"
  if [ -z "$(ls -A "corpus/$t")" ]; then
    if [ "$t" = audit ]; then
      find ../corpus -name '*.log*' -type f | while read -r f; do cp "$f" "corpus/$t/$(echo "$f" | tr '/' '_')"; done
    elif [ "$t" = sources ]; then
      # each corpus log under 256 KiB in an envelope (first byte), split or
      # stored out of order (second byte)
      k=0
      find ../corpus -name '*.log' -type f -size -256k | sort | while read -r f; do
        printf "\\x$(printf %02x $((k % 10)))\\x$(printf %02x $(( (k * 37) % 256 )))" > "corpus/$t/seed-$k"
        cat "$f" >> "corpus/$t/seed-$k"; k=$((k + 1))
      done
    else
      i=0
      find ../corpus -name '*.log' -type f -print0 | xargs -0 cat | grep -a -E 'org.apache.kafka|Worker clientId' | sort -u | head -3000 |
        while IFS= read -r line; do printf '%s' "$line" > "corpus/$t/line-$i"; i=$((i+1)); done
    fi
  fi
done
for t in "${targets[@]}"; do
  echo "== $t: ${secs}s"
  cargo fuzz run "$t" "corpus/$t" -- -max_total_time="$secs" -max_len="${MAX_LEN:-65536}" -rss_limit_mb=2048 -timeout=10 2>&1 |
    grep -E '^(#[0-9]+ +DONE|==|SUMMARY|Done)|stat::|crash|panicked|Timeout|out-of-memory' || true
done
