#!/bin/sh
# Debian 13: the unit and kernel suites of that build (run.sh).
exec sh "$(dirname "$0")/run.sh" debian13 check
