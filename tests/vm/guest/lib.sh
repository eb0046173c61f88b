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
