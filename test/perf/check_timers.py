#!/usr/bin/env python3
"""Checks the timer output of the drivers (apps/common/TimerOutput.hpp).

  check_timers.py [--yaml FILE] [--xml FILE] [--nest "A>B>C"]... [--name N]... [--root TEXT] [--sha]

--yaml: FILE is the YAML of --timer-output=yaml: TimeMonitor's report plus the "Stacked timers"
        tree. It must parse as YAML (with PyYAML when installed; otherwise a minimal check of
        the layout the drivers write: a "---" document, the "Timer names" list, one "Total
        times" entry per name, the tree's "- name:" items indented by 4 per level), list every
        --name among TimeMonitor's timers and hold every --nest in its tree.
--xml:  FILE is a Watchr XML (--timer-output=watchr): it must be well-formed (xml.etree), a
        <performance-report> whose <timing> elements hold every --nest; --root: the top-level
        timer's name contains TEXT; --sha: it carries the git revision (<metadata key="Trilinos
        Version">).
--nest "A>B>C": a timer named A (at any depth) with a child B with a child C.
Exits 1 with a message naming what is missing.
"""
import argparse
import re
import sys
import xml.etree.ElementTree as ET


def fail(msg):
    print("check_timers: FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def is_number(v):
    """PyYAML reads YAML 1.1, where a float needs a '.': Teuchos's "1e-05" comes back a string."""
    if isinstance(v, bool):
        return False
    if isinstance(v, (int, float)):
        return True
    try:
        float(v)
        return isinstance(v, str)
    except (TypeError, ValueError):
        return False


def yaml_timer_names(path):
    """Timer names of TimeMonitor's YAML report (a mapping with "Timer names", "Total times", ...)."""
    text = open(path).read()
    try:
        import yaml
    except ImportError:
        yaml = None
    if yaml is not None:
        try:
            doc = yaml.safe_load(text)
        except yaml.YAMLError as e:
            fail("%s does not parse as YAML: %s" % (path, e))
        if not isinstance(doc, dict) or not isinstance(doc.get("Timer names"), list):
            fail("%s: not a mapping with a 'Timer names' list" % path)
        for key in ("Total times", "Call counts"):
            if not isinstance(doc.get(key), dict) or set(doc[key]) != set(doc["Timer names"]):
                fail("%s: '%s' does not have one entry per timer name" % (path, key))
        for name, stats in doc["Total times"].items():
            if not isinstance(stats, dict) or not all(is_number(v) for v in stats.values()):
                fail("%s: total time of %r is not a mapping of numbers" % (path, name))
        tree = doc.get("Stacked timers")
        if not isinstance(tree, list) or len(tree) != 1:
            fail("%s: no 'Stacked timers' list with one root" % path)

        def node(d):
            if not isinstance(d, dict) or not isinstance(d.get("name"), str):
                fail("%s: a stacked timer without a name: %r" % (path, d))
            for k in ("mean", "min", "max", "calls", "ranks"):
                if not is_number(d.get(k)):
                    fail("%s: stacked timer %r has no numeric %s" % (path, d["name"], k))
            return (d["name"], [node(c) for c in d.get("children", [])])
        return doc["Timer names"], node(tree[0])
    # Minimal check without PyYAML, of Teuchos's spacious layout: a "---" document of top-level
    # "key:" lines, the names as a block list of quoted strings, one quoted key per name under
    # "Total times" with numeric statistics indented below it.
    lines = [ln for ln in text.splitlines() if ln.strip() and not ln.startswith("#")]
    if "Stacked timers:" not in lines:
        fail("%s: no 'Stacked timers:' key" % path)
    stacked = lines[lines.index("Stacked timers:") + 1:]
    lines = lines[:lines.index("Stacked timers:")]
    if not lines or lines[0] != "---":
        fail("%s: no YAML document start '---'" % path)
    section, names, totals = None, [], {}
    for ln in lines[1:]:
        m = re.match(r"^(\S[^:]*):\s*(.*)$", ln)
        if m:
            section = m.group(1)
            continue
        if section == "Timer names":
            m = re.match(r'^  - "([^"]*)"$', ln)
            if not m:
                fail("%s: bad timer name line %r" % (path, ln))
            names.append(m.group(1))
        elif section == "Total times":
            m = re.match(r'^  "([^"]*)":\s*$', ln)
            if m:
                totals[m.group(1)] = 0
            elif re.match(r"^    \w+: [-+0-9.eE]+$", ln) and totals:
                totals[list(totals)[-1]] += 1
            else:
                fail("%s: bad line under Total times: %r" % (path, ln))
        elif not ln.startswith("  "):
            fail("%s: line outside any key: %r" % (path, ln))
    if not names or set(names) != set(totals) or not all(totals.values()):
        fail("%s: the timer names and their total times do not match" % path)
    # The tree: "- name:" items at indent 2 + 4 * depth, their keys 2 further in.
    root, stack = None, []
    for ln in stacked:
        m = re.match(r'^( *)- name: "((?:[^"\\]|\\.)*)"$', ln)
        if m:
            depth, rem = divmod(len(m.group(1)) - 2, 4)
            if rem or depth > len(stack) or (depth == 0 and root is not None):
                fail("%s: misplaced stacked timer line %r" % (path, ln))
            n = (re.sub(r"\\(.)", r"\1", m.group(2)), [])
            del stack[depth:]
            if stack:
                stack[-1][1].append(n)
            else:
                root = n
            stack.append(n)
        elif not re.match(r"^ +(mean|min|max|calls|ranks): [-+0-9.eE]+$|^ +children:$", ln):
            fail("%s: bad line in the stacked timers: %r" % (path, ln))
    if root is None:
        fail("%s: empty stacked timer tree" % path)
    return names, root


def tree_has(node, chain):
    """node = (name, children): some node named chain[0] has the rest as a chain of children."""
    def follows(n, rest):
        return not rest or any(c[0] == rest[0] and follows(c, rest[1:]) for c in n[1])
    return (node[0] == chain[0] and follows(node, chain[1:])) or any(tree_has(c, chain) for c in node[1])


def find_nest(elem, chain):
    """True when some element named chain[0], at any depth under elem, has the rest as a chain of children."""
    for e in elem.iter("timing"):
        if e.get("name") == chain[0] and follows(e, chain[1:]):
            return True
    return False


def follows(elem, chain):
    if not chain:
        return True
    return any(c.get("name") == chain[0] and follows(c, chain[1:]) for c in elem.findall("timing"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--yaml")
    ap.add_argument("--xml")
    ap.add_argument("--nest", action="append", default=[])
    ap.add_argument("--name", action="append", default=[])
    ap.add_argument("--root")
    ap.add_argument("--sha", action="store_true")
    a = ap.parse_args()
    if a.yaml:
        names, tree = yaml_timer_names(a.yaml)
        missing = [n for n in a.name if n not in names]
        if missing:
            fail("%s lacks timers %s (has %s)" % (a.yaml, missing, names))
        for n in a.nest:
            chain = [s.strip() for s in n.split(">")]
            if not tree_has(tree, chain):
                fail("%s: no nesting %s in the stacked timers" % (a.yaml, " > ".join(chain)))
        print("check_timers: %s: YAML with %d timers, all %d expected, all %d nestings found" %
              (a.yaml, len(names), len(a.name), len(a.nest)))
    if a.xml:
        try:
            root = ET.parse(a.xml).getroot()
        except ET.ParseError as e:
            fail("%s is not well-formed XML: %s" % (a.xml, e))
        if root.tag != "performance-report":
            fail("%s: root element is <%s>, not <performance-report>" % (a.xml, root.tag))
        tops = root.findall("timing")
        if len(tops) != 1:
            fail("%s: %d top-level <timing> elements, expected 1" % (a.xml, len(tops)))
        for e in root.iter("timing"):
            try:
                float(e.get("value"))
            except (TypeError, ValueError):
                fail("%s: timer %r has no numeric value" % (a.xml, e.get("name")))
        if a.root and a.root not in (tops[0].get("name") or ""):
            fail("%s: top-level timer %r does not contain %r" % (a.xml, tops[0].get("name"), a.root))
        for n in a.nest:
            chain = [s.strip() for s in n.split(">")]
            if not find_nest(root, chain):
                fail("%s: no nesting %s" % (a.xml, " > ".join(chain)))
        if a.sha:
            meta = [m for m in root.findall("metadata") if m.get("key") == "Trilinos Version" and m.get("value")]
            if not meta:
                fail("%s: no git revision (<metadata key=\"Trilinos Version\">)" % a.xml)
        print("check_timers: %s: well-formed, %d timers, all %d nestings found" %
              (a.xml, len(list(root.iter("timing"))), len(a.nest)))


if __name__ == "__main__":
    main()
