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


def write_index(output, root, files, references, symbol_of, language, tool, version):
    """Writes a SCIP index of `files` (each with `path` and `defs`: name, owner, line, column,
    start, end; 1-based lines) and `references` (path → [(line, column, length, (path, name,
    owner))], 0-based) to `output`; gives (definitions, occurrences)."""
    documents, occurrences, defined = [], 0, 0
    for f in files:
        rel = f["path"]
        doc = field_str(1, rel)
        for d in f["defs"]:
            name_end = d["column"] + len(d["name"].encode())
            occ = field_packed(1, [d["line"] - 1, d["column"], name_end])
            occ += field_str(2, symbol_of(rel, d["name"], d["owner"]))
            occ += field_int(3, 1) + field_packed(7, [d["start"] - 1, 0, d["end"] - 1, 0])
            doc += field_bytes(2, occ)
            occurrences += 1
            defined += 1
        for line, col, length, (path, name, owner) in sorted(references.get(rel, ()), key=str):
            occ = field_packed(1, [line, col, col + length]) + field_str(2, symbol_of(path, name, owner))
            doc += field_bytes(2, occ)
            occurrences += 1
        doc += field_str(4, language) + field_int(6, 1)
        documents.append(field_bytes(2, doc))
    metadata = field_bytes(2, field_str(1, tool) + field_str(2, version))
    metadata += field_str(3, "file://" + root) + field_int(4, 1)
    with open(output, "wb") as out:
        out.write(field_bytes(1, metadata) + b"".join(documents))
    return defined, occurrences
