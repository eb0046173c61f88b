#!/bin/sh
# fetch-kernel.sh: download (never install) the kernel and busybox the VM
# suites boot in qemu.
#
# Usage: tests/vm/fetch-kernel.sh [--check]
#        (--check: fetch nothing; exit 0 when the cache holds both, 1 if not)
#
# Environment:
#   LIBDL_VM_CACHE       cache folder (default: ~/.cache/libdl, cache-dir.sh)
#   LIBDL_VM_KERNEL_PKG  kernel package to fetch (default: the 6.1 image
#                        that `apt-cache depends linux-image-amd64` names)
#
# Leaves in the cache:
#   vmlinuz                    symlink to boot/vmlinuz-<version>
#   busybox                    busybox-static's binary
#   boot/config-<version>      the kernel's config, for reference
#   vmlinux                    the uncompressed kernel, when xz is at hand
#                              (made from vmlinuz with no network, also
#                              for a cache that lacks it)
#
# Why vmlinux: under TCG the kernel's own xz decompression takes about
# 3.5 s of a 6.5 s boot; qemu starts the uncompressed ELF through its PVH
# entry (CONFIG_PVH=y) directly, in about 3 s, for 66 MB of cache.
#
# Exit status: 0 when the cache holds both (at once, with no network, when
# they are already there); 1 with one line on stderr saying why otherwise.
#
# The packages are fetched with `apt-get download` and unpacked with
# `dpkg-deb -x`: installing a kernel package would rewrite the machine's
# boot setup.  Works as an ordinary user; as root, stale package lists get
# one `apt-get update` and a retry.
#
# The kernel's modules are deleted: the VMs boot without any.  Everything
# the suites need is built into Debian's 6.1 image (config-6.1.0-57-amd64):
#   CONFIG_BLK_DEV_INITRD=y CONFIG_RD_GZIP=y         gzip'd cpio initramfs
#   CONFIG_DEVTMPFS=y CONFIG_TMPFS=y                 /dev, /tmp, /run
#   CONFIG_SERIAL_8250=y CONFIG_SERIAL_8250_CONSOLE=y console=ttyS0
#   CONFIG_CGROUPS=y CONFIG_CPUSETS=y                cpuset, v1 and v2
#   CONFIG_PROC_PID_CPUSET=y                         /proc/PID/cpuset
#   CONFIG_DEBUG_FS=y CONFIG_DEBUG_FS_ALLOW_ALL=y    debugfs mountable
#   CONFIG_SCHED_DEBUG=y                             sched/debug (dl_bw)
#   CONFIG_SMP=y CONFIG_ACPI=y                       -smp N, poweroff -f
# (CONFIG_DEVTMPFS_MOUNT is not set: the VM's /init mounts /dev itself.)
set -eu

. "$(dirname "$0")/fetch-lib.sh"

# Unpack the xz payload of a bzImage into $2.  The payload's place is in
# the boot protocol's setup header (Documentation/arch/x86/boot.rst):
# setup_sects at 0x1f1, payload_offset and payload_length at 0x248.
# Returns non-zero, leaving nothing, when it cannot.
unpack_vmlinux() {
	command -v xz >/dev/null 2>&1 || return 1
	grep -q '^CONFIG_PVH=y' "$cache"/boot/config-* 2>/dev/null || return 1
	sects=$(od -An -tu1 -j 497 -N 1 "$1" | tr -d ' ')
	# shellcheck disable=SC2046
	set -- "$1" "$2" $(od -An -tu4 -j 584 -N 8 "$1")
	[ -n "$sects" ] && [ $# -eq 4 ] || return 1
	start=$(((sects + 1) * 512 + $3))
	if tail -c +$((start + 1)) "$1" | head -c "$4" | xz -dc --single-stream >"$2.$$" 2>/dev/null &&
		[ "$(head -c 4 "$2.$$" | od -An -c | tr -d ' ')" = '177ELF' ]; then
		mv -f "$2.$$" "$2"
		return 0
	fi
	rm -f "$2.$$"
	return 1
}

if [ -r "$cache/vmlinuz" ] && [ -x "$cache/busybox" ]; then
	[ "${1:-}" = --check ] || [ -r "$cache/vmlinux" ] || unpack_vmlinux "$cache/vmlinuz" "$cache/vmlinux" || :
	exit 0
fi
[ "${1:-}" = --check ] && exit 1

need_tools "the VM kernel comes from Debian's packages" apt-get apt-cache dpkg-deb
work_in "$cache" fetch

is_root=no
[ "$(id -u)" = 0 ] && is_root=yes
updated=no

# Root: refresh the package lists once, when they look stale.
refresh_lists() {
	[ "$is_root" = yes ] && [ "$updated" = no ] || return 1
	updated=yes
	apt-get update -q >"$work/update.log" 2>&1
}

kernel_pkg() {
	apt-cache depends linux-image-amd64 2>/dev/null |
		sed -n 's/^ *Depends: \(linux-image-6\.1\.0-[0-9][0-9]*-amd64\)$/\1/p' |
		head -n 1
}

pkg=${LIBDL_VM_KERNEL_PKG:-}
if [ -z "$pkg" ]; then
	pkg=$(kernel_pkg)
	if [ -z "$pkg" ] && refresh_lists; then
		pkg=$(kernel_pkg)
	fi
	[ -n "$pkg" ] || die "apt-cache depends linux-image-amd64 names no linux-image-6.1.0-NN-amd64 (not Debian 12, or no package lists?); set LIBDL_VM_KERNEL_PKG"
fi

# As root apt drops to the _apt user to download, which cannot write into
# our private folder; tell it not to.
sandbox=""
[ "$is_root" = yes ] && sandbox="-oAPT::Sandbox::User=root"

download() {
	# shellcheck disable=SC2086
	(cd "$work" && apt-get download -q $sandbox "$pkg" busybox-static) >"$work/download.log" 2>&1
}

if ! download; then
	if ! refresh_lists || ! download; then
		why=$(grep -E '^(E|W):' "$work/download.log" | head -n 1)
		die "apt-get download $pkg busybox-static failed${why:+: $why}"
	fi
fi

mkdir "$work/kernel" "$work/busybox"
dpkg-deb -x "$work/$pkg"_*.deb "$work/kernel" 2>"$work/x.log" ||
	die "dpkg-deb -x of $pkg failed: $(head -n 1 "$work/x.log")"
dpkg-deb -x "$work"/busybox-static_*.deb "$work/busybox" 2>"$work/x.log" ||
	die "dpkg-deb -x of busybox-static failed: $(head -n 1 "$work/x.log")"
rm -f "$work"/*.deb

vmlinuz=""
for f in "$work/kernel/boot"/vmlinuz-*; do
	[ -f "$f" ] && vmlinuz=${f##*/}
done
[ -n "$vmlinuz" ] || die "$pkg holds no boot/vmlinuz-*"
[ -x "$work/busybox/bin/busybox" ] || die "busybox-static holds no bin/busybox"

# Keep boot/ (vmlinuz, config); the modules tree (~400 MB) and docs go.
mkdir -p "$cache/boot"
for f in "$work/kernel/boot"/*; do
	mv -f "$f" "$cache/boot/"
done
ln -s "boot/$vmlinuz" "$work/vmlinuz"
mv -f "$work/vmlinuz" "$cache/vmlinuz"
rm -f "$cache/vmlinux"
unpack_vmlinux "$cache/vmlinuz" "$work/vmlinux" && mv -f "$work/vmlinux" "$cache/vmlinux"
mv -f "$work/busybox/bin/busybox" "$cache/busybox"

echo "$me: $pkg and busybox-static unpacked into $cache"
