"""``accountants.strictjson`` against a byte-by-byte reference: the vectorised bracket structure
(read in blocks, here as small as 3 bytes so that strings, escapes and runs of backslashes cross
block boundaries) is the one a plain loop finds, and strict parsing refuses exactly what
``json.loads`` would misread."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from accountants import strictjson

texts = st.text(alphabet='{}[]"\\ a', max_size=60).map(str.encode)


def reference_structure(data: bytes, start: int = 0) -> list[tuple[int, bool]]:
    """(position, opening) of the brackets outside strings when reading from ``start``: a quote
    preceded by an odd run of backslashes is escaped, any other quote opens or closes a string."""
    brackets, inside, backslashes = [], False, 0
    for position in range(start, len(data)):
        byte = data[position : position + 1]
        if byte == b'"' and backslashes % 2 == 0:
            inside = not inside
        elif not inside and byte in b"{[" and byte:
            brackets.append((position, True))
        elif not inside and byte in b"}]" and byte:
            brackets.append((position, False))
        backslashes = backslashes + 1 if byte == b"\\" else 0
    return brackets


def reference_span(data: bytes, start: int, max_depth: int) -> tuple[int, bool]:
    level = 0
    for position, opening in reference_structure(data, start):
        level += 1 if opening else -1
        if level > max_depth:
            return -1, True
        if level <= 0:
            return position, False
    return -1, False


def reference_from_start(data: bytes, max_depth: int) -> tuple[int | None, bool]:
    structure = reference_structure(data)
    if not structure or structure[0] != (0, True):
        return None, False
    level = 0
    for position, opening in structure:
        level += 1 if opening else -1
        if level > max_depth:
            return position, False
        if level <= 0:
            return None, position == len(data.rstrip(b" \t\r\n")) - 1
    return None, False


@pytest.fixture(autouse=True)
def small_blocks(monkeypatch):
    monkeypatch.setattr(strictjson, "SCAN_BLOCK", 3)


@settings(max_examples=300, deadline=None)
@given(data=texts, max_depth=st.integers(1, 4))
@example(data=b'[""][[', max_depth=1)  # closed in the block where a later bracket goes too deep
def test_the_bracket_structure_is_the_one_a_byte_by_byte_reading_finds(data, max_depth):
    assert strictjson.read_from_start(data, max_depth) == reference_from_start(data, max_depth)
    openings = np.array([i for i, byte in enumerate(data) if byte in b"{["], dtype=np.int64)
    view = strictjson.BracketView(data)
    ends, deep = view.spans(openings, max_depth)
    for index, start in enumerate(openings):
        expected_end, expected_deep = reference_span(data, int(start), max_depth)
        assert strictjson.span_from(data, int(start), max_depth) == (expected_end, expected_deep)
        # spans() matches every bracket it can, however deep; span_from() stops at the first too deep
        if not expected_deep:
            assert (int(ends[index]), bool(deep[index])) == (expected_end, False)
        else:
            assert bool(deep[index])


@settings(max_examples=200, deadline=None)
@given(
    value=st.recursive(
        st.none() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
        max_leaves=12,
    )
)
def test_strict_parsing_reads_valid_json_as_json_loads_does(value):
    data = json.dumps(value).encode()
    deep = strictjson.depth_exceeded(data, 3)
    if deep is None:
        assert strictjson.loads(data, 3) == json.loads(data)
    else:
        with pytest.raises(strictjson.StrictJSONError, match="nesting deeper than 3") as caught:
            strictjson.loads(data, 3, locate=True)
        assert caught.value.position == deep and data[deep : deep + 1] in (b"{", b"[")


@pytest.mark.parametrize(
    "text, message",
    [
        (b'{"a": 1, "b": {"c": 2, "c": 3}}', "the key 'c' appears twice"),
        (b"[NaN]", "NaN is not valid"),
        (b"[-Infinity]", "-Infinity is not valid"),
        (b"[1e400]", "1e400 overflows a float"),
        (b"[-" + b"1" * 302 + b"]", "an integer of 302 digits"),
        (b"[0." + b"1" * 500 + b"]", "a number of 502 characters"),
    ],
)
def test_what_json_loads_misreads_is_refused(text, message):
    with pytest.raises(strictjson.StrictJSONError, match=message):
        strictjson.loads(text, 10)
    assert strictjson.loads(b"[-" + b"9" * 301 + b", 1e308]", 10) == [-int("9" * 301), 1e308]
