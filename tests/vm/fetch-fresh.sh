#!/bin/sh
# fetch-fresh.sh: build (once) a fresh Debian system on a disk image, for
# the suites that install the project's Debian packages into a system
# where the project was never built (tests/deb/): Debian's own kernel and
# initramfs, systemd as PID 1, and every package the project's packages
# depend on or recommend, so that `apt-get install ./*.deb` needs no
# network in the VM.
#
# Usage: tests/vm/fetch-fresh.sh bookworm|trixie...
#
# Environment:
#   LIBDL_VM_CACHE   cache folder (default: cache/ next to this script)
#
# Leaves in $LIBDL_VM_CACHE/fresh/SUITE/:
#   root.img      the root file system, a sparse raw ext4 image (run-vm.sh
#                 --rootfs debian12-fresh|debian13-fresh boots a copy of
#                 it as /dev/vda, so the image itself stays fresh)
#   vmlinuz       the kernel linux-image-amd64 installed in it (/boot)
#   initrd.img    the initramfs update-initramfs made for it there, with
#                 the modules that mount the root disk (virtio_blk, ext4)
#   stamp         what it was made from (package versions)
#
# How: mmdebstrap --variant=minbase with the packages below from the
# mirror this host's apt uses (apt-get indextargets names it), without
# docs, man pages and locales; then the settings of a VM without a
# terminal (as fetch-systemd-rootfs.sh) and mkfs.ext4 -d of the tree.
# Needs root (mmdebstrap --mode=root, root's files read by mkfs), as
# bootstrap.sh runs it.  About 2 minutes and 1 GB a suite.
#
# Exit status: 0 when the cache holds what was asked (at once when it
# already does); 1 with one line on stderr saying why otherwise.
set -eu

me=fetch-fresh.sh
here=$(cd "$(dirname "$0")" && pwd)
cache=${LIBDL_VM_CACHE:-$here/cache}

die() {
	echo "$me: $*" >&2
	exit 1
}

[ $# -gt 0 ] || die "give the suites: bookworm, trixie"
for suite in "$@"; do
	case $suite in
	bookworm | trixie) ;;
	*) die "unknown suite \"$suite\": give bookworm or trixie" ;;
	esac
done

# What the VM runs (systemd, its kernel, the tools of the suites) and what
# the project's packages need, by each suite's names: libdeadline0 and
# libdeadline-tools (libcgroup, libcap2, libcap2-bin for setcap,
# libsystemd0), libdeadline-dev (gcc, pkg-config, libcgroup-dev and
# libcap-dev, which libdeadline.pc requires).
pkgs() {
	common=systemd,systemd-sysv,udev,linux-image-amd64,initramfs-tools,e2fsprogs,kmod,procps,util-linux,passwd,libcap2,libcap2-bin,libsystemd0,gcc,libc6-dev,libcgroup-dev,libcap-dev
	case $1 in
	bookworm) echo "$common,libcgroup2,pkg-config" ;;
	trixie) echo "$common,libcgroup3,pkgconf" ;;
	esac
}

fetch() {
	suite=$1
	out=$cache/fresh/$suite
	[ -s "$out/stamp" ] && return 0
	[ "$(id -u)" = 0 ] || die "building the $suite image needs root (mmdebstrap --mode=root)"
	for tool in apt-get mmdebstrap mkfs.ext4; do
		command -v "$tool" >/dev/null 2>&1 || die "$tool not found: bootstrap.sh installs it"
	done
	mirror=$(apt-get indextargets --format '$(REPO_URI) $(RELEASE)' 2>/dev/null |
		awk '$2 !~ /-/ { print $1; exit }')
	[ -n "$mirror" ] || die "apt names no Debian mirror (apt-get indextargets): is this Debian?"
	keyring=/usr/share/keyrings/debian-archive-keyring.gpg
	[ -r "$keyring" ] || die "no $keyring: install the Debian package debian-archive-keyring"
	mkdir -p "$cache/fresh" 2>/dev/null || die "cannot create the cache folder $cache/fresh"
	work=$(mktemp -d "$cache/fresh/.$suite.XXXXXX") || die "cannot create a temporary folder in $cache/fresh"
	trap 'rm -rf "$work"' EXIT
	# The initramfs mounts the root disk: only the modules for it, listed
	# before the kernel's package makes it (a small image boots faster
	# under TCG).
	if ! mmdebstrap --variant=minbase --include="$(pkgs "$suite")" \
		--essential-hook='mkdir -p "$1/etc/initramfs-tools/conf.d" &&
			echo MODULES=list >"$1/etc/initramfs-tools/conf.d/libdl-vm" &&
			printf "virtio_pci\nvirtio_blk\next4\n" >>"$1/etc/initramfs-tools/modules"' \
		--dpkgopt='path-exclude=/usr/share/doc/*' \
		--dpkgopt='path-include=/usr/share/doc/*/copyright' \
		--dpkgopt='path-exclude=/usr/share/man/*' \
		--dpkgopt='path-exclude=/usr/share/locale/*' \
		--dpkgopt='path-exclude=/usr/share/zoneinfo/*' \
		--mode=root "$suite" "$work/rootfs.tar" \
		"deb [signed-by=$keyring] $mirror $suite main" >"$work/mmdebstrap.log" 2>&1; then
		why=$(grep -E '^E:' "$work/mmdebstrap.log" | head -n 1)
		die "mmdebstrap $suite failed${why:+: $why}"
	fi
	r=$work/root
	mkdir "$r"
	tar -C "$r" -xf "$work/rootfs.tar" || die "cannot unpack the mmdebstrap tarball"
	rm -f "$work/rootfs.tar"

	mkdir "$work/out"
	# One kernel: linux-image-amd64's.
	cp "$r"/boot/vmlinuz-* "$work/out/vmlinuz" || die "no kernel in the $suite image"
	cp "$r"/boot/initrd.img-* "$work/out/initrd.img" || die "no initramfs in the $suite image"
	# A VM with no terminal: nothing waits on a console or a timer.
	ln -sf /dev/null "$r/etc/systemd/system/serial-getty@ttyS0.service"
	ln -sf /dev/null "$r/etc/systemd/system/getty@tty1.service"
	rm -rf "$r/etc/systemd/system/getty.target.wants" "$r/etc/systemd/system/timers.target.wants"
	rm -f "$r/etc/systemd/system/multi-user.target.wants/e2scrub_reap.service"
	: >"$r/etc/machine-id"
	echo libdl-vm >"$r/etc/hostname"
	echo '/dev/vda / ext4 defaults 0 0' >"$r/etc/fstab"
	rm -rf "$r"/var/cache/apt/*.bin "$r"/var/cache/apt/archives/*.deb "$r"/var/lib/apt/lists/*
	chroot "$r" dpkg-query -W -f '${Package} ${Version}\n' linux-image-amd64 systemd libcgroup-dev gcc \
		>"$work/out/stamp"

	# Room for what the suites install and build: a quarter more, and
	# 256 MB.
	mb=$(du -sm "$r" | cut -f1)
	mkfs.ext4 -q -F -L root -d "$r" "$work/out/root.img" "$((mb * 5 / 4 + 256))M" >"$work/mkfs.log" 2>&1 ||
		die "mkfs.ext4 -d of the $suite tree failed: $(head -n 1 "$work/mkfs.log")"
	rm -rf "$r" "$out"
	mv "$work/out" "$out"
	rm -rf "$work"
	trap - EXIT
	echo "$me: a fresh Debian $suite on $out/root.img ($(du -m "$out/root.img" | cut -f1) MB): $(tr '\n' ' ' <"$out/stamp")"
}

for suite in "$@"; do
	fetch "$suite"
done
