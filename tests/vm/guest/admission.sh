# admission.sh: what dl-run --check predicts against what the kernel then
# does.  Reservations of decreasing size are asked for until the kernel
# refuses each size, then one exactly at the edge and one a unit past it,
# in five places: the whole machine as the suite finds it, a one-CPU
# partition and the cluster of a layout, that partition with its fair
# server off (its whole cap admitted), and the whole machine after a
# rebuild that keeps its root domain (reading kernel.sched_rt_runtime_us
# is one: on 6.12 it drops the fair servers from the count,
# docs/kernel-notes.md, "The fair server").  Each
# request is predicted (--check, and --check --json) and then made
# (dl-run ... sleep): every verdict must be the kernel's, and the free
# bandwidth the library reports must be what the kernel's figures leave.
# Sourced after lib.sh with no layout in place; ends without done_testing.

. /guest/admission-lib.sh

where=""
fill "" "the whole machine as found"
release

run /bin/dl-part create --partition 0
check "admission: a layout of a one-CPU partition and the cluster" eq "$rc" 0
[ "$rc" = 0 ] || note "$err"
where="--partition partition0"
fill "$where" "partition0 (CPU 0)"
where="--cluster"
fill "$where" "the cluster (CPU 1)"
release

# partition0 with its fair server off (runtime 0, written here and put
# back right after): the kernel then admits the whole cap there, 0.95,
# not the cap less the server, and every --check must say what it does.
fs=/sys/kernel/debug/sched/fair_server/cpu0
if [ -e "$fs/runtime" ] && fr=$(cat "$fs/runtime" 2>/dev/null); then
	before0=$(total_bw 0)
	servers0=$(fair_bw 0)
	# What the count loses is what it held of the server: nothing while a
	# BPF scheduler that took every task has it detached (7.2).
	if echo 0 2>/tmp/fs.err >"$fs/runtime"; then
		check "admission: CPU 0's fair server off, the kernel's count of partition0 less what it held of it" \
			eq "$(total_bw 0)" $((before0 - servers0 + $(fair_bw 0)))
		where="--partition partition0"
		fill "$where" "partition0 (CPU 0), its fair server off"
		# The whole cap, but for what is shorter than the fill's edge
		# request can take (1024 ns of a 2^20 ns period): 7.2's cap of
		# 1.0 leaves 2 units after the fill's sizes.
		check "admission: partition0 with its fair server off admitted its whole cap, $(cpu_bw 0), to less than 1024 units" \
			[ $(($(cpu_bw 0) - $(total_bw 0))) -ge 0 -a $(($(cpu_bw 0) - $(total_bw 0))) -lt 1024 ]
		release
		echo "$fr" >"$fs/runtime"
		check "admission: CPU 0's fair server put back" eq "$(cat "$fs/runtime")" "$fr"
		check "admission: partition0's count back to its fair server" eq "$(total_bw 0)" "$before0"
	else
		note "the kernel refused CPU 0's fair server off: $(cat /tmp/fs.err); partition0's total_bw $before0"
	fi
fi
run /bin/dl-part destroy
check "admission: the layout destroyed" eq "$rc" 0

where=""
cat /proc/sys/kernel/sched_rt_runtime_us >/dev/null
fill "" "the whole machine after a rebuild that kept it"
release

check "admission: $asked requests: dl-run --check and --check --json agreed with the kernel on every one" eq "$wrong" 0
check "admission: the free bandwidth the library reported was what the kernel's figures left, every time" eq "$badfree" 0
check "admission: no root domain seen drifted" eq "$drifted" 0
check "admission: the kernel counts nothing but the fair servers once all ended" counts 0 0 2
