# systemd-part.sh: dl-part on a real systemd host, systemd as PID 1 on
# cgroup v2.  The layout is systemd's units libdl.slice and
# libdl-partition0.slice; it must hold through daemon-reload and
# daemon-reexec, take services with Slice=, keep dl-run's process tracked
# by systemd, report a broken partition, and go away leaving systemd's
# tree as it was.  A CPU admits 0.95 less its fair server where the kernel
# counts one (lib.sh: counts).  Sourced after lib.sh; ends without
# done_testing, so that a suite may run more after it (systemd-faults.sh
# takes what it defines).

SL=$CS/libdl.slice
P0=$SL/libdl-partition0.slice
subtree() { cat "$CS/cgroup.subtree_control"; }
# The units and cgroups of systemd's tree that a layout could leave.
tree() {
	subtree
	ls -d "$CS"/*/ | sort
	ls /run/systemd/system | sort
	find /run/systemd/system.control -name 'libdl*' 2>/dev/null | sort
}

SYSTEMD=$(systemctl --version | sed -n '1s/^systemd \([0-9]*\).*/\1/p')
note "PID 1 is $(cat /proc/1/comm), systemd $SYSTEMD"
before=$(tree)
note "root subtree_control before: $(subtree)"

run /bin/dl-part create --partition 0
check "create --partition 0 succeeds" eq "$rc" 0
[ "$rc" = 0 ] || note "$err"
note "$out"
check "libdl.slice is a root partition" eq "$(cat $SL/cpuset.cpus.partition)" root
check "libdl-partition0.slice is a root partition in it" eq "$(cat $P0/cpuset.cpus.partition)" root
check "with CPU 0" eq "$(cat $P0/cpuset.cpus.effective)" 0
check "systemd knows the slice and runs it" eq "$(systemctl is-active libdl-partition0.slice)" active
check "systemd keeps cpuset in the root's subtree_control" has "$(subtree)" cpuset
check "the rest of the machine (system.slice) has CPU 1" eq "$(cat $CS/system.slice/cpuset.cpus.effective)" 1

# dl-run from this service: a transient scope in the partition's slice.
/bin/dl-run -r 900ms -p 1s --partition partition0 -- /bin/sleep 120 &
pid=$!
sleep 2
cg=$(cut -d: -f3 /proc/$pid/cgroup)
check "dl-run --partition: the command runs in a scope of the slice" \
	has "$cg" "/libdl.slice/libdl-partition0.slice/libdl-partition0-$pid.scope"
check "the command is SCHED_DEADLINE" eq "$(policy $pid)" 6
check "systemd tracks it: the scope is active" eq "$(systemctl is-active libdl-partition0-$pid.scope)" active
check "systemctl status of the slice lists the process" has "$(systemctl status libdl-partition0.slice --no-pager 2>&1)" "$pid"

admission() {
	run /bin/dl-run -r 100ms -p 1s --partition partition0 -- /bin/true
	check "$1: 0.1 more is refused in the partition" eq "$rc" 125
	check "$1: the partition is still root" eq "$(cat $P0/cpuset.cpus.partition 2>&1)" root
	check "$1: libdl.slice is still root" eq "$(cat $SL/cpuset.cpus.partition 2>&1)" root
	check "$1: the partition still has CPU 0" eq "$(cat $P0/cpuset.cpus.effective 2>&1)" 0
	check "$1: the 0.9 task is still SCHED_DEADLINE" eq "$(policy $pid)" 6
	check "$1: the kernel counts 0.9 on CPU 0, and its fair server as it does" counts 0 943718
	check "$1: the scope still holds it" has "$(cut -d: -f3 /proc/$pid/cgroup)" "libdl-partition0-$pid.scope"
	run /bin/dl-run -r 900ms -p 1s -- /bin/true
	check "$1: 0.9 in the rest of the machine is admitted" eq "$rc" 0
	run /bin/dl-part status
	check "$1: status exits 0" eq "$rc" 0
	[ "$rc" = 0 ] || note "$out"
}
admission "after create"
systemctl daemon-reload
admission "after daemon-reload"
systemctl daemon-reexec
sleep 1
admission "after daemon-reexec"
systemctl restart systemd-journald systemd-logind 2>/dev/null
admission "after restarting services"
kill $pid
wait $pid 2>/dev/null
sleep 1.2

# A service joins the partition the systemd way, and stop stops it;
# dl-run --partition in it finds itself in the slice and stays in the unit.
cat >/run/systemd/system/dlsvc.service <<UNIT
[Service]
Slice=libdl-partition0.slice
ExecStart=/bin/dl-run --partition partition0 -r 850ms -p 1s -- /bin/sleep 120
UNIT
systemctl daemon-reload
systemctl start dlsvc.service
sleep 2
spid=$(systemctl show -p MainPID --value dlsvc.service)
check "the Slice= service runs" eq "$(systemctl is-active dlsvc.service)" active
check "in the partition's slice, in its own unit (no scope)" eq "$(cut -d: -f3 /proc/$spid/cgroup)" /libdl.slice/libdl-partition0.slice/dlsvc.service
check "under SCHED_DEADLINE" eq "$(policy $spid)" 6
check "on CPU 0 only" has "$(taskset -p $spid)" ": 1"
run /bin/dl-run -r 150ms -p 1s --partition partition0 -- /bin/true
check "0.15 more is refused beside it" eq "$rc" 125
run /bin/dl-run -r 50ms -p 1s --partition partition0 -- /bin/true
check "0.05 more is admitted" eq "$rc" 0
run /bin/dl-part destroy
check "destroy refuses while a service runs in a partition" eq "$rc" 1
check "and names the partition, its unit and the way out" has "$err" "partition partition0 holds dlsvc.service, 1 thread"
has "$err" "dl-part destroy --force" >/dev/null || not_ok "the refusal names --force"
check "and the partition stays" eq "$(cat $P0/cpuset.cpus.partition)" root
systemctl stop dlsvc.service
check "systemctl stop stops it" test ! -e /proc/$spid
rm -f /run/systemd/system/dlsvc.service
systemctl daemon-reload
sleep 1.2

# Broken on purpose: status names it and fails.
echo member >$P0/cpuset.cpus.partition
run /bin/dl-part status
check "a partition set to member: status exits 1" eq "$rc" 1
check "and names it" has "$out" "INVALID: partition partition0"
echo root >$P0/cpuset.cpus.partition
run /bin/dl-part status
check "set back to root: status exits 0" eq "$rc" 0
systemctl stop libdl-partition0.slice
run /bin/dl-part status
check "the slice stopped: status exits 1" eq "$rc" 1
check "and says the partition is gone" has "$out" "partition partition0 (/libdl.slice/libdl-partition0.slice): its cgroup no longer exists"

run /bin/dl-part destroy
check "destroy of the rest succeeds" eq "$rc" 0
[ "$rc" = 0 ] || note "$err"
check "destroy leaves systemd's tree and the root's subtree_control as before" eq "$(tree)" "$before"
units=$(systemctl list-units --all --no-legend 'libdl.slice' 'libdl-*.slice' 'libdl-*.scope')
check "no libdl unit is loaded" eq "$units" ""
check "total_bw is back to the fair servers alone" counts 0 0 2
run /bin/dl-run -r 900ms -p 1s -- /bin/true
check "0.9 is admitted after destroy" eq "$rc" 0

# A layout removed from under dl-part: destroy says so.
run /bin/dl-part create --partition 0
check "create again" eq "$rc" 0
systemctl stop libdl.slice
sleep 0.5
run /bin/dl-part destroy
check "destroy of a layout already gone exits 0" eq "$rc" 0
check "and says it was gone" has "$out" "the layout was already gone"
check "systemd's tree is as before" eq "$(tree)" "$before"
