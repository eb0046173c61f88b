#!/bin/sh
# The Debian 13 packages, built, linted, installed and used (suite.sh).
exec sh "$(dirname "$0")/suite.sh" debian13
