#!/bin/sh
# Debian sid, the development release: the project built in its root file
# system (run.sh).
exec sh "$(dirname "$0")/run.sh" sid build
