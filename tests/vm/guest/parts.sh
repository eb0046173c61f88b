# parts.sh NAME:SECONDS...: several VM suites in one boot (vm-test, for a
# suite with "# vm-part:" lines).  Each part, /parts/NAME.sh (the suite's
# own script, as it runs in a boot of its own), runs in turn in a session
# of its own with its stdin /dev/null, framed by the lines
#
#   LIBDL-PART-START NAME
#   LIBDL-PART-END NAME STATUS
#
# which vm-test turns into the part's TAP lines, each named after it.  A
# part still running after SECONDS is killed (SIGKILL, its whole
# session), its STATUS then "timeout".  After each part, whatever it
# left running is killed, and the cgroup tree and the layout's state are
# compared with those before the first: what differs is said on a line
# "LIBDL-PART-LEFT NAME: WHAT" (a failure of that part) and undone, so
# that the next part starts on the system a boot of its own gives it.
# Sourced by nothing: run-vm.sh runs it as the boot's script.
. /guest/lib.sh

# The pids of session $1 (field 6 of /proc/PID/stat, read after the
# command's name, which may hold spaces and parentheses).
session_pids() {
	for d in /proc/[0-9]*; do
		s=$(sed 's/.*) //' "$d/stat" 2>/dev/null | cut -d' ' -f4)
		[ "$s" = "$1" ] && echo "${d#/proc/}"
	done
}

# Every cgroup below the cpuset mount removed, deepest first, and the
# root's settings as a boot leaves them; the layout's state gone.
reset_tree() {
	find "$CS" -mindepth 1 -type d | sort -r | while read -r d; do
		rmdir "$d" 2>/dev/null
	done
	if [ "$V2" = 1 ]; then
		for c in $(cat "$CS/cgroup.subtree_control"); do
			echo "-$c" >"$CS/cgroup.subtree_control" 2>/dev/null
		done
	else
		echo 1 >"$CS/cpuset.sched_load_balance" 2>/dev/null
	fi
	rm -rf /run/libdl
}

parts_before=$(snapshot)
for spec in "$@"; do
	name=${spec%:*}
	secs=${spec##*:}
	echo "LIBDL-PART-START $name"
	# A background job is not a group leader, so setsid runs the part
	# in this very process: its pid is its session's id.
	setsid sh "/parts/$name.sh" </dev/null &
	pid=$!
	(
		trap 'kill $sp 2>/dev/null; exit 0' TERM
		sleep "$secs" &
		sp=$!
		wait $sp
		: >"/tmp/.part-timeout-$name"
		# shellcheck disable=SC2046
		kill -KILL $(session_pids "$pid") 2>/dev/null
	) &
	dog=$!
	wait "$pid"
	status=$?
	kill "$dog" 2>/dev/null
	wait "$dog" 2>/dev/null
	[ -e "/tmp/.part-timeout-$name" ] && status=timeout
	# What it started and left running.
	left=$(session_pids "$pid")
	if [ -n "$left" ]; then
		echo "# $name left running: $(echo "$left" | tr '\n' ' ')"
		# shellcheck disable=SC2086
		kill -KILL $left 2>/dev/null
	fi
	echo
	echo "LIBDL-PART-END $name $status"
	# Its processes may take a moment to leave their cgroups.
	i=0
	while [ "$(snapshot)" != "$parts_before" ] && [ "$i" -lt 20 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	now=$(snapshot)
	if [ "$now" != "$parts_before" ]; then
		what=$(printf '%s\n' "$now" | grep -vxF "$parts_before" | head -n 3 | tr '\n' ' ')
		echo "LIBDL-PART-LEFT $name: ${what:-a cgroup removed or its settings changed}"
		reset_tree
	fi
done
exit 0
