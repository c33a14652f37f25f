"""gen/vkxml.py - the only code that reads vk.xml (and its sibling video.xml).

Builds a small model of the `vulkan` API: structs and unions with their
members, commands with their parameters, handles with their parents, enums and
bitmasks with their values, and the platform guard of everything that needs
one. Emitters read the model and never touch the XML. Items marked for another
API (api="vulkansc") are skipped; so are disabled extensions.
"""
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field

API = "vulkan"


def _for_vulkan(elem):
    api = elem.get("api")
    return api is None or API in api.split(",")


@dataclass
class Member:
    """One struct member or command parameter, as declared in C."""
    name: str
    type: str
    pre_const: bool = False
    stars: list = field(default_factory=list)  # per '*': is it followed by const
    dims: list = field(default_factory=list)   # fixed array dimensions (C text)
    bits: int = 0                              # bitfield width, 0 if none
    len: list = field(default_factory=list)    # per pointer level, None if unknown
    altlen: str = None
    optional: list = field(default_factory=list)
    selector: str = None
    selection: list = field(default_factory=list)
    values: str = None
    decl: str = ""                             # the full C declaration

    @property
    def depth(self):
        return len(self.stars)

    def pointee_const(self, level):
        """Is what the pointer at `level` (0 = outermost) points to const?"""
        if level == self.depth - 1:
            return self.pre_const
        return self.stars[self.depth - 2 - level]


@dataclass
class Struct:
    name: str
    members: list
    is_union: bool = False
    extends: list = field(default_factory=list)
    returnedonly: bool = False
    stype: str = None
    guard: str = None
    video: bool = False


@dataclass
class Command:
    name: str
    ret: str
    params: list
    alias: str = None
    guard: str = None
    level: str = "global"
    tasks: tuple = ()  # vk.xml's tasks attribute: "action", "state", "synchronization", ...


@dataclass
class Enum:
    name: str
    bitmask: bool = False
    width: int = 32
    values: list = field(default_factory=list)  # (name, int), canonical only
    aliases: dict = field(default_factory=dict)


class Registry:
    """The parsed model. Attribute dicts are keyed by C type or command name."""

    def __init__(self, xml_path, video_xml_path=None):
        self.structs = {}        # every struct/union known to the XML
        self.struct_alias = {}
        self.type_alias = {}     # enum aliases (VkFooKHR -> VkFoo)
        self.handles = {}        # name -> (parent, dispatchable, objtypeenum)
        self.handle_alias = {}
        self.enums = {}          # VkFooFlagBits / VkFoo -> Enum
        self.bitmasks = {}       # VkFooFlags -> (bits enum name or None, width)
        self.basetypes = {}      # name -> underlying C type, or '*' for opaque pointer
        self.funcpointers = set()
        self.externals = set()   # platform types from other headers
        self.commands = {}
        self.command_order = []
        self.platforms = {}      # platform name -> protect macro
        self.header_version = 0
        self.tags = set()        # vendor suffixes: KHR, EXT, NV, ...
        self.required_types = {}     # type name -> guard (None = always)
        self.required_commands = {}  # command name -> guard
        self.instance_extension_commands = set()  # required by an extension of type "instance"
        self.extension_of = {}       # command or type name -> the first extension bringing it (not core)
        root = ET.parse(xml_path).getroot()
        self._parse_root(root, video=False)
        if video_xml_path:
            self._parse_root(ET.parse(video_xml_path).getroot(), video=True)
        self._select_api(root)

    # ---- parsing -------------------------------------------------------
    def _parse_root(self, root, video):
        for tag in root.iter("tag"):
            self.tags.add(tag.get("name"))
        for p in root.iter("platform"):
            self.platforms[p.get("name")] = p.get("protect")
        for t in root.find("types"):
            if t.tag == "type" and _for_vulkan(t):
                self._parse_type(t, video)
        for e in root.findall("enums"):
            self._parse_enums(e)
        cmds = root.find("commands")
        if cmds is not None:
            for c in cmds:
                if c.tag == "command" and _for_vulkan(c):
                    self._parse_command(c)

    def _parse_type(self, t, video):
        cat = t.get("category")
        name = t.get("name") or (t.findtext("name") or "")
        if cat in ("struct", "union"):
            if t.get("alias"):
                self.struct_alias[name] = t.get("alias")
                return
            members = [parse_member(m) for m in t.findall("member") if _for_vulkan(m)]
            s = Struct(name, members, is_union=(cat == "union"),
                       returnedonly=t.get("returnedonly") == "true", video=video)
            if t.get("structextends"):
                s.extends = t.get("structextends").split(",")
            for m in members:
                if m.name == "sType" and m.values:
                    s.stype = m.values
            self.structs[name] = s
        elif cat == "handle":
            if t.get("alias"):
                self.handle_alias[name] = t.get("alias")
            else:
                disp = t.findtext("type") == "VK_DEFINE_HANDLE"
                self.handles[name] = (t.get("parent"), disp, t.get("objtypeenum"))
        elif cat == "bitmask":
            if t.get("alias"):
                self.bitmasks[name] = ("alias", t.get("alias"))
                return
            width = 64 if t.findtext("type") == "VkFlags64" else 32
            self.bitmasks[name] = (t.get("requires") or t.get("bitvalues"), width)
        elif cat == "basetype":
            text = "".join(t.itertext())
            under = t.findtext("type")
            self.basetypes[name] = "*" if ("*" in text or under is None) else under
        elif cat == "funcpointer":
            self.funcpointers.add(name)
        elif cat == "enum" and t.get("alias"):
            self.type_alias[name] = t.get("alias")
        elif cat is None and t.get("requires") and name:
            if t.get("requires") not in ("vk_platform", "stdint"):
                self.externals.add(name)
        elif cat == "define" and name == "VK_HEADER_VERSION":
            m = re.search(r"VK_HEADER_VERSION\s+(\d+)", "".join(t.itertext()))
            self.header_version = int(m.group(1))

    def _parse_enums(self, e):
        name = e.get("name")
        kind = e.get("type")
        if kind not in ("enum", "bitmask"):
            return
        en = Enum(name, bitmask=(kind == "bitmask"), width=int(e.get("bitwidth", "32")))
        for v in e.findall("enum"):
            if _for_vulkan(v):
                self._add_enum_value(en, v, None)
        self.enums[name] = en

    def _add_enum_value(self, en, v, extnumber):
        vname = v.get("name")
        if v.get("alias"):
            en.aliases[vname] = v.get("alias")
            return
        if v.get("value") is not None:
            txt = v.get("value").rstrip("ULul")
            val = int(txt, 0) if not txt.startswith("(") else None
            if val is None:  # e.g. "(~0U)" constants never appear in type enums
                return
        elif v.get("bitpos") is not None:
            val = 1 << int(v.get("bitpos"))
        elif v.get("offset") is not None:
            ext = int(v.get("extnumber") or extnumber)
            val = 1000000000 + (ext - 1) * 1000 + int(v.get("offset"))
            if v.get("dir") == "-":
                val = -val
        else:
            return
        if all(n != vname for n, _ in en.values):
            en.values.append((vname, val))

    def _parse_command(self, c):
        if c.get("alias"):
            self.commands[c.get("name")] = Command(c.get("name"), None, [], alias=c.get("alias"))
            self.command_order.append(c.get("name"))
            return
        proto = c.find("proto")
        name = proto.findtext("name")
        params = [parse_member(p) for p in c.findall("param") if _for_vulkan(p)]
        tasks = tuple(t for t in (c.get("tasks") or "").split(",") if t)
        self.commands[name] = Command(name, proto.findtext("type"), params, tasks=tasks)
        self.command_order.append(name)

    # ---- API selection -------------------------------------------------
    def _select_api(self, root):
        """Records what core 1.0-1.3 and the supported extensions require."""
        for f in root.findall("feature"):
            if _for_vulkan(f) and API in f.get("api", API).split(","):
                self._take_requires(f, None, None)
        core = set(self.required_commands) | set(self.required_types)
        for ext in root.find("extensions"):
            supported = ext.get("supported", "").split(",")
            if API not in supported:
                continue
            guard = self.platforms.get(ext.get("platform")) if ext.get("platform") else None
            self._take_requires(ext, guard, ext.get("number"))
            if ext.get("type") == "instance":
                self.instance_extension_commands |= {c.get("name") for req in ext.findall("require")
                                                     if _for_vulkan(req) for c in req.findall("command")}
            self._note_extension(ext, core)
        self._close_types()
        for name in self.required_commands:
            cmd = self.commands[name]
            cmd.guard = self.required_commands[name]
        for name, guard in self.required_types.items():
            if name in self.structs:
                self.structs[name].guard = guard

    def _take_requires(self, elem, guard, extnumber):
        for req in elem.findall("require"):
            if not _for_vulkan(req):
                continue
            for item in req:
                n = item.get("name")
                if item.tag == "type":
                    self._need(self.required_types, n, guard)
                elif item.tag == "command":
                    self._need(self.required_commands, n, guard)
                elif item.tag == "enum" and item.get("extends") and _for_vulkan(item):
                    en = self.enums.get(item.get("extends"))
                    if en is not None:
                        self._add_enum_value(en, item, extnumber)

    def _note_extension(self, ext, core):
        """Records the first extension that brings each non-core command and type."""
        for req in ext.findall("require"):
            for item in req:
                n = item.get("name")
                if item.tag in ("command", "type") and n not in core:
                    self.extension_of.setdefault(n, ext.get("name"))

    @staticmethod
    def _need(table, name, guard):
        """Records name as required; an unguarded requirement wins over guards."""
        if name in table and table[name] is None:
            return
        if name not in table or guard is None:
            table[name] = guard

    def canonical_struct(self, name):
        while name in self.struct_alias:
            name = self.struct_alias[name]
        return name

    def _close_types(self):
        """Adds every type reached from required commands and structs."""
        work = []
        for cname, guard in list(self.required_commands.items()):
            cmd = self.commands[cname]
            target = self.commands[cmd.alias] if cmd.alias else cmd
            if cmd.alias:
                self._need(self.required_commands, cmd.alias, guard)
            work += [(p.type, guard) for p in target.params]
        work += list(self.required_types.items())
        walked = {}
        while work:
            name, guard = work.pop()
            name = self.canonical_struct(name)
            self._need(self.required_types, name, guard)
            guard = self.required_types[name]
            if name in walked and (walked[name] is None or walked[name] == guard):
                continue
            walked[name] = guard
            s = self.structs.get(name)
            if s is not None:
                work += [(m.type, guard) for m in s.members]

    # ---- queries for emitters -----------------------------------------
    def api_structs(self):
        """Canonical structs/unions of the vulkan API, in XML order."""
        return [s for n, s in self.structs.items() if n in self.required_types]

    def api_commands(self):
        """Command names of the vulkan API (aliases included), in XML order."""
        return [n for n in self.command_order if n in self.required_commands]

    def handle_root(self, name):
        """VkInstance, VkPhysicalDevice or VkDevice at the top of name's parents."""
        name = self.handle_alias.get(name, name)
        seen = []
        while name in self.handles and name not in ("VkInstance", "VkPhysicalDevice", "VkDevice"):
            seen.append(name)
            parent = self.handles[name][0]
            if not parent or parent in seen:
                break
            name = parent.split(",")[0]
        return name

    def command_level(self, cmd):
        if cmd.name in ("vkGetInstanceProcAddr",):
            return "global"
        first = cmd.params[0].type if cmd.params else None
        if first not in self.handles or cmd.params[0].depth:
            return "global"
        root = self.handle_root(first)
        return {"VkInstance": "instance", "VkPhysicalDevice": "physical_device"}.get(root, "device")

    def enum_of_bitmask(self, name):
        bm = self.bitmasks.get(name)
        while bm and bm[0] == "alias":
            bm = self.bitmasks.get(bm[1])
        return bm


def parse_member(elem):
    """Parses <member>/<param> C text into a Member."""
    name = elem.findtext("name")
    typ = elem.findtext("type")
    pre = (elem.text or "")
    after_type = ""
    after_name = ""
    seen_name = False
    for child in elem:
        if child.tag == "type":
            after_type += child.tail or ""
        elif child.tag == "name":
            seen_name = True
            after_name += child.tail or ""
        elif child.tag == "enum" and seen_name:
            after_name += (child.text or "") + (child.tail or "")
        elif child.tag == "comment":
            continue
    m = Member(name, typ, pre_const="const" in pre)
    toks = re.findall(r"\*|const", after_type)
    for i, tok in enumerate(toks):
        if tok == "*":
            m.stars.append(i + 1 < len(toks) and toks[i + 1] == "const")
    m.dims = re.findall(r"\[([^\]]+)\]", after_name)
    bits = re.search(r":\s*(\d+)", after_name)
    m.bits = int(bits.group(1)) if bits else 0
    if elem.get("len"):
        parts = elem.get("len").split(",") if not elem.get("len").startswith("latexmath") else [None]
        m.len = parts
    m.altlen = elem.get("altlen")
    if elem.get("optional"):
        m.optional = [x == "true" for x in elem.get("optional").split(",")]
    m.selector = elem.get("selector")
    if elem.get("selection"):
        m.selection = elem.get("selection").split(",")
    m.values = elem.get("values")
    decl_parts = [pre, typ, after_type, name, after_name.split(":")[0]]
    m.decl = re.sub(r"\s+", " ", " ".join(x.strip() for x in decl_parts if x)).replace(" [", "[")
    return m
