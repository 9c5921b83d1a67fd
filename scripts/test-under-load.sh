#!/usr/bin/env bash
# Runs the full suite on the embedded reference (`npm start`, which must say CONFORMANT) and `npm test` RUNS times in
# a row (default 3) while BURNERS CPU-bound processes (default 2) run beside them, as on a CI machine busy with other
# work: every run must pass (issue 14, point 8). Issue 25 asks for 6 burners on a 2-core machine: a verdict that rests
# on time then says INCONCLUSIVE with the measured lag when the stall explains it, never FAIL
# (steps/support/timing.ts). The burners are killed on every exit.
# Usage: scripts/test-under-load.sh [RUNS] [BURNERS]
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-3}"
burner_count="${2:-2}"
mkdir -p reports
burners=()
stop_burners() { for pid in "${burners[@]}"; do kill "$pid" 2>/dev/null || true; done; }
trap stop_burners EXIT INT TERM
for _ in $(seq 1 "$burner_count"); do
  node -e 'for (;;) Math.sqrt(Math.random());' &
  burners+=("$!")
done
echo "test-under-load: burners ${burners[*]} running; $runs runs of npm start and npm test"
for run in $(seq 1 "$runs"); do
  started=$(date +%s)
  log="reports/test-under-load-$run-start.log"
  if npm start -- --reports "reports/test-under-load-$run" >"$log" 2>&1 && grep -q ': CONFORMANT' "$log"; then
    echo "run $run: npm start CONFORMANT in $(($(date +%s) - started)) s"
  else
    echo "run $run: npm start not CONFORMANT after $(($(date +%s) - started)) s ($log)"
    tail -40 "$log"
    exit 1
  fi
  started=$(date +%s)
  if npm test >"reports/test-under-load-$run.log" 2>&1; then
    echo "run $run: npm test passed in $(($(date +%s) - started)) s"
  else
    echo "run $run: npm test FAILED after $(($(date +%s) - started)) s (reports/test-under-load-$run.log)"
    tail -40 "reports/test-under-load-$run.log"
    exit 1
  fi
done
echo "test-under-load: $runs of $runs runs passed"
