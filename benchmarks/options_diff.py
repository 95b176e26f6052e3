#!/usr/bin/env python3
"""options_diff.py: do two RocksDB runs use the same options?

A baseline configured another way than the systems it is compared with (db_bench
builds RocksDB's persistent read cache only from flags, the others read an
OPTIONS file) is compared on the options RocksDB itself wrote down: the
OPTIONS-NNNNNN file each run left in its database (`tierfs cat` reads it out of
TierFS). Every option of every section is compared; the differences named with
--allow (SECTION.KEY or KEY, each with its reason in the calling script) are
reported and accepted, any other makes the exit status 1.

  options_diff.py A.ini B.ini [--allow KEY ...]
      prints "same options" or one line per difference; exit 0 when every
      difference is allowed, 1 otherwise, 2 for a file that is no OPTIONS file
"""
import argparse
import configparser
import sys

# Bookkeeping, not configuration: which RocksDB wrote the file.
IGNORED_SECTIONS = ("Version",)


def read_options(path):
    """{(section, key): value} of a RocksDB OPTIONS file. Sections keep their
    names as written ("CFOptions \\"default\\"", "TableOptions/BlockBasedTable
    \\"default\\""); keys are case-sensitive."""
    parser = configparser.ConfigParser(interpolation=None, strict=False,
                                       comment_prefixes=("#",), inline_comment_prefixes=None)
    parser.optionxform = str
    try:
        with open(path) as f:
            parser.read_file(f)
    except (OSError, configparser.Error) as e:
        raise SystemExit("options_diff.py: %s: %s" % (path, e))
    if not parser.has_section("DBOptions"):
        raise SystemExit("options_diff.py: %s: no [DBOptions]: not a RocksDB OPTIONS file" % path)
    return {(s, k): v.strip() for s in parser.sections() if s not in IGNORED_SECTIONS
            for k, v in parser.items(s)}


def differences(a, b):
    """[(section, key, value in a or None, value in b or None)], sorted."""
    return [(s, k, a.get((s, k)), b.get((s, k)))
            for s, k in sorted(set(a) | set(b)) if a.get((s, k)) != b.get((s, k))]


def allowed(section, key, allow):
    """A difference is allowed when --allow names its KEY or SECTION.KEY (the
    section up to its first space or slash: DBOptions, CFOptions, TableOptions)."""
    kind = section.split(" ")[0].split("/")[0]
    return key in allow or "%s.%s" % (kind, key) in allow


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--allow", action="append", default=[],
                    help="KEY or SECTION.KEY whose difference is expected")
    args = ap.parse_args(argv)
    diffs = differences(read_options(args.a), read_options(args.b))
    if not diffs:
        print("same options")
        return 0
    bad = 0
    for section, key, va, vb in diffs:
        ok = allowed(section, key, args.allow)
        bad += not ok
        print("%s [%s] %s: %s | %s" % ("allowed  " if ok else "DIFFERENT", section, key,
                                        "(unset)" if va is None else va,
                                        "(unset)" if vb is None else vb))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
