#!/bin/sh
# tests/run/wrapper.sh — what `retrace run --wrapper` runs each replay under in
# the runner's tests: "$@" is the replay's command line (retrace replay TRACE
# ...). The trace's file name picks a misbehaviour a real replay can show:
#   crash*  the replay dies of SIGSEGV
#   hang*   the replay never ends, in a grandchild (the timeout must kill the group)
#   stuck*  the replay never ends, as the child itself
#   flaky*  crashes the first time, replays normally after ($RT_TEST_STATE/flaky)
# Everything else replays normally. PIDs of sleepers go to $RT_TEST_STATE.
trace=$(basename "$3")
case "$trace" in
crash*) kill -SEGV $$ ;;
hang*)
    echo "replaying $trace, then waiting forever" >&2
    sleep 600 &
    echo $! > "$RT_TEST_STATE/$trace.pid"
    wait
    ;;
stuck*)
    echo $$ > "$RT_TEST_STATE/$trace.pid"
    exec sleep 600
    ;;
flaky*)
    if [ ! -e "$RT_TEST_STATE/flaky" ]; then
        : > "$RT_TEST_STATE/flaky"
        echo "first attempt: crashing on purpose" >&2
        kill -SEGV $$
    fi
    ;;
esac
exec "$@"
