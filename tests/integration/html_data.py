"""The HTML page's data (viz/html_out.c): the JSON document of its
<script id="ft-data"> and the numeric columns of its binary part
(<script id="ft-bin">: zlib, base64, LEB128 varints), for the tests."""
import base64
import json
import re
import zlib


def load(path):
    """(data, column): the page's JSON, and column(ref) -> the values of a [offset, count] ref."""
    s = open(path, encoding="utf-8").read()
    data = json.loads(re.search(r'<script type="application/json" id="ft-data">(.*?)</script>', s, re.S).group(1))
    raw = zlib.decompress(base64.b64decode(re.search(r'id="ft-bin">(.*?)</script>', s, re.S).group(1).strip()))

    def column(ref):
        i, out = ref[0], []
        while len(out) < ref[1]:
            v = sh = 0
            while True:
                c = raw[i]
                i += 1
                v |= (c & 0x7f) << sh
                sh += 7
                if c < 0x80:
                    break
            out.append(v)
        return out
    return data, column
