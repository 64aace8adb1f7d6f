# Sourced by the scripts here: `venv_install PYTHON ARGS...` installs ARGS (pip's arguments) into the venv whose
# interpreter is PYTHON, quietly, and fails as pip does.
#
# It uses uv (from PyPI, put in .cache/uv once by pip) and pip where uv cannot be had: on a fresh machine uv
# installed the test extras in 20 s where pip took 123 s (2026-12-07, no cache either way), and CI's setup
# installs five venvs before the kernel and browser tests can start. The venvs keep their own pip (the Colab
# venv's install check runs pip itself).

_install_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
_uv="$_install_root/.cache/uv/bin/uv"

_have_uv() {
    [ -z "${MCP_WIDGETS_NO_UV:-}" ] || return 1  # MCP_WIDGETS_NO_UV=1: pip only
    [ -x "$_uv" ] && return 0
    # Two scripts may get here at once (test.sh runs the setup parts side by side): one makes it, under a lock.
    mkdir -p "$_install_root/.cache"
    (
        flock 9
        if [ ! -x "$_uv" ]; then
            local base
            base="$(python3 -c 'import sys; print(sys._base_executable)')"
            "$base" -m venv "$_install_root/.cache/uv" &&
                "$_install_root/.cache/uv/bin/python" -m pip install -q --disable-pip-version-check uv 2>&1 |
                grep -v "is ignored" || true
        fi
    ) 9>"$_install_root/.cache/uv.lock"
    [ -x "$_uv" ]
}

venv_install() {  # PYTHON ARGS...
    local python=$1 out
    shift
    if _have_uv; then
        if out="$("$_uv" pip install --quiet --python "$python" "$@" 2>&1)"; then
            [ -z "$out" ] || echo "$out"
            return 0
        fi
        echo "$out" >&2
        echo "install: uv failed (above); pip instead" >&2
    fi
    if ! out="$("$python" -m pip install --quiet --disable-pip-version-check "$@" 2>&1)"; then
        echo "$out" >&2
        return 1
    fi
    [ -z "$out" ] || echo "$out" | grep -v "is ignored" || true
}
