#!/usr/bin/env python3
"""Scores find_usages' references (not calls) against an oracle's: precision and recall per
confidence floor, on (target file, target name line, usage file, usage line) keys.

Usage: usages_score.py NEXUS.tsv ORACLE.tsv [--examples N]

Both files are `target_path target_line usage_path usage_line kind confidence` rows
(`nexus-usages` writes the engine's and a SCIP index's; `py_usages.py` writes jedi's). Only
targets the oracle defines (`#target path line` lines, and every usage's target) and files it
read (`#files` lines, and every path in its rows) are compared, so a kind of target or a file the oracle
does not cover counts neither way.
"""

import argparse
import collections


def read(path):
    rows, files, targets = [], set(), set()
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("#files\t"):
                files.update(p for p in line.rstrip("\n").split("\t")[1:] if p)
                continue
            if line.startswith("#target\t"):
                _, tp, tl = line.rstrip("\n").split("\t")
                targets.add((tp, int(tl)))
                continue
            parts = line.rstrip("\n").split("\t")
            if len(parts) < 6:
                continue
            tp, tl, up, ul, kind, conf = parts[:6]
            rows.append(((tp, int(tl), up, int(ul)), kind, float(conf)))
    return rows, files, targets


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("nexus")
    parser.add_argument("oracle")
    parser.add_argument("--examples", type=int, default=0)
    args = parser.parse_args()
    nexus, _, _ = read(args.nexus)
    oracle, files, targets = read(args.oracle)
    reference = {key for key, _, _ in oracle}
    targets |= {(tp, tl) for tp, tl, _, _ in reference}
    files |= {up for _, _, up, _ in reference}
    in_scope = [
        (key, kind, conf)
        for key, kind, conf in nexus
        if (key[0], key[1]) in targets and key[2] in files
    ]
    print(f"oracle: {len(reference)} usages (not calls) of {len(targets)} targets in {len(files)} files")
    print(f"nexus:  {len({k for k, _, _ in in_scope})} usages of those targets in those files "
          f"({len(nexus)} references in all)")
    print(f"{'confidence':<12} {'usages':>7} {'right':>7} {'precision':>9} {'recall':>7}")
    for floor in (0.9, 0.5, 0.0):
        keys = {key for key, _, conf in in_scope if conf >= floor}
        right = keys & reference
        precision = len(right) / len(keys) if keys else 0.0
        recall = len(right) / len(reference) if reference else 0.0
        print(f">= {floor:<9.2f} {len(keys):>7} {len(right):>7} {precision:>9.4f} {recall:>7.4f}")
    kinds = collections.Counter()
    kinds_right = collections.Counter()
    for key, kind, conf in in_scope:
        if conf >= 0.5:
            kinds[kind] += 1
            kinds_right[kind] += key in reference
    print("precision by kind (>= 0.50): " + ", ".join(
        f"{k} {kinds_right[k]}/{n} {kinds_right[k] / n:.3f}" for k, n in kinds.most_common()))
    if args.examples:
        found = {key for key, _, conf in in_scope if conf >= 0.5}
        print("\nwrong (listed, not in the oracle):")
        for key in sorted(found - reference)[: args.examples]:
            print("  ", *key)
        print("missed (in the oracle, not listed):")
        for key in sorted(reference - found)[: args.examples]:
            print("  ", *key)


if __name__ == "__main__":
    main()
