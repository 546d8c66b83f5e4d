#!/usr/bin/env bash
# Builds the Python release packages of this platform into target/dist/python: an abi3 wheel
# (CPython 3.9 and newer) for x86_64 Linux tagged manylinux_2_17, and the sdist.
#
#   python/scripts/dist.sh        (make dist-python; make dist runs it too)
#
# The wheel is a release build, stripped, linked by zig against glibc 2.17 (maturin
# --compatibility manylinux2014, compiling through cargo-zigbuild: see zigbuild-cargo.sh), with
# the tools pinned by release/tools.sh (zig, cargo-zigbuild, maturin, auditwheel). The script
# then checks what it built and fails with a one-line error otherwise: `auditwheel show` must
# agree on manylinux_2_17, the wheel must hold no bytecode and a stripped native module and weigh
# under 10 MB (MCPWEFT_DIST_MAX_MB: make test, which builds without optimizations, allows
# more), and the sdist must carry the Rust workspace, the license files and the build backend.
# Ends with one summary line.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
root="$(cd "$here/.." && pwd)"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}"
out="$CARGO_TARGET_DIR/dist/python"
max_wheel_bytes=$((${MCPWEFT_DIST_MAX_MB:-10} * 1000 * 1000))

fail() {
    echo "dist (python): $*" >&2
    exit 1
}

started=$SECONDS
bin="$("$root/release/tools.sh")"
# The release venv first: its maturin, cargo-zigbuild and auditwheel, and its `python3`, whose
# pinned ziglang cargo-zigbuild runs as zig (`python3 -m ziglang`).
export PATH="$bin:$PATH"

# The license files must sit beside pyproject.toml (packaging tools refuse paths outside the
# project); they are copies of the root ones, which are the reference.
for license in LICENSE-MIT LICENSE-APACHE; do
    cmp -s "$root/$license" "$here/$license" ||
        fail "python/$license differs from the root $license: copy the root file over it"
done

mkdir -p "$out"
rm -f "$out"/mcpweft-*.whl "$out"/mcpweft-*.tar.gz

# maturin compiles with `cargo rustc`, which a link first on PATH sends through cargo-zigbuild
# (zigbuild-cargo.sh says why not `maturin --zig`); maturin then checks the symbol versions.
shim="$(mktemp -d)"
trap 'rm -rf "$shim"' EXIT
ln -s "$here/scripts/zigbuild-cargo.sh" "$shim/cargo"

cd "$here"
if ! log="$(MCPWEFT_CARGO_PATH="$PATH" PATH="$shim:$PATH" maturin build --release --strip \
    --compatibility manylinux2014 --target x86_64-unknown-linux-gnu --out "$out" 2>&1)"; then
    echo "$log" >&2
    fail "maturin build failed (log above)"
fi
if ! log="$(maturin sdist --out "$out" 2>&1)"; then
    echo "$log" >&2
    fail "maturin sdist failed (log above)"
fi

wheels=("$out"/mcpweft-*-cp39-abi3-*manylinux_2_17_x86_64.whl)
[ -f "${wheels[0]}" ] || fail "no cp39-abi3 manylinux_2_17_x86_64 wheel in $out: $(ls "$out")"
wheel="${wheels[0]}"
sdists=("$out"/mcpweft-*.tar.gz)
[ -f "${sdists[0]}" ] || fail "no sdist in $out"
sdist="${sdists[0]}"

audit="$(auditwheel show "$wheel" 2>&1)" || fail "auditwheel show failed: $audit"
grep -q '"manylinux_2_17_x86_64"' <<<"$audit" ||
    fail "auditwheel does not agree on manylinux_2_17_x86_64: $(tr '\n' ' ' <<<"$audit")"

# The contents: no bytecode, a stripped native module, the license files; the sdist has what a
# build from source needs.
summary="$("$bin/python" - "$wheel" "$sdist" "$max_wheel_bytes" <<'EOF'
import io
import os
import sys
import tarfile
import zipfile

from elftools.elf.elffile import ELFFile  # pyelftools, which auditwheel brings

wheel, sdist, max_wheel = sys.argv[1], sys.argv[2], int(sys.argv[3])


def fail(message: str) -> None:
    sys.exit(f"dist (python): {message}")


with zipfile.ZipFile(wheel) as zf:
    names = zf.namelist()
    stale = [n for n in names if "__pycache__" in n or n.endswith((".pyc", ".pyo"))]
    if stale:
        fail(f"the wheel carries bytecode: {stale[:3]}")
    natives = [n for n in names if n.startswith("mcpweft/_native") and n.endswith(".so")]
    if natives != ["mcpweft/_native.abi3.so"]:
        fail(f"the wheel's native module is not one abi3 .so: {natives}")
    native = zf.read(natives[0])
    elf = ELFFile(io.BytesIO(native))
    if elf.get_section_by_name(".symtab") is not None or elf.get_section_by_name(".debug_info") is not None:
        fail("the wheel's native module is not stripped")
    for needed in ("mcpweft/__init__.py", "mcpweft/py.typed", "mcpweft/_native.pyi"):
        if needed not in names:
            fail(f"the wheel lacks {needed}")
    licenses = {os.path.basename(n) for n in names if ".dist-info/licenses/" in n}
    if licenses != {"LICENSE-MIT", "LICENSE-APACHE"}:
        fail(f"the wheel's license files are {sorted(licenses)}")
    metadata = next(zf.read(n).decode() for n in names if n.endswith(".dist-info/METADATA"))
    if "License-Expression: MIT OR Apache-2.0" not in metadata:
        fail("the wheel's metadata has no SPDX license expression")
    entry_points = next(zf.read(n).decode() for n in names if n.endswith(".dist-info/entry_points.txt"))
    if "mcpweft=mcpweft.cli:main" not in entry_points.replace(" ", ""):
        fail("the wheel lacks the mcpweft console script")
    native_size = len(native)

with tarfile.open(sdist) as tf:
    names = tf.getnames()
top = names[0].split("/")[0]
for needed in (
    "pyproject.toml",
    "Cargo.toml",
    "Cargo.lock",
    "core/Cargo.toml",
    "core/src/lib.rs",
    "bindings/bridge/Cargo.toml",
    "bindings/python/Cargo.toml",
    "bindings/python/src/lib.rs",
    "build_backend/mcpweft_build.py",
    "src/mcpweft/__init__.py",
    "LICENSE-MIT",
    "LICENSE-APACHE",
):
    if f"{top}/{needed}" not in names:
        fail(f"the sdist lacks {needed}")
stale = [n for n in names if "__pycache__" in n or n.endswith(".pyc")]
if stale:
    fail(f"the sdist carries bytecode: {stale[:3]}")

wheel_size = os.path.getsize(wheel)
if wheel_size >= max_wheel:
    fail(f"the wheel weighs {wheel_size / 1e6:.1f} MB, over {max_wheel / 1e6:.0f} MB")
print(
    f"{os.path.basename(wheel)} {wheel_size / 1e6:.1f} MB (native module {native_size / 1e6:.1f} MB), "
    f"{os.path.basename(sdist)} {os.path.getsize(sdist) / 1e6:.1f} MB"
)
EOF
)"

echo "dist (python): $summary, manylinux_2_17_x86_64 per auditwheel, $((SECONDS - started)) s"
