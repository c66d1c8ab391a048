#!/usr/bin/env bash
# Run a command, print how long it took, and say in one line when it went over its budget.
# Usage: tests/timed.sh SECONDS NAME COMMAND...  (exits with the command's status)
budget=$1 name=$2
shift 2
start=$(date +%s)
status=0
"$@" || status=$?
took=$(( $(date +%s) - start ))
echo "$name: ${took} s in all (budget ${budget} s)"
if [ "$took" -gt "$budget" ]; then
    echo "$name took $((took / 60)) min $((took % 60)) s, over its $((budget / 60))-minute" \
         "budget: the slowest tests are listed above; mark them slow or make them smaller"
fi
exit $status
