"""Getting programs and the runtime onto a device: selective builds for a board
(`build.py`, `build_targets.py`, `selective.py`), firmware manifests
(`freeze.py`), ROMFS images (`romfs.py`), mip packages (`mip_package.py`),
flashing and running over mpremote (`flash.py`, `port_run.py`), import RAM
(`import_ram.py`) and the CLI's dist commands (`commands.py`).
"""
