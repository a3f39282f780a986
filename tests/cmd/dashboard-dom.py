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


def stages(root):
    table = [t for t in root.find("table") if t.attrs.get("id") == "grid"][0]
    dates = [th.attrs["data-date"] for th in table.find("th", "day")]
    rows = {}
    for tr in table.find("tr", "stage"):
        for date, td in zip(dates, tr.find("td")):
            rows.setdefault(date, []).append(squash(td.text()))
    for date in dates:
        print(date, " | ".join(rows[date]))


def stagewords(root):
    table = [t for t in root.find("table") if t.attrs.get("id") == "grid"][0]
    dates = [th.attrs["data-date"] for th in table.find("th", "day")]
    rows = {}
    for tr in table.find("tr", "stage"):
        for date, td in zip(dates, tr.find("td")):
            words = squash(td.text()).replace(":", "").split()
            rows.setdefault(date, []).append(" ".join(words[:2]) or "-")
    for date in dates:
        print(date, " | ".join(rows[date]))


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


if __name__ == "__main__":
    mode, arg = sys.argv[1], sys.argv[2]
    fn = globals()[mode.replace("-", "_")]
    if mode in ("expect", "links", "stagewords-expect"):
        fn(arg)
    else:
        fn(parse(arg))
