#!/usr/bin/env bash
# Runs a command (default `npm test`) RUNS times in a row (default 3) while BURNERS CPU-bound processes (default 2)
# run beside it, as on a CI machine busy with other work: it must pass every time. The burners are killed on every
# exit. Usage: [BURNERS=6] scripts/test-under-load.sh [RUNS [command...]]
#   e.g. BURNERS=6 scripts/test-under-load.sh 3 npm start
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-3}"
shift || true
if [ $# -gt 0 ]; then command=("$@"); else command=(npm test); fi
burner_count="${BURNERS:-2}"
mkdir -p reports
burners=()
stop_burners() { for pid in "${burners[@]}"; do kill "$pid" 2>/dev/null || true; done; }
trap stop_burners EXIT INT TERM
for _ in $(seq 1 "$burner_count"); do
  node -e 'for (;;) Math.sqrt(Math.random());' &
  burners+=("$!")
done
echo "test-under-load: ${#burners[@]} burners (${burners[*]}) running; $runs runs of ${command[*]}"
for run in $(seq 1 "$runs"); do
  started=$(date +%s)
  if "${command[@]}" >"reports/test-under-load-$run.log" 2>&1; then
    echo "run $run: passed in $(($(date +%s) - started)) s"
  else
    echo "run $run: FAILED after $(($(date +%s) - started)) s (reports/test-under-load-$run.log)"
    tail -40 "reports/test-under-load-$run.log"
    exit 1
  fi
done
echo "test-under-load: $runs of $runs runs passed"
