#!/usr/bin/env python3
"""Checks the timer output of the drivers (perf/TimerOutput.hpp).

  check_timers.py [--yaml FILE] [--xml FILE] [--nest "A>B>C"]... [--name N]... [--root TEXT] [--sha]

--yaml: FILE is TimeMonitor's YAML (--timer-output=yaml): it must parse as YAML (with PyYAML when
        installed; otherwise a minimal check of Teuchos's spacious layout: a "---" document, the
        "Timer names" list, one "Total times" entry per name) and list every --name.
--xml:  FILE is a Watchr XML (--timer-output=watchr): it must be well-formed (xml.etree), a
        <performance-report> whose <timing> elements hold, for each --nest, an element named A
        (at any depth) with a child B with a child C; --root: the top-level timer's name contains
        TEXT; --sha: it carries the git revision (<metadata key="Trilinos Version">).
Exits 1 with a message naming what is missing.
"""
import argparse
import re
import sys
import xml.etree.ElementTree as ET


def fail(msg):
    print("check_timers: FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


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
            if not isinstance(stats, dict) or not all(isinstance(v, (int, float)) for v in stats.values()):
                fail("%s: total time of %r is not a mapping of numbers" % (path, name))
        return doc["Timer names"]
    # Minimal check without PyYAML, of Teuchos's spacious layout: a "---" document of top-level
    # "key:" lines, the names as a block list of quoted strings, one quoted key per name under
    # "Total times" with numeric statistics indented below it.
    lines = [ln for ln in text.splitlines() if ln.strip() and not ln.startswith("#")]
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
    return names


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
        names = yaml_timer_names(a.yaml)
        missing = [n for n in a.name if n not in names]
        if missing:
            fail("%s lacks timers %s (has %s)" % (a.yaml, missing, names))
        print("check_timers: %s: YAML with %d timers, all %d expected" % (a.yaml, len(names), len(a.name)))
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
