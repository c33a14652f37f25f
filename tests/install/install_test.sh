#!/bin/sh
# tests/install/install_test.sh SOURCE BUILD [DEB] — retrace as a farm machine
# has it: `meson install` of BUILD into a DESTDIR (stripped, as a package is),
# or with DEB the package unpacked by dpkg into a scratch root instead, no
# path into SOURCE or BUILD in any installed binary, then, with SOURCE and
# BUILD hidden (a private mount namespace puts empty folders over them), the
# installed copy alone runs `retrace workarounds list`, `replay`, `capture`
# (the installed layer found through the installed manifest, of vkcube from
# vulkan-tools on lavapipe; needs DISPLAY), `run` over a manifest and
# `serve` (pages and API answered; run and serve are retrace-farm's, which
# retrace execs from LIBEXECDIR/retrace/). TAP on stdout. Needs root for the mount
# namespace: skipped otherwise.
set -eu
src=$(cd "$1" && pwd)
build=$(cd "$2" && pwd)
n=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
fail() { n=$((n + 1)); echo "not ok $n - $*"; status=1; }
status=0
if [ "$(id -u)" != 0 ] || ! unshare -m true 2>/dev/null; then
    echo "1..0 # SKIP needs root and unshare -m to hide the source and build trees"
    exit 0
fi
scratch=$(mktemp -d /tmp/retrace-install.XXXXXX)
trap 'rm -rf "$scratch"' EXIT
if [ -n "${3:-}" ]; then
    dpkg -x "$3" "$scratch/root" && prefix=/usr || { echo "1..1"; echo "not ok 1 - dpkg -x $3"; exit 1; }
else
    meson install -C "$build" --destdir "$scratch/root" --no-rebuild --strip --quiet >"$scratch/install.log" 2>&1 ||
        { cat "$scratch/install.log" >&2; echo "1..1"; echo "not ok 1 - meson install"; exit 1; }
    prefix=$(meson introspect "$build" --buildoptions |
        python3 -c 'import json, sys; print(next(o["value"] for o in json.load(sys.stdin) if o["name"] == "prefix"))')
fi
root=$scratch/root$prefix
echo "1..10"

missing=
for f in bin/retrace share/retrace/web/index.html share/retrace/web/run.html \
    share/retrace/workarounds share/vulkan/explicit_layer.d/VkLayer_RETRACE_capture.json; do
    [ -e "$root/$f" ] || missing="$missing $f"
done
layer=$(find "$root" -name 'libVkLayer_RETRACE_capture.so' | head -1)
[ -n "$layer" ] || missing="$missing libVkLayer_RETRACE_capture.so"
farm=$(find "$root" -path '*/retrace/retrace-farm' -type f | head -1)
[ -n "$farm" ] || missing="$missing retrace/retrace-farm"
if [ -z "$missing" ]; then ok "installed: retrace, retrace-farm, the layer and its manifest, workaround sets, web pages"
else fail "not installed:$missing"; fi

leaks=
for f in "$root/bin/retrace" "$farm" "$layer"; do
    [ -f "$f" ] && strings "$f" | grep -q -e "$src" -e "$build" && leaks="$leaks $f"
done
if [ -z "$leaks" ]; then ok "no source or build path in the installed binaries"
else fail "a source or build path is compiled into:$leaks"; fi

# what the steps below read, copied out before the trees disappear
cp "$src/traces/vkcube.rtrace" "$scratch/"
cat >"$scratch/manifest.yml" <<YML
label: installed
traces:
  - path: vkcube.rtrace
    frames: [1]
YML

cat >"$scratch/hidden.sh" <<'SH'
set -u
scratch=$1 root=$2 src=$3 build=$4
mount -t tmpfs -o size=1m retrace-hidden "$src"
case "$build" in "$src"/*) ;; *) mount -t tmpfs -o size=1m retrace-hidden "$build" ;; esac
unset RETRACE_LAYER_DIR RETRACE_WEB_DIR RETRACE_WORKAROUNDS_DIR RETRACE_DB VK_ADD_LAYER_PATH VK_LAYER_PATH
export PATH="$root/bin:$PATH"
cd "$scratch"
step() { name=$1; shift; if "$@" >"$scratch/$name.log" 2>&1; then echo "PASS $name"; else echo "FAIL $name: $(tail -3 "$scratch/$name.log" | tr '\n' ' ')"; fi; }
[ -e "$src/meson.build" ] && echo "FAIL hidden: the source tree is still visible" || echo "PASS hidden"
step workarounds sh -c 'retrace workarounds list | grep -q robust-buffer-access'
step lean sh -c '! ldd "$(command -v retrace)" | grep -e libcurl -e libmicrohttpd -e libsqlite3'
step replay retrace replay vkcube.rtrace --frames 1 --screenshots shots
if [ -n "${DISPLAY:-}" ] && command -v vkcube >/dev/null; then
    step capture retrace capture -o cube.rtrace -- vkcube --c 3
    step capture_replay retrace replay cube.rtrace --frames 1 --screenshots cube-shots
else
    echo "SKIP capture: no DISPLAY or no vkcube"
    echo "SKIP capture_replay"
fi
step run sh -c 'retrace run manifest.yml --db run.db; test $? -le 1'
retrace serve --db run.db --listen 127.0.0.1:0 >serve.log 2>&1 &
pid=$!
url=
for i in $(seq 100); do url=$(grep -o 'http://[^ ]*' serve.log 2>/dev/null) && break; sleep 0.1; done
step serve sh -c "curl -sf '${url}' | grep -q '<title>' && curl -sf '${url}api/runs' | grep -q '\"installed\"'"
kill $pid; wait $pid 2>/dev/null
SH
unshare -m sh "$scratch/hidden.sh" "$scratch" "$root" "$src" "$build" >"$scratch/steps.txt" 2>&1 || true
for step in hidden workarounds lean replay capture capture_replay run serve; do
    line=$(grep -E "^(PASS|FAIL|SKIP) $step\b" "$scratch/steps.txt" | head -1)
    case "$line" in
    PASS*) ok "installed retrace: $step" ;;
    SKIP*) n=$((n + 1)); echo "ok $n - installed retrace: $step # SKIP ${line#SKIP $step}" ;;
    *) fail "installed retrace: $step: ${line:-no result} $(cat "$scratch/steps.txt" | head -5 | tr '\n' ' ')" ;;
    esac
done
exit $status
