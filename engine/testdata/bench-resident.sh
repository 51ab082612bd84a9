#!/bin/sh
# The resident hook of BenchmarkResidentHook: proceed ({}) for every input
# line, in one long-lived process.
while IFS= read -r line; do echo '{}'; done
