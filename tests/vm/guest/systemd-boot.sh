# systemd-boot.sh: the layout at boot under systemd: dl-part.service with
# /etc/libdl/dl-part.conf, and dl-rt.service (Requires= and After= it,
# Slice=libdl-rt.slice) running a 0.9 deadline task from boot; then both
# stopped, giving the machine back.  Sourced after lib.sh by a suite
# that enables both units (tests/vm/boot/); ends without done_testing.

journal() { journalctl -b -u dl-part.service -u dl-rt.service --no-pager | tail -n 15 | sed 's/^/# /'; }
check "dl-part.service ran at boot and stays active" eq "$(systemctl is-active dl-part.service)" active
layout_before dl-rt.service /run/dl-rt.seen
check "dl-rt.service runs" eq "$(systemctl is-active dl-rt.service)" active
pid=$(prop dl-rt.service MainPID)
check "its task is in the partition's slice, in its own unit" eq "$(cut -d: -f3 /proc/$pid/cgroup)" /libdl.slice/libdl-rt.slice/dl-rt.service
check "under SCHED_DEADLINE" eq "$(policy $pid)" 6
check "the kernel counts 0.9 on CPU 0, and its fair server as it does" counts 0 943718
run /bin/dl-run -r 100ms -p 1s --partition rt -- /bin/true
check "0.1 more is refused in the partition" eq "$rc" 125
run /bin/dl-part status
check "status exits 0" eq "$rc" 0
[ "$rc" = 0 ] || note "$out"

# From a login-like scope: dl-run --partition moves into a scope of the
# slice, and systemd tracks it there.
systemd-run --scope --unit=loginlike /bin/dl-run -r 50ms -p 1s --partition rt -- /bin/sleep 61 >/dev/null 2>&1 &
sleep 3
lpid=$(pgrep -fx '/bin/sleep 61' | head -n 1)
check "dl-run from a login-like scope: its command runs" test -n "$lpid"
check "in a scope of the partition's slice" has "$(cut -d: -f3 /proc/$lpid/cgroup 2>&1)" /libdl.slice/libdl-rt.slice/libdl-rt-
scope=$(cut -d: -f3 /proc/$lpid/cgroup | sed 's|.*/||')
check "systemd tracks it: $scope is active" eq "$(systemctl is-active "$scope")" active
systemctl stop "$scope"
sleep 0.5
check "systemctl stop of the scope stops it" test ! -e /proc/$lpid

# Stopping the layout stops what requires it first.
systemctl stop dl-part.service
check "stopping dl-part.service stopped dl-rt.service first" eq "$(systemctl is-active dl-rt.service)" inactive
check "the deadline task is gone" test ! -e /proc/$pid
check "dl-part.service's destroy succeeded" eq "$(prop dl-part.service Result)" success
[ "$(prop dl-part.service Result)" = success ] || journal
check "the slices are gone" test ! -e $CS/libdl.slice
check "their unit files too" eq "$(ls /run/systemd/system | grep -c libdl)" 0
check "and the drop-ins of slices that were live before their files" test ! -e /run/systemd/system.control/libdl-rt.slice.d
# The suite's own units go, and nothing of the layout stays loaded:
# dl-rt.service named libdl-rt.slice (systemd keeps a unit loaded while
# another refers to it, and cpuset enabled for it until a reload).
systemctl disable dl-part.service dl-rt.service >/dev/null 2>&1
rm -f /etc/systemd/system/dl-rt.service
systemctl daemon-reload
units=$(systemctl list-units --all --no-legend 'libdl.slice' 'libdl-*.slice' 'libdl-*.scope')
check "no libdl unit is loaded once the service naming its slice is gone" eq "$units" ""
check "cpuset has left the root's subtree_control" eval 'case $(cat $CS/cgroup.subtree_control) in *cpuset*) false ;; esac'
note "the root's subtree_control: $(cat $CS/cgroup.subtree_control)"
run /bin/dl-part status
check "status: no layout" has "$out" "no layout"
run /bin/dl-run -r 900ms -p 1s -- /bin/true
check "0.9 is admitted after the layout is gone" eq "$rc" 0

# Stopped while its start runs, or its start killed: dl-part.service
# leaves nothing, and starts again.  A drop-in runs the test build
# (/bin/dl-part-test), which stops itself with SIGSTOP after create's
# step 2 (LIBDL_TEST_SIGNAL_AFTER_STEP): systemctl stop sends the SIGTERM
# (and SIGCONT) a shutdown would; with 9, the create is killed outright,
# as TimeoutStartSec's SIGKILL would, and ExecStopPost cleans up.
dropin=/run/systemd/system/dl-part.service.d
started_create() {
	i=0
	while [ $i -lt 300 ]; do
		cpid=$(pgrep -f 'dl-part-test create' | head -n 1)
		[ -n "$cpid" ] && [ "$(cut -d' ' -f3 /proc/$cpid/stat 2>/dev/null)" = "$1" ] && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}
nothing_left() {
	check "$1: no layout slice is left" test ! -e $CS/libdl.slice
	check "$1: no layout state is left" test ! -e /run/libdl/layout
	check "$1: no libdl unit file is left" eq "$(ls /run/systemd/system | grep -c libdl)" 0
}
mkdir -p $dropin
for how in "19:stopped while it starts" "9:its create killed"; do
	sig=${how%%:*}
	what=${how#*:}
	cat >$dropin/test.conf <<EOT
[Service]
Environment="LIBDL_TEST_SIGNAL_AFTER_STEP=2 $sig"
ExecStart=
ExecStart=/bin/dl-part-test create --config /etc/libdl/dl-part.conf
EOT
	systemctl daemon-reload
	if [ "$sig" = 19 ]; then
		systemctl start --no-block dl-part.service
		check "$what: its create is stopped after step 2" started_create T
		systemctl stop dl-part.service
	else
		systemctl start dl-part.service >/dev/null 2>&1
	fi
	check "$what: the service is not active" eval '[ "$(systemctl is-active dl-part.service)" != active ]'
	nothing_left "$what"
	rm -f $dropin/test.conf
	systemctl daemon-reload
	systemctl reset-failed dl-part.service >/dev/null 2>&1
	systemctl start dl-part.service
	check "$what: the next start succeeds" eq "$(systemctl is-active dl-part.service)" active
	[ "$(systemctl is-active dl-part.service)" = active ] || journal
	systemctl stop dl-part.service
	check "$what: and its stop" eq "$(prop dl-part.service Result)" success
	run /bin/dl-part destroy
	nothing_left "$what, then stopped"
done
rmdir $dropin
systemctl daemon-reload
