"""The player guides' Markdown, set as formatted text for a terminal of any width.

Theory of operation
-------------------
The guides (``cli/guides/*.md``) use a small part of Markdown, and this reads exactly that
part: ``#``, ``##`` and ``###`` headings; paragraphs (their lines joined, then wrapped again
at words for the width); ``-``/``*`` bullets and ``1.`` numbered items, nested by their
indentation, with their continuation lines and what is indented under them (a table inside
an item); pipe tables with a ``|---|`` line under their header; and in the text ``**bold**``,
``*emphasis*``, ``` ``code`` ``` and backslash escapes (``\\*``).

``render`` turns a guide into lines of styled fragments (``cli.typeset``) for one width: the
help panel of the application draws them with its styles, ``spycraft rules`` in a terminal
pages them, and ``plain=True`` gives text for a pipe (headings underlined, since a pipe has
no bold). Text is never cut: words wrap, tables lay out in columns that wrap their cells, and
a source line that is neither of these is kept as a paragraph.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from spycraft.cli import typeset
from spycraft.cli.typeset import Fragment, Line

_HEADING = re.compile(r"^(#{1,3})\s+(.*?)\s*#*\s*$")
_ITEM = re.compile(r"^(\s*)([-*]|\d+[.)])\s+(.*)$")
_RULE_CELL = re.compile(r"^:?-{2,}:?$")
_INLINE = re.compile(
    r"\\(?P<escaped>[\\`*_{}\[\]()#+\-.!|])"
    r"|\*\*(?P<bold>.+?)\*\*"
    r"|`(?P<code>[^`]+)`"
    r"|(?<![\w*])\*(?P<em>[^*\s](?:[^*]*[^*\s])?)\*(?![\w*])"
)


@dataclass
class _Block:
    kind: str  # "heading", "text", "table", "blank"
    margin: int = 0  # cells of indentation of the block's lines
    marker: str = ""  # a list item's bullet or number, on its first line
    level: int = 0  # a heading's level
    text: str = ""
    rows: list[list[str]] | None = None


def inline(text: str, style: str = "") -> list[Fragment]:
    """A line of Markdown text as fragments: bold, emphasis, code, escapes."""
    out: list[Fragment] = []
    at = 0
    for found in _INLINE.finditer(text):
        if found.start() > at:
            out.append((style, text[at:found.start()]))
        if found["escaped"] is not None:
            out.append((style, found["escaped"]))
        elif found["bold"] is not None:
            out += inline(found["bold"], f"{style} class:md.bold".strip())
        elif found["code"] is not None:
            out.append((f"{style} class:md.code".strip(), found["code"]))
        else:
            out += inline(found["em"], f"{style} class:md.em".strip())
        at = found.end()
    if at < len(text):
        out.append((style, text[at:]))
    return out


def _cells(line: str) -> list[str]:
    body = line.strip()
    body = body.removeprefix("|")
    if body.endswith("|") and not body.endswith("\\|"):
        body = body[:-1]
    cells, current, escaped = [], "", False
    for char in body:
        if escaped:
            current += char if char == "|" else "\\" + char
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == "|":
            cells.append(current.strip())
            current = ""
        else:
            current += char
    cells.append(current.strip())
    return cells


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def parse(source: str) -> list[_Block]:
    """The blocks of a guide, in order."""
    blocks: list[_Block] = []
    lines = source.expandtabs(4).splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        if not stripped:
            if blocks and blocks[-1].kind != "blank":
                blocks.append(_Block("blank"))
            i += 1
            continue
        heading = _HEADING.match(line)
        if heading:
            blocks.append(_Block("heading", level=len(heading[1]), text=heading[2]))
            i += 1
            continue
        if stripped.startswith("|"):
            margin = _indent(line)
            rows = []
            while i < len(lines) and lines[i].strip().startswith("|"):
                cells = _cells(lines[i])
                if not all(_RULE_CELL.match(c.replace(" ", "")) for c in cells):
                    rows.append(cells)
                i += 1
            blocks.append(_Block("table", margin=margin, rows=rows))
            continue
        item = _ITEM.match(line)
        if item:
            marker = "•" if item[2] in "-*" else item[2]
            margin = len(item[1]) + len(item[2]) + 1
            text, i = _gather(lines, i + 1, item[3])
            blocks.append(_Block("text", margin=margin, marker=marker, text=text))
            continue
        text, i = _gather(lines, i + 1, stripped)
        blocks.append(_Block("text", margin=_indent(line), text=text))
    return blocks


def _gather(lines: list[str], i: int, text: str) -> tuple[str, int]:
    """A paragraph's text: its first line and the lines that go on with it (not blank, not a
    heading, an item or a table)."""
    parts = [text]
    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        if not stripped or _HEADING.match(line) or _ITEM.match(line) or stripped.startswith("|"):
            break
        parts.append(stripped)
        i += 1
    return " ".join(parts), i


def render(source: str, width: int, plain: bool = False) -> list[Line]:
    """``source`` set for ``width`` cells: styled lines (``plain``: for a pipe, headings
    underlined instead of styled)."""
    width = max(20, width)
    out: list[Line] = []
    for block in parse(source):
        if block.kind == "blank":
            if out and out[-1]:
                out.append([])
        elif block.kind == "heading":
            if out and out[-1]:
                out.append([])
            style = f"class:md.h{block.level}"
            text = inline(block.text, style)
            set_ = typeset.wrap(text, width, 2)
            out += set_
            if plain and block.level < 3:
                rule = "=" if block.level == 1 else "-"
                out.append([("", rule * min(width, typeset.line_width(set_[0])))])
            if block.level == 1:
                out.append([])
        elif block.kind == "table":
            out += _table(block, width)
        else:
            out += _text(block, width)
    while out and not out[-1]:
        out.pop()
    return out


def _text(block: _Block, width: int) -> list[Line]:
    margin = min(block.margin, width // 2)
    room = width - margin
    opening: list[Fragment] = []
    if block.marker:
        mark = block.marker
        opening = [("class:md.bullet", mark.ljust(len(mark)) + " ")]
        margin = max(0, margin - len(opening[0][1]))
        room = width - margin
    hang = typeset.line_width(opening)
    lines = typeset.wrap(inline(block.text), room, hang, first=opening)
    return [[("", " " * margin), *line] if margin else line for line in lines]


def _table(block: _Block, width: int) -> list[Line]:
    rows = block.rows or []
    if not rows:
        return []
    margin = min(block.margin, width // 4)
    room = width - margin
    count = max(len(r) for r in rows)
    header = [inline(c) for c in rows[0]] + [[]] * (count - len(rows[0]))
    body = [[inline(c) for c in r] + [[]] * (count - len(r)) for r in rows[1:]]
    lines = typeset.table(header, body, room, header_style="class:md.bold", rule="─")
    if lines is None:
        lines = typeset.table(header, body, room, header_style="class:md.bold", rule="─",
                              force=True) or []
    return [[("", " " * margin), *line] if margin else line for line in lines]
