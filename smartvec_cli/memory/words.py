"""Words that stand for numbers, shared by the date reader and the value extractor."""

from __future__ import annotations

NUMBER_WORDS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
}
ARTICLES = ("a", "an")  # "a year ago": one, where a count is expected
