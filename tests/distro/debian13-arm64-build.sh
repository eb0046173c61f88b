#!/bin/sh
# Debian 13: the project built for arm64 by its cross compiler (run.sh),
# for the arm64 VM (tests/vm/arm64).
exec sh "$(dirname "$0")/run.sh" debian13 arm64
