#!/usr/bin/env python3
"""Read tide's dashboard as a browser left it (chromium --dump-dom) and
the day records it was made from, as plain tables for test_cmp.

    dashboard-dom.py grid DOM        one line per grid cell: TREE DATE STATUS | NOTE
    dashboard-dom.py stages DOM      one line per day: DATE build | boot | bisect (text)
    dashboard-dom.py stagewords DOM  one line per day: DATE and the build, boot, bisect words
    dashboard-dom.py stagewords-expect DAYSDIR   the same from day.json
    dashboard-dom.py trees DOM       a day or tree page: one line per row (cells' text)
    dashboard-dom.py sections DOM    a day page: each section's id and its text
    dashboard-dom.py elements DOM    tag names of every element, sorted, unique
    dashboard-dom.py expect DAYSDIR  what day.json says: TREE DATE STATUS (the grid's order)
    dashboard-dom.py links DIR       every relative href of DIR/*.html that names no file
    dashboard-dom.py svg DOM         the trend charts: id, points per polyline, circles
    dashboard-dom.py problems DOM    the problems section: KIND SUBJECT [FIRST-BAD] per item
    dashboard-dom.py problems-expect WSDIR/DATE|WSDIR/index   the same from the records
    dashboard-dom.py totals DOM      the grid's totals row: DATE and its words
    dashboard-dom.py totals-expect DAYSDIR   the same from day.json
"""
import html.parser
import json
import os
import sys
import urllib.parse


class Node:
    def __init__(self, tag, attrs, parent):
        self.tag, self.attrs, self.parent = tag, dict(attrs), parent
        self.children = []

    def text(self):
        """The text as a reader sees it: blocks, cells and lines apart."""
        out = []
        for c in self.children:
            if isinstance(c, str):
                out.append(c)
            elif c.tag in SPACED or "note" in c.classes() or "status" in c.classes():
                out.append(" " + c.text() + " ")
            else:
                out.append(c.text())
        return "".join(out)

    def classes(self):
        return (self.attrs.get("class") or "").split()

    def walk(self):
        yield self
        for c in self.children:
            if isinstance(c, Node):
                yield from c.walk()

    def find(self, tag=None, cls=None):
        return [n for n in self.walk() if (tag is None or n.tag == tag) and
                (cls is None or cls in n.classes())]


SPACED = {"td", "th", "tr", "li", "div", "p", "h1", "h2", "h3", "br", "dt", "dd", "small",
          "pre", "ul", "table", "thead", "tbody", "section", "figure", "figcaption"}
VOID = {"meta", "link", "br", "img", "input", "hr", "col", "area", "base", "wbr", "source"}


class Parser(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = Node("#root", [], None)
        self.cur = self.root

    def handle_starttag(self, tag, attrs):
        n = Node(tag, attrs, self.cur)
        self.cur.children.append(n)
        if tag not in VOID:
            self.cur = n

    def handle_startendtag(self, tag, attrs):
        self.cur.children.append(Node(tag, attrs, self.cur))

    def handle_endtag(self, tag):
        n = self.cur
        while n is not self.root and n.tag != tag:
            n = n.parent
        if n is not self.root:
            self.cur = n.parent

    def handle_data(self, data):
        self.cur.children.append(data)


def parse(path):
    p = Parser()
    with open(path, encoding="utf-8") as f:
        p.feed(f.read())
    return p.root


def squash(s):
    return " ".join(s.split())


def grid(root):
    table = [t for t in root.find("table") if t.attrs.get("id") == "grid"][0]
    dates = [th.attrs["data-date"] for th in table.find("th", "day")]
    for tr in table.find("tr", "tree"):
        cells = tr.find("td")
        for date, td in zip(dates, cells):
            status = [s.text() for s in td.find("span", "status")]
            note = [s.text() for s in td.find("span", "note")]
            print(tr.attrs["data-tree"], date, status[0] if status else "-",
                  "|", note[0] if note else "")


STAGES = ("build", "boot", "bisect")
# What a stage's cell says when the day has none; the dashboard leaves a
# stage's row out when no day shown has one, which reads the same.
NONE = {"build": "no build", "boot": "no boot", "bisect": ""}


def stage_cells(root):
    """DATE -> {stage: the cell's text}, the rows the grid has."""
    table = [t for t in root.find("table") if t.attrs.get("id") == "grid"][0]
    dates = [th.attrs["data-date"] for th in table.find("th", "day")]
    rows = {date: {} for date in dates}
    for tr in table.find("tr", "stage"):
        for date, td in zip(dates, tr.find("td")):
            rows[date][td.attrs.get("data-stage")] = squash(td.text())
    return dates, rows


def stages(root):
    dates, rows = stage_cells(root)
    for date in dates:
        print(date, " | ".join(rows[date].get(s, NONE[s]) for s in STAGES))


def stagewords(root):
    dates, rows = stage_cells(root)
    for date in dates:
        words = []
        for s in STAGES:
            text = rows[date].get(s, NONE[s]).replace(":", "").split()
            words.append(" ".join(text[:2]) or "-")
        print(date, " | ".join(words))


def stagewords_expect(days_dir):
    for date in sorted(os.listdir(days_dir)):
        p = os.path.join(days_dir, date, "day.json")
        if not os.path.exists(p):
            continue
        d = json.load(open(p))
        words = []
        for key in ("build", "boot"):
            rec = d.get(key)
            words.append("%s %s" % (key, rec.get("status", "?")) if rec else "no " + key)
        b = d.get("bisect")
        words.append("bisect " + b.get("outcome", "?") if b else "-")
        print(date, " | ".join(words))


def trees(root):
    table = root.find("table", "trees")[0]
    for tr in table.find("tbody")[0].find("tr"):
        print(" | ".join(squash(c.text()) for c in tr.children
                         if isinstance(c, Node) and c.tag in ("th", "td")))


def sections(root):
    for s in root.find("section"):
        print(s.attrs.get("id"), ":", squash(s.text()))


def elements(root):
    print(*sorted({n.tag for n in root.walk() if n.tag != "#root"}))


def expect(days_dir):
    dates = sorted(d for d in os.listdir(days_dir)
                   if os.path.exists(os.path.join(days_dir, d, "day.json")))
    days = {d: json.load(open(os.path.join(days_dir, d, "day.json"))) for d in dates}
    order = []
    for d in reversed(dates):
        for t in days[d]["trees"]:
            if t["name"] not in order:
                order.append(t["name"])
    for name in order:
        for d in dates:
            t = [t for t in days[d]["trees"] if t["name"] == name]
            print(name, d, t[0]["status"] if t else "-")


def links(out_dir):
    for page in sorted(os.listdir(out_dir)):
        if not page.endswith(".html"):
            continue
        for a in parse(os.path.join(out_dir, page)).find("a"):
            href = a.attrs.get("href", "")
            url = urllib.parse.urlsplit(href)
            if url.scheme or url.netloc:
                print(page, "leaves the files:", href)
                continue
            path = urllib.parse.unquote(url.path)
            if path and not os.path.exists(os.path.join(out_dir, path)):
                print(page, "broken:", href)
            if url.fragment:
                target = parse(os.path.join(out_dir, path or page))
                if not [n for n in target.walk() if n.attrs.get("id") == url.fragment]:
                    print(page, "no anchor:", href)


def svg(root):
    for fig in root.find("figure", "trend"):
        lines = [len(p.attrs["points"].split()) for p in fig.find("polyline")]
        print(fig.attrs["id"], "lines", *lines, "points", len(fig.find("circle")))


def problems(root):
    sec = [n for n in root.find("section") if n.attrs.get("id") == "problems"][0]
    for li in sec.find("li", "problem"):
        subject = li.attrs.get("data-tree") or li.attrs.get("data-config") or li.attrs.get("data-id")
        first = [a.text() for a in li.find("a", "first-bad")]
        print(li.attrs["data-kind"], subject, *first)


IN_DAY = ("merged", "up-to-date", "previous")


def day_problems(d):
    """A day's problems from its record, in the record's order."""
    for t in d["trees"]:
        if t.get("conflicts") or t["status"] == "conflict":
            print("conflict", t["name"])
        elif t["status"] not in IN_DAY:
            print("left-out", t["name"])
        elif (t.get("fetch") or {}).get("status") == "stale":
            print("fetch", t["name"])
    configs = [((d.get("build") or {}).get("config") or "smoke", d.get("build"), d.get("boot"))]
    configs += [(c["name"], c.get("build"), c.get("boot")) for c in d.get("configs", [])]
    for name, build, boot in configs:
        if build and build.get("status") != "ok":
            print("build", name)
        status = (boot or {}).get("status")
        if status and status not in ("passed", "skipped"):
            print("tests" if status == "tests-failed" else "boot", name)


def problems_expect(arg):
    ws, which = os.path.split(arg.rstrip("/"))
    days = os.path.join(ws, "days")
    date = sorted(os.listdir(days))[-1] if which == "index" else which
    day_problems(json.load(open(os.path.join(days, date, "day.json"))))
    path = os.path.join(ws, "regressions.json")
    regs = json.load(open(path))["regressions"] if os.path.exists(path) else []
    for r in regs:
        if which == "index":
            shown = r["state"] != "fixed"
        else:
            shown = r["first_bad"] <= date <= (r["last_bad"] or "")
        if shown:
            print("flaky" if r["state"] == "flaky" else "regression", r["id"], r["first_bad"])


def totals(root):
    table = [t for t in root.find("table") if t.attrs.get("id") == "grid"][0]
    for td in table.find("tr", "totals")[0].find("td"):
        print(td.attrs["data-date"], squash(td.text()))


def totals_expect(days_dir):
    for date in sorted(os.listdir(days_dir)):
        d = json.load(open(os.path.join(days_dir, date, "day.json")))
        trees = d["trees"]
        merged = sum(t["status"] in IN_DAY for t in trees)
        conflicts = sum(bool(t.get("conflicts")) or t["status"] == "conflict" for t in trees)
        words = ["%d/%d merged" % (merged, len(trees))]
        if conflicts:
            words.append("%d conflict%s" % (conflicts, "" if conflicts == 1 else "s"))
        if len(trees) - merged:
            words.append("%d left out" % (len(trees) - merged))
        builds = [b for b in [d.get("build")] + [c.get("build") for c in d.get("configs", [])] if b]
        boots = [b for b in [d.get("boot")] + [c.get("boot") for c in d.get("configs", [])]
                 if b and b.get("status") != "skipped"]
        if len(builds) == 1:
            words.append("build " + builds[0]["status"])
        elif builds:
            words.append("%d/%d builds ok" % (sum(b["status"] == "ok" for b in builds), len(builds)))
        if len(boots) == 1:
            words.append("boot " + boots[0]["status"])
        elif boots:
            words.append("%d/%d boots passed" % (sum(b["status"] == "passed" for b in boots), len(boots)))
        print(date, " ".join(words))


if __name__ == "__main__":
    mode, arg = sys.argv[1], sys.argv[2]
    fn = globals()[mode.replace("-", "_")]
    if mode in ("expect", "links", "stagewords-expect", "problems-expect", "totals-expect"):
        fn(arg)
    else:
        fn(parse(arg))
