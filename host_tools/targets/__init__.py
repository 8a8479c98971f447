"""Running device code and programs on the execution targets: CPython, unix
MicroPython, MicroPython on WebAssembly, CircuitPython (`ports.py`), the
emulated Arm boards under QEMU (`board.py`, firmware in `boards/`), and `host_tools.run` (`run.py`,
with the script it runs on the device in `device/`).

`host_tools.targets.TARGETS` and the names below are public.
"""

from host_tools.targets.ports import (  # noqa: F401 (the package's public names)
    BOARD_TARGETS,
    BOARDS_DIR,
    DEVICE_PACKAGES,
    TARGETS,
    TargetError,
    circuitpython_binary,
    installed_script,
    micropython_binary,
    run_code,
    stage_files,
    unavailable,
    wasm_binary,
)
