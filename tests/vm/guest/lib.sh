# lib.sh: TAP helpers for the guest side of the VM suites (busybox sh).
# Source it, make checks, end with done_testing.
n=0
failed=0

ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $*"; }
note() { echo "# $*"; }

# check DESCRIPTION COMMAND...: passes when COMMAND succeeds.
check() {
	desc=$1
	shift
	if "$@"; then ok "$desc"; else not_ok "$desc"; fi
}

# run COMMAND...: its stdout in $out, stderr in $err, status in $rc.
run() {
	"$@" >/tmp/.out 2>/tmp/.err
	rc=$?
	out=$(cat /tmp/.out)
	err=$(cat /tmp/.err)
}

# has TEXT NEEDLE: TEXT contains NEEDLE (fixed string).
has() {
	case $1 in
	*"$2"*) return 0 ;;
	*) echo "# expected \"$2\" in: $1" ; return 1 ;;
	esac
}

# eq A B: equal, or say both.
eq() {
	[ "$1" = "$2" ] && return 0
	echo "# expected \"$2\", got \"$1\""
	return 1
}

# The kernel's total_bw of CPU N's root domain, from debugfs.
total_bw() {
	awk -v cpu="dl_rq[$1]:" '$1 == cpu { f = 1; next } f && /total_bw/ { print $3; exit }' /sys/kernel/debug/sched/debug
}

# A thread's scheduling policy, as /proc/PID/sched says (6: deadline).
policy() { awk '$1 == "policy" { print $3 }' "/proc/$1/sched" 2>/dev/null; }

# prop UNIT PROPERTY: a property of a systemd unit, as systemctl shows it.
prop() { systemctl show -p "$2" --value "$1"; }

# CPU N's root domain's capacity per CPU (dl_bw->bw), from debugfs.
cpu_bw() {
	awk -v cpu="dl_rq[$1]:" '$1 == cpu { f = 1; next } f && /dl_bw->bw/ { print $3; exit }' /sys/kernel/debug/sched/debug
}

# cap_sum LIST: the sum of the cpu_capacity of the CPUs of LIST (the
# kernel's list form, "0-2,5"), as sysfs says (1024, a CPU of the biggest
# kind, where the file is absent: CPUs alike).
cap_sum() { caps "$1" | awk '{ s += $1 } END { print s + 0 }'; }

# caps LIST: the cpu_capacity of each CPU of LIST, a line each (as cap_sum).
caps() {
	echo "$1" | tr ',' '\n' | while IFS=- read -r a b; do
		c=$a
		while [ "$c" -le "${b:-$a}" ]; do
			cat "/sys/devices/system/cpu/cpu$c/cpu_capacity" 2>/dev/null || echo 1024
			c=$((c + 1))
		done
	done
}

# rd_cap CPU LIST: what the root domain of CPU, whose CPUs are LIST, may
# admit: cap_scale(dl_bw->bw, the sum of its CPUs' capacities), as
# __dl_overflow() computes it (dl_bw->bw x CPUs where CPUs are alike).
rd_cap() { echo $((($(cpu_bw "$1") * $(cap_sum "$2")) >> 10)); }

# One server of CPU N (fair_server, ext_server) in the kernel's units
# (to_ratio(period, runtime)).  Its files may refuse a read (6.18): then
# the default, 50 ms every 1 s.
server_bw() {
	d=/sys/kernel/debug/sched/$1/cpu$2
	fr=$(cat "$d/runtime" 2>/dev/null) || fr=50000000
	fp=$(cat "$d/period" 2>/dev/null) || fp=1000000000
	echo $(((fr << 20) / fp))
}

# The deadline servers the kernel counts on CPU N (the name says fair:
# it is the fair server alone but while a BPF scheduler runs); 0 on a
# kernel without them (6.1).  Where the kernel has an ext server (7.x),
# a BPF scheduler attached (sched_ext enabled) adds it, and takes the
# fair server out when it switched every task (docs/kernel-notes.md,
# "The ext server").
fair_bw() {
	if ! [ -d /sys/kernel/debug/sched/fair_server ]; then
		echo 0
		return
	fi
	fb_scx=$(cat /sys/kernel/sched_ext/state 2>/dev/null)
	fb_all=$(cat /sys/kernel/sched_ext/switch_all 2>/dev/null)
	fb=0
	if ! [ -d /sys/kernel/debug/sched/ext_server ] || [ "$fb_scx" != enabled ] || [ "$fb_all" != 1 ]; then
		fb=$(server_bw fair_server "$1")
	fi
	if [ -d /sys/kernel/debug/sched/ext_server ] && [ "$fb_scx" = enabled ]; then
		fb=$((fb + $(server_bw ext_server "$1")))
	fi
	echo "$fb"
}

# A bandwidth as the tools print it: four decimals, rounded (dl_bw_format).
fmt_bw() {
	v=$1
	sign=""
	if [ "$v" -lt 0 ]; then sign=-; v=$((-v)); fi
	s=$(((v * 10000 + 524288) >> 20))
	printf '%s%d.%04d\n' "$sign" $((s / 10000)) $((s % 10000))
}

# Linux 6.12 and 6.13 drop the fair servers from a root domain's count
# when a rebuild keeps the root domain, and count them again when one
# makes it (docs/kernel-notes.md, "The fair server"): either may be seen.
case $(uname -r) in
6.12.* | 6.13.*) FAIR_DROPPABLE=1 ;;
*) FAIR_DROPPABLE=0 ;;
esac

# counts CPU TASKS [NCPUS]: the kernel's total_bw of CPU's root domain
# (NCPUS CPUs, from CPU on) is TASKS plus its fair servers, or, where a
# rebuild may drop them, TASKS alone.  Says which.
counts() {
	t=$(total_bw "$1")
	f=0
	c=$1
	while [ "$c" -lt $(($1 + ${3:-1})) ]; do
		f=$((f + $(fair_bw "$c")))
		c=$((c + 1))
	done
	if [ "$t" = $(($2 + f)) ]; then
		[ "$f" = 0 ] || echo "# CPU $1: total_bw $t, its fair servers ($f) counted"
		return 0
	fi
	if [ "$FAIR_DROPPABLE" = 1 ] && [ "$t" = "$2" ]; then
		echo "# CPU $1: total_bw $t, its fair servers ($f) not counted now"
		return 0
	fi
	[ "$FAIR_DROPPABLE" = 1 ] && f="$f, or not counted"
	echo "# CPU $1: total_bw $t, expected $2 + fair servers ($f)"
	return 1
}

# deadline_or_gone PID: wait (up to 30 s) until PID runs under
# SCHED_DEADLINE or has exited: a dl-run started in the background sets
# its policy when the guest gets to it, which a loaded TCG host delays.
deadline_or_gone() {
	i=0
	while [ "$i" -lt 300 ] && kill -0 "$1" 2>/dev/null && [ "$(policy "$1")" != 6 ]; do
		sleep 0.1
		i=$((i + 1))
	done
}

# released CPU BW: wait (up to 5 s) until CPU's root domain counts BW
# again.  A deadline task that exited holds its bandwidth, and an
# inactive timer, until its 0-lag time; a CPU taken offline before that
# crashes 6.12 (docs/kernel-notes.md, "CPU hotplug after a deadline
# exit"): a suite waits for this before it takes a CPU offline.
released() {
	i=0
	while [ "$i" -lt 50 ] && [ "$(total_bw "$1")" != "$2" ]; do
		sleep 0.1
		i=$((i + 1))
	done
	[ "$(total_bw "$1")" = "$2" ] && return 0
	echo "# CPU $1: total_bw $(total_bw "$1"), expected $2 once the exited tasks are released"
	return 1
}

# layout_before UNIT SEEN: the partition rt (libdl-rt.slice, CPU 0) that
# dl-part.service makes at boot from dl-part.conf, made before UNIT,
# which requires it, started; SEEN is the file where UNIT wrote the
# partition's state as it found it.
layout_before() {
	P=/sys/fs/cgroup/libdl.slice/libdl-rt.slice
	check "the partition exists, root, from the file" eq "$(cat $P/cpuset.cpus.partition 2>&1)" root
	check "with CPU 0" eq "$(cat $P/cpuset.cpus.effective 2>&1)" 0
	check "$1 found the partition already made when it started" eq "$(cat "$2" 2>&1)" root
	made=$(prop dl-part.service ExecMainExitTimestampMonotonic)
	started=$(prop "$1" ExecMainStartTimestampMonotonic)
	check "dl-part.service finished ($made us) before $1 started ($started us)" test "$made" -gt 0 -a "$made" -le "$started"
}

done_testing() {
	echo "1..$n"
	[ "$failed" = 0 ]
}

# The cpuset controller's mount, and whether it is cgroup v2.
if [ -f /sys/fs/cgroup/cgroup.controllers ]; then
	CS=/sys/fs/cgroup
	V2=1
else
	CS=/sys/fs/cgroup/cpuset
	V2=0
fi

# Everything a layout could change, as text: the cgroup tree with each
# cgroup's cpuset settings, the root's, and the state file.
snapshot() {
	find "$CS" -type d | sort | while read -r d; do
		line="$d:"
		for f in cpuset.cpus cpuset.mems cpuset.cpu_exclusive cpuset.sched_load_balance \
			cpuset.cpus.partition cgroup.subtree_control; do
			[ -f "$d/$f" ] && line="$line $f=$(cat "$d/$f" 2>/dev/null)"
		done
		echo "$line"
	done
	[ -e /run/libdl/layout ] && echo "state file"
}

# Every task of the system is in the root cgroup (/proc/PID/cpuset).
all_in_root() {
	away=$(cat /proc/[0-9]*/task/[0-9]*/cpuset 2>/dev/null | grep -vc '^/$')
	[ "$away" = 0 ] && return 0
	echo "# $away tasks outside the root cgroup"
	return 1
}

# PF_NO_SETAFFINITY (0x04000000) in /proc/TID/stat's flags: cannot move.
pinned() {
	flags=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | awk '{ print $7 }')
	[ -n "$flags" ] && [ $((flags & 0x04000000)) != 0 ]
}

# The count of system writes the test build reports in $err under
# LIBDL_TEST_FAIL_WRITE.
made() { echo "$err" | sed -n 's/^libdl-test: \([0-9]*\) system writes$/\1/p'; }

# at_each_write KIND JUDGE ARGS...: /bin/dl-part-test ARGS once per
# system write it makes, that write failing (KIND fail:
# LIBDL_TEST_FAIL_WRITE=$w) or a signal sent just before it (KIND
# signal: SIGINT, SIGTERM and SIGHUP in turn; KIND kill: SIGKILL), in $s:
# LIBDL_TEST_SIGNAL_AT_WRITE="$w $s".  A destroy gets a layout
# (dl-part create ARGS' partition 0) before each.  Then JUDGE ARGS runs,
# with $w, $s, $rc, $out and $err, and fails when that write left
# something wrong (it notes what and cleans up).  Leaves the count of
# writes in $total and of bad ones in $bad.  JUDGE may use the suite's
# own `unchanged`, which says whether everything is as it was.
at_each_write() {
	kind=$1
	judge=$2
	shift 2
	[ "$1" = destroy ] && /bin/dl-part create --partition 0 >/dev/null 2>&1
	LIBDL_TEST_FAIL_WRITE=100000 run /bin/dl-part-test "$@"
	total=$(made)
	[ "$1" = create ] && /bin/dl-part destroy >/dev/null 2>&1
	bad=0
	w=1
	while [ "$w" -le "${total:-0}" ]; do
		[ "$1" = destroy ] && /bin/dl-part create --partition 0 >/dev/null 2>&1
		case $kind in
		fail) s=0 ;;
		kill) s=9 ;;
		*) case $((w % 3)) in 0) s=2 ;; 1) s=15 ;; *) s=1 ;; esac ;;
		esac
		if [ "$kind" = fail ]; then
			LIBDL_TEST_FAIL_WRITE=$w run /bin/dl-part-test "$@"
		else
			LIBDL_TEST_SIGNAL_AT_WRITE="$w $s" run /bin/dl-part-test "$@"
		fi
		"$judge" "$@" || bad=$((bad + 1))
		w=$((w + 1))
	done
}

# Judges for at_each_write.  rolled_back: a failed write of create leaves
# nothing (a create that made fewer writes this time succeeds and is
# destroyed); of destroy, the next destroy finishes it.
rolled_back() {
	if [ "$1" = create ] && [ "$rc" = 0 ] && [ "$(made)" -lt "$w" ]; then
		/bin/dl-part destroy >/dev/null 2>&1
		return 0
	fi
	if [ "$1" = destroy ]; then
		[ "$rc" = 0 ] || /bin/dl-part destroy >/dev/null 2>&1
		unchanged && return 0
	elif [ "$rc" = 1 ] && unchanged; then
		return 0
	fi
	note "write $w of $1: exit $rc: $err"
	/bin/dl-part destroy >/dev/null 2>&1
	return 1
}

# signalled: the signal ended the command once it had rolled back (create)
# or finished (destroy, repair): no layout, nothing changed.
signalled() {
	r=$rc
	e=$err
	run /bin/dl-part list
	[ "$r" = $((128 + s)) ] && [ "$out" = "no layout" ] && unchanged && return 0
	note "signal $s before write $w of $1: exit $r; list: $out; $e"
	/bin/dl-part destroy >/dev/null 2>&1
	return 1
}
