#!/bin/sh
# Debian sid, the development release: the unit and kernel suites of that
# build (run.sh).
exec sh "$(dirname "$0")/run.sh" sid check
