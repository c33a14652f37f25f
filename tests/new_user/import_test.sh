#!/bin/sh
# tests/new_user/import_test.sh RETRACE — `retrace import`'s -o: naming the
# capture itself is refused (exit 2) and the capture is left as it was
# (before, a good capture was replaced by the trace made from it: `retrace
# import c.gfxr -o c.gfxr` exit 0, the .gfxr gone); a folder that does not
# exist is exit 2 before anything is read (was exit 5 after the import); and
# an error names the capture. Prints TAP.
R=$1
. "$(dirname "$0")/../cli/tap.sh"
printf 'not a capture at all' >"$work/c.gfxr"
cp "$work/c.gfxr" "$work/orig"
check "-o naming the capture is exit 2" 2 "-o $work/c.gfxr would overwrite the capture" -- \
    "$R" import "$work/c.gfxr" -o "$work/c.gfxr"
check "-o naming the capture through another path is exit 2" 2 "would overwrite the capture" -- \
    "$R" import "$work/c.gfxr" -o "$work/./c.gfxr"
cmp -s "$work/c.gfxr" "$work/orig" && ok "the capture is unchanged" || not_ok "the capture is unchanged" ""
check "-o into a folder that does not exist is exit 2" 2 "-o: cannot write $work/none/c.rtrace" -- \
    "$R" import "$work/c.gfxr" -o "$work/none/c.rtrace"
check "a capture that is not one is exit 3 naming it" 3 "$work/c.gfxr: file header at offset 0: not a GFXReconstruct capture" -- \
    "$R" import "$work/c.gfxr" -o "$work/c.rtrace"
echo "1..$n"
[ "$failed" -eq 0 ]
