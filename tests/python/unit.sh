#!/bin/bash
# The Python binding without privileges: times, parameters, errors, task
# sets, the analysis and plans, the loop without a reservation.
exec bash "$(dirname "$0")/pytest-tap.sh" unit
