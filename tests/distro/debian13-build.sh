#!/bin/sh
# Debian 13: the project built in its root file system (run.sh).
exec sh "$(dirname "$0")/run.sh" debian13 build
