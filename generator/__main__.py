"""`python -m generator`: the same as `pnp`, or one line saying how to get the libraries it needs.

Run with a Python other than the virtualenv's (the system one, say), pnp would otherwise end in
an import error deep inside a command. Free of 3.11-only syntax so an older Python gets the line too.
"""
import importlib.util
import sys

# The import names of pyproject.toml's dependencies.
MODULES = ["weasyprint", "pydyf", "reportlab", "PIL", "yaml", "jinja2", "pikepdf", "fontTools", "svglib",
           "click", "pydantic", "tomlkit", "defusedxml", "pypdfium2", "watchfiles", "uharfbuzz", "rich"]
FIX = "run `make kit` in the pnp folder, then `./pnp ...` (it uses the virtualenv make kit sets up)"


def missing_message(modules=None):
    """None when this Python can run pnp, else the line to print."""
    if sys.version_info < (3, 11):
        return "pnp needs Python 3.11 or newer (this is %d.%d, %s): %s" % (
            sys.version_info[0], sys.version_info[1], sys.executable, FIX)
    missing = [m for m in modules or MODULES if importlib.util.find_spec(m) is None]
    if missing:
        return "this Python (%s) lacks libraries pnp needs (%s): %s" % (sys.executable, ", ".join(missing), FIX)
    return None


if __name__ == "__main__":
    problem = missing_message()
    if problem:
        sys.stderr.write(problem + "\n")
        sys.exit(1)
    from generator.commands.start import main
    main()
