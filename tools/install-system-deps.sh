#!/bin/sh
# Debian packages the project needs that a fresh machine may lack:
#   pango/harfbuzz for WeasyPrint (libharfbuzz-subset0 makes font subsetting ~40x faster),
#   poppler-utils for the tests' page rasterising, python3-venv for the virtualenv,
#   libgs-common for a CMYK ICC profile (pnp export --pdfx without --icc),
#   chromium for the gallery's browser test.
# Installs only what is missing; needs root or sudo when something is.
set -eu
need=""
for pkg in libpango-1.0-0 libpangoft2-1.0-0 libharfbuzz-subset0 poppler-utils libgs-common chromium; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || need="$need $pkg"
done
python3 -c "import ensurepip, venv" 2>/dev/null || need="$need python3-venv"
[ -z "$need" ] && exit 0
echo "installing Debian packages:$need"
if [ "$(id -u)" -eq 0 ]; then sudo=""; elif command -v sudo >/dev/null; then sudo="sudo"; else
    echo "error: need root or sudo to install:$need" >&2; exit 1; fi
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $need
