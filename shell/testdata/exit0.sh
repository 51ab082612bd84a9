#!/bin/sh
# The cheapest command hook: proceed without reading stdin. Used by the
# benchmarks.
exit 0
