# hotplug-exit.sh: the kernel bug of docs/kernel-notes.md, "CPU hotplug
# after a deadline exit", on purpose, as the record of which kernels have
# it.  A deadline task that exits keeps an inactive timer until its 0-lag
# time; CPU 1 taken offline before that makes the timer divide by the
# active CPUs of CPU 1's root domain, 0 then (6.12: Oops: divide error in
# inactive_task_timer).  Where the kernel crashes, the boot ends here:
# vm-test reads the "# kernel-bug:" line below with the oops and reports
# an expected failure (TODO); a kernel that survives is reported as fixed.
# Sourced last, before done_testing (lib.sh), in a boot of two CPUs
# with no layout (part-v2.vm, debian13/systemd-rt.vm).
#
# The task must exit on CPU 1 while CPU 1 shares its root domain with
# CPU 0 (the kernel refuses to take the last CPU of a root domain that
# counts a task offline): it waits in partition hp (CPU 1), whose partition
# (and under systemd its parent slice's) is turned back into a member by
# hand (dl-part destroy would move it out), so that it stays on CPU 1 in
# the root domain of both; then it
# uses 80 of its 100 ms and exits, its 0-lag time some 3 s later
# (deadline - remaining runtime x period / runtime).
#
# Twice: first a task that leaves SCHED_DEADLINE just before it exits (as
# dl_clear(0) and dl-load's tasks do), then one that exits under it.

# hotplug_after_exit HOW [--leave]
hotplug_after_exit() {
	hp_how=$1
	shift
	run /bin/dl-part create --partition hp=1
	check "hotplug, $hp_how: a partition hp on CPU 1" eq "$rc" 0
	[ "$rc" = 0 ] || note "$err"
	hp_cg=$(find "$CS" -maxdepth 2 -type d -name 'libdl-hp*' | head -n 1)
	rm -f /tmp/hp-go
	mkfifo /tmp/hp-go
	/bin/dl-run --partition hp -r 100ms -p 4s -- /bin/dl-spin --burn-after /tmp/hp-go 80000 "$@" &
	hp_task=$!
	deadline_or_gone $hp_task
	check "hotplug, $hp_how: the task waits under SCHED_DEADLINE in partition hp" eq "$(policy $hp_task)" 6
	# The partition and, under systemd, its parent slice's.
	hp_d=$hp_cg
	while [ "$hp_d" != "$CS" ] && [ -n "$hp_d" ]; do
		[ -f "$hp_d/cpuset.cpus.partition" ] && echo member >"$hp_d/cpuset.cpus.partition"
		hp_d=${hp_d%/*}
	done
	hp_live=$(total_bw 1)
	check "hotplug, $hp_how: hp a member again: CPU 1 shares CPU 0's root domain" eq "$(total_bw 0)" "$hp_live"
	check "hotplug, $hp_how: the task stays on CPU 1" eq "$(grep Cpus_allowed_list /proc/$hp_task/status | cut -f2)" 1
	# In the background: a task that is gone never opens the FIFO.
	echo go >/tmp/hp-go &
	hp_go=$!
	wait $hp_task
	hp_rc=$?
	kill $hp_go 2>/dev/null
	hp_held=$(total_bw 1)
	check "hotplug, $hp_how: the task used 80 ms and exited (status $hp_rc)" eq "$hp_rc" 0
	if [ "$hp_held" = "$hp_live" ]; then
		note "hotplug, $hp_how: its bandwidth is still counted ($hp_held): its inactive timer is pending"
	else
		note "hotplug, $hp_how: its bandwidth was given back at once ($hp_held, $hp_live while it lived)"
	fi
	echo "# kernel-bug: inactive_task_timer: CPU 1 taken offline at once after a deadline task $hp_how"
	if echo 0 >/sys/devices/system/cpu/cpu1/online; then
		# Past the 0-lag time: the timer has fired with CPU 1 offline.
		sleep 4
		ok "hotplug: $(uname -r) survives CPU 1 taken offline at once after a deadline task $hp_how"
		echo 1 >/sys/devices/system/cpu/cpu1/online
		sleep 0.2
	else
		not_ok "hotplug, $hp_how: CPU 1 could not go offline, so the bug was not tried"
	fi
	run /bin/dl-part destroy
	check "hotplug, $hp_how: the layout destroyed" eq "$rc" 0
	[ "$rc" = 0 ] || note "$err"
	rm -f /tmp/hp-go
}

note "hotplug after a deadline exit, on $(uname -r)"
hotplug_after_exit "left SCHED_DEADLINE and exited" --leave
hotplug_after_exit "exited"
note "hotplug: $(uname -r) has the fix: say so in docs/kernel-notes.md, \"CPU hotplug after a deadline exit\""
