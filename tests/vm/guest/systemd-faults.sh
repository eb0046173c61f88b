# systemd-faults.sh: dl-part's failures on a real systemd host: a create
# killed after each step, every system write of create and destroy
# failing in turn, or interrupted by a signal (the test build's hooks), a
# unit that takes the partition's CPU, --isolated, the direct path behind
# systemd's back, libsystemd missing, names systemd cannot take.  Each leaves systemd's
# tree as it was.  Sourced after lib.sh and systemd-part.sh (its tree(),
# before and SYSTEMD); ends without done_testing.

# A create killed after each of its steps: destroy from a fresh process
# gives systemd's tree back.
# Steps: 1 the state file, 2 the unit files, 3 the slice started, 4 the
# partition written and read back.
for step in 1 2 3 4; do
	LIBDL_TEST_KILL_AFTER_STEP=$step /bin/dl-part-test create --partition 0 >/dev/null 2>&1
	check "create killed after step $step (SIGKILL)" eq "$?" 137
	run /bin/dl-part destroy
	check "killed after step $step: destroy succeeds" eq "$rc" 0
	[ "$rc" = 0 ] || note "$err"
	check "killed after step $step: systemd's tree is as before" eq "$(tree)" "$before"
done

# Every system write of create (unit files, systemd's reload and start,
# the partition files, the state), then of destroy, fails in turn (the
# test build's LIBDL_TEST_FAIL_WRITE=N): systemd's tree, the root's
# subtree_control and the units come back as they were each time.
unchanged() { [ "$(tree)" = "$before" ]; }
at_each_write fail rolled_back create --partition 0
note "create makes $total system writes under systemd"
check "create has system writes to fail under systemd ($total)" test "${total:-0}" -gt 3
check "each of them failing is rolled back: systemd's tree as before" eq "$bad" 0
at_each_write fail rolled_back destroy
note "destroy makes $total system writes under systemd"
check "destroy has system writes to fail under systemd ($total)" test "${total:-0}" -gt 3
check "each of them failing, then destroy, gives systemd's tree back" eq "$bad" 0

# SIGINT, SIGTERM and SIGHUP in turn before each system write of create
# and destroy (LIBDL_TEST_SIGNAL_AT_WRITE="N SIG"): the create is rolled
# back and the destroy finished before the signal ends them.
for cmd in "create --partition 0" destroy; do
	at_each_write signal signalled $cmd
	check "${cmd%% *} has system writes to interrupt under systemd ($total)" test "${total:-0}" -gt 3
	check "a signal before each of them leaves systemd's tree as before" eq "$bad" 0
done

# Another unit takes CPU 0: create names it before changing anything; when
# the kernel is left to judge, its reason is reported and all rolled back.
systemctl set-property --runtime system.slice AllowedCPUs=0
taken=$(tree)
run /bin/dl-part create --partition 0
check "a unit with AllowedCPUs= on the partition's CPU is named" has "$err" "cgroup /system.slice has cpuset.cpus 0"
check "and nothing changed" eq "$(tree)" "$taken"
LIBDL_TEST_NO_PRECHECK=1 run /bin/dl-part-test create --partition 0
check "left to the kernel: create fails" eq "$rc" 1
check "with the kernel's verdict" has "$err" "invalid partition"
note "$err"
check "rolled back: systemd's tree as it was" eq "$(tree)" "$taken"
systemctl set-property --runtime system.slice AllowedCPUs=
rm -rf /run/systemd/system.control/system.slice.d
systemctl daemon-reload
check "systemd's tree as at the start once the property is gone" eq "$(tree)" "$before"

run /bin/dl-part create --partition 0 --isolated
check "--isolated: create" eq "$rc" 0
[ "$rc" = 0 ] || note "$err"
check "--isolated: the partition reads isolated" eq "$(cat $P0/cpuset.cpus.partition 2>&1)" isolated
check "--isolated: in a root libdl.slice" eq "$(cat $SL/cpuset.cpus.partition 2>&1)" root
run /bin/dl-part destroy
check "--isolated: destroy gives systemd's tree back" eq "$(tree)" "$before"

# The direct path on this host (LIBDL_NO_SYSTEMD): the daemon-reload of
# systemd 252 disables cpuset at the root and dissolves it
# (docs/kernel-notes.md, "systemd on cgroup v2"), and status says so
# instead of exiting 0; systemd 257 leaves cpuset enabled, and the
# partition holds: status says what the kernel says, either way.
LIBDL_NO_SYSTEMD=1 run /bin/dl-part create --partition 0
check "the direct path: create" eq "$rc" 0
check "the direct path: /libdl-partition0 is root" eq "$(cat $CS/libdl-partition0/cpuset.cpus.partition 2>&1)" root
systemctl daemon-reload
note "after daemon-reload (systemd $SYSTEMD) the root's subtree_control reads \"$(subtree)\""
run /bin/dl-part status
if has "$(subtree)" cpuset; then
	check "the direct path after daemon-reload, cpuset kept: status exits 0" eq "$rc" 0
	check "and the partition is still root" eq "$(cat $CS/libdl-partition0/cpuset.cpus.partition 2>&1)" root
else
	check "the direct path after daemon-reload: status exits 1" eq "$rc" 1
	check "and names the partition it lost" has "$out" "INVALID: partition partition0 (/libdl-partition0)"
	note "$(echo "$out" | grep INVALID)"
fi
run /bin/dl-part destroy
check "and destroy still cleans up" eq "$rc" 0
[ "$rc" = 0 ] || note "$err"
check "systemd's tree as before" eq "$(tree)" "$before"

# libsystemd is loaded at run time, by the first call that talks to
# systemd.  A systemd host without it (the test build loads a soname that
# does not exist instead): create says what to install and changes
# nothing.
LIBDL_TEST_LIBSYSTEMD=libdl-no-such-libsystemd.so.0 run /bin/dl-part-test create --partition 0
check "libsystemd missing: create fails" eq "$rc" 1
check "and says libsystemd.so.0 could not be loaded" has "$err" "libsystemd.so.0 could not be loaded"
check "and what to install" has "$err" "package libsystemd0"
note "$err"
check "and nothing changed" eq "$(tree)" "$before"
check "and no layout is recorded" test ! -e /run/libdl/layout

run /bin/dl-part create --partition 0 --cluster 0
check "a cluster other than the rest is refused on systemd" eq "$rc" 1
run /bin/dl-part create --partition rt-a=0
check "a partition name with '-' is refused on systemd" has "$err" "holds a '-'"
check "and nothing changed" eq "$(tree)" "$before"
