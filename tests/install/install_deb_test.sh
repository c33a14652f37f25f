#!/bin/sh
# tests/install/install_deb_test.sh SOURCE BUILD — install_test.sh on the
# .deb that `./run test` builds (package_deb in ./run), named by RETRACE_DEB:
# the package unpacked by dpkg into a scratch root, the trees hidden. Run by
# `./run test` after the other suites (meson test --suite install-deb).
if [ -z "${RETRACE_DEB:-}" ]; then
    echo "1..0 # SKIP RETRACE_DEB names no .deb (./run test builds one)"
    exit 0
fi
exec sh "$(dirname "$0")/install_test.sh" "$1" "$2" "$RETRACE_DEB"
