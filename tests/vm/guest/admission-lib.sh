# admission-lib.sh: what dl-run --check predicts against what the kernel
# then does, as functions: try one request both ways, fill a place down
# to its edge (a request exactly at it and one a unit past it), release
# what was held.  The free bandwidth the library reports is compared with
# what the kernel's own figures leave: debugfs' dl_bw->bw and total_bw,
# the capacities of sysfs (rd_cap).  Sourced after lib.sh by
# admission.sh and capacity.sh, which set where (dl-run's place options)
# and call fill, then release.

asked=0
wrong=0
badfree=0
drifted=0
bw_before=""
held=""

# launch WHERE RUNTIME PERIOD [DEADLINE]: dl-run WHERE runs a sleep under
# the reservation; got is "admitted" (it runs under SCHED_DEADLINE),
# "refused" (dl-run exited 125, its own failure) or what else happened.
launch() {
	# shellcheck disable=SC2086
	/bin/dl-run $1 -r "$2" -p "$3" ${4:+-d "$4"} -- /bin/sleep 600 2>/tmp/adm.err &
	lp=$!
	got=""
	tries=0
	while [ -z "$got" ] && [ $tries -lt 200 ]; do
		if ! kill -0 "$lp" 2>/dev/null; then
			wait "$lp"
			st=$?
			got=refused
			[ "$st" = 125 ] || got="exit $st: $(cat /tmp/adm.err)"
		elif [ "$(policy "$lp")" = 6 ]; then
			got=admitted
			held="$held $lp"
		else
			sleep 0.05
		fi
		tries=$((tries + 1))
	done
	[ -n "$got" ] || got="no verdict in 10 s"
}

field() { echo "$2" | sed -n "s/.*\"$1\":\(-*[0-9][0-9]*\).*/\1/p" | head -n 1; }

# try WHERE RUNTIME PERIOD [DEADLINE]: predicted, then asked for.  The
# text form's exit status is compared too, every third request (a
# process start costs a third of a second under TCG).
try() {
	asked=$((asked + 1))
	# shellcheck disable=SC2086
	run /bin/dl-run --check --json $1 -r "$2" -p "$3" ${4:+-d "$4"}
	json=$out
	json_rc=$rc
	text_rc=$rc
	if [ $((asked % 3)) = 1 ]; then
		# shellcheck disable=SC2086
		run /bin/dl-run --check $1 -r "$2" -p "$3" ${4:+-d "$4"}
		text_rc=$rc
	fi
	pred=refused
	case $json in *'"kernel_admits":true'*) pred=admitted ;; esac
	case $json in *'"drift":"drifted"'*) drifted=$((drifted + 1)) ;; esac
	cpu=$(field cpu "$json")
	rdcpus=$(echo "$json" | sed -n 's/.*"root_domain":{"cpus":"\([-0-9,]*\)".*/\1/p')
	lfree=$(field free_bw "$json")
	kfree=""
	[ -n "$cpu" ] && kfree=$(($(rd_cap "$cpu" "$rdcpus") - $(total_bw "$cpu")))
	launch "$1" "$2" "$3" "$4"
	want_rc=1
	[ "$pred" = admitted ] && want_rc=0
	if [ "$pred" != "$got" ] || [ "$text_rc" != "$want_rc" ] || [ "$json_rc" != "$want_rc" ]; then
		wrong=$((wrong + 1))
		note "DISAGREE: ${1:-machine} -r $2 -p $3${4:+ -d $4}: --check said $pred (exit $json_rc, text $text_rc), the kernel: $got"
		note "$json"
	fi
	if [ "$lfree" != "$kfree" ]; then
		badfree=$((badfree + 1))
		note "free: ${1:-machine} -r $2 -p $3: the library says $lfree, the kernel's figures leave $kfree"
	fi
	[ "$got" = admitted ] && nadm=$((nadm + 1))
	[ "$got" = refused ] && nref=$((nref + 1))
}

# fill WHERE NAME: sizes down from 0.4 until the kernel refuses each,
# then the edge: a period of 2^20 ns makes the runtime in ns the
# bandwidth itself, so a request can be exactly what is left.
fill() {
	name=$2
	nadm=0
	nref=0
	[ -n "$bw_before" ] || bw_before=$(every_bw)
	for rp in "400ms 1s" "50ms 500ms 250ms" "400us 20ms 5ms"; do
		# shellcheck disable=SC2086
		set -- $rp
		k=0
		while [ $k -lt 12 ]; do
			try "$where" "$1" "$2" "${3:-}"
			[ "$got" = admitted ] || break
			k=$((k + 1))
		done
	done
	edge
}

# edge: after a try in $where, a request a unit past what the kernel's
# figures leave there and one exactly at it: a period of 2^20 ns makes
# the runtime in ns the bandwidth itself.
edge() {
	cpu=${cpu:-0}
	left=$(($(rd_cap "$cpu" "$rdcpus") - $(total_bw "$cpu")))
	if [ "$left" -ge 1025 ]; then
		try "$where" $((left + 1)) 1048576
		try "$where" "$left" 1048576
	fi
	note "$name: $nadm admitted, $nref refused; the kernel's count: $(total_bw "$cpu") ($(fmt_bw "$(total_bw "$cpu")")), fair servers $(field fair_bw "$json") counted, $(field uncounted_fair_bw "$json") not"
}

# Every CPU's total_bw, on one line.
every_bw() {
	awk '/^dl_rq\[/ { c = $1 } c && /total_bw/ { printf "%s %s ", c, $3; c = "" }' /sys/kernel/debug/sched/debug
}

# Every held reservation ended, and their bandwidth given back: the
# kernel's count as before the first fill since the last release.  A
# task that ended gives its bandwidth back at its 0-lag time, up to a
# period (1 s here) after; under a loaded TCG the timer fires later, so
# the count is waited for (5 s at most), not assumed after a fixed time.
release() {
	# shellcheck disable=SC2086
	[ -n "$held" ] && kill $held 2>/dev/null
	for p in $held; do wait "$p" 2>/dev/null; done
	held=""
	sleep 1.2
	w=0
	while [ -n "$bw_before" ] && [ "$(every_bw)" != "$bw_before" ] && [ $w -lt 38 ]; do
		sleep 0.1
		w=$((w + 1))
	done
	[ -z "$bw_before" ] || [ "$(every_bw)" = "$bw_before" ] ||
		note "release: the kernel's count is $(every_bw)after 5 s, was $bw_before"
	bw_before=""
}

