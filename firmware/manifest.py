# Freeze the mpy_et runtime and the portable kernels into a MicroPython build:
#     make BOARD=RPI_PICO FROZEN_MANIFEST=/abs/path/to/firmware/manifest.py
# Frozen bytecode runs from flash: the modules cost no RAM for their code.
# To freeze a model too, put its .pte bytes in a module (see README.md in this
# folder) and add it with module(). A trimmed kernel set (selective build)
# replaces portable_kernels/registry.py with a table of the ops a program uses.
include("$(PORT_DIR)/boards/manifest.py")
package("mpy_et", base_path="..", opt=3)
package("portable_kernels", base_path="..", opt=3)
