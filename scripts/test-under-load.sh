#!/usr/bin/env bash
# Runs `npm test` RUNS times in a row (default 3) while two CPU-bound processes run beside it, as on a CI machine
# busy with other work: the suite must pass every time (issue 14, point 8). The burners are killed on every exit.
# Usage: scripts/test-under-load.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-3}"
mkdir -p reports
burners=()
stop_burners() { for pid in "${burners[@]}"; do kill "$pid" 2>/dev/null || true; done; }
trap stop_burners EXIT INT TERM
for _ in 1 2; do
  node -e 'for (;;) Math.sqrt(Math.random());' &
  burners+=("$!")
done
echo "test-under-load: burners ${burners[*]} running; $runs runs of npm test"
for run in $(seq 1 "$runs"); do
  started=$(date +%s)
  if npm test >"reports/test-under-load-$run.log" 2>&1; then
    echo "run $run: passed in $(($(date +%s) - started)) s"
  else
    echo "run $run: FAILED after $(($(date +%s) - started)) s (reports/test-under-load-$run.log)"
    tail -40 "reports/test-under-load-$run.log"
    exit 1
  fi
done
echo "test-under-load: $runs of $runs runs passed"
