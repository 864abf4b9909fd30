#!/bin/sh
# A stdio server that will not stop: it ignores SIGTERM, and so does the
# grandchild it starts (an ignored signal stays ignored across exec). It
# writes "CHILD_PID GRANDCHILD_PID" to the file named by $1, then waits.
trap '' TERM
sleep 600 &
echo "$$ $!" > "$1.tmp" && mv "$1.tmp" "$1"
wait
