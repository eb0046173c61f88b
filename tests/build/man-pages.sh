#!/bin/sh
# Every function libdeadline exports (libdl/libdeadline.sym) has a man
# page of its own name in man/ (a page or a .so link to its family's),
# installed by man/Makemodule.am; and every page renders without a
# warning from groff.  TAP.
src=${top_srcdir:-.}
n=0
fail=0
syms=$(sed -n 's/^[[:space:]]*\(dl_[a-z0-9_]*\);.*/\1/p' "$src/libdl/libdeadline.sym")
pages=$(ls "$src"/man/*.[13578])
echo "1..$(($(echo "$syms" | wc -l) + $(echo "$pages" | wc -l)))"
for s in $syms; do
	n=$((n + 1))
	if [ ! -f "$src/man/$s.3" ]; then
		echo "not ok $n - $s has no man/$s.3"
	elif ! grep -q "man/$s.3\\b" "$src/man/Makemodule.am"; then
		echo "not ok $n - man/$s.3 is not installed (man/Makemodule.am)"
	else
		echo "ok $n - $s(3)"
	fi
done
for p in $pages; do
	n=$((n + 1))
	name=${p##*/}
	if ! grep -q "man/$name\\b" "$src/man/Makemodule.am"; then
		echo "not ok $n - man/$name is not installed (man/Makemodule.am)"
		continue
	fi
	so=$(sed -n '1s/^\.so man[0-9]\/\(.*\)/\1/p' "$p")
	if [ -n "$so" ]; then
		if [ -f "$src/man/$so" ]; then
			echo "ok $n - man/$name is $so"
		else
			echo "not ok $n - man/$name links to $so, which man/ does not hold"
		fi
		continue
	fi
	if ! command -v groff >/dev/null 2>&1; then
		echo "ok $n - man/$name # SKIP no groff"
		continue
	fi
	warn=$(groff -man -Tutf8 -ww -z "$p" 2>&1)
	if [ -n "$warn" ]; then
		echo "not ok $n - man/$name: groff warns"
		echo "$warn" | sed 's/^/# /'
	else
		echo "ok $n - man/$name renders"
	fi
done
exit 0
