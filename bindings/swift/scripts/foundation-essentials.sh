#!/usr/bin/env bash
# Rewrites the Swift source uniffi-bindgen generated (the file named, in place) so that off
# Apple platforms it imports FoundationEssentials instead of Foundation: a program linked with
# the static Swift standard library then carries neither FoundationInternationalization nor
# ICU nor CoreFoundation, which it would map, relocate and register at every start. What the
# generated code takes from Foundation is Data and LocalizedError (which it names
# `Foundation.LocalizedError`, here plain `LocalizedError`), both in FoundationEssentials, and
# NSLock, which is not: its handle maps lock a `UniffiLock`, NSLock itself on Apple platforms
# (and wherever no C library with pthreads is known) and a pthread mutex elsewhere, as
# swift-corelibs-foundation's NSLock is. build.sh runs it on every generation (its digest
# covers this script), so the result is deterministic.
#
#   foundation-essentials.sh FILE
set -euo pipefail

file="$1"
grep -qx 'import Foundation' "$file" || { echo "foundation-essentials.sh: no 'import Foundation' line in $file" >&2; exit 1; }

block="$(mktemp)"
trap 'rm -f "$block"' EXIT
cat >"$block" <<'EOF'
#if canImport(Glibc) || canImport(Musl) || canImport(Android)
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#else
import Android
#endif

// The lock of the handle maps. NSLock is not in FoundationEssentials; off Apple platforms it
// is a pthread mutex, and so is this lock.
fileprivate final class UniffiLock: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)

    init() {
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    func lock() {
        pthread_mutex_lock(mutex)
    }

    func unlock() {
        pthread_mutex_unlock(mutex)
    }
}
#else
import Foundation

fileprivate typealias UniffiLock = NSLock
#endif
EOF

rewritten="$(mktemp)"
trap 'rm -f "$block" "$rewritten"' EXIT
awk -v block="$block" '
  $0 == "import Foundation" { while ((getline line < block) > 0) print line; next }
  { gsub(/NSLock/, "UniffiLock"); gsub(/Foundation\.LocalizedError/, "LocalizedError"); print }
' "$file" >"$rewritten"
# A name still qualified with the module Foundation would not compile off Apple platforms.
if grep -n '\<Foundation\.' "$rewritten" >&2; then
  echo "foundation-essentials.sh: the lines above name the module Foundation" >&2
  exit 1
fi
cat "$rewritten" >"$file"
