#!/bin/bash
# The Python binding on the real kernel, as root: reservations read back
# with chrt, admission against dl-run --check, a layout made and undone.
exec bash "$(dirname "$0")/pytest-tap.sh" kernel
