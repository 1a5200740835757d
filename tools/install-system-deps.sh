#!/bin/sh
# The system libraries pnp needs, through this machine's package manager.
#
#   tools/install-system-deps.sh           what building needs (make kit)
#   tools/install-system-deps.sh --test    that, and what the test suite needs (make test)
#
# Building: pango and harfbuzz for WeasyPrint (harfbuzz's subsetter makes font subsetting ~40x
# faster), ghostscript's CMYK ICC profile (pnp export --pdfx without --icc), python's venv.
# Testing: poppler's pdftoppm (the tests rasterise pages), chromium (the gallery's browser test).
# Knows apt (Debian, Ubuntu), dnf (Fedora), pacman (Arch) and Homebrew (macOS); installs only
# what is missing; needs root or sudo when something is (not with Homebrew).
set -eu

with_tests=""
[ "${1:-}" = "--test" ] && with_tests=1

windows_help() {
    cat >&2 <<'EOF'
pnp needs pango and harfbuzz, which this script installs with apt, dnf, pacman or Homebrew.
On Windows the simplest route is WSL: run `wsl --install -d Ubuntu` in PowerShell, open Ubuntu,
clone the project there and run `make kit` (apt is then used). Without WSL, follow WeasyPrint's
Windows instructions (https://doc.courtbouillon.org/weasyprint/stable/first_steps.html#windows:
install MSYS2, then `pacman -S mingw-w64-x86_64-pango`), install Python 3.11 or newer, and run
`python -m venv .venv`, `.venv\Scripts\pip install -e .` and `.venv\Scripts\pnp build`.
On another system, install pango (1.44 or newer), harfbuzz and Python 3.11+ with its venv module
yourself, then run `make kit` again with PNP_SKIP_SYSTEM_DEPS=1.
EOF
}

[ -n "${PNP_SKIP_SYSTEM_DEPS:-}" ] && exit 0

case "$(uname -s 2>/dev/null || echo unknown)" in
    MINGW*|MSYS*|CYGWIN*|Windows*) windows_help; exit 1 ;;
esac

# One list per package manager, the same libraries under each one's names.
if command -v apt-get >/dev/null 2>&1; then
    manager=apt
    build="libpango-1.0-0 libpangoft2-1.0-0 libharfbuzz-subset0 libgs-common"
    tests="poppler-utils chromium"
    python3 -c "import ensurepip, venv" 2>/dev/null || build="$build python3-venv"
elif command -v dnf >/dev/null 2>&1; then
    manager=dnf
    build="pango harfbuzz ghostscript"
    tests="poppler-utils chromium"
elif command -v pacman >/dev/null 2>&1; then
    manager=pacman
    build="pango harfbuzz ghostscript"
    tests="poppler chromium"
elif command -v brew >/dev/null 2>&1; then
    manager=brew
    build="pango harfbuzz ghostscript"
    tests="poppler chromium"
else
    echo "error: found none of apt-get, dnf, pacman or brew to install pnp's system libraries" >&2
    windows_help
    exit 1
fi
wanted="$build"
[ -n "$with_tests" ] && wanted="$build $tests"

installed() {
    case "$manager" in
        apt) dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed" ;;
        dnf) rpm -q "$1" >/dev/null 2>&1 ;;
        pacman) pacman -Q "$1" >/dev/null 2>&1 ;;
        brew) brew list --versions "$1" >/dev/null 2>&1 ;;
    esac
}

need=""
for pkg in $wanted; do
    installed "$pkg" || need="$need $pkg"
done
[ -z "$need" ] && exit 0
echo "installing with $manager:$need"

if [ "$manager" = brew ]; then
    # Homebrew refuses to run as root; chromium is a cask there.
    formulae=$(echo "$need" | sed 's/ chromium//')
    [ -n "$(echo "$formulae" | tr -d ' ')" ] && brew install $formulae
    case "$need" in *chromium*) brew install --cask chromium ;; esac
    exit 0
fi
if [ "$(id -u)" -eq 0 ]; then sudo=""; elif command -v sudo >/dev/null 2>&1; then sudo="sudo"; else
    echo "error: need root or sudo to install:$need" >&2; exit 1; fi
case "$manager" in
    apt)
        $sudo apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $need ;;
    dnf) $sudo dnf install -y $need ;;
    pacman) $sudo pacman -S --needed --noconfirm $need ;;
esac
