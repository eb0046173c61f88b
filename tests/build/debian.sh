#!/bin/bash
# The Debian packaging (debian/) against the sources, without building a
# package (tests/deb/ builds them): the symbols file lists exactly the
# symbols of the version script libdl/libdeadline.sym, in its node, so
# that adding a function to the library shows here first; the packages'
# version is configure's; the conffiles the tools' package installs are
# the project's own (data/).  TAP.
src=${top_srcdir:-.}
build=${top_builddir:-.}
n=0
result() { # 0|1, description
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fi
}

# The version script's nodes and global names, as "name@NODE".
script=$(awk '
	/^[A-Z_0-9.]+ *\{/ { node = $1; sub(/ *\{.*/, "", node); next }
	/^[ \t]*(global|local):/ { global = ($1 == "global:"); next }
	/^}/ { node = ""; next }
	node && global && /^[ \t]*[a-z_0-9]+;/ { gsub(/[ \t;]/, ""); print $0 "@" node }
' "$src/libdl/libdeadline.sym" | sort)
nodes=$(sed -n 's/^\([A-Z_0-9.]*\) *{.*/\1@\1/p' "$src/libdl/libdeadline.sym" | sort)
symbols=$(sed -n 's/^ \([^ ]*\) .*/\1/p' "$src/debian/libdeadline0.symbols" | sort)
want=$(printf '%s\n%s\n' "$script" "$nodes" | sort)
diff=$(diff <(echo "$want") <(echo "$symbols") | sed -n 's/^</missing from debian\/libdeadline0.symbols:/p; s/^>/not in libdl\/libdeadline.sym:/p')
result "$([ -z "$diff" ] && [ -n "$script" ]; echo $?)" "debian/libdeadline0.symbols lists the $(echo "$script" | wc -l) symbols of libdl/libdeadline.sym"
[ -z "$diff" ] || echo "$diff" | sed 's/^/# /'

version=$(sed -n 's/^#define PACKAGE_VERSION "\(.*\)"$/\1/p' "$build/config.h")
deb=$(sed -n '1s/^[^ ]* (\([^)]*\)).*/\1/p' "$src/debian/changelog")
result "$([ "${deb%-*}" = "$version" ]; echo $?)" "debian/changelog's version $deb is configure's $version"

for f in dl-run.conf dl-part.conf; do
	result "$(grep -qx "data/$f etc/libdl" "$src/debian/libdeadline-tools.install"; echo $?)" "libdeadline-tools installs data/$f as /etc/libdl/$f"
done
result "$(grep -q 'dl-part.service$' "$src/debian/libdeadline-tools.install"; echo $?)" "and dl-part.service as make install makes it"
# The counters folder's mount, under the name make install gives it (a
# glob in the .install file), and no tmpfiles.d entry making it a folder
# of /run's that all may write to.
tmp=$(mktemp -d) && : >"$tmp/run-libdl\x2dtasks.mount"
glob=$(sed -n 's|^${env:LIBDL_UNITDIR}/\(run-libdl[^ ]*\.mount\)$|\1|p' "$src/debian/libdeadline-tools.install")
result "$(cd "$tmp" && [ -n "$glob" ] && eval "ls $glob" >/dev/null 2>&1; echo $?)" "and run-libdl\\x2dtasks.mount, as make install names it"
rm -rf "$tmp"
result "$(! grep -qs '/run/libdl-tasks' "$src"/debian/*.tmpfiles; echo $?)" "no tmpfiles.d entry makes /run/libdl-tasks a folder of /run's"
# The Python binding: its own package, built with dh-python for the
# default python3, where configure installs it for the prefix /usr; its
# page goes with it, not with the C pages of libdeadline-dev.
result "$(grep -qx 'usr/lib/python3/dist-packages/libdeadline' "$src/debian/python3-libdeadline.install" &&
	grep -qx 'usr/share/man/man3/libdeadline-python.3' "$src/debian/python3-libdeadline.install"; echo $?)" \
	"python3-libdeadline installs the package and libdeadline-python(3)"
result "$(! grep -q 'man3$\|libdeadline-python\|man3/\*' "$src/debian/libdeadline-dev.install"; echo $?)" \
	"libdeadline-dev does not install the Python page too"
result "$(grep -q '^Package: python3-libdeadline$' "$src/debian/control" &&
	grep -q 'dh-sequence-python3' "$src/debian/control" && grep -q 'python3-dev' "$src/debian/control" &&
	grep -q -- '--enable-python' "$src/debian/rules"; echo $?)" \
	"debian/control builds python3-libdeadline with dh-python, and debian/rules enables the binding"
# dl-stat --kernel in the packages: its BPF tools among the build
# dependencies, and debian/rules requiring it (configure --enable-bpf
# fails without them) on the CPUs configure has a BPF target for.
bdeps=$(sed -n '/^Build-Depends:/,/^[A-Z]/p' "$src/debian/control")
result "$(for p in clang libbpf-dev bpftool; do echo "$bdeps" | grep -q "^ *\(Build-Depends: \)\?$p\(:native\)\?[ ,]" || exit 1; done; echo 0)" \
	"debian/control Build-Depends on clang, libbpf-dev and bpftool"
result "$(grep -q -- '--enable-bpf' "$src/debian/rules" && grep -q 'filter amd64 arm64' "$src/debian/rules" &&
	grep -q 'x86_64) BPF_ARCH=x86' "$src/configure.ac" && grep -q 'aarch64) BPF_ARCH=arm64' "$src/configure.ac"; echo $?)" \
	"debian/rules builds with --enable-bpf on amd64 and arm64, configure's BPF targets"
echo "1..$n"
