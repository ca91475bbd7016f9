#!/usr/bin/env bash
# Runs collective_mpi_check killed under mpirun: rank 1 kills itself; ranks 0 and 2 must each
# print an error naming rank 1 within 5 s, and the job must then end non-zero, not hang.
set -u
mpirun="$1"
program="$2"
start=$(date +%s)
output=$(timeout 90 "$mpirun" --oversubscribe -np 3 --mca orte_abort_on_non_zero_status 0 "$program" killed 2>&1)
rc=$?
elapsed=$(( $(date +%s) - start ))
echo "$output"
echo "mpirun exit status $rc after ${elapsed} s"
fail=0
if [ "$rc" -eq 0 ] || [ "$rc" -eq 124 ]; then echo "FAIL: expected a non-zero exit without a hang"; fail=1; fi
for r in 0 2; do
  line=$(echo "$output" | grep "^SURVIVOR rank $r ")
  if ! echo "$line" | grep -q "rank 1 (.*) has exited"; then echo "FAIL: rank $r did not name rank 1"; fail=1; continue; fi
  seconds=$(echo "$line" | sed -E 's/.* after ([0-9.]+) s:.*/\1/')
  if ! awk -v s="$seconds" 'BEGIN { exit !(s < 5) }'; then echo "FAIL: rank $r took $seconds s"; fail=1; fi
done
exit $fail
