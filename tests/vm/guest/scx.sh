# scx.sh: libdl beside a BPF scheduler.  While one is attached
# (sched_ext enabled) the kernel runs each CPU's ext server, a deadline
# reservation for the ext tasks beside the fair server, and counts it
# in the root domain's total_bw (docs/kernel-notes.md, "The ext server").
# scx_simple (tools/sched_ext, built with the release's own packages:
# tests/vm/fetch-debian.sh scx) is loaded at /bin/scx_simple, then: the
# kernel's count is the fair and ext servers (lib.sh counts), dl-stat
# shows the root domain as the kernel counts it and not drifted, the
# admission suite (guest/admission.sh: every dl-run --check verdict the
# kernel's, the free figure what total_bw leaves) runs with it attached,
# dl-part status of a layout made then exits 0; and once the scheduler
# is gone the ext servers are no longer counted.  The ext servers are
# set to 30 ms every 1 s for the suite (and set back), so that a count
# that took the fair servers' 50 ms for them shows.
# Sourced after lib.sh, with no layout in place.
SCX_STATE=/sys/kernel/sched_ext/state

# scx_wait STATE: up to 30 s for sched_ext to reach STATE.
scx_wait() {
	i=0
	while [ "$i" -lt 300 ] && [ "$(cat $SCX_STATE 2>/dev/null)" != "$1" ]; do
		sleep 0.1
		i=$((i + 1))
	done
	eq "$(cat $SCX_STATE 2>&1)" "$1"
}

check "scx: the kernel has sched_ext, disabled at first" scx_wait disabled
check "scx: the kernel has an ext server per CPU" test -d /sys/kernel/debug/sched/ext_server/cpu1
for c in 0 1; do
	echo 30000000 >/sys/kernel/debug/sched/ext_server/cpu$c/runtime
done
check "scx: the ext servers set to 30 ms every 1 s" eq "$(cat /sys/kernel/debug/sched/ext_server/cpu1/runtime 2>&1)" 30000000
check "scx: before the scheduler, the kernel counts the fair servers alone" counts 0 0 2
/bin/scx_simple >/tmp/scx.out 2>&1 &
scx_pid=$!
check "scx: scx_simple attached (sched_ext enabled)" scx_wait enabled
note "scx: $(cat /sys/kernel/sched_ext/root/ops 2>&1) attached; CPU 0: total_bw $(total_bw 0), CPU 1: $(total_bw 1)"
check "scx: with it attached, the kernel counts the ext servers (for the fair ones: it took every task)" counts 0 0 2
run /bin/dl-stat --domains --json
check "scx: dl-stat --domains --json" eq "$rc" 0
check "scx: dl-stat's total is the kernel's total_bw ($(total_bw 0))" has "$out" "\"total_bw\":$(total_bw 0)"
check "scx: dl-stat sees no drift" has "$out" '"drift":"none"'
note "$out"

. /guest/admission.sh

run /bin/dl-part create --partition 0
check "scx: a layout made with the BPF scheduler attached" eq "$rc" 0
[ "$rc" = 0 ] || note "$err"
run /bin/dl-part status
check "scx: dl-part status finds the layout whole (exit 0)" eq "$rc" 0
[ "$rc" = 0 ] || note "$out $err"
check "scx: partition0's root domain counts CPU 0's servers" counts 0 0 1
run /bin/dl-part destroy
check "scx: the layout destroyed" eq "$rc" 0

kill "$scx_pid"
wait "$scx_pid"
check "scx: scx_simple gone, sched_ext disabled again" scx_wait disabled
sed 's/^/# scx_simple: /' /tmp/scx.out | tail -n 3
check "scx: the ext servers no longer counted" counts 0 0 2
for c in 0 1; do
	echo 50000000 >/sys/kernel/debug/sched/ext_server/cpu$c/runtime
done
check "scx: the ext servers set back to 50 ms every 1 s" eq "$(cat /sys/kernel/debug/sched/ext_server/cpu1/runtime 2>&1)" 50000000
