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
check "0.1 more is refused in the partition" eq "$rc" 1
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
