#!/bin/sh
# make install into a scratch DESTDIR, then make installcheck there: the
# README's example, a small program and the four tools build against the
# installed library through pkg-config alone (tests/build/Makemodule.am,
# installcheck-local).  So CI checks what a distribution's build does.  TAP.
build=${top_builddir:-.}
make=${MAKE:-make}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
echo "1..2"
if "$make" -s -C "$build" install DESTDIR="$tmp/root" > "$tmp/log" 2>&1; then
	echo "ok 1 - make install DESTDIR=..."
else
	echo "not ok 1 - make install DESTDIR=..."
	sed 's/^/# /' "$tmp/log"
	echo "not ok 2 - make installcheck # not run"
	exit 0
fi
if "$make" -s -C "$build" installcheck DESTDIR="$tmp/root" > "$tmp/log" 2>&1; then
	echo "ok 2 - make installcheck: $(grep -c '^installcheck:' "$tmp/log") checks"
else
	echo "not ok 2 - make installcheck"
fi
sed 's/^/# /' "$tmp/log"
exit 0
