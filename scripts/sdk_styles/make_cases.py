#!/usr/bin/env python3
"""Writes cases.json: the messages every SDK harness serializes (name, JSON text of the value)."""
import json, os

CASES = [
    # strings: every escape class
    ("string-plain", '"Hello World"'),
    ("string-empty", '""'),
    ("string-quotes-backslash", r'"say \"hi\" \\ back\\"'),
    ("string-slash", r'"a/b http://x/y"'),
    ("string-controls", r'"\u0000\u0001\b\t\n\u000b\f\r\u001b\u001f"'),
    ("string-del", r'"a\u007fb"'),
    ("string-html", '"<script>&amp;</script>"'),
    ("string-line-separators", r'"a\u2028b\u2029c"'),
    ("string-latin1", '"héllo wörld ñ ÿ"'),
    ("string-bmp", '"€ 中文 \ufeff \uffff"'.replace("\\ufeff", "\ufeff").replace("\\uffff", "\uffff")),
    ("string-astral", '"🙂 𝄞 😀"'),
    ("string-all-escapes", '"q\\" b\\\\ s/ \\n\\t\\u0001 \\u007f <>& \\u2028 é € 🙂"'),
    ("string-json-looking", r'"{\"a\":1}"'),
    ("string-quote-only", r'"\""'),
    ("string-trailing-newline", r'"line\n"'),
    ("string-trailing-low-bytes", r'"ab\u0003\u0003"'),
    # objects, key order
    ("object-key-order", '{"z":1,"y":2,"a":3,"A":4,"_":5,"10":6,"9":7,"é":8,"b":9}'),
    ("object-nested", '{"b":{"d":[1,2,{"f":null,"e":true}],"c":"x"},"a":"é","text":"🙂"}'),
    ("object-escaped-keys", '{"<k>":"v","a/b":"\u2028","é":"ü","q\\"":1}'),
    ("object-empty", '{}'),
    ("object-nested-empty", '{"a":{},"b":[],"c":[{}, []]}'),
    ("object-duplicate-keys", '{"a":1,"b":2,"a":3}'),
    ("object-timetoken", '{"text":"hello","timetoken":13406746729185766,"tags":["a",null,true]}'),
    # arrays
    ("array-empty", '[]'),
    ("array-mixed", '[1,"two",true,false,null,[],{},-1.5]'),
    ("array-nested", '[[[["deep"]]],{"k":[{}]}]'),
    ("array-string-escapes", '["q\\" b\\\\ s/ \\b\\f\\n\\r\\t\\u0000\\u001b \\u007f <>& \\u2028 é € 🙂"]'),
    # literals
    ("literal-true", 'true'),
    ("literal-false", 'false'),
    ("literal-null", 'null'),
    # integers around 2^53, 2^63, 2^64 and beyond
    ("int-zero", '0'),
    ("int-negative-zero", '-0'),
    ("int-small", '42'),
    ("int-negative", '-17'),
    ("int-2p53-minus-1", '9007199254740991'),
    ("int-2p53", '9007199254740992'),
    ("int-2p53-plus-1", '9007199254740993'),
    ("int-negative-2p53-plus-1", '-9007199254740993'),
    ("int-timetoken", '13406746729185766'),
    ("int-int64-max", '9223372036854775807'),
    ("int-int64-min", '-9223372036854775808'),
    ("int-2p63", '9223372036854775808'),
    ("int-below-int64-min", '-9223372036854775809'),
    ("int-uint64-max", '18446744073709551615'),
    ("int-2p64", '18446744073709551616'),
    ("int-12345678901234567890", '12345678901234567890'),
    ("int-30-digits", '123456789012345678901234567890'),
    ("int-in-object", '{"big":18446744073709551616,"tt":9007199254740993}'),
    # floats in every notation
    ("float-three-point-zero", '3.0'),
    ("float-hundred-point-zero", '100.0'),
    ("float-negative-zero", '-0.0'),
    ("float-half", '0.5'),
    ("float-tenth", '0.1'),
    ("float-negative", '-2.75'),
    ("float-1.5e-7", '1.5e-7'),
    ("float-1e-6", '0.000001'),
    ("float-1e-5", '0.00001'),
    ("float-1e-4", '0.0001'),
    ("float-1e-7", '0.0000001'),
    ("float-1e15", '1e15'),
    ("float-1e16", '1e16'),
    ("float-1e17", '1e17'),
    ("float-1e20", '1e20'),
    ("float-1e21", '1e21'),
    ("float-1.5e300", '1.5e300'),
    ("float-max", '1.7976931348623157e308'),
    ("float-min-subnormal", '5e-324'),
    ("float-exponent-upper", '2.5E+3'),
    ("float-integer-exponent", '1E2'),
    ("float-long-fraction", '123456.789012345678'),
    ("float-2p64-as-float", '18446744073709551616.0'),
    ("float-third", '0.3333333333333333'),
    ("float-in-array", '[1.0,1e21,1.5e-7,-0.0,0.1]'),
]

if __name__ == "__main__":
    here = os.path.dirname(os.path.abspath(__file__))
    for name, text in CASES:
        json.loads(text)  # every case is one JSON text
    with open(os.path.join(here, "cases.json"), "w", encoding="utf-8") as f:
        json.dump([{"name": n, "message": t} for n, t in CASES], f, ensure_ascii=False, indent=1)
        f.write("\n")
    print(len(CASES), "cases")
