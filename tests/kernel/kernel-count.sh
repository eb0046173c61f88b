#!/bin/bash
# dl-stat --kernel: every deadline thread's jobs, misses and throttles as
# the kernel's scheduler shows them to a BPF program (utils/kcount.bpf.c;
# dl-stat(1), "Counted by the kernel").  Threads started by chrt(1), not
# by libdeadline (tests/kernel/dl-jobs): runtime 10ms, deadline 20ms,
# period 40ms, a job released every 100ms that runs 2ms of CPU, every 5th
# one 16ms instead: longer than the runtime, so that the kernel throttles
# it once (its 4ms tick may overshoot the runtime, never by 6ms) and it
# ends after the next period's replenishment, 40ms in: after its deadline.
# Counted from a baseline read before their first release (3s after
# their start), 20 jobs are exactly 20 for the kernel, with 4 misses and
# 4 throttles; a thread without the long jobs 0 and 0; a libdeadline loop that publishes (dl-jobs --publish) the
# same misses as the kernel's.  Three counters at once (table, JSON,
# Prometheus), each ended by a different signal (SIGINT, SIGTERM,
# SIGKILL): bpftool lists none of their programs afterwards.  rt-app
# (Debian's 1.0) beside them, a SCHED_DEADLINE thread of its own: runtime
# 20ms, deadline and period 100ms, a timer of 100ms on an absolute grid,
# 20 jobs of which every 5th spins 30ms of wall-clock time ("runtime"):
# throttled after 20ms, it ends only after the replenishment at its
# wake-up plus the period, past the kernel's deadline and past its next
# release.  Its own per-job log (negative slack: ended after the next
# release, which is the deadline here) has exactly the kernel's misses:
# 4, and 4 throttles.  Records that die with their threads
# (tests/kernel/kc-tids): a deadline process throttled in its exit path
# (after the sched_process_exit tracepoint: from Linux 6.15 its memory is
# freed there), and a thread that is not its process's leader and execs
# (its old id freed); neither's id keys a record of any counter's map
# (bpftool) once it is gone, and a process given that very id
# (clone3 with set_tid) is counted from 0 jobs, 0 misses, 0 throttles,
# not from the dead thread's.  No record failed to be made
# (kernel_records_failed 0).  As nobody:
# the refusal that names the fix, and the table still shown (with the
# counters nobody may read: root's loop's are not among them).  Without
# the kernel's BTF, hidden in a mount namespace of the counter's own (an
# empty folder over /sys/kernel/btf: a kernel built without
# CONFIG_DEBUG_INFO_BTF; an empty file over its vmlinux): the refusal
# that names BTF, the table and the published counters still shown, no
# program left loaded.
#
# Root, under the kernel suites' lock; SKIP where dl-stat has no BPF
# (configure --disable-bpf) or the kernel refuses it, with the reason.  TAP.
set -u
build=${top_builddir:-.}
here=$(cd "$(dirname "$0")" && pwd)
dl_stat=$build/utils/dl-stat
jobs=$build/tests/kernel/dl-jobs

skip() {
	echo "1..0 # SKIP $*"
	exit 0
}
[ "$(id -u)" = 0 ] || skip "deadline threads and BPF need root"
for tool in flock jq bpftool chrt setpriv; do
	command -v "$tool" >/dev/null 2>&1 || PATH=$PATH:/usr/sbin command -v "$tool" >/dev/null 2>&1 ||
		skip "no $tool (bootstrap.sh installs it)"
done
export PATH=$PATH:/usr/sbin
# Which of the kernel's refusals apply here: the counter's own words.
why=$("$dl_stat" --kernel --watch 0.01 -n 1 -t 2>&1 >/dev/null) ||
	skip "dl-stat --kernel cannot count here: ${why#*: --kernel: }"

. "$here/shell-suite.sh" kcount

check() { # check NAME FILES... -- COMMAND...
	local name=$1 files=()
	shift
	while [ "$1" != -- ]; do files+=("$1"); shift; done
	shift
	if "$@"; then ok "$name"; else notok "$name" "${files[@]}"; fi
}
ours() { # programs of dl-stat --kernel loaded now
	bpftool prog list 2>/dev/null | grep -c 'name libdl_kc_'
}
# Until $1 programs of ours are loaded, for 5s at most: a program is freed
# after its last reference goes, an RCU grace period later.
settle() {
	for _ in $(seq 50); do [ "$(ours)" = "$1" ] && return; sleep 0.1; done
}
echo "1..25"

settle 0 # the probe's above
before=$(ours)
# Its programs: two (the switch and the task iterator that reads the
# records back), and a third where the kernel has the throttle
# tracepoint (Linux 7.1 and later: its BTF names btf_trace_sched_dl_throttle_tp,
# as bpftool shows it), which then counts the throttles.
if bpftool btf dump file /sys/kernel/btf/vmlinux 2>/dev/null | grep -q "TYPEDEF 'btf_trace_sched_dl_throttle_tp'"; then
	per=3 thr_src=sched_dl_throttle_tp
else
	per=2 thr_src=sched_switch
fi
# Three counters side by side, each refresh written whole to its file
# (with SIGINT's default action, which a script's background jobs lose).
env --default-signal=INT "$dl_stat" --kernel --watch 0.3 -t --output "$tmp/table" 2>"$tmp/table.err" &
c_table=$!
env --default-signal=INT "$dl_stat" --kernel --watch 0.3 -t --json --output "$tmp/json" 2>"$tmp/json.err" &
c_json=$!
env --default-signal=INT "$dl_stat" --kernel --watch 0.3 -t --prometheus --pid-labels --output "$tmp/prom" 2>"$tmp/prom.err" &
c_prom=$!
pids+=("$c_table" "$c_json" "$c_prom")
for _ in $(seq 100); do
	[ -s "$tmp/table" ] && [ -s "$tmp/json" ] && [ -s "$tmp/prom" ] && break
	sleep 0.1
done
settle $((before + 3 * per))
check "three counters side by side: each one's $per programs attached ($((before + 3 * per)) programs of ours)" \
	"$tmp/table.err" "$tmp/json.err" "$tmp/prom.err" -- [ "$(ours)" = $((before + 3 * per)) ]

# The threads write "done" to files on tmpfs: a write that waits for a
# disk file system's journal (/tmp may be ext4) is a block after the
# last job, and the kernel would count the wake-up from it as a job.
shm=$(mktemp -d /dev/shm/libdl-kcount.XXXXXX) || exit 1
trap 'cleanup; rm -rf "$shm"' EXIT
ch=(chrt -d --sched-runtime 10000000 --sched-deadline 20000000 --sched-period 40000000 0)
# Their first release 3s after their start, the same for the three: the
# counts are read before it (the baseline) and after the last job.  What
# a thread's start blocks on (exec, mlockall's faults, the loop's publish
# file made in a folder the counters here list) is a job for the kernel,
# and how many there are depends on the machine's load (19 to 24 seen
# for 20 jobs counted from dl-stat's start): what is checked is the
# jobs released after the baseline, exactly.
"${ch[@]}" "$jobs" --first 3000 20 5 2000 16000 100000 20000 >"$shm/late.out" &
late=$!
"${ch[@]}" "$jobs" --first 3000 20 0 2000 0 100000 20000 >"$shm/never.out" &
never=$!
"${ch[@]}" "$jobs" --publish --first 3000 20 5 2000 16000 100000 20000 >"$shm/loop.out" &
loop=$!
pids+=("$late" "$never" "$loop")
# JSON: the kernel's counters of one thread, as "jobs misses throttles".
kjson() {
	jq -r --argjson t "$1" '.tasks[] | select(.tid == $t) | .kernel_counters |
		"\(.jobs) \(.deadline_misses) \(.throttles)"' "${2:-$tmp/json.now}"
}
for _ in $(seq 100); do
	grep -qs '^start' "$shm/late.out" && grep -qs '^start' "$shm/never.out" && grep -qs '^start' "$shm/loop.out" && break
	sleep 0.1
done
first=$(cat "$shm/late.out" "$shm/never.out" "$shm/loop.out" | awk '$1 == "start" {print $2}' | sort -n | head -1)
# The baseline: two refreshes of the JSON counter, the later one 0.5s
# or more after the first and 0.2s or more before the first release,
# with the same counts for the three threads (their starts done).
base=
prev= prev_t=0
for _ in $(seq 60); do
	cp "$tmp/json" "$tmp/json.b" 2>/dev/null
	t=$(jq -r .time_ns "$tmp/json.b" 2>/dev/null)
	[ -n "$t" ] && [ "$t" != null ] && [ "$t" -lt $((first - 200000000)) ] || break
	cur="$(kjson $late "$tmp/json.b")/$(kjson $never "$tmp/json.b")/$(kjson $loop "$tmp/json.b")"
	if [ "$cur" = "$prev" ] && [ "$t" -ge $((prev_t + 500000000)) ]; then
		base=$cur
		break
	fi
	[ "$cur" != "$prev" ] && prev=$cur prev_t=$t
	sleep 0.1
done
for _ in $(seq 100); do
	grep -qs 'done' "$shm/late.out" && grep -qs 'done' "$shm/never.out" && grep -qs 'done' "$shm/loop.out" && break
	sleep 0.1
done
sleep 1 # a refresh after the last job, in every file
check "the baseline: the three threads' counts read twice alike before their first release (${base:-none in time})" \
	"$tmp/json.b" -- [ -n "$base" ]
IFS=/ read -r b_late b_never b_loop <<<"${base:-0 0 0/0 0 0/0 0 0}"

# "JOBS MISSES THROTTLES" against the jobs N released since the
# baseline, and the misses and throttles, all exactly: JOBS less the
# baseline's, which had no miss and no throttle.
counted() { # "J M T" "BJ BM BT" N MISSES THROTTLES
	local j m t bj bm bt
	read -r j m t <<<"$1"
	read -r bj bm bt <<<"$2"
	[ -n "$j" ] && [ "$bm $bt" = "0 0" ] && [ $((j - bj)) = "$3" ] && [ "$m" = "$4" ] && [ "$t" = "$5" ]
}
cp "$tmp/json" "$tmp/json.now"
cp "$tmp/table" "$tmp/table.now"
cp "$tmp/prom" "$tmp/prom.now"
check "JSON: the chrt thread that overruns every 5th job: 20 jobs since the baseline ($b_late; now $(kjson $late)), 4 misses, 4 throttles" \
	"$tmp/json.now" "$shm/late.out" -- counted "$(kjson $late)" "$b_late" 20 4 4
check "JSON: the chrt thread that never overruns: 20 jobs since the baseline ($b_never; now $(kjson $never)), 0 misses, 0 throttles" \
	"$tmp/json.now" "$shm/never.out" -- counted "$(kjson $never)" "$b_never" 20 0 0
# The loop ends 20 jobs with dl_periodic_next(); its last call sleeps to
# the 21st release and returns, and the thread then prints and sleeps:
# a 21st wake-up-to-block, which the kernel counts as a job.
loopc=$(jq -r --argjson t "$loop" '.tasks[] | select(.tid == $t) |
	"\(.counters.jobs) \(.counters.deadline_misses) \(.kernel_counters.jobs) \(.kernel_counters.deadline_misses) \(.kernel_counters.throttles)"' \
	"$tmp/json.now")
loop_ok() { read -r lj lm _ <<<"$loopc"; [ "$lj $lm" = "20 4" ] && counted "${loopc#* * }" "$b_loop" 21 4 4; }
check "a libdeadline loop that publishes: its 4 misses of 20 jobs are the kernel's 4 (21 jobs since the baseline: the wake-up after the last), 4 throttles" \
	"$tmp/json.now" "$shm/loop.out" -- loop_ok
# Responses from the CBS's release: a late job ends after the next
# period's start (40ms), an on-time one within its 20ms deadline.
resp=$(jq -r --argjson a "$late" --argjson b "$never" '[.tasks[] | select(.tid == $a or .tid == $b) |
	.kernel_counters.response_max_ns] | map(tostring) | join(" ")' "$tmp/json.now")
read -r rl rn <<<"$resp"
# (A check of several conditions is a function: check runs one command.)
resp_ok() { [ "${rl:-0}" -ge 40000000 ] && [ "${rn:-99999999999}" -lt 20000000 ]; }
check "JSON: the response histogram: the late jobs ended 40ms or more after their release, the on-time ones within 20ms" \
	"$tmp/json.now" -- resp_ok

# rt-app, after the threads above (alone: its start-up blocks nothing of
# theirs): 4 times 4 jobs of 2ms and one of 30ms, then a 2s sleep in
# which the counts are read (its log is written when the thread ends).
timer='{ "ref": "unique", "period": 100000, "mode": "absolute" }'
if command -v rt-app >/dev/null; then
	phases=""
	for i in 0 1 2 3; do
		phases="$phases\"on$i\": { \"loop\": 4, \"runtime\": 2000, \"timer\": $timer },
		\"late$i\": { \"loop\": 1, \"runtime\": 30000, \"timer\": $timer },"
	done
	cat >"$tmp/rt-app.json" <<-EOF
	{ "global": { "duration": -1, "calibration": 100, "lock_pages": false, "log_size": 1,
	              "logdir": "$tmp", "log_basename": "rt" },
	  "tasks": { "rtapp-jobs": { "policy": "SCHED_DEADLINE", "dl-runtime": 20000,
	             "dl-deadline": 100000, "dl-period": 100000, "loop": 1,
	             "phases": { $phases "rest": { "loop": 1, "sleep": 2000000 } } } } }
	EOF
	rt-app "$tmp/rt-app.json" >"$tmp/rt-app.out" 2>&1 &
	rtapp=$!
	pids+=("$rtapp")
	# Until its 20th job, the 4th late one, was throttled, ended and
	# shown: the 4th throttle, then two refreshes.
	for _ in $(seq 100); do
		[ "$(jq -r '.tasks[] | select(.comm == "rtapp-jobs") | .kernel_counters.throttles' "$tmp/json" 2>/dev/null)" = 4 ] && break
		sleep 0.1
	done
	sleep 0.7
	cp "$tmp/json" "$tmp/json.rt"
fi
# rt-app's log: a line per phase run, a job where it has a timer (c_period,
# the 10th column, not 0: the rest phase has none); its slack the 8th.
if [ -n "${rtapp:-}" ]; then
	rtk=$(jq -r '.tasks[] | select(.comm == "rtapp-jobs") | .kernel_counters |
		"\(.deadline_misses) \(.throttles)"' "$tmp/json.rt")
	wait "$rtapp"
	rtlog=$tmp/rt-rtapp-jobs-0.log
	rtneg=$(awk '!/^#/ && NF >= 11 && $10 > 0 { n++; if ($8 < 0) m++ } END { print n + 0, m + 0 }' "$rtlog" 2>/dev/null)
	check "rt-app's own log: 20 jobs, 4 of them with a negative slack; the kernel's misses and throttles of its thread 4 and 4 (got: ${rtneg:-no log}; ${rtk:-no thread})" \
		"$tmp/rt-app.out" "$rtlog" -- [ "$rtneg/$rtk" = "20 4/4 4" ]
else
	ok "rt-app's own log agrees with the kernel's misses # SKIP no rt-app (bootstrap.sh installs it)"
fi

# The table's K-JOBS K-MISS K-THR of thread $1: from the end of its row,
# before FLAGS, RD and CPUSET.
krow() {
	awk -v t="$1" '$2 == t { print $(NF-5), $(NF-4), $(NF-3) }' "$tmp/table.now"
}
table_ok() { counted "$(krow $late)" "$b_late" 20 4 4 && counted "$(krow $never)" "$b_never" 20 0 0; }
check "the table: K-JOBS K-MISS K-THR 20 4 4 since the baseline, and 20 0 0 for the one that never misses" \
	"$tmp/table.now" -- table_ok

pm() { # a Prometheus sample of thread $2 from source $3
	grep "^$1{.*tid=\"$2\",source=\"$3\"" "$tmp/prom.now" | awk '{ print $NF }'
}
prom_ok() {
	counted "$(pm libdl_task_jobs_total $late kernel) $(pm libdl_task_deadline_misses_total $late kernel) $(pm libdl_task_overruns_total $late kernel)" "$b_late" 20 4 4 &&
		[ "$(pm libdl_task_deadline_misses_total $never kernel)" = 0 ]
}
check "Prometheus: libdl_task_{jobs,deadline_misses,overruns}_total{source=\"kernel\"} 20 4 4 since the baseline, and 0 misses" \
	"$tmp/prom.now" -- prom_ok
check "Prometheus: the publishing loop's own series beside the kernel's, source=\"loop\" 4 misses, source=\"kernel\" 4" \
	"$tmp/prom.now" -- [ "$(pm libdl_task_deadline_misses_total $loop loop) $(pm libdl_task_deadline_misses_total $loop kernel)" = "4 4" ]
check "Prometheus: libdl_kernel_counting 1" "$tmp/prom.now" -- grep -qx 'libdl_kernel_counting 1' "$tmp/prom.now"
# What counted the throttles: on this kernel $thr_src (bpftool above).
# Where the tracepoint counts, the inferred count beside it is the same.
src_ok() {
	[ "$(jq -r .kernel_throttle_source "$tmp/json.now")" = "$thr_src" ] &&
		grep -qx "libdl_kernel_throttle_source{tracepoint=\"$thr_src\"} 1" "$tmp/prom.now"
}
check "the throttles' source named, $thr_src on $(uname -r): kernel_throttle_source in JSON, libdl_kernel_throttle_source{tracepoint=...} 1" \
	"$tmp/json.now" "$tmp/prom.now" -- src_ok
inferred=$(jq -r --argjson t "$late" '.tasks[] | select(.tid == $t) | .kernel_counters |
	"\(.throttles) \(.throttles_inferred)"' "$tmp/json.now")
check "JSON: the late thread's throttles, 4, as many inferred at the switch-out (throttles_inferred)" \
	"$tmp/json.now" -- [ "$inferred" = "4 4" ]

# Thread ids that outlive their threads (tests/kernel/kc-tids), with the
# three counters running.  The ids that key a record in a counter's maps
# now: a hash map's keys (bpftool); a map of the threads' own storage
# (task_storage) has no key to list, the kernel frees each record with
# its thread.
tid_keys() {
	local id
	for id in $(bpftool prog show -j 2>/dev/null | jq -r '.[] | select(.name | startswith("libdl_kc_")) | .map_ids[]?' | sort -u); do
		[ "$(bpftool map show id "$id" -j 2>/dev/null | jq -r .type)" = hash ] || continue
		bpftool map dump id "$id" -j 2>/dev/null | jq -r '.[] | .formatted.key // .key'
	done
}
# tids MODE: kc-tids MODE's thread ends and is gone (its id in $dead),
# the counters' keys then (in $tmp/keys.MODE), its id given again to a
# deadline process ($reused) and that one's counts two refreshes later
# ($tmp/json.MODE).
tids() {
	local go=$tmp/go.$1 out=$tmp/tids.$1 fd helper
	mkfifo "$go"
	"$build/tests/kernel/kc-tids" "$1" <"$go" >"$out" 2>"$out.err" &
	helper=$!
	pids+=("$helper")
	exec {fd}>"$go"
	for _ in $(seq 300); do grep -qs '^dead' "$out" && break; sleep 0.1; done
	dead=$(awk '$1 == "dead" { print $2 }' "$out")
	tid_keys >"$tmp/keys.$1"
	echo go >&"$fd"
	for _ in $(seq 100); do grep -qs '^reused' "$out" && break; sleep 0.1; done
	reused=$(awk '$1 == "reused" { print $2 }' "$out")
	sleep 1
	cp "$tmp/json" "$tmp/json.$1"
	exec {fd}>&-
	wait "$helper"
}
unkept() { [ -n "$dead" ] && ! grep -qx -- "$dead" "$tmp/keys.$1"; }
afresh() { [ -n "$reused" ] && [ "$reused" = "$dead" ] && [ "$(kjson "$reused" "$tmp/json.$1")" = "0 0 0" ]; }
tids exit
check "a deadline process throttled in its exit path, reaped (tid ${dead:-none}): no counter's map keeps a record by its id" \
	"$tmp/tids.exit.err" "$tmp/keys.exit" -- unkept exit
check "its id given again (clone3 set_tid: ${reused:-none}): the new deadline process counted from 0 jobs, 0 misses, 0 throttles (got: $(kjson "${reused:-0}" "$tmp/json.exit"))" \
	"$tmp/tids.exit.err" "$tmp/json.exit" -- afresh exit
tids exec
check "a thread, not its process's leader, that runs 3 jobs and execs (its old tid ${dead:-none}): no counter's map keeps a record by that id" \
	"$tmp/tids.exec.err" "$tmp/keys.exec" -- unkept exec
check "that id given again (${reused:-none}): counted from 0 jobs, 0 misses, 0 throttles (got: $(kjson "${reused:-0}" "$tmp/json.exec"))" \
	"$tmp/tids.exec.err" "$tmp/json.exec" -- afresh exec
cp "$tmp/prom" "$tmp/prom.end"
nofail() {
	[ "$(jq -r .kernel_records_failed "$tmp/json.exec")" = 0 ] &&
		grep -qx 'libdl_kernel_records_failed_total 0' "$tmp/prom.end"
}
check "every record made: kernel_records_failed 0 in JSON, libdl_kernel_records_failed_total 0 in Prometheus" \
	"$tmp/json.exec" "$tmp/prom.end" -- nofail

# Each counter ended by another signal: the kernel detaches its programs.
kill -INT "$c_json"
wait "$c_json" 2>/dev/null
settle $((before + 2 * per))
left_int=$(ours)
kill -TERM "$c_prom"
wait "$c_prom" 2>/dev/null
settle $((before + per))
left_term=$(ours)
kill -KILL "$c_table"
wait "$c_table" 2>/dev/null
settle "$before"
left_kill=$(ours)
check "SIGINT, SIGTERM, SIGKILL: each counter's programs gone with it ($left_int, $left_term, $left_kill left beside the $before found before)" \
	-- [ "$left_int $left_term $left_kill" = "$((before + 2 * per)) $((before + per)) $before" ]

# Not root: the refusal, with the fix; the published counters still shown.
if setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
	"$dl_stat" --kernel --watch 0.1 -n 1 -t >"$tmp/nobody.out" 2>"$tmp/nobody.err"; then
	st=0
else
	st=$?
fi
nobody_refused() {
	[ "$st" = 1 ] && grep -q 'counting from the kernel needs root (or CAP_BPF and CAP_PERFMON)' "$tmp/nobody.err"
}
check "as nobody: exit 1 and 'needs root (or CAP_BPF and CAP_PERFMON)' on stderr" "$tmp/nobody.err" -- nobody_refused
nobody_table() {
	grep -q "^$late  *$late  *dl-jobs" "$tmp/nobody.out" &&
		grep -q 'note: --kernel: no job is counted from the kernel: counting from the kernel needs root' "$tmp/nobody.out"
}
check "as nobody: the table still shows the deadline threads, and says what it cannot count and why" \
	"$tmp/nobody.out" -- nobody_table

# Without the kernel's BTF: hidden from the counter alone, in a mount
# namespace of its own (private: the host's /sys is untouched).  HOW is
# the mount that hides it; a failed mount exits 99, which no check takes.
nobtf() { # nobtf NAME HOW...
	local name=$1
	shift
	if unshare -m --propagation private sh -c '"$@" || exit 99; shift $#; exec "$0" --kernel --watch 0.1 -n 1 -t' \
		"$dl_stat" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"; then
		echo 0
	else
		echo $?
	fi
}
# The loop's published JOBS MISSED OVR, before the FLAGS, RD and CPUSET
# (OVR: the overruns it saw itself, none: it does not ask for SIGXCPU).
prow() {
	awk -v t="$1" '$2 == t { print $(NF-5), $(NF-4), $(NF-3) }' "$2"
}
st=$(nobtf nodir mount -t tmpfs -o mode=0555,size=4k libdl-nobtf /sys/kernel/btf)
nodir_refused() {
	[ "$st" = 1 ] &&
		grep -q 'no job is counted from the kernel: the kernel has no BTF (/sys/kernel/btf/vmlinux is missing).*CONFIG_DEBUG_INFO_BTF=y' "$tmp/nodir.err"
}
check "no BTF (an empty folder over /sys/kernel/btf): exit 1, 'the kernel has no BTF' and the fix, CONFIG_DEBUG_INFO_BTF=y, on stderr" \
	"$tmp/nodir.err" -- nodir_refused
nodir_table() {
	grep -q "^$late  *$late  *dl-jobs" "$tmp/nodir.out" &&
		[ "$(prow "$loop" "$tmp/nodir.out")" = "20 4 0" ] &&
		grep -q 'note: --kernel: no job is counted from the kernel: the kernel has no BTF' "$tmp/nodir.out"
}
check "no BTF: the table still shows the deadline threads, the loop's published counters (20 4 0), and the note that says why not" \
	"$tmp/nodir.out" -- nodir_table
: >"$tmp/empty"
st=$(nobtf nofile mount --bind "$tmp/empty" /sys/kernel/btf/vmlinux)
nofile_refused() {
	[ "$st" = 1 ] && grep -q "the kernel's BTF (/sys/kernel/btf/vmlinux) is not valid BTF" "$tmp/nofile.err" &&
		[ "$(prow "$loop" "$tmp/nofile.out")" = "20 4 0" ]
}
check "an empty file over /sys/kernel/btf/vmlinux: exit 1, 'is not valid BTF' on stderr, the table and the loop's published counters (20 4 0) still shown" \
	"$tmp/nofile.err" "$tmp/nofile.out" -- nofile_refused
settle "$before"
check "without BTF: no program of ours left loaded ($(ours), as the $before found before)" -- [ "$(ours)" = "$before" ]
exit 0
