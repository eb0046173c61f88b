#!/bin/sh
# fetch-systemd-rootfs.sh: build (once) the root file system the systemd VM
# suites boot: Debian 12's own systemd as PID 1, on cgroup v2.
#
# Usage: tests/vm/fetch-systemd-rootfs.sh [--check]
#        (--check: fetch nothing; exit 0 when the cache holds it, 1 if not)
#
# Environment:
#   LIBDL_VM_CACHE   cache folder (default: ~/.cache/libdl, cache-dir.sh)
#   LIBDL_VM_SUITE   Debian suite to bootstrap (default bookworm)
#
# Leaves in the cache:
#   systemd-rootfs.cpio.gz   a gzip'd newc cpio of the whole root file system,
#                            ready to be an initramfs (the kernel runs its
#                            /sbin/init, i.e. systemd, with rdinit=/sbin/init)
#
#   systemd-rootfs.cpio.gz.stamp  the packages it was made with: an image made
#                            with fewer is made again
#
# How: `mmdebstrap --variant=minbase` with systemd, systemd-sysv, udev,
# procps, libcgroup2, libcap2 and libcap2-bin (setcap, which the
# project's Debian packages need: tests/deb installs them in this image,
# offline) from the machine's apt sources (about a
# minute, 170 MB; docs/kernel-notes.md, "systemd on cgroup v2"), without docs, man
# pages and locales, then a few settings for a VM without a terminal:
# serial-getty@ttyS0 masked (its vhangup cuts the console), no getty on
# tty1, no timers, an empty machine-id (systemd makes a transient one).
# Needs root (mmdebstrap --mode=root), as make check runs it.
#
# Exit status: 0 when the cache holds the image (at once when it already
# does); 1 with one line on stderr saying why otherwise.
set -eu

. "$(dirname "$0")/fetch-lib.sh"
suite=${LIBDL_VM_SUITE:-bookworm}
image=$cache/systemd-rootfs.cpio.gz
pkgs=systemd,systemd-sysv,udev,procps,libcgroup2,libcap2,libcap2-bin

[ -s "$image" ] && [ "$(cat "$image.stamp" 2>/dev/null)" = "$pkgs" ] && exit 0
[ "${1:-}" = --check ] && exit 1

need_tools "install the Debian package mmdebstrap (bootstrap.sh does)" mmdebstrap
need_tools "install the Debian package cpio" cpio
[ "$(id -u)" = 0 ] || die "building the systemd image needs root (mmdebstrap --mode=root)"

work_in "$cache" systemd

if ! mmdebstrap --variant=minbase \
	--include="$pkgs" \
	--dpkgopt='path-exclude=/usr/share/doc/*' \
	--dpkgopt='path-exclude=/usr/share/man/*' \
	--dpkgopt='path-exclude=/usr/share/locale/*' \
	--dpkgopt='path-exclude=/usr/share/zoneinfo/*' \
	--mode=root "$suite" "$work/rootfs.tar" >"$work/mmdebstrap.log" 2>&1; then
	why=$(grep -E '^E:' "$work/mmdebstrap.log" | head -n 1)
	die "mmdebstrap $suite failed${why:+: $why}"
fi

r=$work/root
mkdir "$r"
tar -C "$r" -xf "$work/rootfs.tar" || die "cannot unpack the mmdebstrap tarball"
rm -f "$work/rootfs.tar"

# A VM with no terminal: nothing waits on a console or a timer.
ln -sf /dev/null "$r/etc/systemd/system/serial-getty@ttyS0.service"
ln -sf /dev/null "$r/etc/systemd/system/getty@tty1.service"
rm -rf "$r/etc/systemd/system/getty.target.wants" "$r/etc/systemd/system/timers.target.wants"
rm -f "$r/etc/systemd/system/multi-user.target.wants/e2scrub_reap.service"
: >"$r/etc/machine-id"
echo libdl-vm >"$r/etc/hostname"
: >"$r/etc/fstab"
rm -rf "$r"/var/cache/apt/* "$r"/var/lib/apt/lists/*

(cd "$r" && find . -mindepth 1 | cpio -o -H newc -R 0:0 --quiet | gzip -1) >"$work/image" ||
	die "cannot pack the root file system"
mv -f "$work/image" "$image"
echo "$pkgs" >"$image.stamp"
echo "$me: Debian $suite with systemd packed into $image ($(du -m "$image" | cut -f1) MB)"
