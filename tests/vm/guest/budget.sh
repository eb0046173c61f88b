# budget.sh: the budget a deadline job has left, on a kernel that gives
# it (sched_getattr's SCHED_GETATTR_FLAG_DL_DYNAMIC, Linux 7.1): a
# periodic loop that spins reads its own (dl_periodic_budget(3), through
# dl-spin --budget) around 2ms of its CPU time, and dl-stat shows a
# spinning shell loop's, a program that knows nothing of libdeadline.
# Sourced after lib.sh; a few seconds of guest time.

# A kernel that refuses the flag makes dl-spin say "unsupported": on
# this kernel, a failure.
run dl-spin --budget 6
check "dl-spin --budget: a loop reads its own budget (status $rc${err:+: $err})" [ "$rc" = 0 ]
if [ "$out" = unsupported ]; then
	not_ok "this kernel ($(uname -r)) gives no budget: SCHED_GETATTR_FLAG_DL_DYNAMIC is Linux 7.1's"
else
	note "$out"
	# Per job (runtime 10ms, deadline 30ms, period 50ms): never more
	# than the runtime left.  And unless a stall of the host was
	# charged to the loop (kernel-notes, "A stalled virtual machine":
	# it then runs out, owes the kernel the rest, and its deadline moves
	# periods later), in at least 4 of the 6 jobs: the two readings
	# share their deadline (apart by the drift of the kernel's two
	# clocks: some us under TCG), ahead and at most 30ms away, 30ms
	# after the wake-up at its release or later (the CBS wake-up rule),
	# and less runtime is left after 2ms of spinning, by about that much.
	bad=$(echo "$out" | awk '
		/^job / {
			jobs++
			rel = $4; t0 = $6; r0 = $8; d0 = $10; t1 = $12; r1 = $14; d1 = $16
			if (!(r0 <= 10e6 && r1 <= 10e6)) print "more than the runtime left: " $0
			if (d1 - d0 < 100e3 && d0 - d1 < 100e3 && d0 > t0 && d0 <= t0 + 30.1e6 && d0 >= rel + 29e6 &&
			    r1 < r0 && r0 - r1 >= 1e6 && r0 - r1 <= 10e6)
				usual++
			else
				print "# not as usual (a stall?): " $0
		}
		END { if (jobs != 6 || usual < 4) print jobs + 0 " jobs, " usual + 0 " as usual: not 6 and at least 4" }')
	note "$(echo "$bad" | grep '^#')"
	bad=$(echo "$bad" | grep -v '^#')
	check "each job's budget is the kernel's: at most its runtime, falling while it spins, its deadline one relative deadline after its wake-up" eq "$bad" ""
fi

# A shell loop that spins under 30ms every 100ms: dl-stat's JSON gives
# the kernel's runtime left, never more than the runtime, in every
# reading, and its absolute deadline on time_ns's clock.  Unless a stall
# of the host was charged to it (kernel-notes, "A stalled virtual
# machine": then it owes the kernel that much, and its deadline moves
# as many periods later), the runtime left is 0 or below by at most a
# few ms while it is throttled, and its deadline within one period of
# the reading: so in at least 3 of 5 readings.
/bin/dl-run -r 30ms -p 100ms -- sh -c 'while :; do :; done' &
spin=$!
i=0
while [ "$(policy $spin)" != 6 ] && [ "$i" -lt 50 ]; do
	sleep 0.1
	i=$((i + 1))
done
bad=""
usual=0
for k in 1 2 3 4 5; do
	run dl-stat --json --tasks -p "$spin"
	line=$(echo "$out" | awk -v s="$spin" '
		{
			now = $0; sub(/.*"time_ns":/, "", now); sub(/[,}].*/, "", now); now += 0
			left = $0; sub(/.*"remaining_runtime_ns":/, "", left); sub(/[,}].*/, "", left); left += 0
			dl = $0; sub(/.*"abs_deadline_ns":/, "", dl); sub(/[,}].*/, "", dl); dl += 0
			if (index($0, "\"remaining_runtime_ns\":") == 0 || index($0, "\"abs_deadline_ns\":") == 0 ||
			    index($0, "\"tid\":" s ",") == 0) { print "no budget: " $0; exit }
			if (left > 30e6) print "left " left ", more than the runtime"
			printf "# left %d, deadline in %d\n", left, dl - now
			if (left > -20e6 && dl - now <= 100e6 && dl - now > -20e6) print "usual"
		}')
	note "$(echo "$line" | grep '^#')"
	echo "$line" | grep -qx usual && usual=$((usual + 1))
	bad="$bad$(echo "$line" | grep -v '^#' | grep -vx usual)"
	sleep 0.13
done
[ "$usual" -ge 3 ] || bad="$bad only $usual of 5 readings within a period"
check "dl-stat --json: a spinning thread's runtime left and deadline, the kernel's" eq "$bad" ""
run dl-stat --watch 0.2 -n 2 --tasks -p "$spin"
note "$(echo "$out" | tail -n 4)"
check "dl-stat --watch: LEFT and DL IN, with a figure" has "$(echo "$out" | grep -A1 ' LEFT  *DL IN' | tail -n 1)" "sh"
kill "$spin"
wait "$spin" 2>/dev/null
