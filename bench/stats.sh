# bench/stats.sh: the figures' arithmetic that run.sh and the experiments
# run alone (lib.sh) share, in awk: medians, ratios, a figure's noise band
# and its verdict against a target.  Sourced; defines functions only.

# Medians and ratios in awk: one column of numbers on stdin.
median() { sort -g | awk '{v[NR]=$1} END {if (NR == 0) print "nan"; else if (NR % 2) print v[(NR+1)/2]; else print (v[NR/2]+v[NR/2+1])/2}'; }
# ratio A B [FORMAT]: two decimals for the table; a verdict takes it
# unrounded (%.6f: 1.003 is not <= 1.00, whatever its two decimals say).
ratio() { awk -v a="$1" -v b="$2" -v f="${3:-%.2f}" 'BEGIN {if (a == "nan" || b == "nan" || b == 0) print "n/a"; else printf f, a/b}'; }
num() { awk -v a="$1" -v f="${2:-%.2f}" 'BEGIN {if (a == "nan" || a == "" || a == "n/a") print "n/a"; else printf f, a}'; }
# The noise band of a figure: half the range of its rounds around their
# median, in percent (stdin: one round's figure a line), or n/a.
spread() {
	sort -g | awk '{v[NR] = $1} END {if (NR < 2) {print "n/a"; exit}
		m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		if (m <= 0) print "n/a"; else printf "%.1f", 50 * (v[NR] - v[1]) / m}'
}
# The judgement of a figure against its target: FIGURE OP BOUND BAND ->
# "met (band ±B%)", "not met (band ±B%)", or "not met (band ±B%, within
# it)" when the bound moved by the band would be met.  A BAND that is not
# a number is said as it is (why there is none).
verdict() {
	awk -v x="$1" -v op="$2" -v t="$3" -v b="$4" 'BEGIN {
		if (x == "n/a" || x == "nan" || x == "") {print "not measured"; exit}
		ok = op == "<=" ? x + 0 <= t + 0 : op == ">=" ? x + 0 >= t + 0 : op == "<" ? x + 0 < t + 0 : x + 0 > t + 0
		num = b ~ /^[0-9.]+$/
		bs = num ? "band ±" b "%" : (b == "n/a" || b == "") ? "no band" : b
		if (ok) {printf "met (%s)", bs; exit}
		near = num && (op ~ /</ ? x + 0 <= t * (1 + b / 100) : x + 0 >= t * (1 - b / 100))
		printf "not met (%s%s)", bs, near ? ", within it" : ""}'
}
# The exact test's figures from bench-plan exact's output (FILE...): the
# sets decided of all ("D/S"), the worst time of a set and the worst of
# the per-CPU-count medians, in seconds.
exact_decided() { awk '!/^#/ && NF >= 5 {d += $2; s += $3} END {if (s == 0) print "n/a"; else printf "%d/%d", d, s}' "$@"; }
exact_all_decided() { awk '!/^#/ && NF >= 5 {d += $2; s += $3} END {print (s > 0 && d == s) ? "yes" : "no"}' "$@"; }
exact_worst() { awk '!/^#/ && NF >= 5 {if ($5 > m) m = $5; n++} END {if (!n) print "n/a"; else printf "%.3f", m / 1000}' "$@"; }
exact_median() { awk '!/^#/ && NF >= 5 {if ($4 > m) m = $4; n++} END {if (!n) print "n/a"; else printf "%.5f", m / 1000}' "$@"; }
# bench-plan pessimism's output (FILE) as a Markdown table: per band of
# utilization per CPU, the exactly schedulable sets and the percentage of
# them each sufficient test accepts.
pessimism_table() {
	awk 'BEGIN {print "| utilization per CPU | exactly schedulable | GFB | BAK | BCL | RTA | any | not schedulable |"
		print "|---|---|---|---|---|---|---|---|"}
		!/^#/ && NF >= 9 {printf "| %.1f-%.1f | %d | %.0f%% | %.0f%% | %.0f%% | %.0f%% | %.0f%% | %d |\n",
			$1 - 0.05, $1 + 0.05, $2, 100 * $3, 100 * $4, 100 * $5, 100 * $6, 100 * $7, $8}' "$1"
}
