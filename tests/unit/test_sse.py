from console.core.engine.sse import SSEParser


def events(chunks, t=1):
    p = SSEParser()
    out = []
    for i, c in enumerate(chunks):
        out += [(e.data, e.event, e.t_ns) for e in p.feed(c, t + i)]
    out += [(e.data, e.event, e.t_ns) for e in p.close(999)]
    return out


def test_basic_and_split_across_reads_stamps_completion_time():
    got = events([b'data: {"a":1}\n\ndata: {"b"', b':2}\n', b'\n'])
    assert got == [('{"a":1}', None, 1), ('{"b":2}', None, 3)]


def test_crlf_cr_and_comments_and_multiline():
    got = events([b": keepalive\r\n\r\ndata: x\r\ndata: y\r\n\r\n", b"data: z\r", b"\r"])
    # a bare trailing CR ends its line at once (CR-only framing is not delayed a read)
    assert got == [("x\ny", None, 1), ("z", None, 3)]


def test_crlf_split_across_reads_is_one_line_end():
    p = SSEParser()
    assert p.feed(b"data: a\r", 1) == []
    assert [(e.data, e.t_ns) for e in p.feed(b"\n\r\n", 2)] == [("a", 2)]
    assert [(e.data, e.t_ns) for e in p.feed(b"data: b\r\r", 3)] == [("b", 3)]


def test_event_name_and_unknown_fields():
    got = events([b"event: sglext_ids\nid: 3\nretry: 5\ndata: {}\n\n"])
    assert got == [("{}", "sglext_ids", 1)]


def test_unterminated_final_event_is_discarded_on_close():
    # SSE spec: an event cut before its blank line is incomplete and is not dispatched
    assert events([b"data: [DONE]"]) == []
    assert events([b"data: {\"a\":1}\n"]) == []


def test_no_space_after_colon_and_empty_data():
    got = events([b"data:x\n\ndata:\n\n"])
    # per the SSE spec an event whose only field is an empty `data:` is dispatched with data ""
    assert got == [("x", None, 1), ("", None, 1)]
