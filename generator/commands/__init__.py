"""The `pnp` commands: `cli` wires every command and option in one place; each other module is a
command that walks the stages in order (read, check, render, sheets, export) and reports what it did.
"""
