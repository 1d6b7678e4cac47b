"""Long lines that a terminal or a mail reader wrapped (at 72 to 80 columns), joined back where
the listing's grammar says that the next line can only be the rest of the one before it: each
reader gives its rule (`Continues`); a wrapped line no rule joins is the reader's to refuse at its
line, as before (a prompt or an elision is never a line's rest). What the wrap took out between the two parts is put back: nothing where the
part before is a word cut at the margin (a word wrapper cuts a word only when it has no blank to
cut at: the part has no blank and is as long as the file's longest line, the margin), else a
blank (a word wrapper cuts at the last blank before the margin and drops it). The joined line
keeps the first part's number. One pass, holding one line (and a pass for the margin where a
word may have been cut)."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from pathlab.readers.pasted import Line, Source, is_aside

#: The margins terminals and mail readers wrap at (RFC 2822 §2.1.1: 78; a terminal's 80).
MARGINS = (60, 80)
#: (the line so far, the next line) → whether the next line is the rest of it: False, True (the
#: text between put back as below), or the text between where the grammar fixes it (a list of
#: `key=value,` pairs has no blank: "").
Continues = Callable[[str, str], "bool | str"]


def rejoined(source: Source, continues: Continues) -> Source:
    """`source` with each continuation `continues` recognises appended to the line it continues.
    The first whole pass decides the joins and keeps them (a number and a glue a join: none in
    a listing nobody wrapped); a later pass (a reader's pass over the lines the first one found
    its listing in) makes the same joins without asking `continues` again. The margin is found
    only when a join needs it, by a pass of its own."""
    joins: dict[int, str] | None = None  # each continuation's line number → the text put before it

    def margin_of() -> int:
        return max((len(line.text.rstrip()) for line in source()), default=0)

    def decide() -> Iterator[Line]:
        nonlocal joins
        found: dict[int, str] = {}
        margin: int | None = None
        held: Line | None = None
        piece = ""  # the last part of the held line as the file had it on one line
        for line in source():
            if held is not None:
                decided = continues(held.text, line.text) if line.text.strip() and not is_aside(line.text) else False
                if decided is not False:
                    if isinstance(decided, str):
                        glue = decided
                    else:
                        margin = margin_of() if margin is None else margin
                        glue = "" if len(piece.rstrip()) == margin >= MARGINS[0] and " " not in piece.strip() else " "
                    found[line.number] = glue
                    held, piece = Line(held.number, held.text.rstrip() + glue + line.text.strip(), line.number), line.text
                    continue
                yield held
            held, piece = line, line.text
        if held is not None:
            yield held
        joins = found

    def replay(known: dict[int, str]) -> Iterator[Line]:
        held: Line | None = None
        for line in source():
            if held is not None:
                glue = known.get(line.number)
                if glue is not None:
                    held = Line(held.number, held.text.rstrip() + glue + line.text.strip(), line.number)
                    continue
                yield held
            held = line
        if held is not None:
            yield held

    return lambda: decide() if joins is None else replay(joins) if joins else source()
