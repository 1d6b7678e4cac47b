"""Long lines that a terminal or a mail reader wrapped (at 72 to 80 columns), joined back where
the listing's grammar says that the next line can only be the rest of the one before it: each
reader gives its rule (`Continues`); a wrapped line no rule joins is the reader's to refuse at its
line, as before (a prompt or an elision is never a line's rest). What the wrap took out between the two parts is put back: nothing where the
part before is a word cut at the margin (a word wrapper cuts a word only when it has no blank to
cut at: the part has no blank and is as long as the file's longest line, the margin), else a
blank (a word wrapper cuts at the last blank before the margin and drops it). The joined line
keeps the first part's number. Two passes: the margin, then the lines, holding one."""

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
    """`source` with each continuation `continues` recognises appended to the line it continues."""
    def read() -> Iterator[Line]:
        margin = max((len(line.text.rstrip()) for line in source()), default=0)
        held: Line | None = None
        piece = ""  # the last part of the held line as the file had it on one line
        for line in source():
            if held is not None:
                decided = continues(held.text, line.text) if line.text.strip() and not is_aside(line.text) else False
                if decided is not False:
                    cut_word = len(piece.rstrip()) == margin >= MARGINS[0] and " " not in piece.strip()
                    glue = decided if isinstance(decided, str) else "" if cut_word else " "
                    held, piece = Line(held.number, held.text.rstrip() + glue + line.text.strip(), line.number), line.text
                    continue
                yield held
            held, piece = line, line.text
        if held is not None:
            yield held
    return read
