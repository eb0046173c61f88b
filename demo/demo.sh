#!/bin/sh
# make demo: a periodic job under dl-run, with the reservation the kernel
# reports and the jobs' measured response times.
set -eu
top=${1:-.}
run="$top/utils/dl-run"
job="$top/demo/dl-periodic"

if [ "$(id -u)" != 0 ]; then
	echo "demo: SCHED_DEADLINE needs root (CAP_SYS_NICE): run 'sudo make demo'" >&2
	exit 1
fi
echo "== dl-run --check -r 2ms -p 10ms"
"$run" --check -r 2ms -p 10ms || true
echo
echo "== dl-run -v -r 2ms -d 5ms -p 10ms -- dl-periodic --work 1ms --jobs 300"
"$run" -v -r 2ms -d 5ms -p 10ms -- "$job" --work 1ms --jobs 300 --name demo
