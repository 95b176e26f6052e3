# Sourced by the tests that run Debian's stock tools with the plugin under
# LD_PRELOAD (stock_tools_test.sh, metrics_test.sh, admin_tool_test.sh): sets PRELOAD, the list
# for LD_PRELOAD, from PLUGIN (the path of libtierfs.so).
#
# A plugin built with ASan (tests/sanitizers/run.sh asan) needs ASan's runtime
# loaded first, before the uninstrumented tool's own libraries: it goes ahead
# of the plugin. The tools then run without the leak check: db_bench leaks its
# block cache at exit (seen: rocksdb::NewLRUCache from db_bench's main), and
# the tools are not built with frame pointers, so a leak's stack stops at the
# allocator and cannot be told apart or suppressed. The plugin's own leaks are
# checked by the rest of the suite.
PRELOAD="$PLUGIN"
ASAN_RUNTIME="$(ldd "$PLUGIN" | awk '$1 ~ /^libasan/ {print $3}')"
if [ -n "$ASAN_RUNTIME" ]; then
  PRELOAD="$ASAN_RUNTIME $PLUGIN"
  export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
fi
