# bench/lib.sh: the start of the experiments that run as scripts of their
# own (soak.sh, server.sh, kcount.sh), sourced once they have set $me (the
# name their messages begin with) and $build (the build tree).
#
# Sets the tools' paths, $state and $debug, die, and $work, a temporary
# folder; and whatever ends the script (an error, the end, INT or TERM):
# the experiment's background process ($bg, once set) killed, its layout
# destroyed while $ours is 1, $work removed.
dlpart=$build/utils/dl-part
dlrun=$build/utils/dl-run
dlload=$build/utils/dl-load
dlstat=$build/utils/dl-stat
bspawn=$build/bench/bench-spawn
state=/run/libdl/layout
debug=/sys/kernel/debug/sched/debug

die() { echo "$me: $*" >&2; exit 1; }
# Medians, ratios, noise bands and verdicts, as run.sh makes them.
. "$(dirname "$0")/stats.sh"

work=$(mktemp -d "/tmp/libdl-$me.XXXXXX") || die "mktemp"
bg=
ours=0
cleanup() {
	[ -n "$bg" ] && kill "$bg" 2>/dev/null && wait "$bg" 2>/dev/null
	[ "$ours" = 1 ] && "$dlpart" destroy >/dev/null 2>&1
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# bench_ready OUTDIR HINT TOOL...: what a measurement needs, or die: root,
# each TOOL built (HINT says how), sched/debug readable, no layout (the
# experiment makes its own), OUTDIR made.
bench_ready() {
	local out=$1 hint=$2 t
	shift 2
	[ "$(id -u)" = 0 ] || die "needs root"
	for t in "$@"; do
		[ -x "$t" ] || die "$t is not built: $hint"
	done
	[ -r "$debug" ] || die "$debug is not readable: mount debugfs"
	[ -e "$state" ] && die "a layout exists already ($state): the experiment makes its own"
	mkdir -p "$out" || die "cannot make $out"
}

# Wake-up latencies from dl-load --csv (a job's start less its release,
# us): wake_round JOBSCSV MODE sorts a round's into $work/wake, adds them
# to $work/wake-MODE, puts "jobs missed" in $work/count, and prints
# "p50,p99,max".  wake_pooled MODE: "p50 p99 max jobs" over the rounds.
wake_round() {
	awk -F, -v count="$work/count" 'NR > 1 && $6 > 0 {print ($6 - $4) / 1000; n++; if ($9 == 0) x++} END {print n + 0, x + 0 > count}' \
		"$1" | sort -g >"$work/wake"
	cat "$work/wake" >>"$work/wake-$2"
	awk '{v[NR]=$1} END {if (NR) printf "%.1f,%.1f,%.1f", v[int((NR+1)/2)], v[int(NR*0.99+0.999)], v[NR]; else print "nan,nan,nan"}' "$work/wake"
}
wake_pooled() { [ -s "$work/wake-$1" ] && sort -g "$work/wake-$1" | awk '{v[NR]=$1} END {printf "%.1f %.1f %.1f %d", v[int((NR+1)/2)], v[int(NR*0.99+0.999)], v[NR], NR}' || echo "nan nan nan 0"; }
# csv_misses CSV MODE: the misses (4th column) of the rounds of MODE (2nd).
csv_misses() { awk -F, -v m="$2" 'NR > 1 && $2 == m {x += $4} END {print x + 0}' "$1"; }
