# capacity-plan.sh: the planner on CPUs of different capacity (CPUs 0-2
# of 1024, 3-5 of 446), against the kernel.
#
# - What the planner assumes of a little CPU: that the kernel charges a
#   reservation's runtime at the CPU's capacity (update_curr_dl_se():
#   cap_scale() of the time run by arch_scale_cpu_capacity()), so that a
#   runtime lasts runtime x 1024 / capacity there.  A deadline task that
#   never stops (a shell loop) alone in a one-CPU partition runs its
#   runtime's worth each period and is throttled for the rest: its share
#   of the CPU, from the kernel's own count of its time on the CPU
#   (/proc/PID/schedstat) over 3 s, is 20/100 on a big CPU and
#   20 x 1024 / 446 / 100 = 0.459 on a little one.  The overrun of a
#   period (the tick) is taken off the next, so the mean is exact to a
#   period's worth over the 3 s.
# - dl-part plan with no option reads the capacities from the kernel
#   (dl_platform_get()), gives the task that needs capacity 614 a big
#   CPU, and says so; dl-part apply makes the plan real: the kernel
#   admits every task where the plan put it, and each root domain's free
#   bandwidth is then the plan's, to the unit (debugfs' total_bw against
#   dl_bw->bw and sysfs' capacities).
# Sourced after lib.sh; ends without done_testing.

# share PARTITION: the CPU share of a spinning deadline task (runtime
# 20ms every 100ms) alone in PARTITION over 3 s, in thousandths.
share() {
	/bin/dl-run --partition "$1" -r 20ms -p 100ms -- sh -c 'while :; do :; done' &
	sp=$!
	sleep 1
	a=$(cut -d' ' -f1 /proc/$sp/schedstat 2>/dev/null)
	ta=$(cut -d' ' -f1 /proc/uptime)
	sleep 3
	b=$(cut -d' ' -f1 /proc/$sp/schedstat 2>/dev/null)
	tb=$(cut -d' ' -f1 /proc/uptime)
	pol=$(policy "$sp")
	kill "$sp" 2>/dev/null
	wait "$sp" 2>/dev/null
	[ "$pol" = 6 ] && [ -n "$a" ] && [ -n "$b" ] || { echo "none"; return; }
	awk -v a="$a" -v b="$b" -v ta="$ta" -v tb="$tb" 'BEGIN { printf "%d\n", (b - a) / ((tb - ta) * 1e9) * 1000 + 0.5 }'
}

run /bin/dl-part create --partition b1=1 --partition l4=4
check "capacity plan: one-CPU partitions of a big CPU (1) and a little one (4)" eq "$rc" 0
[ "$rc" = 0 ] || note "$err"
big=$(share b1)
little=$(share l4)
note "a deadline task of 20ms every 100ms that never stops ran $big/1000 of big CPU 1 and $little/1000 of little CPU 4 (the kernel's schedstat over 3 s)"
check "capacity plan: on the big CPU it runs its runtime each period: 0.200 of the CPU (0.180 to 0.230)" \
	eq "$([ "$big" != none ] && [ "$big" -ge 180 ] && [ "$big" -le 230 ] && echo yes)" yes
check "capacity plan: on the little CPU its runtime lasts x 1024/446: 0.459 of the CPU (0.420 to 0.500)" \
	eq "$([ "$little" != none ] && [ "$little" -ge 420 ] && [ "$little" -le 500 ] && echo yes)" yes
run /bin/dl-part destroy
check "capacity plan: that layout destroyed" eq "$rc" 0

# The plan for this machine, read from the kernel.
cat >/tmp/cap.tasks <<'EOF'
wide 6ms 10ms 10ms -- sleep 600
ctl 2ms 10ms 10ms count=3 -- sleep 600
log 1ms 20ms 20ms -- sleep 600
EOF
run /bin/dl-part plan --json /tmp/cap.tasks
check "capacity plan: dl-part plan on this machine: a plan" eq "$rc" 0
check "capacity plan: it reads each CPU's capacity from the kernel" has "$out" '"platform":"host","cpu_list":"0-5"'
check "capacity plan: ... 1024 for CPUs 0-2 and 446 for 3-5" has "$out" '"cpu_capacity":[1024,1024,1024,446,446,446]'
check "capacity plan: the wide task needs capacity 614" has "$out" '"cpu_capacity_need":{"wide":614,'
check "capacity plan: it gets big CPU 0 to itself, the rest share CPUs 1-5" \
	has "$out" '"partitions":[{"name":"cpu0","cpus":"0","ncpus":1,"tasks":["wide"]'
plan_json=$out
run /bin/dl-part plan /tmp/cap.tasks
check "capacity plan: the text says which task needs a big CPU" has "$out" "  wide needs a CPU of capacity 614 or more: CPUs 0-2"
note "$out"

# plan_free NAME: the plan's free_bw of partition or cluster NAME.
plan_free() {
	echo "$plan_json" | sed 's/{"name":/\n/g' | sed -n "s/^\"$1\".*\"free_bw\":\\(-*[0-9]*\\),.*/\\1/p" | head -n 1
}
run /bin/dl-part apply /tmp/cap.tasks
check "capacity plan: dl-part apply: the kernel admits every task where the plan put it" eq "$rc" 0
[ "$rc" = 0 ] || note "$err"
kfree0=$(($(rd_cap 0 0) - $(total_bw 0)))
kfree1=$(($(rd_cap 1 1-5) - $(total_bw 1)))
note "free bandwidth: the plan's $(plan_free cpu0) on CPU 0 and $(plan_free cluster) on CPUs 1-5; the kernel's $kfree0 and $kfree1"
check "capacity plan: the free bandwidth of big CPU 0's partition is the plan's, to the unit" eq "$kfree0" "$(plan_free cpu0)"
check "capacity plan: the free bandwidth of the mixed cluster (1-5) is the plan's, to the unit" eq "$kfree1" "$(plan_free cluster)"
pkill -x sleep 2>/dev/null
sleep 1
run /bin/dl-part destroy
check "capacity plan: the plan's layout destroyed" eq "$rc" 0
