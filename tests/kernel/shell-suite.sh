# tests/kernel/shell-suite.sh: what the kernel suites written in bash share,
# sourced after their SKIP checks: the kernel suites' lock (tests/lib/
# testlib.c holds the same: one suite at a time), a scratch folder $tmp
# (made from the name given), the suite's background processes killed at
# exit (listed in pids; SIGTERM), and TAP's ok and notok (notok prints the files
# named after the description, each line under "# ").
#
#   . "$here/shell-suite.sh" NAME
exec 9>>/run/lock/libdl-kernel-tests.lock && flock 9

tmp=$(mktemp -d "/tmp/libdl-$1.XXXXXX") || exit 1
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' HUP INT TERM

n=0
ok() {
	n=$((n + 1))
	echo "ok $n - $*"
}
notok() {
	n=$((n + 1))
	echo "not ok $n - $1"
	shift
	for f in "$@"; do [ -e "$f" ] && sed 's/^/# /' "$f"; done
}
