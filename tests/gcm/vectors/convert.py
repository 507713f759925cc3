#!/usr/bin/env python3
"""Converts the JSON GCM vectors into the "Name = value" blocks the GCM
tests read (the format of the NIST CAVP .rsp files next to them).

    python3 convert.py SHARED_VECTORS_DIR

reads gcm-spec/gcm_spec_test_cases.json, wycheproof/aes_gcm_test.json and
wycheproof/aes_gmac_test.json and writes gcm-spec.txt, wycheproof-gcm.txt
and wycheproof-gmac.txt here, each starting with the provenance of its
source. Every record keeps its result (valid / invalid / acceptable) and
flags; nothing is dropped.
"""
import json
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
src = sys.argv[1]


def block(out, fields):
    for k, v in fields:
        out.write(f"{k} = {v}\n")
    out.write("\n")


def spec():
    d = json.load(open(os.path.join(src, "gcm-spec/gcm_spec_test_cases.json")))
    with open(os.path.join(here, "gcm-spec.txt"), "w") as out:
        out.write(f"# Provenance: {d['source']}\n# note: {d['note']}\n"
                  "# converted by convert.py\n\n")
        for t in d["test_cases"]:
            block(out, [("Count", t["test_case"]), ("Key", t["key"]),
                        ("IV", t["iv"]), ("AAD", t["aad"]),
                        ("PT", t["plaintext"]), ("CT", t["ciphertext"]),
                        ("Tag", t["tag"]), ("Result", t["result"])])
        # the add-ons: tag-bit flips (invalid) and a long message
        for i, t in enumerate(d["extra"]):
            out.write(f"# {t.get('comment', '')}\n")
            block(out, [("Count", 100 + i), ("Key", t["key"]),
                        ("IV", t["iv"]), ("AAD", t["aad"]),
                        ("PT", t["plaintext"]), ("CT", t["ciphertext"]),
                        ("Tag", t["tag"]), ("Result", t["result"])])


def wycheproof(name, out_name, gmac):
    d = json.load(open(os.path.join(src, "wycheproof", name)))
    with open(os.path.join(here, out_name), "w") as out:
        out.write(f"# Provenance: C2SP/wycheproof testvectors_v1/{name} "
                  f"({d['algorithm']}, {d['numberOfTests']} tests; "
                  "Apache-2.0)\n# converted by convert.py\n\n")
        for g in d["testGroups"]:
            for t in g["tests"]:
                if gmac:
                    # GMAC: the message is authenticated only (GCM's AAD),
                    # there is no plaintext
                    f = [("Count", t["tcId"]), ("Key", t["key"]),
                         ("IV", t["iv"]), ("AAD", t["msg"]), ("PT", ""),
                         ("CT", ""), ("Tag", t["tag"])]
                else:
                    f = [("Count", t["tcId"]), ("Key", t["key"]),
                         ("IV", t["iv"]), ("AAD", t["aad"]),
                         ("PT", t["msg"]), ("CT", t["ct"]),
                         ("Tag", t["tag"])]
                f.append(("Result", t["result"]))
                f.append(("Flags", ",".join(t["flags"]) or "-"))
                block(out, f)


spec()
wycheproof("aes_gcm_test.json", "wycheproof-gcm.txt", False)
wycheproof("aes_gmac_test.json", "wycheproof-gmac.txt", True)
