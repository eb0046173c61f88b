# cache-dir.sh: sourced by the scripts that use the test images' cache
# (tests/vm/fetch.sh says what it holds); sets cache, its folder:
# LIBDL_VM_CACHE when given, else the user's cache folder's libdl
# ($XDG_CACHE_HOME/libdl, or ~/.cache/libdl), which every checkout and
# build tree of that user shares, so that a fresh clone finds the images
# an earlier one fetched.  Images there are fetched, never installed;
# remove the folder to take back its 2.8 GB.
cache=${LIBDL_VM_CACHE:-${XDG_CACHE_HOME:-${HOME:-/nonexistent}/.cache}/libdl}
