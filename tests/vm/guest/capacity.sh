# capacity.sh: deadline admission on CPUs of different capacity, as an
# arm64 big.LITTLE system-on-chip has them: CPUs 0-2 big (the device
# tree's capacity-dmips-mhz 1024, the kernel's cpu_capacity 1024) and
# CPUs 3-5 little (446).  There the kernel admits against the sum of the
# capacities of a root domain's CPUs, not its CPU count (dl_bw_capacity():
# cap_scale(dl_bw->bw, sum) < total_bw - old + new refuses), and wakes a
# task only on CPUs whose capacity fits its runtime/deadline
# (dl_task_fits_capacity(), cpudl_find()); a task that fits none is
# admitted all the same.
#
# Checked against the kernel: every dl-run --check verdict at the edge
# of the whole machine, of a partition of two little CPUs (4-5), of two
# big ones (1-2) and of the mixed cluster (0 and 3), both sides of it (a
# unit past what the kernel's figures leave, then exactly that); the
# free bandwidth --check and dl-stat report, and dl-stat's capacity,
# against debugfs' dl_bw->bw and total_bw and sysfs' cpu_capacity; a
# task too big for a little CPU, admitted there and explained as such;
# one that fits only the big CPU of the mixed cluster, explained so; and
# where the kernel then runs it and one that fits both (said, not
# checked).
# Sourced after lib.sh; ends without done_testing.

. /guest/admission-lib.sh

caps=$(for c in 0 1 2 3 4 5; do cat /sys/devices/system/cpu/cpu$c/cpu_capacity; done | tr '\n' ' ')
check "capacity: the kernel reads CPUs 0-2 as 1024 and 3-5 as 446 (the device tree's capacity-dmips-mhz)" \
	eq "$caps" "1024 1024 1024 446 446 446 "

# rds: dl-stat's root domains, one line each: cpus capacity free_bw
# total_bw cpu_capacity_min cpu_capacity_max cpu_capacity_sum.
rds() {
	/bin/dl-stat --json --domains | sed 's/{"id":/\n/g' | sed -n '2,$p' |
		sed -n 's/.*"cpus":"\([-0-9,]*\)".*"capacity":\([0-9]*\),"cpu_capacity_min":\([0-9]*\),"cpu_capacity_max":\([0-9]*\),"cpu_capacity_sum":\([0-9]*\),.*"total_bw":\([0-9]*\),"free_bw":\(-*[0-9]*\),.*/\1 \2 \7 \6 \3 \4 \5/p'
}

# stat_agrees WHAT: each root domain dl-stat shows has the capacity,
# the free bandwidth and the capacities the kernel's figures give.
stat_agrees() {
	lines=$(rds)
	bad=""
	nrd=0
	while read -r cpus cap free total cmin cmax csum; do
		[ -n "$cpus" ] || continue
		nrd=$((nrd + 1))
		first=${cpus%%[-,]*}
		kcap=$(rd_cap "$first" "$cpus")
		ktotal=$(total_bw "$first")
		ksum=$(cap_sum "$cpus")
		kmin=$(caps "$cpus" | sort -n | head -n 1)
		if [ "$cap $total $free $csum $cmin" != "$kcap $ktotal $((kcap - ktotal)) $ksum $kmin" ]; then
			bad="$bad [CPUs $cpus: dl-stat capacity $cap total $total free $free sum $csum min $cmin; the kernel's figures $kcap $ktotal $((kcap - ktotal)) $ksum $kmin]"
		fi
		note "dl-stat: root domain CPUs $cpus: capacity $cap ($(fmt_bw "$cap")) from CPU capacities $cmin..$cmax summing $csum, admitted $total, free $free"
	done <<EOF
$lines
EOF
	check "capacity: $1: dl-stat's capacity, admitted and free bandwidth of its $nrd root domains are the kernel's (dl_bw->bw x the CPUs' capacities / 1024)" \
		eq "$bad" ""
}

# edge_of WHERE NAME: one request of 0.2 (both ways), then requests of
# 0.9 until less than a CPU is left (the edge's runtime must fit its
# period of 2^20 ns), then the edge.
edge_of() {
	where=$1
	name=$2
	nadm=0
	nref=0
	[ -n "$bw_before" ] || bw_before=$(every_bw)
	try "$where" 200ms 1s
	k=0
	while [ "$got" = admitted ] && [ $k -lt 8 ] &&
		[ $(($(rd_cap "$cpu" "$rdcpus") - $(total_bw "$cpu"))) -ge 1048576 ]; do
		try "$where" 900ms 1s
		k=$((k + 1))
	done
	edge
}

stat_agrees "the whole machine"
edge_of "" "the whole machine, 3 big and 3 little CPUs"
release

run /bin/dl-part create --partition little=4-5 --partition big=1-2
check "capacity: a layout of a little partition (CPUs 4-5), a big one (1-2) and the mixed cluster (0, 3)" eq "$rc" 0
[ "$rc" = 0 ] || note "$err"
stat_agrees "the layout"
edge_of "--partition little" "the little partition (CPUs 4-5, 2 x 446)"
edge_of "--partition big" "the big partition (CPUs 1-2, 2 x 1024)"
edge_of "--cluster" "the mixed cluster (CPU 0, 1024, and CPU 3, 446)"
release

# Too big for a little CPU: runtime 6ms in a deadline of 10ms needs a
# CPU of capacity (6ms << 20) / 10ms >> 10 = 614; the little partition
# has 0.72 free and admits it, but no CPU there runs it in time.
run /bin/dl-run --check --json --partition little -r 6ms -d 10ms -p 20ms
check "capacity: a task of runtime/deadline 0.6 needs a CPU of capacity 614 (--check --json)" \
	has "$out" '"cpu_capacity_need":614'
run /bin/dl-run --check --partition little -r 6ms -d 10ms -p 20ms
check "capacity: --check says it fits no CPU of the little partition" has "$out" "fits no CPU there"
note "$out"
try "--partition little" 6ms 20ms 10ms
check "capacity: the kernel admits it in the little partition all the same, as --check said" eq "$got" admitted
release

# Where the kernel runs a task that fits only the big CPU of the mixed
# cluster, and one that fits both: dl-load's job loop sleeps until each
# release, and each wake-up is placed (select_task_rq_dl() looks at the
# capacity; a push or a pull, which move a task off a CPU with two, do
# not).  The kernel says where: its sched_switch events that switch the
# task in, per CPU, over 3 s in which nothing else of the test runs.
# Said, not checked: on this TCG machine the big CPU's share of the
# task that fits only it was 3 of 152 (2026-12-07; docs/kernel-notes.md,
# "CPUs of different capacity").
run /bin/dl-run --check --cluster -r 6ms -d 10ms -p 20ms
check "capacity: --check says a task of runtime/deadline 0.6 fits only CPU 0 of the mixed cluster, and that a partition of CPU 0 would" \
	has "$out" "but it fits only CPUs 0 there (capacity 614 or more; its runtime/deadline is 0.5996 of a full CPU): the kernel moves it to one of those only when one is free of deadline work as it wakes, and on a smaller CPU (capacity 446) it may finish late; for a CPU that fits it always, give it a partition of CPUs 0"
note "$out"
T=/sys/kernel/tracing
[ -e $T/trace ] || mount -t tracefs tracefs $T
# where_runs NAME RUNTIME DEADLINE PERIOD: the task's switches in, per CPU.
where_runs() {
	echo "$1 $2 $3 $4 work=2ms place=cluster" >/tmp/where.taskset
	/bin/dl-load -t 20s /tmp/where.taskset >/tmp/where.out 2>&1 &
	lp=$!
	tid=""
	w=0
	while [ -z "$tid" ] && [ $w -lt 100 ] && kill -0 "$lp" 2>/dev/null; do
		tp=$(grep -lx "$1" /proc/[0-9]*/task/[0-9]*/comm 2>/dev/null | head -n 1)
		tp=${tp%/comm}
		[ -n "$tp" ] && [ "$(policy "${tp##*/}")" = 6 ] && tid=${tp##*/}
		[ -n "$tid" ] || sleep 0.2
		w=$((w + 1))
	done
	percpu="no trace"
	if [ -n "$tid" ] && [ -e $T/events/sched/sched_switch/enable ]; then
		sleep 1
		echo 0 >$T/tracing_on
		: >$T/trace
		echo "next_pid == $tid" >$T/events/sched/sched_switch/filter
		echo 1 >$T/events/sched/sched_switch/enable
		echo 1 >$T/tracing_on
		sleep 3
		echo 0 >$T/tracing_on
		echo 0 >$T/events/sched/sched_switch/enable
		echo 0 >$T/events/sched/sched_switch/filter
		percpu=$(grep -o '\[[0-9]*\]' $T/trace | sort | uniq -c | tr '\n' ' ')
		: >$T/trace
		echo 1 >$T/tracing_on
	fi
	kill -INT "$lp" 2>/dev/null
	wait "$lp"
	note "$1 (runtime $2, deadline $3, period $4) switched in per CPU: $percpu; dl-load: $(tr '\n' ' ' </tmp/where.out)"
}
where_runs wide 6ms 10ms 20ms
where_runs narrow 3ms 10ms 20ms

run /bin/dl-part destroy
check "capacity: the layout destroyed" eq "$rc" 0
check "capacity: $asked requests: dl-run --check and --check --json agreed with the kernel on every one" eq "$wrong" 0
check "capacity: the free bandwidth --check reported was what the kernel's figures left, every time" eq "$badfree" 0
check "capacity: no root domain seen drifted" eq "$drifted" 0
