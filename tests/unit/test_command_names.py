#!/usr/bin/env python3
"""tests/unit/test_command_names.py - replay/, capture/ and trim/ never compare a command's name.

What a command does is gen/command_flags.py's to decide, once, into the
command table (flags, categories, events, transfer destinations, object
types, trim's roles and argument shapes). A source under replay/, capture/
or trim/ that compares a command id (`cmd == RT_VK_CMD_vkFoo`,
`case RT_VK_CMD_vkFoo:`), a name string (`strcmp(name, "vkFoo")`, a prefix
or part of one: `strstr(name, "MemoryRequirements")` on a command's name) or
holds a list of command names (two "vkFoo" strings on a line) keeps a second,
hand-made list that the next vk.xml silently outgrows, so this test fails,
naming the file and line.
Naming a command to call it (`replay_generic_call(r, RT_VK_CMD_vkFoo, ...)`)
is not a comparison. The patterns are checked against known bad and good
lines first, so the test cannot pass by matching nothing.
Usage: test_command_names.py SOURCE_ROOT
"""
import os
import re
import sys

ID = r"RT_VK_CMD_vk\w+"
PATTERNS = [
    re.compile(r"[=!]=\s*" + ID),                       # cmd == RT_VK_CMD_vkFoo
    re.compile(ID + r"\s*[=!]="),                       # RT_VK_CMD_vkFoo != cmd
    re.compile(r"\bcase\s+" + ID),                      # case RT_VK_CMD_vkFoo:
    re.compile(r"\bstr(n?cmp|n?casecmp|str)\s*\([^;]*\"vk[A-Z]"),  # strcmp(name, "vkFoo")
    re.compile(r"\bmemcmp\s*\([^;]*\"vk[A-Z]"),
    re.compile(r"\"vk[A-Z]\w*\"[^;]*\"vk[A-Z]\w*\""),      # a list: {"vkFoo", "vkBar", ...}
    re.compile(r"\bstr(n?cmp|str)\s*\([^;]*\"[A-Z][a-z]+[A-Z]\w*\""),  # strstr(name, "MemoryRequirements")
]
BAD = ['if (cmd == RT_VK_CMD_vkQueueSubmit)', 'case RT_VK_CMD_vkCmdCopyBuffer: case',
       'return RT_VK_CMD_vkMapMemory != c;', 'if (!strcmp(name, "vkCreateDevice"))',
       'strncmp(n, "vkCmdCopy", 9)']
GOOD = ['RT_TRY(replay_generic_call(r, RT_VK_CMD_vkBeginCommandBuffer, args, res));',
        'if (rt_vk_cmd_categories(cmd) & RT_VK_CMD_CAT_PRESENTS)', 'if (!strcmp(layer, CAPTURE_LAYER_NAME))',
        'if (!strcmp(layer, "VK_KHR_swapchain"))', 'if (role == RT_VK_TRIM_ROLE_RECORDS)',
        'case RT_VK_TRIM_ARGS_SUBMIT:', 'return strstr(name, "surface") || !strcmp(name, "VK_KHR_swapchain");',
        'if (!strcmp(key, "Content-Type"))']


def offending(line):
    return any(p.search(line) for p in PATTERNS)


def main():
    root = sys.argv[1]
    failures = [f"pattern misses: {b}" for b in BAD if not offending(b)]
    failures += [f"pattern flags a call: {g}" for g in GOOD if offending(g)]
    checked = 0
    for module in ("replay", "capture", "trim"):
        for folder, _, files in os.walk(os.path.join(root, module)):
            for name in sorted(files):
                if not name.endswith((".c", ".h")):
                    continue
                path = os.path.join(folder, name)
                checked += 1
                with open(path, encoding="utf-8") as f:
                    for number, line in enumerate(f, 1):
                        if offending(line):
                            failures.append(f"{os.path.relpath(path, root)}:{number}: compares a command name "
                                            f"(ask the command table: gen/command_flags.py): {line.strip()}")
    if checked < 10:
        failures.append(f"only {checked} sources found under replay/, capture/ and trim/")
    for f in failures:
        print("FAILED: " + f)
    print(f"{checked} sources of replay/, capture/ and trim/ checked")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
