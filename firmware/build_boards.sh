#!/bin/sh
# Rebuild the binaries in host_tools/targets/boards/ from upstream checkouts
# (their provenance: host_tools/targets/boards/README.md).
#
#   firmware/build_boards.sh MICROPYTHON_DIR [CIRCUITPYTHON_DIR]
#
# MICROPYTHON_DIR: a clone of https://github.com/micropython/micropython;
# CIRCUITPYTHON_DIR: a clone of https://github.com/adafruit/circuitpython
# (left out: only the board firmware is rebuilt). Each is checked out at the
# commit the bundled files were built from (the working trees must be clean).
# Needs make, python3, arm-none-eabi-gcc (Debian gcc-arm-none-eabi,
# libnewlib-arm-none-eabi; 12.2.1 made the bundled files) and, for
# CircuitPython, gcc with 32-bit support (gcc-multilib), network access for
# its submodules and the Python packages of its requirements-dev.txt.
# The new files replace the bundled ones; it ends by printing their sha256s,
# to compare with the README's (another toolchain version gives other bytes).
set -eu

MICROPYTHON_COMMIT=1c3c201149f37fe8d81246191b3127bb198d6306   # v1.29.0-preview
CIRCUITPYTHON_COMMIT=cd3da4a5d894a9648871db7188fc38ee4b344cd4 # 10.3.0-alpha.4

[ $# -ge 1 ] || { sed -n '2,16p' "$0"; exit 2; }
MP=$(cd "$1" && pwd)
CP=
[ $# -ge 2 ] && CP=$(cd "$2" && pwd)
OUT=$(cd "$(dirname "$0")/../host_tools/targets/boards" && pwd)

git -C "$MP" checkout --detach "$MICROPYTHON_COMMIT"
make -C "$MP/mpy-cross"

# board, output file, extra make variables (FROZEN_MANIFEST= leaves out the
# port's test-only frozen modules, which need a git submodule)
build_qemu() {
    board=$1
    out=$2
    shift 2
    make -C "$MP/ports/qemu" BOARD="$board" clean
    make -C "$MP/ports/qemu" BOARD="$board" FROZEN_MANIFEST= "$@"
    cp "$MP/ports/qemu/build-$board/firmware.elf" "$OUT/$out.new"
}

build_qemu MPS2_AN385 micropython-mps2-an385-heap224k.elf MICROPY_FLOAT_IMPL=float MICROPY_HEAP_SIZE=229376
build_qemu MPS2_AN385 micropython-mps2-an385-heap3584k.elf MICROPY_FLOAT_IMPL=float MICROPY_HEAP_SIZE=3670016
# The MPS2_AN500 board's own defaults: double-precision floats, mpy-cross -march=armv7emdp.
build_qemu MPS2_AN500 micropython-mps2-an500-heap448k.elf MICROPY_HEAP_SIZE=458752

if [ -n "$CP" ]; then
    git -C "$CP" checkout --detach "$CIRCUITPYTHON_COMMIT"
    # the port's submodules (ulab, micropython-lib, ...) at the commits CircuitPython pins
    make -C "$CP/ports/unix" fetch-port-submodules
    make -C "$CP/mpy-cross"
    make -C "$CP/ports/unix" VARIANT=standard clean
    # RINGIO=0 works around a compile error in that commit's unix port; the
    # object model (30-bit immediate floats) and float type of CircuitPython boards.
    make -C "$CP/ports/unix" VARIANT=standard MICROPY_PY_FFI=0 FROZEN_MANIFEST= MICROPY_FORCE_32BIT=1 \
        CFLAGS_EXTRA="-DMICROPY_PY_MICROPYTHON_RINGIO=0 -DMICROPY_OBJ_REPR=MICROPY_OBJ_REPR_C -DMICROPY_FLOAT_IMPL=MICROPY_FLOAT_IMPL_FLOAT -DMICROPY_EMIT_X86=0"
    cp "$CP/ports/unix/build-standard/micropython" "$OUT/circuitpython-10.3-unix-i386.new"
    chmod 755 "$OUT/circuitpython-10.3-unix-i386.new"
fi

for new in "$OUT"/*.new; do
    mv "$new" "${new%.new}"
done
cd "$OUT" && sha256sum micropython-*.elf circuitpython-*
