#!/bin/bash
# The bash completions of dl-run, dl-part, dl-stat and dl-load (completion/), run
# by bash with bash-completion's own library, as an interactive shell
# would.  TAP.  Needs bash-completion; says so and skips without it.
set -u
src=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
lib=/usr/share/bash-completion/bash_completion
if ! [ -r "$lib" ]; then
	echo "1..0 # SKIP no $lib (install the bash-completion package)"
	exit 0
fi
# shellcheck disable=SC1090
. "$lib" 2>/dev/null
for t in dl-run dl-part dl-stat dl-load; do
	# shellcheck disable=SC1090
	. "$src/completion/$t"
done

n=0
failed=0
# complete FUNCTION WORD...: COMPREPLY for the command line WORD... (the
# last word is the one being completed), as one line.
complete_line() {
	local f=$1
	shift
	COMP_WORDS=("$@")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMP_LINE="$*"
	COMP_POINT=${#COMP_LINE}
	COMPREPLY=()
	"$f" 2>/dev/null
	echo " ${COMPREPLY[*]-} "
}
# has DESCRIPTION REPLY WORD...: every WORD is one of REPLY's words.
has() {
	local desc=$1 reply=$2 ok=1 w
	shift 2
	for w in "$@"; do
		[[ $reply == *" $w "* ]] || ok=0
	done
	n=$((n + 1))
	if [ $ok = 1 ]; then
		echo "ok $n - $desc"
	else
		failed=$((failed + 1))
		echo "not ok $n - $desc"
		echo "# expected $* in:$reply"
	fi
}

has "dl-part: the commands" "$(complete_line _dl_part dl-part '')" create list destroy status repair
has "dl-part create: its options, --config too" "$(complete_line _dl_part dl-part create --)" \
	--partition --config --cluster --mems --isolated --no-move
has "dl-part status: --json" "$(complete_line _dl_part dl-part status --)" --json
has "dl-part: no option but --json for list" "$(complete_line _dl_part dl-part list --)" --json
has "dl-run: its long options" "$(complete_line _dl_run dl-run --p)" --period --pid --partition
has "dl-run --pid: this shell's PID" "$(complete_line _dl_run dl-run --pid '')" $$
has "dl-run: after --, a command" "$(complete_line _dl_run dl-run -r 1ms -p 10ms -- ech)" echo
has "dl-stat: --watch and --watch=" "$(complete_line _dl_stat dl-stat --w)" --watch --watch=
has "dl-stat: --prometheus and --pid-labels" "$(complete_line _dl_stat dl-stat --p)" --pid --prometheus --pid-labels
has "dl-stat --pid: this shell's PID" "$(complete_line _dl_stat dl-stat --pid '')" $$
has "dl-run --check: --json" "$(complete_line _dl_run dl-run --check --j)" --json
has "dl-load: its long options" "$(complete_line _dl_load dl-load --)" \
	--duration --jobs --mode --timer --json --csv --ignore-place --plan --no-move --print-taskset
has "dl-load --mode: the two modes" "$(complete_line _dl_load dl-load --mode '')" sleep yield
has "dl-load --timer: the three timer modes" "$(complete_line _dl_load dl-load --timer '')" relative absolute skip
pushd "$src/demo" >/dev/null || exit 1
has "dl-load: a task-set file" "$(complete_line _dl_load dl-load art)" article.tasks
popd >/dev/null || exit 1

# Partition names come from the layout in place (dl-part list --json);
# a dl-part that prints what dl-part prints for a layout of two.
dl-part() {
	echo '{"cgroup_version":2,"cpusets":[{"name":"rt","cgroup":"libdl.slice/libdl-rt.slice","partition":true,"cpus":"0","state":"root","root_domain":{"cpus":"0"}},{"name":"audio_1","cgroup":"libdl.slice/libdl-audio_1.slice","partition":true,"cpus":"2","state":"root","root_domain":{"cpus":"2"}},{"name":"cluster","cgroup":"","partition":false,"cpus":"1,3"}]}'
}
reply=$(complete_line _dl_run dl-run --partition '')
has "dl-run --partition: the layout's partitions" "$reply" rt audio_1
n=$((n + 1))
if [[ $reply != *" cluster "* ]]; then echo "ok $n - and not the cluster"; else
	failed=$((failed + 1)); echo "not ok $n - and not the cluster"; fi
unset -f dl-part

echo "1..$n"
[ $failed = 0 ]
