#!/usr/bin/env python3
"""Tests of options_diff.py: the same options pass, any difference fails
unless allowed, and a file that is no OPTIONS file is named."""
import contextlib
import io
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import options_diff  # noqa: E402

OPTIONS = """# This is a RocksDB option file.
[Version]
  rocksdb_version=7.8.3
  options_file_version=1.1

[DBOptions]
  wal_dir=/fast/wal
  max_background_jobs=2

[CFOptions "default"]
  write_buffer_size=4194304
  compression=kNoCompression

[TableOptions/BlockBasedTable "default"]
  block_size=4096
  filter_policy=bloomfilter:10:false
"""


class OptionsDiffTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="options-diff-test-")

    def tearDown(self):
        self.tmp.cleanup()

    def write(self, name, text):
        path = os.path.join(self.tmp.name, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def run_main(self, *args):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            code = options_diff.main(list(args))
        return code, out.getvalue()

    def test_the_same_options_pass(self):
        a = self.write("a.ini", OPTIONS)
        # Another RocksDB version and other indentation: the same options.
        b = self.write("b.ini", OPTIONS.replace("7.8.3", "7.8.2").replace("\n  ", "\n"))
        self.assertEqual(self.run_main(a, b), (0, "same options\n"))

    def test_a_difference_fails_and_is_named(self):
        a = self.write("a.ini", OPTIONS)
        b = self.write("b.ini", OPTIONS.replace("block_size=4096", "block_size=16384"))
        code, out = self.run_main(a, b)
        self.assertEqual(code, 1)
        self.assertIn('DIFFERENT [TableOptions/BlockBasedTable "default"] block_size: 4096 | 16384',
                      out)

    def test_a_missing_option_is_a_difference(self):
        a = self.write("a.ini", OPTIONS)
        b = self.write("b.ini", OPTIONS.replace("  max_background_jobs=2\n", ""))
        code, out = self.run_main(a, b)
        self.assertEqual(code, 1)
        self.assertIn("[DBOptions] max_background_jobs: 2 | (unset)", out)

    def test_allowed_differences_pass_and_are_reported(self):
        a = self.write("a.ini", OPTIONS)
        b = self.write("b.ini", OPTIONS.replace("wal_dir=/fast/wal", "wal_dir=")
                       .replace("block_size=4096", "block_size=8192"))
        code, out = self.run_main(a, b, "--allow", "wal_dir", "--allow", "TableOptions.block_size")
        self.assertEqual(code, 0)
        self.assertIn("allowed   [DBOptions] wal_dir: /fast/wal | ", out)
        # SECTION.KEY allows that section's key only.
        code, _ = self.run_main(a, b, "--allow", "wal_dir", "--allow", "CFOptions.block_size")
        self.assertEqual(code, 1)

    def test_not_an_options_file(self):
        a = self.write("a.ini", OPTIONS)
        b = self.write("b.ini", "[Something]\nx=1\n")
        with self.assertRaises(SystemExit) as e:
            self.run_main(a, b)
        self.assertIn("b.ini: no [DBOptions]", str(e.exception.code))


if __name__ == "__main__":
    unittest.main()
