"""Fast paths that need a native emitter or an ISA (viper, asm_thumb): imported
only where portable_kernels.util.emitters says the port has it; each is tested
bit for bit against the reference kernel it speeds up."""
