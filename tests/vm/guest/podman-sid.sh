# podman-sid.sh: deadline containers with Debian sid's podman and crun,
# the newest, on its 7.x kernel and systemd: the part of guest/podman.sh
# that depends on the runtime's version, kept short (each podman command
# costs seconds under TCG).  With --scheduler (a precreate file of its
# own, the only hook file podman is given), the hook writes
# process.scheduler into the configuration and crun sets the reservation
# itself, before the container's program runs: the process has exactly
# what the annotations ask (read from the kernel), in the partition the
# hook placed it in.  Then the files as installed (no --scheduler): the
# createRuntime stage sets it, as with Debian 13's crun.  Admission,
# refusals and the cgroupfs path: guest/podman.sh, on Debian 13.  Then
# a container refused by a rule of dl-run.conf(5) for podman.
#
# Sourced after lib.sh and systemd-part.sh, on a machine with no layout,
# in a boot of the sid podman image (run-vm.sh --rootfs sid-podman);
# ends without done_testing.

. /guest/podman-common.sh
run dl-part create --partition rt=1
check "dl-part create --partition rt=1: libdl-rt.slice is a root partition of CPU 1" eq "$rc $(cat "$RT/cpuset.cpus.partition") $(cat "$RT/cpuset.cpus.effective")" "0 root 1"
[ "$rc" = 0 ] || note "$err"

# S: process.scheduler, written by the hook, applied by crun.
mkdir -p /tmp/hooks-sched
sed 's/"libdl-oci-hook", "precreate"\]/"libdl-oci-hook", "precreate", "--scheduler"]/' "$HOOKS/50-libdl-deadline-precreate.json" \
	>/tmp/hooks-sched/50-libdl-deadline-precreate.json
check "a precreate file with --scheduler" has "$(cat /tmp/hooks-sched/50-libdl-deadline-precreate.json)" '"args": ["libdl-oci-hook", "precreate", "--scheduler"]'
t0=$(date +%s)
run $PM --hooks-dir /tmp/hooks-sched run -d --name s --network none $ASK \
	--annotation deadline.libdl.io/runtime=40ms localhost/libdl-rt sleep 300
check "precreate --scheduler alone: s runs ($(($(date +%s) - t0)) s)" eq "$rc" 0
[ "$rc" = 0 ] || note "$err"
set -- $($PM inspect -f '{{.State.Pid}} {{.OCIConfigPath}}' s 2>/dev/null)
ps=$1
check "the configuration crun was given carries the hook's process.scheduler" has "$(tr -d ' \n' <"$2" 2>&1)" '"scheduler":{"policy":"SCHED_DEADLINE"'
check "s's process has exactly what its annotations ask (the kernel's sched_getattr)" eq "$(params "$ps")" "40000000/1000000000/1000000000"
check "SCHED_DEADLINE with reset-on-fork, set by crun" has "$(chrt -p "$ps")" "SCHED_DEADLINE|SCHED_RESET_ON_FORK"
check "in partition rt's slice, on its CPU 1" eq "$(grep -c /libdl.slice/libdl-rt.slice/libpod- /proc/"$ps"/cgroup) $(awk '/^Cpus_allowed_list/ { print $2 }' /proc/"$ps"/status)" "1 1"
# C: the files as installed: createRuntime sets it.
run $PM run -d --name c --network none $ASK --annotation deadline.libdl.io/runtime=5ms localhost/libdl-rt sleep 300
check "the installed files: c runs" eq "$rc" 0
[ "$rc" = 0 ] || note "$err"
set -- $(pid_id c)
check "c's process has exactly 5ms every 1s" eq "$(params "$1")" "5000000/1000000000/1000000000"
engine_rule

run $PM rm -f -t 0 s c
check "podman rm -f the containers" eq "$rc" 0
run dl-part destroy
check "dl-part destroy once they are gone" eq "$rc" 0
[ "$rc" = 0 ] || note "$err"
