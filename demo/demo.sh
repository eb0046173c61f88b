#!/bin/sh
# make demo: the article's scenario on the machine at hand.
#
# One heavy deadline task (8 ms every 9 ms, 7.6 ms of work) and two light
# ones (2.5 ms every 8 ms, 2.4 ms of work): 1.51 CPUs, admitted on two
# CPUs, yet global EDF does not promise their deadlines (the GFB bound is
# 2 - 1 x 0.889 = 1.11).  First all three scheduled globally, then the
# heavy one alone in a CPU-0 partition and the light ones in the cluster,
# each run measured; dl-part status in between; then destroy.
#
# The machine's own tasks are not moved (--no-move): the demo leaves
# them be; `dl-part create --partition 0` alone would move them too.
set -u
top=${1:-.}
run="$top/utils/dl-run"
part="$top/utils/dl-part"
job="$top/demo/dl-periodic"
secs=${DEMO_SECONDS:-4}

if [ "$(id -u)" != 0 ]; then
	echo "demo: SCHED_DEADLINE and cpusets need root: run 'sudo make demo'" >&2
	exit 1
fi
cpus=$(nproc)
if [ "$cpus" -lt 2 ]; then
	echo "demo: one CPU: nothing to partition; the periodic job alone:"
	exec "$run" -v -r 2ms -d 5ms -p 10ms -- "$job" --work 1ms --jobs 300 --name demo
fi
heavy_jobs=$((secs * 1000 / 9))
light_jobs=$((secs * 1000 / 8))

# $1: where the heavy task runs, $2: where the light ones run (dl-run
# options, split on purpose), $3: show dl-part status while they run.
# shellcheck disable=SC2086
workload() {
	"$run" $1 -r 8ms -p 9ms -- "$job" -q --work 7.6ms --jobs "$heavy_jobs" --name "heavy 8ms/9ms" &
	h=$!
	"$run" $2 -r 2.5ms -p 8ms -- "$job" -q --work 2.4ms --jobs "$light_jobs" --name "light1 2.5ms/8ms" &
	l1=$!
	"$run" $2 -r 2.5ms -p 8ms -- "$job" -q --work 2.4ms --jobs "$light_jobs" --name "light2 2.5ms/8ms" &
	l2=$!
	sleep 1
	[ -n "${3:-}" ] && "$part" status
	wait $h $l1 $l2
}

echo "== dl-run --check: would the heavy task be admitted?"
"$run" --check -r 8ms -p 9ms
echo
echo "== 1. global EDF on CPUs 0-$((cpus - 1)): heavy + 2 light tasks for ${secs}s"
echo "   (1.51 CPUs admitted; the GFB test guarantees global EDF only up to 2 - 1 x 0.889 = 1.11)"
workload "" ""
echo
trap '"$part" destroy >/dev/null 2>&1' EXIT INT TERM
echo "== 2. dl-part create --partition 0 --no-move: the heavy task alone on CPU 0"
"$part" create --partition 0 --no-move || exit 1
echo
echo "== partitioned: heavy in partition0, light ones in the cluster, ${secs}s"
workload "--partition partition0" "--cluster" status
echo
echo "== dl-part destroy"
"$part" destroy
trap - EXIT INT TERM
