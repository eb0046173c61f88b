#!/bin/bash
# bench/soak.sh: experiment 8 of make bench, the soak.  A layout that
# stays for months is made once; then LAUNCHES `dl-run --partition` and
# `dl-run --cluster` launches of /bin/true (alternating) and a dl-load run
# after every batch go into it, while one `dl-stat --watch` runs all
# along.  After every batch: the layout's state size, the time of
# `dl-part status` and of one launch (the batch's median), the kernel's
# total_bw against the fair servers and live deadline tasks of each root
# domain (the drift), the watcher's RSS and open descriptors, and the
# machine's load average (what moves the times on a shared host).
# Targets: every curve flat, zero drift, zero growth.
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
	read -r launches batch elapsed <"$out/soak.run"
	set -- . "$out"
fi

build=$(cd "${1:?usage: soak.sh BUILDDIR OUTDIR [LAUNCHES [BATCH]]}" && pwd)
out=${2:?usage: soak.sh BUILDDIR OUTDIR [LAUNCHES [BATCH]]}
launches=${3:-${SOAK_LAUNCHES:-100000}}
batch=${4:-${SOAK_BATCH:-1000}}
dlpart=$build/utils/dl-part
dlrun=$build/utils/dl-run
dlload=$build/utils/dl-load
dlstat=$build/utils/dl-stat
bspawn=$build/bench/bench-spawn
state=/run/libdl/layout
debug=/sys/kernel/debug/sched/debug

die() { echo "soak: $*" >&2; exit 1; }
work=$(mktemp -d /tmp/libdl-soak.XXXXXX) || die "mktemp"
watch=
ours=0
cleanup() {
	[ -n "$watch" ] && kill "$watch" 2>/dev/null && wait "$watch" 2>/dev/null
	[ "$ours" = 1 ] && "$dlpart" destroy >/dev/null 2>&1
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# The measuring (not with --report).
if [ "$report_only" = 0 ]; then
	[ "$(id -u)" = 0 ] || die "needs root"
	for t in "$dlpart" "$dlrun" "$dlload" "$dlstat" "$bspawn"; do
		[ -x "$t" ] || die "$t is not built: make all bench/bench-spawn"
	done
	[ -r "$debug" ] || die "$debug is not readable: mount debugfs"
	[ "$batch" -ge 2 ] && [ "$launches" -ge "$batch" ] || die "LAUNCHES ($launches) must be at least BATCH ($batch), and BATCH at least 2"
	[ -e "$state" ] && die "a layout exists already ($state): the soak makes its own"
	mkdir -p "$out" || die "cannot make $out"

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
	watch=$!

	# One batch's commands for bench-spawn: partition and cluster in turn.
	args=()
	for j in $(seq 1 "$batch"); do
		[ "$j" -gt 1 ] && args+=(--)
		if [ $((j % 2)) = 1 ]; then
			args+=("$dlrun" --partition rt -r 1ms -p 10ms /bin/true)
		else
			args+=("$dlrun" --cluster -r 1ms -p 10ms /bin/true)
		fi
	done

	echo "launches,state_bytes,state_lines,status_ms,launch_median_ms,launch_mean_ms,failed,load_ok,total_bw_drift,watch_rss_kb,watch_fds,loadavg" >"$out/soak.csv"
	sample() { # LAUNCHES LAUNCH_MEDIAN LAUNCH_MEAN FAILED LOAD_OK
		local status_ms size lines drift rss fds
		# dl-part status waits out the bandwidth of tasks that just exited.
		status_ms=$("$bspawn" "$dlpart" status 2>/dev/null)
		size=$(stat -c %s "$state")
		lines=$(wc -l <"$state")
		drift=$(drift)
		rss=$(awk '/^VmRSS/ {print $2}' "/proc/$watch/status" 2>/dev/null)
		fds=$(ls "/proc/$watch/fd" 2>/dev/null | wc -l)
		echo "$1,$size,$lines,$status_ms,$2,$3,$4,$5,$drift,${rss:-gone},$fds,$(cut -d' ' -f1 /proc/loadavg)" >>"$out/soak.csv"
	}
	sample 0 nan nan 0 -
	t0=$(date +%s)
	done_=0
	while [ "$done_" -lt "$launches" ]; do
		"$bspawn" "${args[@]}" >"$work/times" 2>"$work/errors"
		failed=$(grep -c 'failed\|cannot start' "$work/errors")
		[ "$failed" -gt 0 ] && [ ! -e "$work/error-shown" ] && {
			echo "   launches failed in the batch after $done_: $(head -2 "$work/errors")"
			: >"$work/error-shown"
		}
		read -r med mean < <(tr ',' '\n' <"$work/times" | sort -g |
			awk '{v[NR] = $1; s += $1} END {printf "%.3f %.3f\n", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2, s / NR}')
		done_=$((done_ + batch))
		load_ok=1
		"$dlload" -t 0.2s "$work/load.tasks" >"$work/load.out" 2>&1 || load_ok=0
		sample "$done_" "$med" "$mean" "$failed" "$load_ok"
		[ $((done_ % (batch * 10))) = 0 ] && echo "   $done_ launches, $(($(date +%s) - t0)) s: $(tail -1 "$out/soak.csv")"
	done
	elapsed=$(($(date +%s) - t0))
	echo "$launches $batch $elapsed" >"$out/soak.run"
	kill "$watch" 2>/dev/null
	wait "$watch" 2>/dev/null
	watch=

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
	}
	NR > 1 { if ($9 != 0) drifted++; if (mind == "" || $9 < mind) mind = $9; if (maxd == "" || $9 > maxd) maxd = $9
		 fail += $7; if ($8 == 0) lfail++
		 if (rss0 == "") { rss0 = $10; fd0 = $11 } rss1 = $10; fd1 = $11
		 if ($2 > maxsz) maxsz = $2 }
	END {
		printf "%.2f %.2f %.3f %.3f %.0f %.0f %d %s %s %d %d %s %s %s %s %d %.2f %.2f\n",
			st["first"] / c["first"], st["last"] / c["last"], lm["first"] / c["first"], lm["last"] / c["last"],
			sz["first"] / c["first"], sz["last"] / c["last"], drifted + 0, mind, maxd, fail, lfail + 0,
			rss0, rss1, fd0, fd1, maxsz, la["first"] / c["first"], la["last"] / c["last"]
	}' "$out/soak.csv")
read -r st1 st2 lm1 lm2 sz1 sz2 drifted mind maxd fail lfail rss0 rss1 fd0 fd1 maxsz la1 la2 <<<"$summary"
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
	unset multiplot" 2>"$work/gnuplot.err" || echo "   gnuplot: $(head -1 "$work/gnuplot.err")"
fi

{
	echo "### 8. Soak: $launches launches into one layout"
	echo
	echo "One layout (\`dl-part create --partition rt=0 --no-move\`), then $launches launches of /bin/true"
	echo "by \`dl-run --partition rt\` and \`dl-run --cluster\` in turn (1 ms / 10 ms), in batches of $batch timed"
	echo "by bench-spawn, a \`dl-load -t 0.2s\` of one task in each member after every batch, and one"
	echo "\`dl-stat --watch 1\` running all along; $elapsed s in all.  After every batch: the state's size,"
	echo "the time of \`dl-part status\`, the kernel's total_bw against its fair servers and live tasks,"
	echo "the watcher's RSS and descriptors (results/soak.csv, results/soak.png)."
	echo
	echo "| figure | first $tenth launches | last $tenth launches | ratio last/first | target |"
	echo "|---|---|---|---|---|"
	echo "| state file, mean (bytes) | $sz1 | $sz2 | $(ratio "$sz2" "$sz1") | flat (largest seen: $maxsz) |"
	echo "| dl-part status, mean (ms) | $st1 | $st2 | $(ratio "$st2" "$st1") | flat, within noise |"
	echo "| one launch, mean of the batches' medians (ms) | $lm1 | $lm2 | $(ratio "$lm2" "$lm1") | flat, within noise |"
	echo "| load average (1 min), mean: the machine's other work | $la1 | $la2 | $(ratio "$la2" "$la1") | (the times are comparable only at a like load) |"
	echo "| dl-stat --watch RSS (KiB), start / end | $rss0 | $rss1 | $(ratio "$rss1" "$rss0") | no growth |"
	echo "| dl-stat --watch open fds, start / end | $fd0 | $fd1 | | no growth |"
	echo "| total_bw drift: samples off / lowest / highest | $drifted | $mind | $maxd | zero |"
	echo "| launches failed / dl-load runs failed | $fail | $lfail | | none |"
	echo
} >"$out/soak.md"
# The row of run.sh's summary table.
echo "| 8 | soak of $launches launches, last tenth / first: state (bytes), status (ms), one launch (ms) | $sz2 / $st2 / $lm2 | first tenth: $sz1 / $st1 / $lm1 | $(ratio "$sz2" "$sz1") / $(ratio "$st2" "$st1") / $(ratio "$lm2" "$lm1") (load average $la1 -> $la2); total_bw off in $drifted samples; watcher RSS $rss0 -> $rss1 KiB, fds $fd0 -> $fd1 | flat within noise, zero drift, zero growth |" >"$out/soak.row"
cat "$out/soak.md"
