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
