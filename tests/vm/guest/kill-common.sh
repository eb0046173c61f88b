# create killed with SIGKILL after each of its steps, then a fresh destroy
# restores the state before; and two creates at once.

before=$(snapshot)
step=1
while [ $step -lt 30 ]; do
	LIBDL_TEST_KILL_AFTER_STEP=$step run /bin/dl-part-test create --partition 0
	[ "$rc" = 0 ] && break
	check "create is killed after step $step" eq "$rc" 137
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

done_testing
