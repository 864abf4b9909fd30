#!/usr/bin/env python3
"""Writes the seed corpora of decoder's fuzz targets into fuzz/<FuzzName>/
in `go test fuzz v1` format. The token seeds are the vectors of
../token/testdata/vectors.json (run make_vectors.py there first). Run from this directory."""
import base64
import json
import os


def goquote(b: bytes) -> str:
    out = []
    for c in b:
        ch = chr(c)
        if ch == '"' or ch == "\\":
            out.append("\\" + ch)
        elif 0x20 <= c < 0x7F:
            out.append(ch)
        else:
            out.append("\\x%02x" % c)
    return '"' + "".join(out) + '"'


def write(name, seeds):
    d = os.path.join("fuzz", name)
    os.makedirs(d, exist_ok=True)
    for old in os.listdir(d):
        if old.startswith("seed-"):
            os.remove(os.path.join(d, old))
    for i, values in enumerate(seeds):
        lines = ["go test fuzz v1"]
        for kind, v in values:
            if isinstance(v, str):
                v = v.encode()
            lines.append("%s(%s)" % (kind, goquote(v)))
        with open(os.path.join(d, "seed-%02d" % i), "w") as f:
            f.write("\n".join(lines) + "\n")


S = lambda v: ("string", v)
B = lambda v: ("[]byte", v)

vectors = json.load(open("../token/testdata/vectors.json"))["vectors"]
token_seeds = []
for v in vectors:
    call = v["call"]
    token_seeds.append([S(v["token"]), S(json.dumps(call["_meta"])), S(call["name"])])
token_seeds += [
    [S(""), S('{"agentarea/task_id":"t"}'), S("x")],
    [S("a.b.c"), S("{}"), S("x")],
    [S("eyJhbGciOiJub25lIn0.e30."), S("null"), S("")],
    [S("...."), S("[]"), S("x")],
]
write("../../token/testdata/fuzz/FuzzVerifyContext", token_seeds)

png = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"\0" * 40).decode()
results = [
    {"content": [{"type": "text", "text": "Order A-17: shipped"}]},
    {"content": [{"type": "text", "text": "x" * 8001}], "isError": True},
    {"content": [{"type": "image", "mimeType": "image/png", "data": png},
                 {"type": "resource", "resource": {"uri": "file:///i.gif", "mimeType": "image/gif", "blob": base64.b64encode(b"GIF89a").decode()}},
                 {"type": "resource", "resource": {"uri": "file:///a.txt", "text": "abc"}},
                 {"type": "audio", "mimeType": "audio/wav", "data": "UklGRg=="},
                 {"type": "resource_link", "uri": "https://x", "name": "x"}]},
    {"content": [], "structuredContent": {"rows": ["é" * 10] * 3}, "resultType": "complete"},
    {"content": [{"type": "image", "mimeType": "image/png", "data": "/9j/4AAQ"}], "_meta": {"agentarea/replayed": True}},
    {"content": [{"type": "image", "mimeType": "image/bmp", "data": "Qk0="}], "structuredContent": [1, 2, 3], "resultType": "input_required"},
]
write("FuzzSummarizeResult", [[B(json.dumps(r, ensure_ascii=False))] for r in results] +
      [[B("[]")], [B('{"content":{"type":"text"}}')], [B('{"content":[3,null,{"type":"text"}]}')]])

write("../../soat/testdata/fuzz/FuzzRead", [
    [S("X-Soat-Context-actor_external_id"), S("ana@example.com"), S(""), S("X-Soat-Context-session_id"), S("sess_01")],
    [S("x-soat-context-actorexternalid"), S("+5511999999999"), S(""), S("X-Soat-Context-ActorExternalId"), S("(555) 123-4567")],
    [S("X-Acme-Context-plan"), S("pro"), S("X-Acme-Context-"), S("X-Soat-Context-plan"), S("free")],
    [S("X-Soat-Context-userId"), S("a"), S(""), S("X-Soat-Context-Userid"), S("b")],
    [S("X-Soat-Context-bad key"), S("v"), S("X Bad:"), S("X-Soat-Context-"), S("")],
])

write("FuzzQualifiedName", [
    [S("My GitHub!"), S("get_order")],
    [S("Constractio — инструменты сметчика"), S("estimate")],
    [S("工具"), S("run")],
    [S("Café Müller"), S("menu.v2/é")],
    [S("a" * 70), S("tool")],
    [S(""), S("")],
    [S("Объём Ґрунт"), S("x" * 80)],
])

write("../../jsonrpc/testdata/fuzz/FuzzStrictReading", [[B(b)] for b in [
    '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"get_order","arguments":{"orderId":"A-17"},"_meta":{"progressToken":3,"agentarea/task_id":"t"}}}',
    '{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":3,"progress":5,"total":23,"message":"Reading"}}',
    '{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"ok"}]}}',
    '{"jsonrpc":"2.0","id":null,"error":{"code":-32001,"message":"missing token"}}',
    '[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}},{"jsonrpc":"2.0","method":"notifications/initialized"}]',
    '[]', '42', '{"jsonrpc":"1.0"}', '{"jsonrpc":"2.0","id":{},"method":"x"}',
]])
print("seeds written")
