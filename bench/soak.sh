#!/bin/bash
# bench/soak.sh: experiment 8 of make bench, the soak.  A layout that
# stays for months is made once; then LAUNCHES `dl-run --partition` and
# `dl-run --cluster` launches of /bin/true (alternating) and a dl-load run
# after every batch go into it, while one `dl-stat --watch` runs all
# along.  After every batch: the layout's state size, the time of
# `dl-part status` and of one launch (the batch's median), the kernel's
# total_bw against the fair servers and live deadline tasks of each root
# domain (the drift), the watcher's RSS and open descriptors, the
# machine's load average (what moves the times on a shared host), and a
# plain launch's time in the same batch (chrt -o 0 /bin/true after every
# tenth: the control).  Targets: every curve flat, zero drift, zero
# growth; the launch is judged by its ratio to the control of its batch,
# against the first tenth's batches (the noise band).
#
#   bench/soak.sh BUILDDIR OUTDIR [LAUNCHES [BATCH]]
#   (SOAK_LAUNCHES and SOAK_BATCH give them too; 100000 and 1000 unless
#   said; run.sh runs it as its experiment 8, and alone with
#   BENCH_ONLY=soak make bench)
#   bench/soak.sh --report OUTDIR
#   (the report, soak.md, soak.row and soak.png, made again from a run's
#   soak.csv and soak.run; nothing is measured)
#
# Writes OUTDIR/soak.csv, soak.png, soak.md and soak.row (the section and
# the summary row run.sh puts in its report).  Root, under the kernel-test lock (the caller's: make bench
# holds it; alone: flock /run/lock/libdl-kernel-tests.lock bench/soak.sh
# . /tmp/soak).  It moves only its own processes (dl-part create
# --no-move), makes and removes only its own layout, and leaves total_bw as
# it found it (a drift is reported, then repaired with dl-part repair).
set -u
export LC_ALL=C

report_only=0
if [ "${1:-}" = --report ]; then
	report_only=1
	out=${2:?usage: soak.sh --report OUTDIR}
	[ -r "$out/soak.csv" ] && [ -r "$out/soak.run" ] || { echo "soak: no soak.csv and soak.run in $out: run the soak first" >&2; exit 1; }
	read -r launches batch elapsed ended <"$out/soak.run"
	set -- . "$out"
fi

build=$(cd "${1:?usage: soak.sh BUILDDIR OUTDIR [LAUNCHES [BATCH]]}" && pwd)
out=${2:?usage: soak.sh BUILDDIR OUTDIR [LAUNCHES [BATCH]]}
launches=${3:-${SOAK_LAUNCHES:-100000}}
batch=${4:-${SOAK_BATCH:-1000}}
me=soak
. "$(dirname "$0")/lib.sh"

# The measuring (not with --report).
if [ "$report_only" = 0 ]; then
	[ "$batch" -ge 2 ] && [ "$launches" -ge "$batch" ] || die "LAUNCHES ($launches) must be at least BATCH ($batch), and BATCH at least 2"
	bench_ready "$out" "make all bench/bench-spawn" "$dlpart" "$dlrun" "$dlload" "$dlstat" "$bspawn"

	# The drift: each root domain's total_bw less what its fair servers (as
	# the kernel counts them) and live deadline tasks account for, the
	# expected count dl-part status judges by (dl-part status --json, which
	# reads sched/debug and every task, once tasks that just exited have
	# given their bandwidth back).  The figure is the root domain furthest
	# off, with its sign: a sum over root domains would let one domain's loss
	# hide another's excess.  Another process's deadline task, alive or
	# ended, is no drift.
	drift() {
		"$dlpart" status --json 2>/dev/null | grep -o '"figures":{[^}]*}' |
			awk -F'[:,]' '{ delete v; for (i = 1; i < NF; i++) v[$i] = $(i + 1)
				d = v["\"total_bw\""] - v["\"fair_bw\""] - v["\"tasks_bw\""]
				if ((d < 0 ? -d : d) > (w < 0 ? -w : w)) w = d }
				END { print w + 0 }'
	}

	"$dlpart" create --partition rt=0 --no-move >"$work/create" 2>&1 || die "dl-part create failed: $(cat "$work/create")"
	ours=1
	printf 'rt 1ms 10ms 10ms work=0.2ms place=rt\ncl 1ms 10ms 10ms work=0.2ms place=cluster\n' >"$work/load.tasks"
	"$dlstat" --watch 1 >/dev/null 2>&1 &
	bg=$! # the watcher

	# One batch's commands for bench-spawn: partition and cluster in turn,
	# and after every tenth a plain launch through a tool that execs
	# (chrt -o 0 /bin/true: fork, exec, sched_setscheduler, exec; no
	# libdl), the control: the machine's own cost of a launch at that
	# moment, for the ratio that a busier machine does not move.  kinds
	# says which figure of bench-spawn's line is which.
	# 4 ms / 10 ms: what follows the launch's sched_setattr (the exec of
	# true, the loader, its exit) takes about 1 ms of CPU here; under a
	# 1 ms runtime two launches in three were throttled to their next
	# period and a batch's median fell on one side of a 10 ms step or the
	# other (bench/README, experiment 3); at 4 ms 2 to 4 in 100 were.  Two
	# such reservations, one exiting while the next starts, fit a CPU.
	control=$(command -v chrt)
	args=()
	kinds=
	for j in $(seq 1 "$batch"); do
		[ "$j" -gt 1 ] && args+=(--)
		if [ $((j % 2)) = 1 ]; then
			args+=("$dlrun" --partition rt -r 4ms -p 10ms /bin/true)
		else
			args+=("$dlrun" --cluster -r 4ms -p 10ms /bin/true)
		fi
		kinds="$kinds d"
		if [ -n "$control" ] && [ $((j % 10)) = 0 ]; then
			args+=(-- "$control" -o 0 /bin/true)
			kinds="$kinds c"
		fi
	done

	echo "launches,state_bytes,state_lines,status_ms,launch_median_ms,launch_mean_ms,failed,load_ok,total_bw_drift,watch_rss_kb,watch_fds,loadavg,control_median_ms" >"$out/soak.csv"
	sample() { # LAUNCHES LAUNCH_MEDIAN LAUNCH_MEAN FAILED LOAD_OK CONTROL_MEDIAN
		local status_ms size lines drift rss fds
		# dl-part status waits out the bandwidth of tasks that just exited.
		status_ms=$("$bspawn" "$dlpart" status 2>/dev/null)
		size=$(stat -c %s "$state")
		lines=$(wc -l <"$state")
		drift=$(drift)
		rss=$(awk '/^VmRSS/ {print $2}' "/proc/$bg/status" 2>/dev/null)
		fds=$(ls "/proc/$bg/fd" 2>/dev/null | wc -l)
		echo "$1,$size,$lines,$status_ms,$2,$3,$4,$5,$drift,${rss:-gone},$fds,$(cut -d' ' -f1 /proc/loadavg),$6" >>"$out/soak.csv"
	}
	sample 0 nan nan 0 - nan
	t0=$(date +%s)
	done_=0
	while [ "$done_" -lt "$launches" ]; do
		"$bspawn" "${args[@]}" >"$work/times" 2>"$work/errors"
		failed=$(grep -c 'failed\|cannot start' "$work/errors")
		[ "$failed" -gt 0 ] && [ ! -e "$work/error-shown" ] && {
			echo "   launches failed in the batch after $done_: $(head -2 "$work/errors")"
			: >"$work/error-shown"
		}
		# The batch's launches and its controls apart (median, mean).
		median_of() { # KIND
			tr ',' '\n' <"$work/times" | paste -d' ' <(echo "$kinds" | tr ' ' '\n' | grep .) - |
				awk -v k="$1" '$1 == k {print $2}' | sort -g |
				awk '{v[NR] = $1; s += $1} END {if (!NR) print "nan nan"; else printf "%.3f %.3f\n", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2, s / NR}'
		}
		read -r med mean < <(median_of d)
		read -r cmed _ < <(median_of c)
		done_=$((done_ + batch))
		load_ok=1
		"$dlload" -t 0.2s "$work/load.tasks" >"$work/load.out" 2>&1 || load_ok=0
		sample "$done_" "$med" "$mean" "$failed" "$load_ok" "$cmed"
		[ $((done_ % (batch * 10))) = 0 ] && echo "   $done_ launches, $(($(date +%s) - t0)) s: $(tail -1 "$out/soak.csv")"
	done
	elapsed=$(($(date +%s) - t0))
	ended=$(date -u '+%Y-%m-%d %H:%M UTC')
	echo "$launches $batch $elapsed $ended" >"$out/soak.run"
	kill "$bg" 2>/dev/null
	wait "$bg" 2>/dev/null
	bg=

	# Leave total_bw as found: a drift is repaired (and is reported below).
	if [ "$(drift)" != 0 ]; then
		"$dlpart" repair >/dev/null 2>&1
	fi
	"$dlpart" destroy >"$work/destroy" 2>&1 || echo "   dl-part destroy failed: $(cat "$work/destroy")"
	ours=0
fi

# The first and the last tenth of the batches (at least one each), side
# by side.
nb=$((launches / batch))
k=$((nb / 10))
[ "$k" -ge 1 ] || k=1
tenth=$((k * batch))
summary=$(awk -F, -v k="$k" -v nb="$nb" 'NR > 2 {
		i = NR - 2; key = (i <= k) ? "first" : ((i > nb - k) ? "last" : "")
		if (key != "") { c[key]++; st[key] += $4; lm[key] += $5; sz[key] += $2; la[key] += $12 }
		# The launch against the control of its own batch.
		if (key != "" && $13 + 0 > 0) { rc[key]++; rr[key] += $5 / $13; cm[key] += $13 }
		# The noise band: the first tenth batch by batch.
		if (key == "first" && $13 + 0 > 0) {
			if (rrlo == "" || $5 / $13 < rrlo) rrlo = $5 / $13; if ($5 / $13 > rrhi) rrhi = $5 / $13
		}
		if (key == "first") {
			if (stlo == "" || $4 < stlo) stlo = $4; if ($4 > sthi) sthi = $4
			if (lmlo == "" || $5 < lmlo) lmlo = $5; if ($5 > lmhi) lmhi = $5
		}
		# The watcher at the end of the first tenth, then its most.
		if (i == k) { rssw = $10; fdw = $11 }
		if (i > k && $10 - rssw > rssgrew) rssgrew = $10 - rssw
		if (i > k && $11 - fdw > fdgrew) fdgrew = $11 - fdw
	}
	NR > 1 { if ($9 != 0) drifted++; if (mind == "" || $9 < mind) mind = $9; if (maxd == "" || $9 > maxd) maxd = $9
		 fail += $7; if ($8 == 0) lfail++
		 if (rss0 == "") { rss0 = $10; fd0 = $11 } rss1 = $10; fd1 = $11
		 if ($2 > maxsz) maxsz = $2 }
	END {
		printf "%.2f %.2f %.3f %.3f %.0f %.0f %d %s %s %d %d %s %s %s %s %d %.2f %.2f %.2f %.2f %.3f %.3f %s %d %d %s %s %s %s %s %s\n",
			st["first"] / c["first"], st["last"] / c["last"], lm["first"] / c["first"], lm["last"] / c["last"],
			sz["first"] / c["first"], sz["last"] / c["last"], drifted + 0, mind, maxd, fail, lfail + 0,
			rss0, rss1, fd0, fd1, maxsz, la["first"] / c["first"], la["last"] / c["last"],
			stlo, sthi, lmlo, lmhi, rssw, rssgrew + 0, fdgrew + 0,
			rc["first"] ? sprintf("%.3f", rr["first"] / rc["first"]) : "nan",
			rc["last"] ? sprintf("%.3f", rr["last"] / rc["last"]) : "nan",
			rrlo == "" ? "nan" : sprintf("%.3f", rrlo), rrlo == "" ? "nan" : sprintf("%.3f", rrhi),
			rc["first"] ? sprintf("%.3f", cm["first"] / rc["first"]) : "nan",
			rc["last"] ? sprintf("%.3f", cm["last"] / rc["last"]) : "nan"
	}' "$out/soak.csv")
read -r st1 st2 lm1 lm2 sz1 sz2 drifted mind maxd fail lfail rss0 rss1 fd0 fd1 maxsz la1 la2 \
	stlo sthi lmlo lmhi rssw rssgrew fdgrew rr1 rr2 rrlo rrhi cm1 cm2 <<<"$summary"
# Verdicts: a last tenth's mean within the first tenth's batches (lowest
# to highest) is flat within noise; growth is counted from the end of the
# first tenth, as the times are, so that the watcher's own warm-up (its
# first refreshes with tasks to show) is not taken for a leak.
within() { awk -v x="$1" -v lo="$2" -v hi="$3" 'BEGIN {print (x + 0 <= hi + 0) ? "met" : "not met"}'; }
v_st="$(within "$st2" "$stlo" "$sthi") (band: the first tenth's batches, $stlo to $sthi)"
v_lm="$(within "$lm2" "$lmlo" "$lmhi") (band: the first tenth's batches, $lmlo to $lmhi)"
# The launch's cost against the control's in the same batch: what a
# busier or quieter machine moves alike is divided out; a cost that grew
# with libdl's own state is not.
v_rr="no control (chrt) in this run"
[ "$rr1" != nan ] && v_rr="$(within "$rr2" "$rrlo" "$rrhi") (band: the first tenth's batches, $rrlo to $rrhi)"
v_rss=$([ "$rssgrew" = 0 ] && [ "$fdgrew" = 0 ] && echo "met: at most $rssw KiB and $fd1 fds after the first tenth" ||
	echo "not met: RSS up to $rssgrew KiB and fds up to $fdgrew above the first tenth's end")
v_bw=$([ "$drifted" = 0 ] && echo met || echo "not met: $drifted samples off")
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {if (b == 0) print "n/a"; else printf "%.2f", a / b}'; }

if command -v gnuplot >/dev/null 2>&1; then
	gnuplot -e "set terminal png size 1000,1200; set output '$out/soak.png';
	set datafile separator ','; set grid; set xlabel 'launches'; set key top left;
	set multiplot layout 4,2 title 'Soak: $launches launches into one layout (dl-run --partition / --cluster, a dl-load run every $batch)';
	set title 'state file (bytes)'; set yrange [0:*]; plot '$out/soak.csv' u 1:2 every ::1 w l lw 2 notitle;
	set title 'dl-part status (ms)'; plot '$out/soak.csv' u 1:4 every ::1 w l lw 2 notitle;
	set title 'one launch, median of the batch (ms)'; plot '$out/soak.csv' u 1:5 every ::2 w l lw 2 notitle;
	set title 'total\\_bw drift (kernel units)'; set yrange [*:*]; plot '$out/soak.csv' u 1:9 every ::1 w l lw 2 notitle;
	set title 'dl-stat --watch RSS (KiB)'; set yrange [0:*]; plot '$out/soak.csv' u 1:10 every ::1 w l lw 2 notitle;
	set title 'dl-stat --watch open fds'; plot '$out/soak.csv' u 1:11 every ::1 w l lw 2 notitle;
	set title 'load average (1 min): what else ran'; plot '$out/soak.csv' u 1:12 every ::1 w l lw 2 notitle;
	set title 'one launch / a plain launch (chrt -o 0 true) of its batch'; plot '$out/soak.csv' u 1:(\$13 > 0 ? \$5 / \$13 : NaN) every ::2 w l lw 2 notitle;
	unset multiplot" 2>"$work/gnuplot.err" || echo "   gnuplot: $(head -1 "$work/gnuplot.err")"
fi

{
	echo "### 8. Soak: $launches launches into one layout"
	echo
	echo "One layout (\`dl-part create --partition rt=0 --no-move\`), then $launches launches of /bin/true"
	echo "by \`dl-run --partition rt\` and \`dl-run --cluster\` in turn (4 ms / 10 ms), in batches of $batch timed"
	echo "by bench-spawn, each tenth followed by a plain launch as the control (\`chrt -o 0 /bin/true\`, no libdl: the"
	echo "machine's own cost of a launch at that moment, which a busier machine raises as much as libdl's),"
	echo "a \`dl-load -t 0.2s\` of one task in each member after every batch, and one"
	echo "\`dl-stat --watch 1\` running all along; $elapsed s in all${ended:+, ended $ended}.  After every batch: the state's size,"
	echo "the time of \`dl-part status\`, the kernel's total_bw against its fair servers and live tasks,"
	echo "the watcher's RSS and descriptors (results/soak.csv, results/soak.png)."
	echo
	echo "| figure | first $tenth launches | last $tenth launches | ratio last/first | target |"
	echo "|---|---|---|---|---|"
	echo "| state file, mean (bytes) | $sz1 | $sz2 | $(ratio "$sz2" "$sz1") | flat (largest seen: $maxsz) |"
	echo "| dl-part status, mean (ms) | $st1 | $st2 | $(ratio "$st2" "$st1") | flat, within noise: $v_st |"
	echo "| one launch, mean of the batches' medians (ms) | $lm1 | $lm2 | $(ratio "$lm2" "$lm1") | flat, within noise: $v_lm |"
	echo "| the control, a plain launch (chrt -o 0 /bin/true, every tenth), mean of the batches' medians (ms) | $cm1 | $cm2 | $(ratio "$cm2" "$cm1") | (the machine's own cost of a launch) |"
	echo "| one launch / the control of its batch, mean | $rr1 | $rr2 | $(ratio "$rr2" "$rr1") | flat, within noise: $v_rr |"
	echo "| load average (1 min), mean: the machine's other work | $la1 | $la2 | $(ratio "$la2" "$la1") | (the times are comparable only at a like load) |"
	echo "| dl-stat --watch RSS (KiB), start / end | $rss0 | $rss1 | $(ratio "$rss1" "$rss0") | no growth after the first tenth: $v_rss |"
	echo "| dl-stat --watch open fds, start / end | $fd0 | $fd1 | | no growth |"
	echo "| total_bw drift: samples off / lowest / highest | $drifted | $mind | $maxd | zero: $v_bw |"
	echo "| launches failed / dl-load runs failed | $fail | $lfail | | none |"
	echo
} >"$out/soak.md"
# The row of run.sh's summary table.
echo "| 8 | soak of $launches launches, last tenth / first: state (bytes), status (ms), one launch (ms) | $sz2 / $st2 / $lm2 | first tenth: $sz1 / $st1 / $lm1 | $(ratio "$sz2" "$sz1") / $(ratio "$st2" "$st1") / $(ratio "$lm2" "$lm1") (load average $la1 -> $la2); total_bw off in $drifted samples; watcher RSS $rss0 -> $rss1 KiB, fds $fd0 -> $fd1; launch / control $rr1 -> $rr2 | flat within noise (status $v_st; launch $v_lm; launch / control $v_rr), zero drift ($v_bw), zero growth ($v_rss) |" >"$out/soak.row"
cat "$out/soak.md"
