# fetch-lib.sh: the start of the scripts that fetch an image into the
# cache (fetch-kernel.sh, fetch-systemd-rootfs.sh, fetch-debian.sh,
# fetch-prometheus.sh), sourced first:
#
#   . "$(dirname "$0")/fetch-lib.sh"
#
# Sets me (the script's name, which its messages begin with), here (its
# folder), cache (cache-dir.sh: LIBDL_VM_CACHE, or ~/.cache/libdl) and die, which
# says why on stderr in one line and exits 1, the status fetch.sh reads.
me=${0##*/}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/cache-dir.sh"

die() {
	echo "$me: $*" >&2
	exit 1
}

# need_tools HINT TOOL...: every TOOL found on the PATH, or die naming the
# first missing one and HINT (where it comes from).
need_tools() {
	hint=$1
	shift
	for tool in "$@"; do
		command -v "$tool" >/dev/null 2>&1 || die "$tool not found: $hint"
	done
}

# work_in FOLDER NAME: FOLDER (the cache or a folder of it) made, and
# $work, a temporary folder .NAME.XXXXXX in the cache, removed however
# the script ends.  The work folder lives inside the cache so that the
# final renames are atomic and two runs at once cannot leave a
# half-written file behind.  --one-file-system: a chroot's mounts in it
# are left alone.
work_in() {
	mkdir -p "$1" 2>/dev/null || die "cannot create the cache folder $1"
	work=$(mktemp -d "$cache/.$2.XXXXXX") || die "cannot create a temporary folder in $cache"
	trap 'rm -rf --one-file-system "$work"' EXIT
	trap 'exit 1' HUP INT TERM
}
