#!/bin/bash
# libdeadline's layers (libdl/README): each folder under libdl/ is a
# layer, whose rank is the first line of its Makemodule.am ("# libdl/X,
# layer N: ...").  A file includes internal headers only by their
# folder ("bw/bw.h"), and only of a lower rank or its own folder; layers
# of the same rank do not include each other.  Every .c and .h under
# libdl/ but the public header sits in a ranked folder.  TAP.
src=${top_srcdir:-.}
declare -A rank
for mk in "$src"/libdl/*/Makemodule.am; do
	dir=${mk%/Makemodule.am}
	dir=${dir##*/}
	r=$(sed -n '1s/^# libdl\/'"$dir"', layer \([0-9][0-9]*\):.*/\1/p' "$mk")
	rank[$dir]=${r:-?}
done
files=()
while IFS= read -r f; do
	files+=("$f")
done < <(cd "$src/libdl" && find . -name '*.[ch]' ! -path ./libdeadline.h | sed 's|^\./||' | sort)
utils=()
while IFS= read -r f; do
	utils+=("$f")
done < <(cd "$src/utils" && find . -maxdepth 1 -name '*.[ch]' | sed 's|^\./||' | sort)
# The Python binding is a user of the library like the tools, without config.h.
python=()
while IFS= read -r f; do
	python+=("$f")
done < <(cd "$src/python" 2> /dev/null && find . -maxdepth 1 -name '*.[ch]' | sed 's|^\./||' | sort)
echo "1..$((${#files[@]} + ${#rank[@]} + ${#utils[@]} + ${#python[@]} + 2))"
n=0
for dir in $(printf '%s\n' "${!rank[@]}" | sort); do
	n=$((n + 1))
	if [ "${rank[$dir]}" = "?" ]; then
		echo "not ok $n - libdl/$dir/Makemodule.am does not begin with \"# libdl/$dir, layer N: ...\""
	else
		echo "ok $n - libdl/$dir is layer ${rank[$dir]}"
	fi
done
for f in "${files[@]}"; do
	n=$((n + 1))
	dir=${f%%/*}
	if [ "$dir" = "$f" ] || [ -z "${rank[$dir]}" ] || [ "${rank[$dir]}" = "?" ]; then
		echo "not ok $n - libdl/$f is in no layer's folder (put it in the lowest one whose header it needs)"
		continue
	fi
	if ! grep -q "libdl/$f\\b" "$src/libdl/$dir/Makemodule.am"; then
		echo "not ok $n - libdl/$f is not listed in libdl/$dir/Makemodule.am"
		continue
	fi
	bad=
	while read -r h; do
		case $h in
		libdeadline.h | config.h) continue ;;
		*/*) ;;
		*) bad="$bad $h (name an internal header by its folder)"; continue ;;
		esac
		hd=${h%%/*}
		if [ -z "${rank[$hd]}" ]; then
			bad="$bad $h (no such layer)"
		elif [ "$hd" != "$dir" ] && [ "${rank[$hd]}" -ge "${rank[$dir]}" ]; then
			bad="$bad $h (layer ${rank[$hd]} $hd)"
		fi
	done < <(sed -n 's/^#[[:space:]]*include "\([^"]*\)".*/\1/p' "$src/libdl/$f")
	if [ -n "$bad" ]; then
		echo "not ok $n - libdl/$f (layer ${rank[$dir]} $dir) includes$bad"
	else
		echo "ok $n - libdl/$f (layer ${rank[$dir]} $dir)"
	fi
done
for f in "${utils[@]}"; do
	n=$((n + 1))
	bad=
	while read -r h; do
		case $h in
		libdeadline.h | config.h) ;;
		*/*) bad="$bad $h" ;;
		# bpftool's skeleton of utils/X.bpf.c, made at build time (and
		# only where BPF is built): utils/'s own.
		*.skel.h) [ -e "$src/utils/${h%.skel.h}.bpf.c" ] || bad="$bad $h" ;;
		*) [ -e "$src/utils/$h" ] || bad="$bad $h" ;;
		esac
	done < <(sed -n 's/^#[[:space:]]*include "\([^"]*\)".*/\1/p' "$src/utils/$f")
	if [ -n "$bad" ]; then
		echo "not ok $n - utils/$f includes$bad: a tool sees libdeadline.h and utils/'s headers only (what it needs of the library's internals belongs in the public API)"
	else
		echo "ok $n - utils/$f uses the public API only"
	fi
done
for f in "${python[@]}"; do
	n=$((n + 1))
	bad=$(sed -n 's/^#[[:space:]]*include "\([^"]*\)".*/\1/p' "$src/python/$f" |
		while read -r h; do [ -e "$src/python/$h" ] && [ "${h#*/}" = "$h" ] || echo " $h"; done | tr -d '\n')
	bad=$bad$(grep -h '^#[[:space:]]*include <' "$src/python/$f" | grep -v '<libdeadline.h>' |
		grep -E '<(bw|sys|cgroup|analysis|workload|policy|layout|load)/' | sed 's/^/ /' | tr -d '\n')
	if [ -n "$bad" ]; then
		echo "not ok $n - python/$f includes$bad: the binding sees libdeadline.h and python/'s headers only"
	else
		echo "ok $n - python/$f uses the public API only"
	fi
done
n=$((n + 1))
if [ -e "$src/tools" ]; then
	echo "not ok $n - a folder tools/ exists: the tools live in utils/"
else
	echo "ok $n - no folder tools/ beside utils/"
fi
# Every text file of the sources, without what autotools, the build, the
# VM cache and the packages make, and the benchmark's saved results; the
# kernel source's own tools/ (its sched_ext schedulers and uapi headers,
# which tests/vm/fetch-debian.sh builds scx_simple from) is not libdl's.
kernel_tools='tools/(sched_ext|include/uapi)'
n=$((n + 1))
hits=$(cd "$src" && find . \( -name .git -o -name autom4te.cache -o -path ./tests/vm/cache -o -path ./deb \
	-o -path ./bench/results -o -name '_build*' -o -path ./tests/deb/debian12 -o -path ./tests/deb/debian13 \
	-o -name .deps -o -name .libs \) -prune -o -type f \
	! -path ./tests/build/layers.sh ! -name configure ! -name aclocal.m4 ! -name Makefile.in ! -name Makefile ! -name 'config.*' ! -name libtool \
	! -name '*.log' ! -name '*.trs' ! -name '*.o' ! -name '*.lo' ! -name '*.la' -print0 |
	xargs -0 grep -IEn '(^|[^-A-Za-z0-9_.])tools/' 2>/dev/null | grep -Ev "$kernel_tools" | head -5)
if [ -n "$hits" ]; then
	echo "not ok $n - the tools' folder is named tools/ (it is utils/):"
	printf '%s\n' "$hits" | sed 's/^/#   /'
else
	echo "ok $n - nothing names the tools' folder tools/"
fi
exit 0
