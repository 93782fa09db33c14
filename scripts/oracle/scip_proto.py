"""SCIP's protobuf wire format, written by hand (no protobuf package needed): the fields the
reference indexers (c_scip.py, cs_scip.py, php_scip.py) emit, and SCIP's escaping of names."""


def varint(value):
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def field_bytes(number, data):
    return varint(number << 3 | 2) + varint(len(data)) + data


def field_str(number, text):
    return field_bytes(number, text.encode())


def field_int(number, value):
    return varint(number << 3) + varint(value) if value else b""


def field_packed(number, values):
    return field_bytes(number, b"".join(varint(v) for v in values))


def escaped(name):
    if name and all(c.isalnum() or c in "_$+-" for c in name):
        return name
    return "`%s`" % name.replace("`", "``")
