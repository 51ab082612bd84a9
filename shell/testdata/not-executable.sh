#!/bin/sh
# Deliberately not executable (mode 0644): running it must exit 126.
echo '{}'
