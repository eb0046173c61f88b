# dl-part in a VM: the article's whole recipe, moving every task (v1),
# admission inside the partition checked against the kernel, destroy back
# to the state before.  Each CPU admits 0.95, less its fair server where
# the kernel counts one (6.12: counted in a root domain a rebuild makes).
# The suite sources it, then ends with done_testing.

before=$(snapshot)
note "cgroup v$((V2 + 1)), cpusets at $CS"

run /bin/dl-part create --partition 0
check "create --partition 0 succeeds" eq "$rc" 0
note "$out"
[ "$rc" = 0 ] || note "$err"
check "create reports partition0 on CPU 0, its own root domain" has "$out" "root domain CPUs 0:"
check "create reports the cluster on CPU 1, its own root domain" has "$out" "root domain CPUs 1:"

if [ "$V2" = 0 ]; then
	moved=$(echo "$out" | sed -n 's/^tasks: \([0-9]*\) moved.*/\1/p')
	skipped=$(echo "$out" | sed -n 's/.* moved to the cluster, \([0-9]*\) kernel threads skipped.*/\1/p')
	note "moved $moved, skipped $skipped"
	left=$(wc -l < "$CS/tasks")
	inclus=$(wc -l < "$CS/libdl/cluster/tasks")
	# What stayed in the root is what was skipped, every one pinned.
	unpinned=0
	for t in $(cat "$CS/tasks"); do
		# kthreadd (PID 2) refuses too, without the flag.
		[ "$t" = 2 ] && continue
		pinned "$t" || { unpinned=$((unpinned + 1)); note "task $t stayed in the root: $(cat /proc/$t/comm 2>/dev/null)"; }
	done
	check "every task left in the root is kthreadd or a pinned kernel thread" eq "$unpinned" 0
	# A kernel thread born after the move (a kworker) stays there too.
	check "skipped ($skipped) = the tasks left in the root ($left), give or take a new kernel thread" \
		test "$left" -ge "$skipped" -a "$left" -le $((skipped + 2))
	# Moved: what is in the cluster now, give or take dl-part itself,
	# which moved and exited.
	check "moved ($moved) = the cluster's tasks ($inclus), give or take dl-part" \
		test "$moved" -ge "$inclus" -a "$moved" -le $((inclus + 1))
	check "the root's sched_load_balance is 0" eq "$(cat $CS/cpuset.sched_load_balance)" 0
	check "the cluster is cpu_exclusive" eq "$(cat $CS/libdl/cluster/cpuset.cpu_exclusive)" 1
else
	check "create moves nothing on v2" has "$out" "none moved"
	check "the partition reads root" eq "$(cat $CS/libdl-partition0/cpuset.cpus.partition)" root
	check "the root cgroup keeps CPU 1" eq "$(cat $CS/cpuset.cpus.effective)" 1
	check "a task of the root cgroup is allowed CPU 1 only" has "$(grep Cpus_allowed_list /proc/self/status)" "	1"
fi

# Admission inside the partition: its own limit (0.95 on 6.x, 1.0 on
# 7.2), less its fair server when the kernel counts it, less 0.01: 0.94
# on 6.1, 0.89 where 0.05 is counted, 0.94 on 7.2.
base0=$(total_bw 0)
base1=$(total_bw 1)
check "the new root domains count nothing but their fair servers" counts 0 0
check "on both CPUs" counts 1 0
lim0=$((($(cpu_bw 0) * 10000 + 524288) / 1048576))
lim1=$((($(cpu_bw 1) * 10000 + 524288) / 1048576))
r0=$((lim0 - 100 - (base0 * 10000 + 524288) / 1048576))
r1=$((lim1 - 100 - (base1 * 10000 + 524288) / 1048576))
note "the partition holds $(fmt_bw "$base0") already: asking for ${r0}us every 10ms"
/bin/dl-run --partition partition0 -r ${r0}us -p 10ms -- /bin/sleep 600 &
p1=$!
deadline_or_gone $p1
check "the partition admits its limit less 0.01 and what it counts" kill -0 $p1
check "the kernel counts it on CPU 0" eq "$(total_bw 0)" $((base0 + (r0 * 1000 << 20) / 10000000))
run /bin/dl-run --partition partition0 -r 200us -p 10ms -- /bin/true
check "the partition refuses 0.02 more" eq "$rc" 125
check "the refusal names the partition's root domain" has "$err" "root domain CPUs 0 has about 0.0100 free"
/bin/dl-run --cluster -r ${r1}us -p 10ms -- /bin/sleep 600 &
p2=$!
deadline_or_gone $p2
check "the cluster admits as much beside it" kill -0 $p2
check "the kernel counts that one on CPU 1" eq "$(total_bw 1)" $((base1 + (r1 * 1000 << 20) / 10000000))
run /bin/dl-part status
check "status exits 0 with the accounting right" eq "$rc" 0
check "status shows the partition's deadline thread" has "$out" "1 threads (1 deadline)"
run /bin/dl-part list --json
check "list --json names the partition" has "$out" '"name":"partition0"'
kill $p1 $p2
wait $p1 $p2 2>/dev/null

run /bin/dl-part destroy
check "destroy succeeds" eq "$rc" 0
[ "$rc" = 0 ] || note "$err"
check "destroy leaves the cgroups and settings as they were" eq "$(snapshot)" "$before"
check "every task is back in the root cgroup" all_in_root
check "total_bw is back to the fair servers alone" counts 0 0 2
quiet=$(total_bw 1)
run /bin/dl-run -r 1ms -p 10ms -- /bin/true
check "a reservation is admitted after destroy" eq "$rc" 0
# Its 0-lag time passed before CPU 1 goes offline (docs/kernel-notes.md,
# "CPU hotplug after a deadline exit").
check "the exited reservation is released before a CPU goes offline" released 1 "$quiet"

# Offline CPUs are refused by name, and nothing changes.
if echo 0 > /sys/devices/system/cpu/cpu1/online 2>/dev/null; then
	run /bin/dl-part create --partition 1
	check "an offline CPU is refused" has "$err" "CPU 1 is offline"
	echo 1 > /sys/devices/system/cpu/cpu1/online
	check "and nothing changed" eq "$(snapshot)" "$before"
fi

# Tasks that exit while create moves them (v1 moves every task): counted
# as gone, and destroy still restores everything.
if [ "$V2" = 0 ]; then
	(while :; do /bin/true; done) &
	churn=$!
	run /bin/dl-part create --partition 0
	check "create with tasks exiting meanwhile succeeds" eq "$rc" 0
	[ "$rc" = 0 ] || note "$err"
	kill $churn
	wait $churn 2>/dev/null
	run /bin/dl-part destroy
	check "destroy after it restores everything" eq "$(snapshot)" "$before"
	check "every task is back in the root" all_in_root
fi

# A partition's CPU taken offline: status says what it sees without
# failing, destroy still restores, and the CPU comes back as it was.
run /bin/dl-part create --partition 1 --cluster 0
check "create --partition 1 succeeds" eq "$rc" 0
if echo 0 > /sys/devices/system/cpu/cpu1/online 2>/dev/null; then
	run /bin/dl-part status
	check "status with the partition's CPU offline answers (exit $rc)" test "$rc" -le 1
	note "$out"
	run /bin/dl-part destroy
	check "destroy with the partition's CPU offline succeeds" eq "$rc" 0
	[ "$rc" = 0 ] || note "$err"
	echo 1 > /sys/devices/system/cpu/cpu1/online
	sleep 0.2
	check "with the CPU back, everything is as it was" eq "$(snapshot)" "$before"
else
	note "CPU 1 cannot go offline here"
	/bin/dl-part destroy >/dev/null 2>&1
fi

if [ "$V2" = 1 ]; then
	run /bin/dl-part create --partition 0 --isolated
	check "create --isolated succeeds" eq "$rc" 0
	check "the partition reads isolated" eq "$(cat $CS/libdl-partition0/cpuset.cpus.partition 2>/dev/null)" isolated
	run /bin/dl-part destroy
	check "destroy after --isolated restores everything" eq "$(snapshot)" "$before"
	# A cgroup that takes the partition's CPU is named before anything changes...
	echo +cpuset > "$CS/cgroup.subtree_control"
	mkdir "$CS/foo" && echo 0 > "$CS/foo/cpuset.cpus"
	mid=$(snapshot)
	run /bin/dl-part create --partition 0
	check "a conflicting cgroup is named" has "$err" "cgroup /foo has cpuset.cpus 0"
	check "and nothing changed" eq "$(snapshot)" "$mid"
	# ...and when it is not checked first, the kernel's own reason is
	# reported, and the half-made layout rolled back.
	# 7.2 makes the partition valid instead (docs/kernel-notes.md,
	# "cpusets v2: partitions"): a kernel that does is checked for
	# what it then did.
	LIBDL_TEST_NO_PRECHECK=1 run /bin/dl-part-test create --partition 0
	if [ "$rc" != 0 ]; then
		check "the kernel's invalid partition is reported" has "$err" "root invalid (Cpu list in cpuset.cpus not exclusive)"
		check "the half-made layout was rolled back" eq "$(snapshot)" "$mid"
	else
		note "$(uname -r) made partition0 a valid root beside /foo (cpuset.cpus 0): /foo's effective CPUs now \"$(cat "$CS/foo/cpuset.cpus.effective")\""
		check "the kernel made the partition a valid root beside /foo" eq "$(cat "$CS/libdl-partition0/cpuset.cpus.partition")" root
		check "and gave it CPU 0, which /foo no longer has" eq "$(cat "$CS/libdl-partition0/cpuset.cpus.effective"):$(grep -c '^0$' "$CS/foo/cpuset.cpus.effective")" "0:0"
	fi
	LIBDL_TEST_NO_PRECHECK=1 /bin/dl-part-test destroy >/dev/null 2>&1
	rmdir "$CS/foo"
	echo -cpuset > "$CS/cgroup.subtree_control"
	check "everything as it was at the start" eq "$(snapshot)" "$before"

	. /guest/origin.sh
	check "everything as it was at the end" eq "$(snapshot)" "$before"
fi
