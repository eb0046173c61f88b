#!/bin/sh
# fetch-debian.sh: fetch (never install) what the suites of one Debian
# release need, into the cache, once: the release's kernels, a build root
# to compile and test the project in with its compiler and libraries, and
# a root file system with its systemd for the VMs.
#
# Usage: tests/vm/fetch-debian.sh [--check] RELEASE [kernels|build|systemd|podman|scx|arm64]...
#        (default: kernels, build and systemd; podman and scx only when asked;
#        --check: fetch nothing; exit 0 when the cache holds them, 1 if not)
#
#   RELEASE   trixie   Debian 13 (6.12 LTS, systemd 257, libcgroup 3.1)
#             sid      Debian's development release, unstable (7.x,
#                      its systemd and libcgroup as the archive has them)
#
# Environment:
#   LIBDL_VM_CACHE   cache folder (default: ~/.cache/libdl, cache-dir.sh)
#
# Leaves in $LIBDL_VM_CACHE/RELEASE/:
#   generic/vmlinuz, generic/config   the kernel linux-image-amd64 names
#                                     (from boot/ of its package, or, where
#                                     the kernel is split into packages as
#                                     sid's 7.x is, from usr/lib/modules/
#                                     of its linux-binary and linux-base)
#   rt/vmlinuz, rt/config             the PREEMPT_RT one (linux-image-rt-amd64)
#   build/                            a root file system (a folder, for
#                                     chroot) with gcc, autotools and every
#                                     -dev and test package bootstrap.sh
#                                     installs on the host, the release's;
#                                     rt-app, which make bench runs
#                                     there beside dl-load; debhelper and
#                                     lintian, for the project's Debian
#                                     packages (build-deb.sh --in
#                                     debian13), with clang, libbpf-dev
#                                     and bpftool, which they require
#                                     (dl-stat --kernel); in its
#                                     root/vm-debs/ the .debs of
#                                     libcap2-bin (setcap), libbpf1 and its
#                                     libelf, which the packages need and
#                                     the systemd image lacks (tests/deb
#                                     installs them there, offline)
#   systemd.cpio.gz                   a minimal system with systemd as PID 1,
#                                     libcgroup3, libcap2 and rt-app, as a
#                                     gzip'd cpio that run-vm.sh --systemd
#                                     --rootfs debian13 (or sid) boots as
#                                     the initramfs
#   podman.cpio.gz                    the same system with the release's
#                                     podman, crun, conmon and catatonit,
#                                     jq for an OCI hook and busybox-static
#                                     for an image made offline (podman
#                                     import): systemd.cpio.gz followed by
#                                     an archive of what they add; run-vm.sh
#                                     --rootfs debian13-podman
#   scx/scx_simple                    the kernel's example BPF scheduler
#                                     (tools/sched_ext of linux-source)
#                                     built with the release's clang,
#                                     libbpf and bpftool for the generic
#                                     kernel, statically linked: loaded in
#                                     the VM, it attaches the kernel's ext
#                                     server (tests/vm/sid/scx.vm)
#   arm64/vmlinuz, arm64/config,      the release's arm64 kernel (the one
#   arm64/busybox                     linux-image-arm64 names) and its
#                                     busybox-static, downloaded as arm64
#                                     packages (APT::Architecture arm64 in
#                                     the private apt configuration), for
#                                     run-vm.sh --arch arm64; the build
#                                     root's cross compiler (below) builds
#                                     the project for it
#   kernels.stamp, build.stamp,       what each was made from (package
#   podman.stamp, scx.stamp           versions), so a cache stays explained
#
# The release is reached by suite name through the mirror this host's apt
# already uses (apt-get indextargets names it): a private apt
# configuration under the cache downloads the kernels (apt-get download,
# dpkg-deb -x: installing a kernel would rewrite the host's boot setup),
# and mmdebstrap builds the root file systems.  Nothing of the host's
# apt setup is changed.  A mirror's snapshot of sid keeps the Release
# file of its day, whose Valid-Until (a week later) has passed: for sid
# alone apt is told not to check it (Acquire::Check-Valid-Until=false,
# in the private configuration and through mmdebstrap --aptopt); the
# signature is checked as for any suite.  Needs root (mmdebstrap
# --mode=root, the chroot's files owned by root), as make check runs it.
#
# Exit status: 0 when the cache holds what was asked (at once when it
# already does); 1 with one line on stderr saying why otherwise.
set -eu

. "$(dirname "$0")/fetch-lib.sh"

check=no
if [ "${1:-}" = --check ]; then
	check=yes
	shift
fi
suite=${1:-}
[ $# -gt 0 ] && shift
# What tells the releases apart: the name said in messages, and the apt
# options their archive needs.
case $suite in
trixie) name="Debian 13" aptopt="" ;;
sid) name="Debian sid" aptopt='Acquire::Check-Valid-Until "false"' ;;
'') die "no RELEASE given: give trixie or sid" ;;
*) die "unknown release \"$suite\": give trixie or sid" ;;
esac
out=$cache/$suite
want_kernels=no want_build=no want_systemd=no want_podman=no want_scx=no want_arm64=no
[ $# -eq 0 ] && set -- kernels build systemd
for w in "$@"; do
	case $w in
	kernels) want_kernels=yes ;;
	build) want_build=yes ;;
	systemd) want_systemd=yes ;;
	podman) want_podman=yes ;;
	scx) want_scx=yes ;;
	arm64) want_arm64=yes ;;
	*) die "unknown part \"$w\": give kernels, build, systemd, podman, scx or arm64" ;;
	esac
done
have() { [ -s "$out/$1" ] || [ -d "$out/$1" ]; }
# A build root without rt-app, the packaging tools, the Python binding's
# build dependencies, or clang, libbpf-dev and bpftool (dl-stat --kernel;
# its build.stamp names them) and their libraries' .debs for the VM is
# made again.
have_build() {
	have build.stamp && [ -x "$out/build/usr/bin/rt-app" ] && [ -x "$out/build/usr/bin/dh" ] &&
		[ -x "$out/build/usr/bin/dh_python3" ] && [ -x "$out/build/usr/bin/python3-config" ] &&
		[ -x "$out/build/usr/sbin/bpftool" ] && [ -r "$out/build/usr/include/bpf/libbpf.h" ] &&
		grep -q '^clang ' "$out/build.stamp" && grep -q '^bpftool ' "$out/build.stamp" &&
		ls "$out"/build/root/vm-debs/libcap2-bin_*.deb "$out"/build/root/vm-debs/libbpf1_*.deb >/dev/null 2>&1
}
# The build root also builds the NRI plugin and the CRI client of its
# test (go_pkgs below); one made before lacks only these, which are
# added to it (fetch_go) rather than the whole made again.
have_go() { [ -x "$out/build/usr/bin/go" ] && grep -q '^golang-github-containerd-nri-dev ' "$out/build.stamp"; }
# Debian 13's, the cross compiler for arm64 with the project's build
# dependencies for arm64 too (cross_pkgs below), added to a root made
# before it the same way.
have_cross() {
	[ "$suite" != trixie ] ||
		{ [ -x "$out/build/usr/bin/aarch64-linux-gnu-gcc" ] && grep -q '^crossbuild-essential-arm64 ' "$out/build.stamp"; }
}
[ $want_kernels = no ] || { have generic/vmlinuz && have rt/vmlinuz; } || need=1
[ $want_build = no ] || { have_build && have_go && have_cross; } || need=1
[ $want_arm64 = no ] || { have arm64/vmlinuz && have arm64/busybox; } || need=1
[ $want_systemd = no ] || have systemd.cpio.gz || need=1
# An image made before uidmap was in podman_pkgs (no podman.stamp naming
# it), or sid's before containerd was, is made again.
have_podman() {
	have podman.cpio.gz && grep -q '^uidmap ' "$out/podman.stamp" 2>/dev/null &&
		{ [ "$suite" != sid ] || grep -q '^containerd ' "$out/podman.stamp"; }
}
[ $want_podman = no ] || have_podman || need=1
[ $want_scx = no ] || have scx/scx_simple || need=1
[ -n "${need:-}" ] || exit 0
[ $check = no ] || exit 1

[ "$(id -u)" = 0 ] || die "fetching $name needs root (apt as root, mmdebstrap --mode=root)"
need_tools "bootstrap.sh installs it" apt-get apt-cache dpkg-deb mmdebstrap cpio gzip unshare
work_in "$out" "$suite"

# The mirror of this host's Debian: the one its own suite comes from.
mirror=$(apt-get indextargets --format '$(REPO_URI) $(RELEASE)' 2>/dev/null |
	awk '$2 !~ /-/ { print $1; exit }')
[ -n "$mirror" ] || die "apt names no Debian mirror (apt-get indextargets): is this Debian?"
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
[ -r "$keyring" ] || die "no $keyring: install the Debian package debian-archive-keyring"
source="deb [signed-by=$keyring] $mirror $suite main"

# An apt of our own for the release (ARCH: its packages' architecture).
private_apt() {
	a=$work/apt-$1
	mkdir -p "$a/lists/partial" "$a/archives/partial" "$a/etc/parts" "$a/etc/prefs"
	echo "$source" >"$a/etc/sources.list"
	: >"$a/status"
	cat >"$a/apt.conf" <<EOF
Dir::Etc::sourcelist "$a/etc/sources.list";
Dir::Etc::sourceparts "$a/etc/parts";
Dir::Etc::preferencesparts "$a/etc/prefs";
Dir::State::Lists "$a/lists";
Dir::State::status "$a/status";
Dir::Cache "$a";
Dir::Cache::archives "$a/archives";
APT::Sandbox::User "root";
APT::Architecture "$1";
APT::Architectures { "$1"; };
EOF
	[ -z "$aptopt" ] || echo "$aptopt;" >>"$a/apt.conf"
	export APT_CONFIG="$a/apt.conf"
	apt-get update -q >"$work/update-$1.log" 2>&1 ||
		die "apt-get update of $name ($1) failed: $(grep -E '^(E|W):' "$work/update-$1.log" | head -n 1)"
}

# The release's kernels, downloaded through an apt of our own.
fetch_kernels() {
	private_apt amd64
	for flavour in generic rt; do
		meta=linux-image-amd64
		[ $flavour = rt ] && meta=linux-image-rt-amd64
		pkg=$(apt-cache depends "$meta" 2>/dev/null | sed -n 's/^ *Depends: \(linux-image-[0-9][^ ]*\)$/\1/p' | head -n 1)
		[ -n "$pkg" ] || die "apt-cache depends $meta names no kernel in $name"
		# From 7.x the image package holds no kernel: it depends on
		# linux-binary-VERSION (vmlinuz) and linux-base-VERSION (config),
		# which are fetched with it (not linux-modules, 100 MB that no VM
		# loads).
		parts=$(apt-cache depends "$pkg" 2>/dev/null | sed -n 's/^ *Depends: \(linux-\(binary\|base\)-[0-9][^ ]*\)$/\1/p' | tr '\n' ' ')
		rm -rf "$work/x" "$work/debs" && mkdir "$work/x" "$work/debs"
		# shellcheck disable=SC2086
		(cd "$work/debs" && apt-get download -q "$pkg" $parts) >"$work/download.log" 2>&1 ||
			die "apt-get download $pkg $parts failed: $(grep -E '^(E|W):' "$work/download.log" | head -n 1)"
		for deb in "$work"/debs/*.deb; do
			dpkg-deb -x "$deb" "$work/x" || die "dpkg-deb -x of $deb failed"
		done
		mkdir -p "$work/k/$flavour"
		for f in vmlinuz config; do
			src=$(ls "$work"/x/boot/$f-* "$work"/x/usr/lib/modules/*/$f 2>/dev/null | head -n 1)
			[ -n "$src" ] || die "no $f in $pkg $parts"
			cp "$src" "$work/k/$flavour/$f"
		done
		echo "$flavour $pkg $(dpkg-deb -f "$work/debs/$pkg"_*.deb Version)" >>"$work/k/kernels.stamp"
	done
	unset APT_CONFIG
	rm -rf "$out/generic" "$out/rt"
	mv "$work/k/generic" "$work/k/rt" "$out/"
	mv -f "$work/k/kernels.stamp" "$out/kernels.stamp"
}

# The release's arm64 kernel and busybox, as arm64 packages.
fetch_arm64() {
	private_apt arm64
	pkg=$(apt-cache depends linux-image-arm64 2>/dev/null | sed -n 's/^ *Depends: \(linux-image-[0-9][^ ]*\)$/\1/p' | head -n 1)
	[ -n "$pkg" ] || die "apt-cache depends linux-image-arm64 names no kernel in $name"
	rm -rf "$work/ax" "$work/adebs" && mkdir "$work/ax" "$work/adebs"
	(cd "$work/adebs" && apt-get download -q "$pkg" busybox-static) >"$work/download-arm64.log" 2>&1 ||
		die "apt-get download $pkg busybox-static (arm64) failed: $(grep -E '^(E|W):' "$work/download-arm64.log" | head -n 1)"
	for deb in "$work"/adebs/*.deb; do
		dpkg-deb -x "$deb" "$work/ax" || die "dpkg-deb -x of $deb failed"
	done
	unset APT_CONFIG
	mkdir -p "$work/a64"
	for f in vmlinuz config; do
		src=$(ls "$work"/ax/boot/$f-* 2>/dev/null | head -n 1)
		[ -n "$src" ] || die "no $f in $pkg (arm64)"
		cp "$src" "$work/a64/$f"
	done
	src=$(ls "$work"/ax/usr/bin/busybox "$work"/ax/bin/busybox 2>/dev/null | head -n 1)
	[ -n "$src" ] || die "no busybox in busybox-static (arm64)"
	cp "$src" "$work/a64/busybox"
	{
		echo "$pkg $(dpkg-deb -f "$work/adebs/$pkg"_*.deb Version)"
		echo "busybox-static $(dpkg-deb -f "$work"/adebs/busybox-static_*.deb Version)"
	} >"$work/a64/arm64.stamp"
	mv -f "$work/a64/arm64.stamp" "$out/arm64.stamp"
	rm -rf "$out/arm64"
	mv "$work/a64" "$out/arm64"
}

# mmdebstrap of the release with packages, unpacked into $2.
debootstrap() {
	variant=$1 dest=$2 pkgs=$3 hook=${4:-true}
	set --
	[ -z "$aptopt" ] || set -- --aptopt="$aptopt"
	if ! mmdebstrap --variant="$variant" --include="$pkgs" --customize-hook="$hook" "$@" \
		--dpkgopt='path-exclude=/usr/share/doc/*' \
		--dpkgopt='path-include=/usr/share/doc/*/copyright' \
		--dpkgopt='path-exclude=/usr/share/locale/*' \
		--mode=root "$suite" "$dest.tar" "$source" >"$dest.mmdebstrap.log" 2>&1; then
		why=$(grep -E '^E:' "$dest.mmdebstrap.log" | head -n 1)
		die "mmdebstrap $suite failed${why:+: $why}"
	fi
	mkdir -p "$dest"
	tar -C "$dest" -xf "$dest.tar" || die "cannot unpack the mmdebstrap tarball"
	rm -f "$dest.tar"
	rm -rf "$dest"/var/cache/apt/archives/*.deb
}

# What the project needs to build and run make check there: the release's
# names of what bootstrap.sh installs on the host; rt-app, the peer of
# dl-load that make bench runs in this root on the host's kernel (the
# rt-app of the Debian that users of libdl's build there run, with
# its libjson-c 0.18, installed nowhere on the host); and what
# dpkg-buildpackage and the release's lintian need for the project's
# packages, systemd included (the tools' package makes its group with
# sysusers, so that tests/deb installs the packages here offline); clang,
# libbpf-dev and bpftool, with which configure builds dl-stat --kernel
# (debian/rules requires it: the packages carry it).
build_pkgs=build-essential,autoconf,automake,libtool,pkg-config,libcgroup-dev,libcap-dev,check,libsystemd-dev,bash-completion,libcap2-bin,util-linux,procps,valgrind,binutils,abigail-tools,groff-base,file,rt-app,debhelper,lintian,fakeroot,systemd-dev,systemd,python3-dev,python3-pytest,dh-python,clang,libbpf-dev,bpftool
# Go and the Go packages of containerd's NRI plugin stub (0.6 in Debian
# 13, 0.8 in sid) and of Kubernetes' CRI API, which Debian ships as
# source (GOPATH /usr/share/gocode): the NRI plugin (libdl-nri(8)) and
# the CRI client of its test (tests/vm/cri) are built with them offline.
go_pkgs="golang-go golang-github-containerd-nri-dev golang-github-kubernetes-cri-api-dev golang-google-grpc-dev"
build_pkgs="$build_pkgs,$(echo $go_pkgs | tr ' ' ',')"

# The .debs the systemd image lacks that the packages need, for
# tests/deb to install offline in the VM: libcap2-bin (setcap), and
# libbpf1 with its libelf (the package libbpf1 depends on, named as the
# release names it: libelf1t64 in Debian 13).
# shellcheck disable=SC2016 # (expanded by the chroot's shell)
vm_debs='cd /root/vm-debs && apt-get download -q libcap2-bin libbpf1 $(apt-cache depends libbpf1 | sed -n "s/^ *Depends: \(libelf[^ ]*\)$/\1/p")'

# add_to_build WHAT PKGS [FIRST]: PKGS installed in place in the build
# root (after the shell command FIRST, run in it), WHAT naming the log.
add_to_build() {
	r=$out/build
	opt=
	[ -z "$aptopt" ] || opt="-o Acquire::Check-Valid-Until=false"
	cp /etc/resolv.conf "$work/resolv.conf" 2>/dev/null || :
	# shellcheck disable=SC2016
	unshare --mount --propagation private sh -c '
		[ -e "$1/etc/resolv.conf" ] || : >"$1/etc/resolv.conf"
		mount -t proc proc "$1/proc" && mount --bind "$2" "$1/etc/resolv.conf"
		chroot "$1" sh -c "$5 apt-get $4 update -q &&
			DEBIAN_FRONTEND=noninteractive apt-get install -y -q -o Dpkg::Use-Pty=0 --no-install-recommends $3 &&
			rm -rf /var/cache/apt/archives/*.deb"' sh "$r" "$work/resolv.conf" "$2" "$opt" "${3:-}" >"$work/$1.log" 2>&1 ||
		die "installing $2 in the $name build root failed: $(grep -E '^(E|W):' "$work/$1.log" | head -n 1)"
}

# The Go packages added to a build root made before they were in
# build_pkgs, in place, and named in its stamp.
fetch_go() {
	add_to_build go "$go_pkgs"
	# shellcheck disable=SC2086
	chroot "$out/build" dpkg-query -W -f '${Package} ${Version}\n' $go_pkgs >>"$out/build.stamp"
}

# The cross compiler for arm64 and the project's build dependencies as
# arm64 packages (Debian's multiarch: dpkg --add-architecture in the
# root), with which tests/distro builds the project for the arm64 VM
# (run-vm.sh --arch arm64) and build-deb.sh --arch arm64 its packages:
# added in place to the build root, as the Go packages are, and named
# in its stamp.
cross_pkgs="crossbuild-essential-arm64 pkgconf:arm64 libcgroup-dev:arm64 libcap-dev:arm64 check:arm64 libsystemd-dev:arm64 libbpf-dev:arm64 libpython3-dev:arm64"
fetch_cross() {
	add_to_build cross "$cross_pkgs" "dpkg --add-architecture arm64 &&"
	chroot "$out/build" dpkg-query -W -f '${binary:Package} ${Version}\n' crossbuild-essential-arm64 libcgroup-dev:arm64 >>"$out/build.stamp"
}

fetch_build() {
	# shellcheck disable=SC2016
	debootstrap buildd "$work/build" "$build_pkgs" \
		'mkdir -p "$1/root/vm-debs" && chroot "$1" sh -c '"'$vm_debs'"
	# Files made in the chroot for tests: like the host, root's /tmp.
	chmod 1777 "$work/build/tmp"
	# shellcheck disable=SC2086
	chroot "$work/build" dpkg-query -W -f '${Package} ${Version}\n' libcgroup-dev gcc libc6 check rt-app debhelper lintian \
		clang libbpf-dev bpftool $go_pkgs >"$work/build/.libdl-build.stamp"
	rm -rf "$out/build"
	mv "$work/build" "$out/build"
	mv -f "$out/build/.libdl-build.stamp" "$out/build.stamp"
}

# The VMs' system: systemd as PID 1, and what the tools load at run time.
systemd_pkgs=systemd,systemd-sysv,udev,procps,util-linux,libcgroup3,libcap2,libsystemd0,rt-app

# The containers' flavour: podman with crun (the OCI runtime that applies
# process.scheduler), conmon, catatonit; dbus, the system bus crun's
# systemd cgroup manager asks systemd through; netavark because podman 5 wants
# its network backend present even for --network none; jq for the
# precreate hook of dl-run(1)'s recipe; busybox-static, the containers'
# whole root file system (podman import); uidmap, whose newuidmap and
# newgidmap give a rootless podman the user's /etc/subuid and /etc/subgid
# ranges (the hook's refusal of a rootless container).
podman_pkgs="dbus podman crun conmon catatonit netavark jq busybox-static uidmap"
# sid's also has containerd (2.x, its CRI plugin and NRI) with runc, for
# the NRI plugin (libdl-nri(8), guest/nri-sid.sh), started by that test
# alone: its unit is not enabled in the image (no other boot pays for it).
[ "$suite" != sid ] || podman_pkgs="$podman_pkgs containerd runc"

# The systemd image's tree in $work/sys, as systemd.cpio.gz holds it.
make_systemd_tree() {
	debootstrap minbase "$work/sys" "$systemd_pkgs"
	r=$work/sys
	rm -rf "$r"/usr/share/man/* "$r"/usr/share/zoneinfo/*
	# A VM with no terminal: nothing waits on a console or a timer.
	ln -sf /dev/null "$r/etc/systemd/system/serial-getty@ttyS0.service"
	ln -sf /dev/null "$r/etc/systemd/system/getty@tty1.service"
	rm -rf "$r/etc/systemd/system/getty.target.wants" "$r/etc/systemd/system/timers.target.wants"
	: >"$r/etc/machine-id"
	echo libdl-vm >"$r/etc/hostname"
	: >"$r/etc/fstab"
	rm -rf "$r"/var/lib/apt/lists/*
}

# Every entry of tree $1 with what tells a change (type, mode, size, time,
# link target), sorted by name.
tree_list() {
	(cd "$1" && find . -mindepth 1 -printf '%p\t%y%m %s %T@ %l\n') | LC_ALL=C sort
}

fetch_systemd() {
	[ -d "$work/sys" ] || make_systemd_tree
	(cd "$work/sys" && find . -mindepth 1 | cpio -o -H newc -R 0:0 --quiet | gzip -1) >"$work/image" ||
		die "cannot pack the root file system"
	mv -f "$work/image" "$out/systemd.cpio.gz"
}

# The podman image is the systemd image followed by a second cpio archive
# of what installing podman adds or changes (the kernel unpacks
# concatenated archives in turn, a later file replacing an earlier one):
# one package installation in the systemd image's tree, not a second
# bootstrap of the whole system.
fetch_podman() {
	# On a cache whose systemd.cpio.gz is older, the archive is what
	# podman adds to a tree made now: the same release, its updates aside.
	have systemd.cpio.gz || fetch_systemd
	[ -d "$work/sys" ] || make_systemd_tree
	r=$work/sys
	tree_list "$r" >"$work/before"
	# apt in the chroot resolves the mirror as this host does.
	if [ -e "$r/etc/resolv.conf" ] || [ -L "$r/etc/resolv.conf" ]; then
		mv "$r/etc/resolv.conf" "$work/resolv.conf"
	fi
	cp /etc/resolv.conf "$r/etc/resolv.conf" 2>/dev/null || :
	# No daemon of the packages starts in the chroot.
	printf '#!/bin/sh\nexit 101\n' >"$r/usr/sbin/policy-rc.d"
	chmod 755 "$r/usr/sbin/policy-rc.d"
	# Run in a subshell beside the other parts: its own trap unmounts
	# (a failing umount, the normal path having unmounted them already,
	# must not change its status); the script's removes $work after.
	trap 'umount "$work/sys/dev" "$work/sys/proc" "$work/sys/sys" 2>/dev/null || :' EXIT
	mount -t proc proc "$r/proc" && mount --bind /dev "$r/dev" && mount -t sysfs sysfs "$r/sys" ||
		die "cannot mount /proc, /dev and /sys in the chroot"
	# shellcheck disable=SC2086
	chroot "$r" sh -c "apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q -o Dpkg::Use-Pty=0 --no-install-recommends $podman_pkgs" \
		>"$work/podman.log" 2>&1 || failed=1
	[ -n "${failed:-}" ] || chroot "$r" dpkg-query -W -f '${Package} ${Version}\n' $podman_pkgs >"$work/podman.stamp" 2>/dev/null || failed=1
	umount "$r/dev" "$r/proc" "$r/sys" || die "cannot unmount the chroot's /proc, /dev and /sys"
	[ -z "${failed:-}" ] ||
		die "installing $podman_pkgs in the $name tree failed: $(grep -E '^(E|W):' "$work/podman.log" | head -n 1)"
	rm -f "$r/usr/sbin/policy-rc.d" "$r/etc/resolv.conf"
	# containerd is started by the test that needs it.
	rm -f "$r/etc/systemd/system/multi-user.target.wants/containerd.service"
	[ ! -e "$work/resolv.conf" ] && [ ! -L "$work/resolv.conf" ] || mv "$work/resolv.conf" "$r/etc/resolv.conf"
	rm -rf "$r"/usr/share/man/* "$r"/var/lib/apt/lists/* "$r"/var/cache/apt/* "$r"/var/log/apt "$r"/var/log/dpkg.log
	tree_list "$r" >"$work/after"
	# What is new or changed, by name (a parent's line comes before its
	# children's); what was removed stays in the first archive.
	LC_ALL=C comm -13 "$work/before" "$work/after" | cut -f1 >"$work/layer.list"
	(cd "$r" && cpio -o -H newc -R 0:0 --quiet <"$work/layer.list" | gzip -1) >"$work/layer" ||
		die "cannot pack what podman adds"
	cat "$out/systemd.cpio.gz" "$work/layer" >"$work/image" || die "cannot write the podman image"
	mv -f "$work/image" "$out/podman.cpio.gz"
	mv -f "$work/podman.stamp" "$out/podman.stamp"
}

# A BPF scheduler from the release's own packages: tools/sched_ext's
# scx_simple from linux-source (the kernel's own example scheduler),
# compiled with the release's clang, its libbpf and bpftool, against the
# BTF of the generic kernel fetched above (vmlinux.h from its vmlinuz),
# and linked statically (libbpf, libelf, zlib, zstd), so that it runs in
# any guest, busybox's included.  The root it is built in is thrown away.
scx_pkgs=clang,llvm,libbpf-dev,bpftool,libelf-dev,zlib1g-dev,libzstd-dev,linux-source,xz-utils,zstd

fetch_scx() {
	have generic/vmlinuz || fetch_kernels
	debootstrap buildd "$work/scx" "$scx_pkgs"
	r=$work/scx
	cp "$out/generic/vmlinuz" "$r/root/vmlinuz"
	cat >"$r/root/build-scx.sh" <<'EOF'
set -eu
cd /root
mkdir linux
tar -C linux --strip-components=1 -xJf /usr/src/linux-source-*.tar.xz \
	--wildcards '*/tools/sched_ext/*' '*/tools/include/uapi/*' '*/scripts/extract-vmlinux'
sh linux/scripts/extract-vmlinux vmlinuz >vmlinux
cd linux/tools/sched_ext
mkdir -p build/include
bpftool btf dump file /root/vmlinux format c >build/include/vmlinux.h
# The BPF side as tools/sched_ext/Makefile compiles it, the system's
# headers after -target bpf's own.
sys=$(clang -v -E - </dev/null 2>&1 | sed -n '/<...> search starts here:/,/End of search list./{ s| \(/.*\)|-idirafter \1|p }')
clang -g -D__TARGET_ARCH_x86 -mlittle-endian -Iinclude -Iinclude/bpf-compat -Ibuild/include \
	-I../include/uapi $sys -Wall -Wno-compare-distinct-pointer-types -O2 -mcpu=v3 \
	-target bpf -c scx_simple.bpf.c -o build/scx_simple.bpf.o
bpftool gen object build/linked.o build/scx_simple.bpf.o
bpftool gen skeleton build/linked.o name scx_simple >build/include/scx_simple.bpf.skel.h
# The user side with the system's headers, libbpf-dev's among them.
cc -g -O2 -pthread -Wall -Ibuild/include -Iinclude -c scx_simple.c -o build/scx_simple.o
cc -static -o build/scx_simple build/scx_simple.o -lbpf -lelf -lz -lzstd -lpthread
EOF
	chroot "$r" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root sh /root/build-scx.sh \
		>"$work/scx.log" 2>&1 || die "building scx_simple in $name failed: $(tail -n 1 "$work/scx.log")"
	mkdir -p "$work/s/scx"
	cp "$r/root/linux/tools/sched_ext/build/scx_simple" "$work/s/scx/"
	chroot "$r" dpkg-query -W -f '${Package} ${Version}\n' clang libbpf-dev bpftool linux-source >"$work/s/scx.stamp"
	rm -rf "$out/scx"
	mv "$work/s/scx" "$out/scx"
	mv -f "$work/s/scx.stamp" "$out/scx.stamp"
}

# The parts side by side, each in a subshell of its own (its own work
# files, its own apt configuration): each waits mostly on downloads.
pids=""
# The scheduler is built for the kernel: after the kernels, in one subshell.
if { [ $want_kernels = yes ] && ! { have generic/vmlinuz && have rt/vmlinuz; }; } ||
	{ [ $want_scx = yes ] && ! have scx/scx_simple; }; then
	(
		if [ $want_kernels = yes ] && ! { have generic/vmlinuz && have rt/vmlinuz; }; then
			fetch_kernels
			echo "$me: $name's kernels in $out: $(cut -d' ' -f2 "$out/kernels.stamp" | tr '\n' ' ')"
		fi
		if [ $want_scx = yes ] && ! have scx/scx_simple; then
			fetch_scx
			echo "$me: scx_simple built in $name into $out/scx: $(tr '\n' ' ' <"$out/scx.stamp")"
		fi
	) &
	pids="$pids $!"
fi
if [ $want_build = yes ] && have_build && ! { have_go && have_cross; }; then
	(
		if ! have_go; then
			fetch_go
			echo "$me: $go_pkgs added to the $name build root in $out/build"
		fi
		if ! have_cross; then
			fetch_cross
			echo "$me: $cross_pkgs added to the $name build root in $out/build"
		fi
	) &
	pids="$pids $!"
elif [ $want_build = yes ] && ! have_build; then
	(
		fetch_build
		have_cross || fetch_cross
		echo "$me: a $name build root in $out/build ($(du -sm "$out/build" | cut -f1) MB): $(tr '\n' ' ' <"$out/build.stamp")"
	) &
	pids="$pids $!"
fi
if [ $want_arm64 = yes ] && ! { have arm64/vmlinuz && have arm64/busybox; }; then
	(
		fetch_arm64
		echo "$me: $name's arm64 kernel and busybox in $out/arm64: $(tr '\n' ' ' <"$out/arm64.stamp")"
	) &
	pids="$pids $!"
fi
# The podman image is made from the systemd image's tree: one after the
# other, in one subshell.
if { [ $want_systemd = yes ] && ! have systemd.cpio.gz; } || { [ $want_podman = yes ] && ! have_podman; }; then
	(
		if [ $want_systemd = yes ] && ! have systemd.cpio.gz; then
			fetch_systemd
			echo "$me: $name with systemd packed into $out/systemd.cpio.gz ($(du -m "$out/systemd.cpio.gz" | cut -f1) MB)"
		fi
		if [ $want_podman = yes ] && ! have_podman; then
			fetch_podman
			echo "$me: $name with systemd and podman packed into $out/podman.cpio.gz ($(du -m "$out/podman.cpio.gz" | cut -f1) MB)"
		fi
	) &
	pids="$pids $!"
fi
status=0
for pid in $pids; do
	wait "$pid" || status=1
done
exit $status
