#!/usr/bin/env bash
# usage: check_failure.sh MPIRUN PROGRAM MODE PATTERN RANK...
# Runs "PROGRAM MODE" on 3 ranks; each listed rank must print a REPORT line matching PATTERN
# (an extended regex) within 5 s, and the job must then end non-zero, not hang.
# orte_abort_on_non_zero_status 0: mpirun would otherwise kill the survivors as soon as a rank
# dies, racing with their reports.
set -u
mpirun="$1"; program="$2"; mode="$3"; pattern="$4"; shift 4
start=$(date +%s)
output=$(timeout 90 "$mpirun" --oversubscribe -np 3 --mca orte_abort_on_non_zero_status 0 "$program" "$mode" 2>&1)
rc=$?
echo "$output"
echo "mpirun exit status $rc after $(( $(date +%s) - start )) s"
fail=0
if [ "$rc" -eq 0 ] || [ "$rc" -eq 124 ]; then echo "FAIL: expected a non-zero exit without a hang"; fail=1; fi
for r in "$@"; do
  line=$(echo "$output" | grep "^REPORT rank $r ")
  if ! echo "$line" | grep -Eq "$pattern"; then echo "FAIL: rank $r did not report /$pattern/"; fail=1; continue; fi
  seconds=$(echo "$line" | sed -E 's/.* after ([0-9.]+) s:.*/\1/')
  if ! awk -v s="$seconds" 'BEGIN { exit !(s < 5) }'; then echo "FAIL: rank $r took $seconds s"; fail=1; fi
done
exit $fail
