#!/usr/bin/env python3
"""Writes vectors.json: AgentArea context tokens made with Python's standard
library (hmac, hashlib, base64, json), an implementation independent of
golang-jwt, each with the call it came with and the verdict the contract
gives. decoder's TestVectors verifies every one with VerifyContext.

Run from this directory: python3 make_vectors.py
Everything is fixed (times, ids, secrets), so the output is reproducible.
"""
import base64
import hashlib
import hmac
import json

NOW = 1796040000  # 2026-11-30T12:00:00Z, the "now" the Go test passes in
INSTANCE = "7c0d5a4e-0b1f-4c55-9d2a-1f3e5b6a7c8d"
SECRET = "vector-secret-0123456789abcdefghijkl"  # 36 characters
OLD_SECRET = "vector-old-secret-0123456789abcdefgh"
OTHER = "not-the-instance-secret-0123456789ab"


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def token(claims, secret=SECRET, alg="HS256", header=None, separators=(",", ":"), sign_alg=None):
    head = header if header is not None else {"alg": alg, "typ": "JWT"}
    h = b64(json.dumps(head, separators=separators).encode())
    c = b64(json.dumps(claims, separators=separators, ensure_ascii=False).encode())
    signing = (h + "." + c).encode()
    digest = {"HS256": hashlib.sha256, "HS384": hashlib.sha384, "HS512": hashlib.sha512}
    a = sign_alg or alg
    if a == "none":
        return h + "." + c + "."
    sig = hmac.new(secret.encode(), signing, digest[a]).digest()
    return h + "." + c + "." + b64(sig)


def claims(**over):
    iat = NOW - 12
    c = {
        "iss": "agentarea", "aud": INSTANCE, "iat": iat, "exp": iat + 300,
        "jti": "0e6f3c1a-8d2b-4f7e-9a10-5c4b3a291807", "tool": "get_order",
        "protocol": "1", "task_id": "6f1c9e", "tool_call_id": "call_abc",
        "workspace_id": "1b2e", "idempotency_key": "6f1c9e:call_abc",
        "agent_id": "9d4a", "end_user_id": "user-42",
        "metadata": {"chatId": "c-9", "tags": ["a", "b"], "deep": {"x": 1, "y": 2.5}},
    }
    for k, v in over.items():
        if v is None:
            c.pop(k, None)
        else:
            c[k] = v
    return c


def meta_of(c, **over):
    m = {"progressToken": 3}
    for k, v in c.items():
        if k not in ("iss", "aud", "iat", "exp", "jti", "tool", "nbf", "sub"):
            m["agentarea/" + k] = v
    for k, v in over.items():
        key = "agentarea/" + k
        if v is None:
            m.pop(key, None)
        else:
            m[key] = v
    return m


def call(c, name="get_order", **meta_over):
    return {"name": name, "arguments": {"orderId": "A-17"}, "_meta": meta_of(c, **meta_over)}


def expect(verdict, status=0, code=0, step="", warnings=()):
    return {"verdict": verdict, "http_status": status, "rpc_code": code,
            "failed_step": step, "warnings": list(warnings)}


V = []


def add(name, tok, params, exp, secrets=(SECRET,), instance=INSTANCE):
    V.append({"name": name, "token": tok, "call": params, "secrets": list(secrets),
              "instance_id": instance, "expect": exp})


VALID = expect("valid")
R401 = lambda: expect("rejected", 401, -32001, "signature")
R403 = lambda: expect("rejected", 403, -32003, "meta")

c = claims()
add("valid", token(c), call(c), VALID)
add("valid with spaced JSON and keys in another order",
    token(dict(reversed(list(c.items()))), separators=(", ", ": ")), call(c), VALID)
add("valid with non-ASCII claim values", token(claims(end_user_id="пользователь-42")),
    call(claims(end_user_id="пользователь-42")), VALID)
add("rotation: old secret listed first, token signed with the new", token(c),
    call(c), VALID, secrets=(OLD_SECRET, SECRET))
add("rotation: token still signed with the old secret", token(c, secret=OLD_SECRET),
    call(c), VALID, secrets=(SECRET, OLD_SECRET))
add("no secret: unverified", token(c), call(c), expect("unverified"), secrets=())
add("alg none", token(c, alg="none"), call(c), R401())
add("alg HS384", token(c, alg="HS384"), call(c), R401())
add("alg HS512", token(c, alg="HS512"), call(c), R401())
add("alg confusion: RS256 header over an HMAC signature",
    token(c, header={"alg": "RS256", "typ": "JWT"}, sign_alg="HS256"), call(c), R401())
add("alg confusion: lowercase hs256", token(c, header={"alg": "hs256", "typ": "JWT"}, sign_alg="HS256"), call(c), R401())
add("wrong key", token(c, secret=OTHER), call(c), R401())
add("padded base64 segments are malformed", token(c).split(".")[0] + "==." + ".".join(token(c).split(".")[1:]), call(c), R401())
e = claims(iat=NOW - 400, exp=NOW - 100)
add("expired", token(e), call(e), R401())
e = claims(iat=NOW - 310, exp=NOW - 10)
add("expired within skew", token(e), call(e), VALID)
e = claims(iat=NOW + 60, exp=NOW + 360)
add("issued in the future beyond skew", token(e), call(e), R401())
e = claims(iat=NOW + 25, exp=NOW + 325)
add("issued in the future within skew", token(e), call(e), VALID)
e = claims(iat=NOW - 660, exp=NOW + 3600)
add("older than 10 minutes", token(e), call(e), expect("rejected", 401, -32001, "signature", ["token_lifetime"]))
e = claims(aud="11111111-2222-3333-4444-555555555555")
add("wrong aud", token(e), call(e), R401())
e = claims(aud=[INSTANCE, "other"])
add("aud as an array holding the instance", token(e), call(e), VALID)
e = claims(iss="agentarea-staging")
add("wrong iss", token(e), call(e), R401())
add("tool mismatch", token(c), call(c, name="delete_order"), expect("rejected", 403, -32003, "tool"))
add("meta mismatch", token(c), call(c, task_id="another-task"), expect("rejected", 403, -32003, "meta", ["meta_claim_mismatch"]))
add("meta with reordered object keys passes", token(c),
    call(c, metadata={"deep": {"y": 2.5, "x": 1}, "tags": ["a", "b"], "chatId": "c-9"}), VALID)
add("meta array order matters", token(c),
    call(c, metadata={"chatId": "c-9", "tags": ["b", "a"], "deep": {"x": 1, "y": 2.5}}),
    expect("rejected", 403, -32003, "meta", ["meta_claim_mismatch"]))
add("meta number 1.0 equals 1", token(c),
    call(c, metadata={"chatId": "c-9", "tags": ["a", "b"], "deep": {"x": 1.0, "y": 2.5}}), VALID)
e = claims(protocol="2")
add("protocol 2 rejected", token(e), call(e), R403())
e = claims(protocol="1.7")
add("protocol 1.7 passes", token(e), call(e), VALID)
add("malformed metadata", token(c), call(c, metadata="chatId=c-9"), expect("rejected", 400, -32602, "meta"))
e = claims(exp=NOW - 12 + 200)
add("warning: exp is not iat + 300", token(e), call(e), expect("valid", warnings=["token_lifetime"]))
add("warning: context claim missing from _meta", token(c), call(c, agent_id=None),
    expect("valid", warnings=["claim_missing_from_meta"]))
e = claims(idempotency_key="retry-1")
add("warning: idempotency key", token(e), call(e), expect("valid", warnings=["idempotency_key_format"]))
e = claims(metadata={"blob": "x" * 4100})
add("warning: metadata over 4096 bytes", token(e), call(e), expect("valid", warnings=["metadata_too_large"]))
e = claims(end_user_id="u" * 257)
add("warning: end_user_id over 256", token(e), call(e), expect("valid", warnings=["end_user_id_length"]))

with open("vectors.json", "w") as f:
    json.dump({"generator": "make_vectors.py (Python hmac/hashlib/base64/json)",
               "now": NOW, "vectors": V}, f, indent=1, ensure_ascii=False)
    f.write("\n")
print(len(V), "vectors")
