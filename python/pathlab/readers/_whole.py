"""A whole number as the tools print one: ASCII digits. `str.isdigit` also takes the digits
Python knows beyond them (`²`, `①`), which `int` then refuses: a traceback where a reader meant
to refuse the value in one line."""


def is_whole(text: str) -> bool:
    return text.isascii() and text.isdigit()
