#!/bin/sh
# The Debian 12 packages, built, linted, installed and used (suite.sh).
exec sh "$(dirname "$0")/suite.sh" debian12
