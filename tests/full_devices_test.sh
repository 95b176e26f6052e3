#!/usr/bin/env bash
# Real full devices (issue 14, item 7): Debian's stock db_bench writes through
# the preloaded plugin onto tiers that are small tmpfs mounts, so the device,
# not TierFS's account, says ENOSPC. Checks that spill works and nothing
# acknowledged is lost, that the error names the tiers when all are full, that
# the store opens after the device grows and db_bench continues, and (case 3)
# that a tier forced read-only under a running db_bench gives a clear error and
# no corruption. Keys are read back with the tool's built-in ldb (no preload);
# fillseq writes keys in order, so what survives must be keys 0..n-1.
#   tests/full_devices_test.sh BUILD_DIR
# Needs root (mount); otherwise prints SKIPPED and exits 77.
set -euo pipefail
BUILD="$1"
PLUGIN="$BUILD/libtierfs.so"
. "$(dirname "${BASH_SOURCE[0]}")/plugin_preload.sh"  # sets PRELOAD (ASan runtime first)
TMP="$(mktemp -d "${TMPDIR:-/tmp}/tierfs-full-XXXXXX")"
MOUNTS=()
cleanup() {
  local m
  for m in "${MOUNTS[@]}"; do
    mountpoint -q "$m" && { umount "$m" 2>/dev/null || umount -l "$m"; }
  done
  rm -rf "$TMP"
}
trap cleanup EXIT
# mount_tmpfs DIR SIZE: a fresh tmpfs of SIZE at DIR, unmounted at exit.
mount_tmpfs() {
  mkdir -p "$1"
  mount -t tmpfs -o "size=$2" tmpfs "$1" || return 1
  MOUNTS=("$1" "${MOUNTS[@]}")
}
if ! mount_tmpfs "$TMP/probe" 1m 2>"$TMP/probe.err"; then
  echo "SKIPPED: cannot mount tmpfs (needs root / CAP_SYS_ADMIN): $(cat "$TMP/probe.err")"
  exit 77
fi

passed=0
failed=0
check() {  # check NAME CONDITION-RESULT
  if [ "$2" = ok ]; then passed=$((passed + 1)); echo "ok   $1"; else failed=$((failed + 1)); echo "FAIL $1: $2"; fi
}
# bench OUT URI ARGS...: db_bench fillseq-style run; returns its status.
bench() {
  local out="$1" uri="$2"; shift 2
  LD_PRELOAD="$PRELOAD" db_bench --fs_uri="$uri" --db=/db --value_size=200 --compression_type=none \
    --write_buffer_size=1048576 "$@" >"$out" 2>&1
}
# keys URI OUT: the database's keys in hex, one a line; returns ldb's status.
keys() {
  "$BUILD/tierfs" --fs_uri="$1" ldb --db=/db scan --key_hex --value_hex >"$2.scan" 2>"$2.err" || return 1
  cut -d' ' -f1 "$2.scan" >"$2"
}
# prefix KEYS: "ok" when KEYS holds exactly db_bench's first n keys in order, n >= 1.
prefix() {
  local n
  n=$(wc -l <"$1")
  [ "$n" -gt 0 ] || { echo "no keys"; return; }
  printf '0x%016X3030303030303030\n' $(seq 0 $((n - 1))) | cmp -s - "$1" && echo ok ||
    echo "$n keys, not keys 0..$((n - 1)): first $(head -1 "$1"), last $(tail -1 "$1")"
}
put_error() { grep -o 'put error.*' "$1" | head -1; }

# 1. Tier 1's device (8 MiB) is smaller than its configured 64 MiB: it says ENOSPC first and
# its segments spill to tier 2. Tier 0 (the journal's tier) is full by TierFS's account only;
# case 1b fills tier 0's device.
C="$TMP/c1"
mount_tmpfs "$C/t0" 32m && mount_tmpfs "$C/t1" 8m && mount_tmpfs "$C/t2" 64m
URI="tierfs://$C/t0:2M,$C/t1:64M,$C/t2:256M;segment_size:256K"
rc=0; bench "$C/bench.out" "$URI" --benchmarks=fillseq --num=100000 || rc=$?
check "1: db_bench fillseq of 21 MB over an 8 MiB device succeeds" \
  "$([ "$rc" = 0 ] && echo ok || echo "status $rc: $(put_error "$C/bench.out")")"
avail=$(df --output=avail "$C/t1" | tail -1)
"$BUILD/tierfs" --fs_uri="$URI" stats >"$C/stats.out"
segs2=$(awk -v p="$C/t2" '$NF == p {print $8}' "$C/stats.out")
check "1: tier 1's device filled and tier 2 took segments" \
  "$([ "$avail" -lt 1024 ] && [ "${segs2:-0}" -gt 0 ] && echo ok || echo "tier 1 free ${avail} KiB, tier 2 segments '${segs2}'")"
keys "$URI" "$C/keys" || true
check "1: every one of the 100000 keys reads back" \
  "$([ "$(wc -l <"$C/keys")" = 100000 ] && prefix "$C/keys" || echo "$(wc -l <"$C/keys") keys: $(head -2 "$C/keys.err")")"

# 1b. Tier 0's device (8 MiB, holding the journal) is smaller than its configured 64 MiB: data
# stops at the 4 MiB kept for meta/ (env/meta_reserve.h) and spills to tier 1, so no journal
# append meets ENOSPC (before the reserve, 1 run in 6 failed with "TierFS journal write
# failed: ... No space left on device"). TIERFS_FULL_TIER0_RUNS=N repeats it N times.
for run in $(seq "${TIERFS_FULL_TIER0_RUNS:-1}"); do
  C="$TMP/c1b-$run"
  mount_tmpfs "$C/t0" 8m && mount_tmpfs "$C/t1" 64m
  URI="tierfs://$C/t0:64M,$C/t1:256M;segment_size:256K"
  rc=0; bench "$C/bench.out" "$URI" --benchmarks=fillseq --num=100000 || rc=$?
  check "1b.$run: db_bench fillseq of 21 MB over an 8 MiB tier 0 succeeds" \
    "$([ "$rc" = 0 ] && echo ok || echo "status $rc: $(put_error "$C/bench.out")")"
  check "1b.$run: no journal write failed" \
    "$(! grep -q 'journal write failed' "$C/bench.out" && echo ok || grep -m1 'journal write failed' "$C/bench.out")"
  avail0=$(df --output=avail "$C/t0" | tail -1 | tr -d " ")
  "$BUILD/tierfs" --fs_uri="$URI" stats >"$C/stats.out"
  segs0=$(awk -v p="$C/t0" '$NF == p {print $8}' "$C/stats.out")
  segs1=$(awk -v p="$C/t1" '$NF == p {print $8}' "$C/stats.out")
  spills1=$(awk -v p="$C/t1" '$NF == p {print $16}' "$C/stats.out")
  # Tier 0 took data up to about the reserve (its free space stays near 4 MiB), tier 1 the rest.
  check "1b.$run: tier 0 took data up to the reserve and tier 1 took the spill" \
    "$([ "${segs0:-0}" -gt 0 ] && [ "$avail0" -ge 3072 ] && [ "${segs1:-0}" -gt 0 ] &&
       [ "${spills1:-0}" -gt 0 ] && echo ok ||
       echo "tier 0 free ${avail0} KiB, segments '${segs0}'; tier 1 segments '${segs1}', spills '${spills1}'")"
  echo "     (tier 0: $segs0 segments, ${avail0} KiB free on its device; tier 1: $segs1 segments, $spills1 spills in)"
  keys "$URI" "$C/keys" || true
  check "1b.$run: every one of the 100000 keys reads back" \
    "$([ "$(wc -l <"$C/keys")" = 100000 ] && prefix "$C/keys" || echo "$(wc -l <"$C/keys") keys: $(head -2 "$C/keys.err")")"
  umount "$C/t0" "$C/t1"
done

# 2. Every tier's device full (4 MiB each, configured 64 MiB): db_bench fails naming the
# device; what is there is a prefix; after growing the devices db_bench continues.
C="$TMP/c2"
mount_tmpfs "$C/t0" 4m && mount_tmpfs "$C/t1" 4m
URI="tierfs://$C/t0:64M,$C/t1:64M;segment_size:256K"
rc=0; bench "$C/bench.out" "$URI" --benchmarks=fillseq --num=100000 || rc=$?
err=$(put_error "$C/bench.out")
check "2: db_bench fails when every device is full" "$([ "$rc" != 0 ] && echo ok || echo "status 0")"
# Seen three ways, all naming the device's path: TierFS's own message (every tier, ", device
# full"), the journal's append on tier 0 (meta/JOURNAL-n), or a backing file's write on a tier
# (data/<id>) whose ENOSPC came back as it was.
check "2: its error says no space and names the tier" \
  "$(echo "$err" | grep -q "No space left on device" && echo "$err" | grep -qE "$C/t[01][/)]" &&
     echo ok || echo "'$err'")"
echo "     (the error: ${err:0:220})"
keys "$URI" "$C/keys" && kr=ok || kr="ldb failed: $(head -2 "$C/keys.err")"
check "2: the store opens after the failure and holds a prefix of fillseq's keys" \
  "$([ "$kr" = ok ] && prefix "$C/keys" || echo "$kr")"
mount -o remount,size=64m "$C/t0" && mount -o remount,size=64m "$C/t1"
# (Debian's db_bench asserts on fillseq with --use_existing_db, so it continues with overwrite:
# 60000 writes of random keys among the 100000.)
rc=0; bench "$C/bench2.out" "$URI" --benchmarks=overwrite --use_existing_db=1 --num=100000 --writes=60000 || rc=$?
check "2: after the devices grow db_bench writes again" \
  "$([ "$rc" = 0 ] && grep -q 'overwrite *:' "$C/bench2.out" && echo ok || echo "status $rc: $(put_error "$C/bench2.out")")"
keys "$URI" "$C/keys2" && kr=ok || kr="ldb failed: $(head -2 "$C/keys2.err")"
# What was there is still there, and the store holds more keys, all db_bench's.
check "2: then the earlier keys and the new ones read back" \
  "$([ "$kr" = ok ] && [ -z "$(LC_ALL=C comm -23 "$C/keys" "$C/keys2")" ] &&
     [ "$(wc -l <"$C/keys2")" -gt "$(wc -l <"$C/keys")" ] &&
     ! grep -qvE '^0x0000000000[0-9A-F]{6}3030303030303030$' "$C/keys2" && echo ok ||
     echo "$kr; $(wc -l <"$C/keys") keys before, $(wc -l <"$C/keys2") after")"

# 3. A tier forced read-only under a running db_bench. A tmpfs cannot be: `mount -o
# remount,ro` is refused (EBUSY) while a file on it is open for writing, as TierFS's backing
# files are. So tier 1 is ext4 on a loop device mounted errors=remount-ro, and ext4's
# trigger_fs_error makes it go read-only at once, as a failing disk would. The device "comes
# back" by being unmounted and mounted again (ext4 refuses remount,rw after it aborted its
# journal). What ext4 had not written back is gone, as after a crash, so db_bench syncs each
# write (--sync=1): every acknowledged key is durable and what is there must be a prefix.
# (Without --sync, 1 run in ~10 lost one whole WAL's keys, 4161, while the next WAL's survived:
# the device dropped the older unsynced file and RocksDB replayed the newer; not a TierFS
# fault, since none of those writes was synced.)
C="$TMP/c3"
if ! command -v mkfs.ext4 >/dev/null || ! command -v losetup >/dev/null || ! losetup -f >/dev/null 2>&1; then
  echo "SKIPPED case 3: no mkfs.ext4 or no free loop device"
else
  mount_tmpfs "$C/t0" 32m
  mkdir -p "$C/t1"
  truncate -s 160M "$C/t1.img"
  mkfs.ext4 -q -F "$C/t1.img"
  mount -o loop,errors=remount-ro "$C/t1.img" "$C/t1"
  MOUNTS=("$C/t1" "${MOUNTS[@]}")
  dev=$(findmnt -n -o SOURCE "$C/t1")
  URI="tierfs://$C/t0:1M,$C/t1:1G;segment_size:256K"
  bench "$C/bench.out" "$URI" --benchmarks=fillseq --num=1000000 --sync=1 &
  pid=$!
  # Once tier 1 holds 1 MiB of data, the disk "fails".
  for _ in $(seq 200); do
    [ "$(du -sk "$C/t1/data" 2>/dev/null | cut -f1)" -gt 1024 ] 2>/dev/null && break
    sleep 0.05
  done
  echo "full_devices_test" >"/sys/fs/ext4/${dev#/dev/}/trigger_fs_error"
  rc=0; wait "$pid" || rc=$?
  err=$(put_error "$C/bench.out")
  check "3: db_bench fails when tier 1 goes read-only under it" "$([ "$rc" != 0 ] && echo ok || echo "status 0")"
  # A write says EROFS, an fsync after ext4's abort EIO; both name the backing file or directory.
  check "3: its error says read-only or I/O error and names the path on tier 1" \
    "$(echo "$err" | grep -qE "$C/t1/.*(Read-only file system|Input/output error)" && echo ok || echo "'$err'")"
  echo "     (the error: ${err:0:220})"
  umount "$C/t1"
  mount -o loop,errors=remount-ro "$C/t1.img" "$C/t1"
  keys "$URI" "$C/keys" && kr=ok || kr="ldb failed: $(head -2 "$C/keys.err")"
  check "3: after the disk comes back the store opens and holds a prefix of fillseq's keys" \
    "$([ "$kr" = ok ] && prefix "$C/keys" || echo "$kr")"
  if [ "$kr" != ok ]; then
    # Seen once in CI (2026-12-02), never since in hundreds of runs: a table file in the
    # MANIFEST read short after the remount. What the next failure needs to be explained.
    echo "     diagnostics: the segments of the database's files, then the TierFS log's tail"
    "$BUILD/tierfs" --fs_uri="$URI" --db=/db segments 2>&1 | sed 's/^/       /' | head -80
    ls -ls "$C/t0/data" "$C/t1/data" 2>&1 | sed 's/^/       /'
    tail -30 "$C/t0/meta/LOG" 2>&1 | sed 's/^/       /'
    grep -i 'error\|sync' "$C/bench.out" | head -5 | sed 's/^/       /'
  fi
  echo "     ($(wc -l <"$C/keys") keys)"
  # Before RocksDB writes again, check may report the segments of the WAL db_bench had not
  # synced as lost (their bytes never left ext4's page cache): allowed, as after a crash.
  "$BUILD/tierfs" --fs_uri="$URI" check >"$C/check1.out" 2>&1 || true
  echo "     (tierfs check at reopen: $(grep -c 'not repairable' "$C/check1.out") unrepairable finding(s)$(
    grep -o 'not repairable /db/[^:]*' "$C/check1.out" | sed 's/not repairable / in /' | sort -u | tr '\n' ' '))"
  check "3: the only findings at reopen are in WAL files" \
    "$(! grep 'not repairable /' "$C/check1.out" | grep -qv 'not repairable /db/[0-9]*\.log:' && echo ok || cat "$C/check1.out")"
  rc=0; bench "$C/bench2.out" "$URI" --benchmarks=overwrite --use_existing_db=1 --num=100000 --writes=20000 || rc=$?
  check "3: db_bench writes to the store again" \
    "$([ "$rc" = 0 ] && grep -q 'overwrite *:' "$C/bench2.out" && echo ok || echo "status $rc: $(put_error "$C/bench2.out")")"
  "$BUILD/tierfs" --fs_uri="$URI" check >"$C/check2.out" 2>&1 || true
  check "3: then tierfs check finds the store clean" \
    "$(grep -q '^clean: no findings' "$C/check2.out" && echo ok || tail -4 "$C/check2.out")"
fi

# 4. A tier that disappears under a running db_bench: tier 1's directory is renamed away (files
# already open keep working; a new backing file cannot be made), then comes back.
C="$TMP/c4"
mount_tmpfs "$C/t0" 32m && mount_tmpfs "$C/m1" 256m
mkdir "$C/m1/tier"
URI="tierfs://$C/t0:1M,$C/m1/tier:1G;segment_size:256K"
bench "$C/bench.out" "$URI" --benchmarks=fillseq --num=1000000 &
pid=$!
for _ in $(seq 200); do
  [ "$(du -sk "$C/m1/tier/data" 2>/dev/null | cut -f1)" -gt 4096 ] 2>/dev/null && break
  sleep 0.05
done
mv "$C/m1/tier" "$C/m1/gone"
rc=0; wait "$pid" || rc=$?
err=$(put_error "$C/bench.out")
check "4: db_bench fails when tier 1's directory disappears" "$([ "$rc" != 0 ] && echo ok || echo "status 0")"
check "4: its error names the missing path on tier 1" \
  "$(echo "$err" | grep -q "No such file or directory.*$C/m1/tier/" && echo ok || echo "'$err'")"
echo "     (the error: ${err:0:220})"
rc=0; "$BUILD/tierfs" --fs_uri="$URI" ldb --db=/db scan >/dev/null 2>"$C/gone.err" || rc=$?
check "4: while it is gone the store refuses to open, naming the tier" \
  "$([ "$rc" != 0 ] && grep -q "tier 1 ($C/m1/tier): directory does not exist" "$C/gone.err" && echo ok ||
     echo "status $rc: $(head -2 "$C/gone.err")")"
mv "$C/m1/gone" "$C/m1/tier"
keys "$URI" "$C/keys" && kr=ok || kr="ldb failed: $(head -2 "$C/keys.err")"
check "4: after it comes back the store opens and holds a prefix of fillseq's keys" \
  "$([ "$kr" = ok ] && prefix "$C/keys" || echo "$kr")"
echo "     ($(wc -l <"$C/keys") keys)"
"$BUILD/tierfs" --fs_uri="$URI" check >"$C/check.out" 2>&1 || true
check "4: tierfs check finds the store clean" \
  "$(grep -q '^clean: no findings' "$C/check.out" && echo ok || tail -4 "$C/check.out")"

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
