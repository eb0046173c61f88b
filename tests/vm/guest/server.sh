# server.sh: the deadline servers as part of a layout (dl-part create
# --fair-server), against the kernel's own answers, on a kernel with the
# fair server (6.12 and later; none on 6.1: SKIP).  Every server value
# touched is put back by a trap, whatever happens.
FS=/sys/kernel/debug/sched/fair_server
if ! [ -d $FS/cpu1 ]; then
	echo "1..0 # SKIP Linux $(uname -r) has no fair server (6.12 and later)"
	exit 0
fi
if ! cat $FS/cpu1/runtime >/dev/null 2>&1; then
	echo "1..0 # SKIP the fair server's files refuse reads here (kernel lockdown?)"
	exit 0
fi
rt0=$(cat $FS/cpu0/runtime)
pe0=$(cat $FS/cpu0/period)
rt1=$(cat $FS/cpu1/runtime)
pe1=$(cat $FS/cpu1/period)
servers() { echo "$(cat $FS/cpu0/runtime)/$(cat $FS/cpu0/period) $(cat $FS/cpu1/runtime)/$(cat $FS/cpu1/period)"; }
found="$rt0/$pe0 $rt1/$pe1"
note "fair servers as found: $found (Linux $(uname -r))"
restore_servers() {
	/bin/dl-part destroy >/dev/null 2>&1
	for c in 0 1; do
		eval "r=\$rt$c p=\$pe$c"
		# runtime first then period, or the other way, whichever the kernel takes
		echo "$r" >$FS/cpu$c/runtime 2>/dev/null
		echo "$p" >$FS/cpu$c/period 2>/dev/null
		echo "$r" >$FS/cpu$c/runtime 2>/dev/null
	done
	[ "$(servers)" = "$found" ] || echo "# could not put the fair servers back: $(servers), found $found"
}
trap restore_servers EXIT

# What the kernel does with runtime 0 (docs/kernel-notes.md, "The
# deadline servers' settings"): on a layout's partition of CPU 1, whose
# root domain is CPU 1 alone, total_bw before and after.
/bin/dl-part create --partition probe=1 >/dev/null 2>&1
tb=$(total_bw 1)
echo 0 >$FS/cpu1/runtime
w=$?
ta=$(total_bw 1)
note "kernel: runtime 0 written to CPU 1's fair server: exit $w; total_bw of its root domain $tb -> $ta; period $(cat $FS/cpu1/period)"
check "the kernel takes runtime 0 and stops counting the server's bandwidth" eq "$w $ta" "0 $((tb - $(((rt1 << 20) / pe1))))"
echo "$rt1" >$FS/cpu1/runtime
check "and counts it again when set back" eq "$(total_bw 1)" "$tb"
# The kernel's answer with the server on: the whole limit per CPU is
# refused in a one-CPU partition (the server holds the rest).
lim=$(cpu_bw 1)
whole=$(((lim * 100000 + (1 << 20) - 1) >> 20))
run /bin/dl-run --partition probe -r ${whole}us -p 100ms -- /bin/true
check "the whole per-CPU limit (${whole}us/100ms) is refused with the server on" eq "$rc" 125
/bin/dl-part destroy >/dev/null 2>&1

# create with the server off on a partition: set on its CPUs alone,
# checked back, shown; the partition admits the whole limit (the kernel's
# answer: sched_setattr of the reservation succeeds).
run /bin/dl-part create --partition rt=1 --fair-server rt=off
check "create --fair-server rt=off" eq "$rc" 0
[ "$rc" = 0 ] || note "$err"
check "CPU 1's server is off, CPU 0's as found" eq "$(servers)" "$rt0/$pe0 0/$pe1"
check "list shows the setting" has "$out" "fair server off"
run /bin/dl-run --partition rt -r ${whole}us -p 100ms -- /bin/true
check "the partition admits the whole per-CPU limit (${whole}us/100ms)" eq "$rc" 0
[ "$rc" = 0 ] || note "$err"
run /bin/dl-part status
check "status: the servers are as the layout set them" eq "$rc" 0
# A hand's change: status says so and fails; repair sets it again.
echo 50000000 >$FS/cpu1/runtime
run /bin/dl-part status
check "status catches a hand-changed server (exit 1)" eq "$rc" 1
check "and names it" has "$out" "CHANGED: partition rt"
run /bin/dl-part repair
check "repair sets the layout's setting again" eq "$rc $(cat $FS/cpu1/runtime)" "0 0"
run /bin/dl-part status
check "status is clean again" eq "$rc" 0
run /bin/dl-part destroy
check "destroy restores the servers exactly" eq "$rc $(servers)" "0 $found"

# A setting of both runtime and period, and back.
run /bin/dl-part create --partition rt=1 --fair-server rt=20ms/25ms
check "create --fair-server rt=20ms/25ms" eq "$rc $(servers)" "0 $rt0/$pe0 20000000/25000000"
run /bin/dl-part destroy
check "destroy puts 50ms/1s back" eq "$rc $(servers)" "0 $found"

# off on the cluster, which holds the system's tasks: refused, said why;
# --force lets it.
run /bin/dl-part create --partition rt=1 --fair-server cluster=off
check "off on the cluster is refused without --force" eq "$rc $(servers)" "1 $found"
check "the refusal says why" has "$err" "no guaranteed time"
run /bin/dl-part create --partition rt=1 --fair-server cluster=off --force
check "--force lets it" eq "$rc $(servers)" "0 0/$pe0 $rt1/$pe1"
/bin/dl-part destroy >/dev/null 2>&1
check "and destroy puts it back" eq "$(servers)" "$found"

# Every system write of create, then of destroy, fails in turn: the
# servers are as they were after each (create rolled back; a failed
# destroy finished by the next).
made() { echo "$err" | sed -n 's/^libdl-test: \([0-9]*\) system writes$/\1/p'; }
args="create --partition rt=1 --fair-server rt=off"
LIBDL_TEST_FAIL_WRITE=100000 run /bin/dl-part-test $args
total=$(made)
/bin/dl-part destroy >/dev/null 2>&1
note "create with a server makes $total system writes"
bad=0
w=1
while [ "$w" -le "${total:-0}" ]; do
	LIBDL_TEST_FAIL_WRITE=$w run /bin/dl-part-test $args
	r=$rc
	if [ "$r" != 1 ] || [ "$(servers)" != "$found" ]; then
		bad=$((bad + 1))
		note "write $w of create: exit $r, servers $(servers): $err"
	fi
	/bin/dl-part destroy >/dev/null 2>&1
	w=$((w + 1))
done
check "create has system writes to fail ($total)" test "${total:-0}" -gt 3
check "each failing leaves the servers as they were" eq "$bad" 0
/bin/dl-part $args >/dev/null 2>&1
LIBDL_TEST_FAIL_WRITE=100000 run /bin/dl-part-test destroy
total=$(made)
note "destroy with a server makes $total system writes"
bad=0
w=1
while [ "$w" -le "${total:-0}" ]; do
	/bin/dl-part $args >/dev/null 2>&1
	LIBDL_TEST_FAIL_WRITE=$w run /bin/dl-part-test destroy
	r=$rc
	if [ "$r" != 0 ] && [ "$(servers)" != "$found" ] && [ "$(cat $FS/cpu1/runtime)" != 0 ]; then
		bad=$((bad + 1))
		note "write $w of destroy failed half-way: servers $(servers)"
	fi
	[ "$r" = 0 ] || /bin/dl-part destroy >/dev/null 2>&1
	if [ "$(servers)" != "$found" ]; then
		bad=$((bad + 1))
		note "write $w of destroy: exit $r, then destroy: servers $(servers)"
	fi
	w=$((w + 1))
done
check "destroy has system writes to fail ($total)" test "${total:-0}" -gt 2
check "each failing, then destroy, puts the servers back" eq "$bad" 0

# SIGINT, SIGTERM, SIGHUP before each write of create: rolled back, the
# servers as they were.
LIBDL_TEST_FAIL_WRITE=100000 run /bin/dl-part-test $args
total=$(made)
/bin/dl-part destroy >/dev/null 2>&1
bad=0
w=1
while [ "$w" -le "${total:-0}" ]; do
	case $((w % 3)) in 0) s=2 ;; 1) s=15 ;; *) s=1 ;; esac
	LIBDL_TEST_SIGNAL_AT_WRITE="$w $s" run /bin/dl-part-test $args
	r=$rc
	if [ "$r" != $((128 + s)) ] || [ "$(servers)" != "$found" ]; then
		bad=$((bad + 1))
		note "signal $s before write $w of create: exit $r, servers $(servers)"
	fi
	/bin/dl-part destroy >/dev/null 2>&1
	w=$((w + 1))
done
check "a signal before each write of create leaves the servers as they were" eq "$bad" 0

# Hotplug: what the kernel does with a server's setting when its CPU goes
# offline and comes back (docs/kernel-notes.md), then a layout's.
echo 20000000 >$FS/cpu1/runtime
echo 0 >/sys/devices/system/cpu/cpu1/online
off=$(cat $FS/cpu1/runtime)/$(cat $FS/cpu1/period)
echo 21000000 >$FS/cpu1/runtime 2>/dev/null
wo=$?
echo 1 >/sys/devices/system/cpu/cpu1/online
on=$(cat $FS/cpu1/runtime)/$(cat $FS/cpu1/period)
note "kernel: CPU 1's server 20ms/$pe1, CPU 1 offline: reads $off, a write there exits $wo; online again: $on; total_bw $(total_bw 1) (cpu0: $(total_bw 0))"
echo "$rt1" >$FS/cpu1/runtime
check "the fair servers are as found after hotplug" eq "$(servers)" "$found"

# A layout's setting across hotplug: CPU 1, a one-CPU partition's, taken
# offline and back.  Then the kernel's files say the layout's setting,
# its count of CPU 1's root domain holds it, the partition is a root
# again with CPU 1, dl-part status is clean, and a repair keeps it all.
# 20ms/25ms with a process of ours in the partition (a populated
# partition left with no CPU is one the kernel may make invalid), then
# off with the partition empty.
# hotplug_layout SETTING EXPECTED [populated]
hotplug_layout() {
	hl=$1
	run /bin/dl-part create --partition rt=1 --fair-server "rt=$hl"
	check "hotplug, rt=$hl: create" eq "$rc $(servers)" "0 $rt0/$pe0 $2"
	[ "$rc" = 0 ] || note "$err"
	hl_pid=""
	if [ "${3:-}" = populated ]; then
		sleep 1000 &
		hl_pid=$!
		echo "$hl_pid" >"$CS/libdl-rt/cgroup.procs"
		check "hotplug, rt=$hl: a process of ours in the partition" eq "$(cat /proc/$hl_pid/cgroup)" 0::/libdl-rt
	fi
	# No deadline task that ran on CPU 1 holds its bandwidth now
	# (docs/kernel-notes.md, "CPU hotplug after a deadline exit").
	i=0
	while [ "$i" -lt 50 ] && ! counts 1 0 >/dev/null; do
		sleep 0.1
		i=$((i + 1))
	done
	check "hotplug, rt=$hl: CPU 1's root domain counts its server alone" counts 1 0
	hl_bw=$(total_bw 1)
	if ! echo 0 >/sys/devices/system/cpu/cpu1/online 2>/tmp/.hl; then
		note "kernel: CPU 1, a one-CPU partition's with its fair server $hl (total_bw $hl_bw), cannot go offline: $(cat /tmp/.hl)"
		run /bin/dl-part status
		check "hotplug, rt=$hl: the refused offline leaves the layout as it was" eq "$rc $(servers) $(cat $CS/libdl-rt/cpuset.cpus.partition)" "0 $rt0/$pe0 $2 root"
	else
		hl_off="$(cat $FS/cpu1/runtime)/$(cat $FS/cpu1/period)"
		hl_part=$(cat $CS/libdl-rt/cpuset.cpus.partition)
		run /bin/dl-part status
		note "kernel: CPU 1 offline: its server reads $hl_off, the partition \"$hl_part\" with CPUs \"$(cat $CS/libdl-rt/cpuset.cpus.effective)\"; status exits $rc: $(echo "$out" | grep '^INVALID\|^CHANGED')"
		# Meanwhile status says what the kernel's file says.
		if [ "$hl_part" = root ]; then
			check "hotplug, rt=$hl: CPU 1 offline, the partition a root: status exits 0" eq "$rc" 0
		else
			check "hotplug, rt=$hl: CPU 1 offline, the partition \"$hl_part\": status exits 1 and names it" eq "$rc $(echo "$out" | grep -c '^INVALID: partition rt ')" "1 1"
			check "hotplug, rt=$hl: and says the CPU is offline" has "$out" "offline CPUs 1: the kernel makes it a partition again once they are back online"
		fi
		echo 1 >/sys/devices/system/cpu/cpu1/online
		# The cpuset's own hotplug work may come a moment later.
		i=0
		while [ "$i" -lt 50 ] && [ "$(cat $CS/libdl-rt/cpuset.cpus.effective)" != 1 ]; do
			sleep 0.1
			i=$((i + 1))
		done
		check "hotplug, rt=$hl: CPU 1 back, its server is the layout's, CPU 0's as found" eq "$(servers)" "$rt0/$pe0 $2"
		check "hotplug, rt=$hl: the partition is a root with CPU 1 again" eq "$(cat $CS/libdl-rt/cpuset.cpus.partition) $(cat $CS/libdl-rt/cpuset.cpus.effective)" "root 1"
		check "hotplug, rt=$hl: the kernel counts CPU 1's server as set" counts 1 0
		note "kernel: CPU 1 online again: total_bw $(total_bw 1), $hl_bw before"
		run /bin/dl-part status
		check "hotplug, rt=$hl: status exits 0" eq "$rc" 0
		check "hotplug, rt=$hl: status names no invalid partition, no changed server" eq "$(echo "$out" | grep -c '^INVALID\|^CHANGED')" 0
	fi
	if [ "$2" = "0/$pe1" ]; then
		# The kernel's answer: the whole limit, which the server on refuses.
		run /bin/dl-run --partition rt -r ${whole}us -p 100ms -- /bin/true
		check "hotplug, rt=$hl: the partition admits the whole per-CPU limit" eq "$rc" 0
		[ "$rc" = 0 ] || note "$err"
	fi
	run /bin/dl-part repair
	check "hotplug, rt=$hl: repair keeps the server and the partition" eq "$rc $(servers) $(cat $CS/libdl-rt/cpuset.cpus.partition)" "0 $rt0/$pe0 $2 root"
	[ "$rc" = 0 ] || note "$out $err"
	[ -n "$hl_pid" ] && kill "$hl_pid" && wait "$hl_pid" 2>/dev/null
	run /bin/dl-part destroy
	check "hotplug, rt=$hl: destroy puts the servers back" eq "$rc $(servers)" "0 $found"
}
hotplug_layout 20ms/25ms 20000000/25000000 populated
hotplug_layout off "0/$pe1"

# make bench's experiment 9 (bench/server.sh), whose off half this
# project's host cannot run (lockdown): one round of a second each way,
# checking only that both halves ran on the layouts they say, and that
# the servers are as found after it; latency under TCG is not judged.
if [ -r /bench/server.sh ]; then
	mkdir -p /tmp/bench-build/utils
	ln -sf /bin/dl-part /tmp/bench-build/utils/dl-part
	ln -sf /bin/dl-load /tmp/bench-build/utils/dl-load
	run sh /bench/server.sh /tmp/bench-build /tmp/bench 1 1
	check "bench/server.sh runs here (exit 0)" eq "$rc" 0
	[ "$rc" = 0 ] || note "$out $err"
	# Its hog too: on v2 a taskset to the partition's CPU from the root
	# cgroup fails ("can't set pid 0's affinity"), on its stderr.
	check "and says nothing on its stderr (its hog ran)" eq "$err" ""
	note "bench/server.sh: $(cat /tmp/bench/server.csv 2>/dev/null | tr '\n' ' ')"
	# round,server,jobs,misses,p50,p99,max,partition_total_bw
	half() { awk -F, -v m="$1" '$2 == m && $3 > 0 { print $8 }' /tmp/bench/server.csv 2>/dev/null; }
	check "its on half ran, the partition counting CPU 1's server" eq "$(half on)" "$(server_bw fair_server 1)"
	check "its off half ran, the partition counting nothing" eq "$(half off)" 0
	check "the fair servers are as found after it" eq "$(servers)" "$found"
fi
