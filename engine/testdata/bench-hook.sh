#!/bin/sh
# The command hook of the engine benchmarks: proceed without reading stdin.
exit 0
