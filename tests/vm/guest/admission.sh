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
	ncpus=$(field ncpus "$json")
	lfree=$(field free_bw "$json")
	kfree=""
	[ -n "$cpu" ] && kfree=$(($(cpu_bw "$cpu") * ncpus - $(total_bw "$cpu")))
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
	cpu=${cpu:-0}
	left=$(($(cpu_bw "$cpu") * ncpus - $(total_bw "$cpu")))
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
