# create killed with SIGKILL after each of its steps, then a fresh destroy
# restores the state before; two creates at once; every system write of
# create and destroy failing, and of create, destroy and repair
# signalled; a repair killed at each write, its leftovers reported by
# status and removed by the next command.

before=$(snapshot)
step=1
while [ $step -lt 30 ]; do
	LIBDL_TEST_KILL_AFTER_STEP=$step run /bin/dl-part-test create --partition 0
	[ "$rc" = 0 ] && break
	check "create is killed after step $step" eq "$rc" 137
	# From step 1 (the state) on, status knows the layout it left.
	run /bin/dl-part status
	check "status after the kill at step $step shows the layout" has "$out" "layout (cgroup v"
	# v2's step 2 enables cpuset at the root, the state saying so first:
	# killed there, nothing else made, status calls the partition gone.
	[ "$V2" = 1 ] && [ "$step" = 2 ] &&
		check "v2, killed with only cpuset enabled: status exits 1, the partition INVALID" eq "$rc:$(echo "$out" | grep -c INVALID)" 1:1
	run /bin/dl-part destroy
	check "destroy after the kill at step $step succeeds" eq "$rc" 0
	[ "$rc" = 0 ] || note "$err"
	check "destroy after the kill at step $step restores the cgroups and settings" eq "$(snapshot)" "$before"
	check "destroy after the kill at step $step puts every task back in the root" all_in_root
	step=$((step + 1))
done
note "create has $((step - 1)) steps"
check "create completes once past its last step" eq "$rc" 0
check "and that took more than 3 steps" test "$step" -gt 4
run /bin/dl-part destroy
check "the last layout is destroyed" eq "$(snapshot)" "$before"

for round in 1 2 3; do
	/bin/dl-part create --partition 0 >/tmp/a.out 2>/tmp/a.err &
	pa=$!
	/bin/dl-part create --partition one=1 --cluster 0 >/tmp/b.out 2>/tmp/b.err &
	pb=$!
	wait $pa
	ra=$?
	wait $pb
	rb=$?
	check "round $round: exactly one of two concurrent creates wins ($ra, $rb)" eq $(((ra == 0) + (rb == 0))) 1
	if [ "$ra" = 0 ]; then loser=$(cat /tmp/b.err); winner=partition0; else loser=$(cat /tmp/a.err); winner=one; fi
	case $loser in
	*"another dl-part create, destroy or repair is running"* | *"a layout exists already"*) ok "round $round: the loser is told why" ;;
	*) not_ok "round $round: the loser is told why"; note "it said: $loser" ;;
	esac
	run /bin/dl-part list
	check "round $round: the winner's layout is in place" has "$out" "$winner "
	run /bin/dl-part destroy
	check "round $round: destroy restores everything" eq "$(snapshot)" "$before"
	check "round $round: every task is back in the root" all_in_root
done

# Everything as before: the cgroup tree with its settings, the root's
# subtree_control, the state file, and every task in the root.
unchanged() { [ "$(snapshot)" = "$before" ] && all_in_root >/dev/null; }

# Every system write of create, then of destroy, fails in turn (the test
# build's LIBDL_TEST_FAIL_WRITE=N): each create is rolled back, each
# destroy finished by the next, with the cgroup tree, subtree_control and
# every task as before.  (On v1 the count is of tasks too: a task that
# exits meanwhile makes one write fewer.)
at_each_write fail rolled_back create --partition 0
note "create makes $total system writes"
check "create has system writes to fail ($total)" test "${total:-0}" -gt 3
check "each of them failing is rolled back, every task back in the root" eq "$bad" 0
at_each_write fail rolled_back destroy
note "destroy makes $total system writes"
check "destroy has system writes to fail ($total)" test "${total:-0}" -gt 3
check "each of them failing, then destroy, restores everything" eq "$bad" 0

# SIGINT, SIGTERM and SIGHUP in turn, sent before each system write of
# create, destroy and repair (LIBDL_TEST_SIGNAL_AT_WRITE="N SIG"): the
# create is rolled back, the destroy and the repair finish, and then the
# signal ends the command; nothing is left that the state does not say.
for cmd in "create --partition 0" destroy repair; do
	at_each_write signal signalled $cmd
	check "${cmd%% *} has system writes to interrupt ($total)" test "${total:-0}" -gt 1
	check "a signal before each of them leaves everything as before" eq "$bad" 0
done

# A repair killed outright (SIGKILL, which nothing holds back) before
# each of its system writes in turn: what it leaves (its probe; on v2 the
# cpuset it enabled in the root's subtree_control) dl-part status reports
# as LEFT BEHIND, exiting 1, and the next repair, create or destroy, in
# turn, removes when it starts.
left=0
swept() {
	r=$rc
	run /bin/dl-part status
	if [ "$(snapshot)" != "$before" ]; then
		left=$((left + 1))
		if [ "$rc" != 1 ] || ! has "$out" "LEFT BEHIND: " >/dev/null || ! has "$out" "run dl-part repair" >/dev/null; then
			note "SIGKILL before write $w of repair (exit $r): status exits $rc and says: $out"
			/bin/dl-part repair >/dev/null 2>&1
			return 1
		fi
	elif has "$out" "LEFT BEHIND" >/dev/null; then
		note "SIGKILL before write $w of repair: nothing changed, but status says: $out"
		return 1
	fi
	case $((w % 3)) in
	0) run /bin/dl-part repair ;;
	1) run /bin/dl-part create --partition 0 && /bin/dl-part destroy >/dev/null 2>&1 ;;
	*) run /bin/dl-part destroy ;; # no layout: exit 1
	esac
	status_after=$(/bin/dl-part status 2>&1)
	unchanged && ! has "$status_after" "LEFT BEHIND" >/dev/null && return 0
	note "SIGKILL before write $w of repair, then the next command: $(snapshot | grep -vxF "$before")"
	return 1
}
at_each_write kill swept repair
note "a repair killed before each of its $total writes left something $left times"
check "repair has system writes to kill at ($total)" test "${total:-0}" -gt 1
check "and some kill left something behind" test "$left" -gt 0
check "status reports each leftover, and the next command removes it" eq "$bad" 0

done_testing
